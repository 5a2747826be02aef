"""PageRank and degree over the code graph, from a sparse matrix assembled straight from the snapshot's columns of
uses (each use's weight summed per pair of nodes), indexed by the snapshot's global node slots.

Normalisation for the fusion boost `min(1 + 0.3 ln(1 + c), 1.5)`: a node's centrality is its PageRank × the number
of nodes, so that the average node has 1 (a leaf nobody uses has about 0.15, a hub many times 1). A file's centrality
is the PageRank of all its nodes together × the number of files, so that the average file has 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import distinct_count
from maguyva_lsp.graph.strings import NO_STRING, StringTable

if TYPE_CHECKING:  # scipy is imported where PageRank is computed: a warm open reads stored values and never needs it
    import scipy.sparse as sp

    from maguyva_lsp.graph.segment import GraphSegment
    from maguyva_lsp.graph.snapshot import GraphSnapshot

DAMPING = 0.85  # the probability of following an edge rather than jumping anywhere (Brin & Page)
TOLERANCE = 1e-6  # per node, as networkx: stop when the L1 change is below node count × this
MAX_ITERATIONS = 100

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
SlotArray = npt.NDArray[np.int32]
DegreeArray = npt.NDArray[np.unsignedinteger[Any] | np.int64]


def pagerank(
    matrix: sp.csr_array,
    live: npt.NDArray[np.bool_],
    *,
    damping: float = DAMPING,
    tolerance: float = TOLERANCE,
    max_iterations: int = MAX_ITERATIONS,
) -> FloatArray:
    """PageRank by power iteration: x ← d·(xP + dangling mass spread evenly) + (1 − d)/n, P the row-normalised
    weights; nodes without out-edges (dangling) spread their rank over all live nodes, as networkx does. Dead slots
    (`live` False) hold 0. Returns probabilities summing to 1 over the live nodes."""
    n_live = int(live.sum())
    x = np.zeros(matrix.shape[0], dtype=np.float64)
    if n_live == 0:
        return x
    uniform = live.astype(np.float64) / n_live
    out_weight = np.asarray(matrix.sum(axis=1)).ravel()
    has_out = out_weight > 0
    inverse = np.zeros_like(out_weight)
    inverse[has_out] = 1.0 / out_weight[has_out]
    dangling = live & ~has_out
    transposed = matrix.T.tocsr()
    x[:] = uniform
    for _ in range(max_iterations):
        previous = x
        spread = float(previous[dangling].sum())
        x = damping * (transposed @ (previous * inverse) + spread * uniform) + (1.0 - damping) * uniform
        if float(np.abs(x - previous).sum()) < n_live * tolerance:
            break
    return x


NO_SLOT = -1
# Degrees are stored in the narrowest of these that holds the largest (a node's distinct users: uint16 in practice);
# the PageRank values stay float64, as computed, so that a reopened graph ranks exactly as the one that wrote it.
DEGREE_DTYPES: tuple[np.dtype[Any], ...] = (np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.int64))
_SCORE_ARRAYS = ("values", "in_degree", "out_degree", "file_values", "counts")


@dataclass(frozen=True, slots=True)
class CentralityScores:
    """One immutable snapshot of centrality, by the global slots of the snapshot it was computed for; searches read
    it while the next one is computed."""

    strings: StringTable
    node_slot: npt.NDArray[np.int32]  # node id's string id → slot (the snapshot's table)
    file_slot: npt.NDArray[np.int32]  # path's string id → file slot
    values: FloatArray  # per node slot: PageRank × live node count (0 for dead slots)
    in_degree: DegreeArray  # distinct live nodes using this one (uses from test files excluded)
    out_degree: DegreeArray
    file_values: FloatArray  # per file slot: the file's PageRank × live file count
    node_count: int = 0
    edge_count: int = 0  # distinct voting pairs (test files' uses excluded)
    site_total: int = 0  # live uses
    # Distinct (source, target) pairs over every live use, test files' included: status's edge count, computed with
    # the scores so that a status request never sorts every use (seconds on a large graph). -1: not known (scores
    # read from a container written before it was stored).
    pair_total: int = -1

    def _slot(self, table: npt.NDArray[np.int32], text: str) -> int:
        sid = self.strings.find(text)
        return int(table[sid]) if sid != NO_STRING and sid < len(table) else NO_SLOT

    def of(self, node_id: str) -> float:
        slot = self._slot(self.node_slot, node_id)
        return float(self.values[slot]) if slot != NO_SLOT else 0.0

    def of_slot(self, slot: int) -> float:
        return float(self.values[slot]) if 0 <= slot < len(self.values) else 0.0

    def degree(self, node_id: str) -> tuple[int, int]:
        """(in-degree, out-degree): distinct nodes using this one, distinct nodes it uses."""
        slot = self._slot(self.node_slot, node_id)
        if slot == NO_SLOT:
            return (0, 0)
        return (int(self.in_degree[slot]), int(self.out_degree[slot]))

    def of_file(self, path: str) -> float:
        slot = self._slot(self.file_slot, path)
        return float(self.file_values[slot]) if slot != NO_SLOT else 0.0

    def renumbered(self, snapshot: GraphSnapshot, previous: GraphSnapshot) -> CentralityScores:
        """These values for the same graph laid out as `snapshot` (merged segments): looked up by node id and path
        through the slots of `previous`, the snapshot they were computed for."""
        node_ids = np.concatenate([s.arrays["nodes.id"] for s in snapshot.segments] or [np.zeros(0, np.int32)])
        paths = np.concatenate([s.arrays["files.path"] for s in snapshot.segments] or [np.zeros(0, np.int32)])
        old_nodes = previous.node_slot[node_ids]
        old_files = previous.file_slot[paths]
        return CentralityScores(
            snapshot.strings,
            snapshot.node_slot,
            snapshot.file_slot,
            self.values[old_nodes],
            self.in_degree[old_nodes],
            self.out_degree[old_nodes],
            self.file_values[old_files],
            self.node_count,
            self.edge_count,
            self.site_total,
            self.pair_total,
        )

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The computed arrays, for a segment file (the slot tables belong to the snapshot)."""
        counts = np.array([self.node_count, self.edge_count, self.site_total, self.pair_total], dtype=np.int64)
        return {
            "values": self.values,
            "in_degree": narrowest_degrees(self.in_degree),
            "out_degree": narrowest_degrees(self.out_degree),
            "file_values": self.file_values,
            "counts": counts,
        }

    @classmethod
    def from_arrays(cls, snapshot: GraphSnapshot, arrays: Mapping[str, npt.NDArray[Any]]) -> CentralityScores:
        for name in _SCORE_ARRAYS:
            if name not in arrays:
                raise ValueError(f"graph centrality: array {name} missing")
        if len(arrays["values"]) != snapshot.slot_count or len(arrays["file_values"]) != snapshot.file_bases[-1]:
            raise ValueError("graph centrality: arrays do not match the segments")
        for name in ("values", "file_values"):
            if arrays[name].dtype != np.float64:
                raise ValueError(f"graph centrality: {name} of dtype {arrays[name].dtype}")
        for name in ("in_degree", "out_degree"):
            if arrays[name].dtype not in DEGREE_DTYPES or len(arrays[name]) != snapshot.slot_count:
                raise ValueError(f"graph centrality: {name} of dtype {arrays[name].dtype} or of the wrong length")
        counts = [int(c) for c in arrays["counts"]][:4]  # three in containers written before pair_total
        return cls(
            snapshot.strings,
            snapshot.node_slot,
            snapshot.file_slot,
            np.asarray(arrays["values"]),
            np.asarray(arrays["in_degree"]),
            np.asarray(arrays["out_degree"]),
            np.asarray(arrays["file_values"]),
            *counts,
        )


def narrowest_degrees(degrees: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Degrees (non-negative) in the narrowest of DEGREE_DTYPES that holds the largest."""
    largest = int(degrees.max()) if len(degrees) else 0
    dtype = next(d for d in DEGREE_DTYPES if largest <= np.iinfo(d).max)
    return np.ascontiguousarray(degrees, dtype=dtype)


@dataclass(frozen=True, slots=True)
class LiveUses:
    """Every use of a snapshot whose file is live and whose target is a live node, by global node slots (int32, as
    the snapshot's slot table: widening them cost a copy of every use at each save)."""

    source: SlotArray
    target: SlotArray
    weight: FloatArray
    voting: npt.NDArray[np.bool_]  # not from a test file

    def distinct_pairs(self, size: int) -> int:
        """Distinct (source, target) pairs, counted by sorting (arrays.py says why not np.unique)."""
        if not len(self.source):
            return 0
        return distinct_count(self.source.astype(np.int64) * max(size, 1) + self.target)


def _use_rows(segment: GraphSegment, files: npt.NDArray[np.bool_], node_slot: SlotArray) -> npt.NDArray[np.bool_]:
    """The uses of these files (a segment's uses are grouped by file) whose target is a live node. Only those
    files' targets are looked up: a save's centrality reads the voting files' uses, a third of the stdlib's."""
    a = segment.arrays
    rows = np.repeat(files, np.diff(np.asarray(segment.offsets["sites"])))
    rows[rows] = node_slot[a["sites.target"][rows]] != NO_SLOT
    return rows


def live_uses(snapshot: GraphSnapshot, *, voting_only: bool = False) -> LiveUses:
    """The live uses (`voting_only`: those that vote, the only ones PageRank reads)."""
    sources: list[SlotArray] = []
    targets: list[SlotArray] = []
    weights: list[FloatArray] = []
    votes: list[npt.NDArray[np.bool_]] = []
    node_slot = snapshot.node_slot  # every string id of the snapshot's segments is inside it
    for segment, files_live in zip(snapshot.segments, snapshot.live, strict=True):
        a = segment.arrays
        # The file's liveness, not the source's slot: a rewritten file's old rows name ids that are live elsewhere.
        files = files_live & (np.asarray(a["files.test"]) == 0) if voting_only else files_live
        rows = _use_rows(segment, files, node_slot)
        sources.append(node_slot[a["sites.source"][rows]])
        targets.append(node_slot[a["sites.target"][rows]])
        weights.append(segment.weights(rows))
        votes.append(np.ones(len(sources[-1]), dtype=bool) if voting_only else segment.site_votes()[rows])
    return LiveUses(
        np.concatenate(sources) if sources else np.zeros(0, dtype=np.int32),
        np.concatenate(targets) if targets else np.zeros(0, dtype=np.int32),
        np.concatenate(weights) if weights else np.zeros(0),
        np.concatenate(votes) if votes else np.zeros(0, dtype=bool),
    )


def _non_voting_count(snapshot: GraphSnapshot) -> int:
    """How many live uses do not vote (a test file's), counted without gathering them."""
    total = 0
    for segment, files_live in zip(snapshot.segments, snapshot.live, strict=True):
        tests = files_live & (np.asarray(segment.arrays["files.test"]) != 0)
        total += int(np.count_nonzero(_use_rows(segment, tests, snapshot.node_slot)))
    return total


def compute_centrality(snapshot: GraphSnapshot, *, count_pairs: bool = True) -> CentralityScores:
    """PageRank and degrees of a snapshot. A test file's uses do not vote: a helper that a thousand tests call is not a
    hub of the code base (its nodes keep their share; impact still follows those uses, which stay in the snapshot).
    `count_pairs=False` leaves `pair_total` unknown (-1; `CodeGraph.stats` counts it when asked): an incremental
    update does not sort every use for a figure of the status (180 ms of a save's 550 ms on the stdlib x5)."""
    size = snapshot.slot_count
    if size == 0:  # nothing indexed yet: no matrix (and no scipy import for an empty graph)
        empty = np.zeros(0)
        files = np.zeros(snapshot.file_bases[-1])
        no_degree = np.zeros(0, dtype=np.int64)
        return CentralityScores(
            snapshot.strings, snapshot.node_slot, snapshot.file_slot, empty, no_degree, no_degree, files, pair_total=0
        )
    import scipy.sparse as sp

    live = snapshot.live_nodes()
    voting = live_uses(snapshot, voting_only=True)
    matrix = sp.csr_array((voting.weight, (voting.source, voting.target)), shape=(size, size), dtype=np.float64)
    matrix.sum_duplicates()
    rank = pagerank(matrix, live)
    n_live = int(live.sum())
    pattern = matrix.copy()
    pattern.data = np.ones_like(pattern.data)
    out_degree = np.asarray(pattern.sum(axis=1)).ravel().astype(np.int64)
    in_degree = np.asarray(pattern.sum(axis=0)).ravel().astype(np.int64)
    node_files = [
        s.arrays["nodes.file"].astype(np.int64) + base
        for s, base in zip(snapshot.segments, snapshot.file_bases, strict=False)
    ]
    node_file = np.concatenate(node_files) if node_files else np.zeros(0, dtype=np.int64)
    file_rank = np.bincount(node_file[live], weights=rank[live], minlength=snapshot.file_bases[-1])
    files_live = np.concatenate(snapshot.live) if snapshot.live else np.zeros(0, dtype=bool)
    file_values = np.where(files_live, file_rank * int(files_live.sum()), 0.0)
    return CentralityScores(
        strings=snapshot.strings,
        node_slot=snapshot.node_slot,
        file_slot=snapshot.file_slot,
        values=rank * n_live,
        in_degree=in_degree,
        out_degree=out_degree,
        file_values=file_values,
        node_count=n_live,
        edge_count=int(matrix.nnz),
        site_total=len(voting.source) + _non_voting_count(snapshot),
        pair_total=live_uses(snapshot).distinct_pairs(size) if count_pairs else -1,
    )

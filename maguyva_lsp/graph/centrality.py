"""PageRank and degree over the code graph, from a sparse matrix kept up to date per file (networkx's slow path,
converting the whole graph to a matrix, is never taken).

Normalisation for the fusion boost `min(1 + 0.3 ln(1 + c), 1.5)`: a node's centrality is its PageRank × the number
of nodes, so that the average node has 1 (a leaf nobody uses has about 0.15, a hub many times 1). A file's centrality
is the PageRank of all its nodes together × the number of files, so that the average file has 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from maguyva_lsp.model import PathClass
from maguyva_lsp.scan.classify import classify_path

DAMPING = 0.85  # the probability of following an edge rather than jumping anywhere (Brin & Page)
TOLERANCE = 1e-6  # per node, as networkx: stop when the L1 change is below node count × this
MAX_ITERATIONS = 100
# Freed slots are compacted away once they outnumber the live ones (and there are at least this many).
COMPACT_MIN_DEAD = 1024

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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


@dataclass(frozen=True, slots=True)
class CentralityScores:
    """One immutable snapshot of centrality; searches read it while the next one is computed."""

    slot_of: dict[str, int] = field(default_factory=dict)
    values: FloatArray = field(default_factory=lambda: np.zeros(0))  # PageRank × node count
    in_degree: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    out_degree: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    file_values: dict[str, float] = field(default_factory=dict)  # file PageRank × file count
    node_count: int = 0
    edge_count: int = 0

    def of(self, node_id: str) -> float:
        slot = self.slot_of.get(node_id)
        return float(self.values[slot]) if slot is not None and slot < len(self.values) else 0.0

    def degree(self, node_id: str) -> tuple[int, int]:
        """(in-degree, out-degree): distinct nodes using this one, distinct nodes it uses."""
        slot = self.slot_of.get(node_id)
        if slot is None or slot >= len(self.in_degree):
            return (0, 0)
        return (int(self.in_degree[slot]), int(self.out_degree[slot]))

    def of_file(self, path: str) -> float:
        return self.file_values.get(path, 0.0)


@dataclass(frozen=True, slots=True)
class PreparedMatrix:
    """Copies taken under the graph's lock; `compute` then runs without it."""

    slot_of: dict[str, int]
    live: npt.NDArray[np.bool_]
    sources: IntArray
    targets: IntArray
    weights: FloatArray
    slot_file: IntArray
    files: tuple[str, ...]

    def compute(self) -> CentralityScores:
        size = len(self.live)
        keep = self.live[self.sources] & self.live[self.targets] if size else np.zeros(0, dtype=bool)
        matrix = sp.csr_array(
            (self.weights[keep], (self.sources[keep], self.targets[keep])), shape=(size, size), dtype=np.float64
        )
        matrix.sum_duplicates()
        rank = pagerank(matrix, self.live)
        n_live = int(self.live.sum())
        pattern = matrix.copy()
        pattern.data = np.ones_like(pattern.data)
        out_degree = np.asarray(pattern.sum(axis=1)).ravel().astype(np.int64)
        in_degree = np.asarray(pattern.sum(axis=0)).ravel().astype(np.int64)
        file_rank = np.bincount(self.slot_file[self.live], weights=rank[self.live], minlength=len(self.files))
        live_files = [i for i, f in enumerate(self.files) if f]
        file_values = {self.files[i]: float(file_rank[i]) * len(live_files) for i in live_files}
        return CentralityScores(
            slot_of=self.slot_of,
            values=rank * n_live,
            in_degree=in_degree,
            out_degree=out_degree,
            file_values=file_values,
            node_count=n_live,
            edge_count=int(matrix.nnz),
        )


class EdgeMatrix:
    """Node slots and each file's outgoing edges as arrays of slots, the raw material of the sparse matrix.

    Slots of removed nodes are not reused until a compaction renumbers everything, so a file's arrays never point
    at a different node than when they were written (edges to dead slots are dropped when a snapshot is built).
    """

    def __init__(self) -> None:
        self._slot_of: dict[str, int] = {}
        self._live: list[bool] = []
        self._slot_file: list[int] = []
        self._file_index: dict[str, int] = {}
        self._files: list[str] = []
        self._edges: dict[str, tuple[IntArray, IntArray, FloatArray]] = {}
        self._dead = 0

    def add_node(self, node_id: str, path: str) -> None:
        if node_id in self._slot_of:
            return
        self._slot_of[node_id] = len(self._live)
        self._live.append(True)
        self._slot_file.append(self._file_slot(path))

    def remove_node(self, node_id: str) -> None:
        slot = self._slot_of.pop(node_id, None)
        if slot is not None:
            self._live[slot] = False
            self._dead += 1

    def remove_file(self, path: str) -> None:
        self._edges.pop(path, None)
        index = self._file_index.pop(path, None)
        if index is not None:
            self._files[index] = ""

    def set_edges(self, path: str, edges: list[tuple[str, str, float]]) -> None:
        """Replace one file's outgoing edges (source and target ids, weight). A test file's uses do not vote: a helper
        that a thousand tests call is not a hub of the code base (its nodes keep their share; impact still sees them,
        since this matrix only serves centrality)."""
        if classify_path(path) is PathClass.TEST:
            edges = []
        slot_of = self._slot_of
        kept = [(slot_of[s], slot_of[t], w) for s, t, w in edges if s in slot_of and t in slot_of]
        if not kept:
            self._edges.pop(path, None)
            return
        sources, targets, weights = zip(*kept, strict=True)
        self._edges[path] = (
            np.fromiter(sources, dtype=np.int64, count=len(kept)),
            np.fromiter(targets, dtype=np.int64, count=len(kept)),
            np.fromiter(weights, dtype=np.float64, count=len(kept)),
        )

    def prepare(self) -> PreparedMatrix:
        """Snapshot the arrays (cheap concatenations) for a computation outside the lock."""
        if self._dead > COMPACT_MIN_DEAD and self._dead > len(self._slot_of):
            self._compact()
        parts = list(self._edges.values())
        empty_i = np.zeros(0, dtype=np.int64)
        return PreparedMatrix(
            slot_of=dict(self._slot_of),
            live=np.array(self._live, dtype=bool),
            sources=np.concatenate([p[0] for p in parts]) if parts else empty_i,
            targets=np.concatenate([p[1] for p in parts]) if parts else empty_i,
            weights=np.concatenate([p[2] for p in parts]) if parts else np.zeros(0),
            slot_file=np.array(self._slot_file, dtype=np.int64),
            files=tuple(self._files),
        )

    def _file_slot(self, path: str) -> int:
        index = self._file_index.get(path)
        if index is None:
            index = len(self._files)
            self._file_index[path] = index
            self._files.append(path)
        return index

    def _compact(self) -> None:
        """Renumber the live slots densely and rewrite every file's arrays accordingly."""
        live = np.array(self._live, dtype=bool)
        remap = np.full(len(live), -1, dtype=np.int64)
        remap[live] = np.arange(int(live.sum()))
        for path, (sources, targets, weights) in list(self._edges.items()):
            keep = live[sources] & live[targets]
            self._edges[path] = (remap[sources[keep]], remap[targets[keep]], weights[keep])
        self._slot_of = {node: int(remap[slot]) for node, slot in self._slot_of.items()}
        self._slot_file = [f for f, alive in zip(self._slot_file, self._live, strict=True) if alive]
        self._live = [True] * len(self._slot_of)
        self._dead = 0

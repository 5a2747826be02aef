"""The graph's persisted form: a snapshot and its centrality as flat named arrays plus a small meta, for the store to
write as containers and to hand back, memory-mapped, at open. No file is touched here (only the store does I/O).

A chain is a "base" (one segment holding every file, the string table, the centrality) optionally followed by one
"delta" (the segment of files rewritten since, the base's live-file mask, the strings interned since the base was
written, and the centrality of the whole state). Each delta is cumulative since its base: a newer one replaces it.
Opening maps the arrays and computes only the slot tables (vectorised, one pass over the node ids); nothing is
resolved and no object is made per node, use or reference.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.graph.centrality import CentralityScores, compute_centrality
from maguyva_lsp.graph.segment import GraphSegment
from maguyva_lsp.graph.snapshot import GraphSnapshot
from maguyva_lsp.graph.strings import StringTable

GRAPH_FORMAT = 5  # bump when a column, an index or the chain's meaning changes: older chains are then rebuilt
BASE, DELTA = "base", "delta"
_SEGMENT, _STRINGS, _ADDED, _SCORES = "segment.", "strings.", "added.", "scores."
_BASE_LIVE = "base.live"
_OTHERS = "others"  # files given but not held: path ids over content-hash ids (2 × n), complete in every element

Array = npt.NDArray[Any]


Exported = tuple[dict[str, Array], dict[str, object]]  # one container of the chain: named arrays, JSON-able meta


def _prefixed(prefix: str, arrays: Mapping[str, Array]) -> dict[str, Array]:
    return {prefix + name: array for name, array in arrays.items()}


def _unprefixed(prefix: str, arrays: Mapping[str, Array]) -> dict[str, Array]:
    return {name[len(prefix) :]: arrays[name] for name in arrays if name.startswith(prefix)}


def export_base(snapshot: GraphSnapshot, scores: CentralityScores | None) -> Exported:
    """The base of a chain: the snapshot's base segment (every file live in it) and the whole string table; its
    centrality when the snapshot is that base alone."""
    segment = snapshot.segments[0]
    if not bool(np.all(snapshot.live[0])):
        raise ValueError("a graph base is written without tombstones: merge first")
    strings = snapshot.strings.stored_arrays()
    arrays = _prefixed(_SEGMENT, segment.arrays) | _prefixed(_STRINGS, strings)
    arrays[_OTHERS] = np.ascontiguousarray(snapshot.others, dtype=np.int32)
    alone = len(snapshot.segments) == 1 and scores is not None
    if alone and scores is not None:
        arrays |= _prefixed(_SCORES, scores.arrays())
    meta: dict[str, object] = {
        "kind": BASE,
        "format": GRAPH_FORMAT,
        "files": segment.file_count,
        "strings": len(strings["offsets"]) - 1,
        "scores": alone,
    }
    return arrays, meta


def export_delta(snapshot: GraphSnapshot, scores: CentralityScores, base_strings: int) -> Exported:
    """The delta over a base written with `base_strings` strings: the delta segment, the base's live files, the
    strings interned since, and the centrality of the whole snapshot."""
    base, delta = snapshot.segments
    added = snapshot.strings.texts_from(base_strings)
    encoded = [t.encode("utf-8", "surrogatepass") for t in added]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    arrays = _prefixed(_SEGMENT, delta.arrays) | _prefixed(_SCORES, scores.arrays())
    arrays[_ADDED + "blob"] = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    arrays[_ADDED + "offsets"] = offsets
    arrays[_BASE_LIVE] = snapshot.live[0].astype(np.uint8)
    arrays[_OTHERS] = np.ascontiguousarray(snapshot.others, dtype=np.int32)
    meta: dict[str, object] = {
        "kind": DELTA,
        "format": GRAPH_FORMAT,
        "base_files": base.file_count,
        "base_strings": base_strings,
        "strings": base_strings + len(added),
        "files": delta.file_count,
        "scores": True,
    }
    return arrays, meta


def _meta_int(meta: Mapping[str, object], key: str) -> int:
    value = meta.get(key)
    if not isinstance(value, int):
        raise ValueError(f"graph chain: meta {key!r} missing")
    return value


def open_chain(
    arrays: Sequence[Mapping[str, Array]], metas: Sequence[Mapping[str, object]]
) -> tuple[GraphSnapshot, CentralityScores]:
    """The snapshot a stored chain describes: its last base and the last delta after it. Raises ValueError when
    the chain is not one this version wrote or its parts do not fit together."""
    if len(arrays) != len(metas) or not metas:
        raise ValueError("graph chain: empty, or arrays and metas differ in number")
    for meta in metas:
        if meta.get("format") != GRAPH_FORMAT or meta.get("kind") not in (BASE, DELTA):
            raise ValueError(f"graph chain: format {meta.get('format')!r} kind {meta.get('kind')!r} is not ours")
    bases = [i for i, meta in enumerate(metas) if meta["kind"] == BASE]
    if not bases:
        raise ValueError("graph chain: no base")
    first = bases[-1]
    base_arrays, base_meta = arrays[first], metas[first]
    later = list(range(first + 1, len(metas)))
    strings = StringTable.from_arrays(_unprefixed(_STRINGS, base_arrays))
    if len(strings) != _meta_int(base_meta, "strings"):
        raise ValueError("graph chain: the base's string table does not match its meta")
    base = GraphSegment.from_arrays(_unprefixed(_SEGMENT, base_arrays))
    if base.file_count != _meta_int(base_meta, "files"):
        raise ValueError("graph chain: the base's files do not match its meta")
    if not later:
        others = _others(base_arrays, len(strings))
        snapshot = GraphSnapshot.make(strings, [base], [np.ones(base.file_count, dtype=bool)], others)
        return snapshot, _scores(snapshot, base_arrays, base_meta)
    delta_arrays, delta_meta = arrays[later[-1]], metas[later[-1]]
    if _meta_int(delta_meta, "base_files") != base.file_count or _meta_int(delta_meta, "base_strings") != len(strings):
        raise ValueError("graph chain: the delta was not written over this base")
    blob = np.asarray(delta_arrays[_ADDED + "blob"], dtype=np.uint8)
    offsets = np.asarray(delta_arrays[_ADDED + "offsets"], dtype=np.int64).tolist()
    data = blob.tobytes()
    added = [data[a:b].decode("utf-8", "surrogatepass") for a, b in itertools.pairwise(offsets)]
    strings = strings.extended(added)
    if len(strings) != _meta_int(delta_meta, "strings"):
        raise ValueError("graph chain: the delta's strings do not extend the base's")
    delta = GraphSegment.from_arrays(_unprefixed(_SEGMENT, delta_arrays))
    base_live = np.asarray(delta_arrays[_BASE_LIVE]).astype(bool)
    if len(base_live) != base.file_count:
        raise ValueError("graph chain: the delta's live mask does not cover the base")
    others = _others(delta_arrays, len(strings))
    snapshot = GraphSnapshot.make(strings, [base, delta], [base_live, np.ones(delta.file_count, dtype=bool)], others)
    return snapshot, _scores(snapshot, delta_arrays, delta_meta)


def _others(arrays: Mapping[str, Array], strings: int) -> npt.NDArray[np.int32]:
    others = arrays.get(_OTHERS)
    if others is None or others.dtype != np.int32 or others.ndim != 2 or others.shape[0] != 2:
        raise ValueError("graph chain: the files given but not held are missing")
    if others.size and (int(others.min()) < 0 or int(others.max()) >= strings):
        raise ValueError("graph chain: the files given but not held name unknown strings")
    return np.asarray(others)


def _scores(snapshot: GraphSnapshot, arrays: Mapping[str, Array], meta: Mapping[str, object]) -> CentralityScores:
    """The stored centrality, or (a base written beside a delta, then read alone) computed again."""
    if meta.get("scores"):
        return CentralityScores.from_arrays(snapshot, _unprefixed(_SCORES, arrays))
    return compute_centrality(snapshot)

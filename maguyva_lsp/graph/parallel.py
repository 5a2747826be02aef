"""A cold build's resolution in worker processes: each worker reads the stored files itself, makes every file's
record (the global name, module and import tables resolution reads), resolves its share of the files, and returns
compact arrays — the uses and dependency keys of its share, and (the first worker) the files, nodes, references and
module keys of all — which the calling process joins into one segment.

The result equals `_rebuild`'s: the records, module keys and path order are the same, every worker interns the
files' strings in the same order (so their ids agree) and only the strings its uses add come after them, renumbered
here. The calling process decodes no references and makes no object per file, node or use.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from maguyva_lsp.graph.inputs import GraphInput, ReferenceRows
from maguyva_lsp.graph.records import FileRecord
from maguyva_lsp.graph.segment import (
    _ID_BITS,
    COLUMNS,
    MAX_STRINGS,
    GraphSegment,
)
from maguyva_lsp.graph.snapshot import GraphSnapshot
from maguyva_lsp.graph.strings import StringTable
from maguyva_lsp.model import Reference

Array = npt.NDArray[Any]
# The first share also makes the files' part (every file's rows and their strings): about this share of the
# resolution's work, measured on the standard library (2 s of 15).
FIRST_SHARE_EXTRA = 0.13
USE_COLUMNS = tuple(name for name in COLUMNS if name.startswith(("sites.", "deps.")))

_J = TypeVar("_J")
_R = TypeVar("_R")
# Runs a function over jobs in worker processes, results in job order (an exception in a job is raised).
Runner = Callable[[Callable[[_J], _R], Sequence[_J]], list[_R]]


class StoredFiles(Protocol):
    """Stored files as a worker reads them (picklable: it opens the stored data itself in the worker)."""

    def records(self, paths: Sequence[str]) -> Iterator[tuple[str, str, FileRecord | None]]:
        """Each file (in the order given): its path, content hash and record with only its imports and base lists
        among its references (`complete=False`); None when it does not belong in the graph."""
        ...

    def references(self, path: str, content_hash: str) -> tuple[Reference, ...] | None:
        """A file's references for that version (None: another version, or unknown)."""
        ...

    def reference_rows(self, path: str, content_hash: str) -> ReferenceRows | None:
        """`references` as the stored columns (what the workers resolve, graph/batch.py)."""
        ...

    def reference_counts(self, paths: Sequence[str]) -> list[int]: ...


@dataclass(frozen=True, slots=True)
class ShareJob:
    """One worker's part: every file of the rebuild (stored ones by path, given ones whole), and the range of them
    (in path order) it resolves."""

    stored: StoredFiles
    stored_paths: tuple[str, ...]
    given: tuple[GraphInput, ...]
    share: tuple[str, str | None]  # the first path of the share and the first of the next one (None: to the end)
    first: bool  # also make the files' part (and its strings)


@dataclass(frozen=True, slots=True)
class SharePart:
    files: int  # files of the share that the graph holds
    uses: dict[str, Array]  # sites.* and deps.* columns; `.file` counts from the share's first file
    strings: list[str]  # strings the uses interned after the files' (ids from `base`)
    base: int  # strings of the files' part (the first worker; 0 for the others)
    files_part: dict[str, Array] | None  # the first worker: files, nodes, refs, module keys, words of all files
    table: dict[str, Array] | None  # the first worker: the files' strings
    texts: list[str] | None  # the first worker: the same strings as a list (ids in order), for the join's dict
    others: list[tuple[str, str]] | None  # the first worker: (path, hash) of stored files the graph does not hold


def shares(
    stored: StoredFiles, paths: Sequence[str], given: Sequence[GraphInput], count: int
) -> list[tuple[str, str | None]]:
    """`count` ranges of the sorted paths with about as much work each: the references resolved, and for the first
    share the files' part too (FIRST_SHARE_EXTRA of the whole's references)."""
    weights = dict(zip(paths, stored.reference_counts(paths), strict=True))
    weights.update((f.path, len(f.references)) for f in given)
    ordered = sorted(weights)
    total = sum(weights.values())
    extra = FIRST_SHARE_EXTRA * total if count > 1 else 0.0
    bounds: list[str] = [ordered[0]] if ordered else [""]
    running = extra
    for path in ordered:
        if len(bounds) < count and running >= (total + extra) * len(bounds) / count:
            bounds.append(path)
        running += weights[path]
    return [(b, bounds[i + 1] if i + 1 < len(bounds) else None) for i, b in enumerate(bounds)]


def join(parts: Sequence[SharePart]) -> tuple[GraphSnapshot, list[tuple[str, str]]]:
    """The workers' parts as one snapshot (as `_rebuild` makes it) and the files the graph does not hold. The parts'
    use columns are taken from them as they are joined (each part's arrays are freed once copied)."""
    first = parts[0]
    if first.files_part is None or first.table is None or first.texts is None or first.others is None:
        raise ValueError("the first share lacks the files' part")
    # Every string's id through one dict (the files' strings, then each new one in the order met, as interning them
    # one by one would number them): a C hash hit per string instead of a probe of the table's hash slots.
    ids = dict(zip(first.texts, range(len(first.texts)), strict=True))
    base_count = len(ids)
    remaps = [np.array([ids.setdefault(s, len(ids)) for s in part.strings], dtype=np.int64) for part in parts]
    joined: dict[str, Array] = {}
    for name in USE_COLUMNS:
        columns: list[Array] = []
        offset = 0
        for part, remap in zip(parts, remaps, strict=True):
            column = part.uses.pop(name)
            if name in ("sites.source", "sites.target"):
                column = _remapped(column.astype(np.int64), part.base, remap).astype(np.int32)
            elif name == "deps.key":
                column = _remapped_deps(column, part.base, remap)
            elif name.endswith(".file"):
                column = column + offset
            columns.append(column)
            offset += part.files
        joined[name] = np.concatenate(columns).astype(COLUMNS[name][0], copy=False)
        del columns
    # A file's keys are stored sorted (the builder sorts them as packed): renumbered strings may change the order.
    order = np.lexsort((joined["deps.key"], joined["deps.file"]))
    joined["deps.key"] = joined["deps.key"][order]
    joined["deps.file"] = joined["deps.file"][order]
    files_part = dict(first.files_part)
    files_part.update(joined)
    if len(ids) > MAX_STRINGS:
        raise OverflowError(f"more than {MAX_STRINGS} distinct strings in the graph")
    segment = GraphSegment.assemble(files_part)
    added = list(itertools.islice(ids, base_count, None))
    strings = StringTable.from_arrays(first.table).with_new(added).frozen()
    return GraphSnapshot.make(strings, [segment], [np.ones(segment.file_count, dtype=bool)]), first.others


def _remapped(ids: npt.NDArray[np.int64], base: int, remap: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """String ids of a worker's table in the joined one: the files' strings keep theirs, later ones are remapped."""
    late = ids >= base
    if not late.any():
        return ids
    out = ids.copy()
    out[late] = remap[ids[late] - base]
    return out


def _remapped_deps(keys: Array, base: int, remap: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Packed dependency keys (tag, x + 1, y + 1) with their two string ids remapped."""
    keys = keys.astype(np.int64)
    tags = keys >> (2 * _ID_BITS)
    x = ((keys >> _ID_BITS) & MAX_STRINGS) - 1
    y = (keys & MAX_STRINGS) - 1
    x = _remapped(x, base, remap)  # -1 (none) stays below `base`
    y = _remapped(y, base, remap)
    return (tags << (2 * _ID_BITS)) | ((x + 1) << _ID_BITS) | (y + 1)

"""Immutable posting lists in CSR form (sorted keys → sorted ids, optional values), stored per segment as plain
arrays (mapped from the store or in memory). Shared by the trigram index and BM25.

Stored narrow where the values fit: offsets as uint32 (a segment holds fewer than 2**32 postings), ids as uint16 when
asked and every id fits (a segment's file ids), whole-number values (term frequencies) as uint8 or uint16. Readers
widen the slices they take (`ids_of`, `values_of`), so every computation sees the dtypes it was written for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.store.container import ContainerError

U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]

_EMPTY_U32: U32 = np.empty(0, dtype=np.uint32)
# The dtypes a stored array may have (anything else is refused when the part is opened).
OFFSET_DTYPES = (np.dtype(np.uint32), np.dtype(np.int64))
ID_DTYPES = (np.dtype(np.uint16), np.dtype(np.uint32))
VALUE_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.float32))
_EMPTY_F32: F32 = np.empty(0, dtype=np.float32)


@dataclass(frozen=True, slots=True)
class PostingLists:
    """key → ids, as CSR: `keys` sorted and unique, `ids[offsets[i]:offsets[i+1]]` sorted for `keys[i]`.

    `values` (one per id, e.g. a term frequency) is None for pure set postings. Instances are never mutated.
    """

    keys: U32
    offsets: I64
    ids: U32
    values: F32 | None

    @staticmethod
    def empty(with_values: bool) -> PostingLists:
        return PostingLists(_EMPTY_U32, np.zeros(1, dtype=np.int64), _EMPTY_U32, _EMPTY_F32 if with_values else None)

    @staticmethod
    def from_pairs(keys: U32, ids: U32, values: F32 | None) -> PostingLists:
        """Group (key, id[, value]) triples by key. Within a key, ids must already come in ascending order (true when
        the triples are produced document by document in id order); a stable sort by key keeps that order."""
        if keys.size == 0:
            return PostingLists.empty(values is not None)
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        boundaries = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
        starts = np.concatenate(([0], boundaries)).astype(np.int64)
        offsets = np.append(starts, np.int64(sorted_keys.size))
        return PostingLists(
            keys=np.ascontiguousarray(sorted_keys[starts]),
            offsets=offsets,
            ids=np.ascontiguousarray(ids[order]),
            values=None if values is None else np.ascontiguousarray(values[order]),
        )

    @property
    def size(self) -> int:
        return int(self.ids.size)

    @property
    def nbytes(self) -> int:
        extra = 0 if self.values is None else self.values.nbytes
        return int(self.keys.nbytes + self.offsets.nbytes + self.ids.nbytes + extra)

    def ranges(self, query_keys: U32) -> tuple[I64, I64]:
        """For each query key, the [start, end) of its postings (empty when the key is absent)."""
        if self.keys.size == 0:
            nothing = np.zeros(query_keys.size, dtype=np.int64)
            return nothing, nothing
        pos = np.searchsorted(self.keys, query_keys)
        pos_clipped = np.minimum(pos, self.keys.size - 1)
        found = (pos < self.keys.size) & (self.keys[pos_clipped] == query_keys)
        starts = np.where(found, self.offsets[pos_clipped], 0)
        ends = np.where(found, self.offsets[pos_clipped + 1], 0)
        return starts.astype(np.int64), ends.astype(np.int64)

    def pairs(self) -> tuple[U32, U32, F32 | None]:
        """The (key, id[, value]) triples, sorted by key then id."""
        counts = np.diff(self.offsets)
        return np.repeat(self.keys, counts), self.ids, self.values

    def filtered(self, alive: Bools) -> PostingLists:
        """A copy without the postings of dead ids (`alive` is indexed by id)."""
        keep = alive[self.ids]
        if bool(keep.all()):
            return self
        keys, ids, values = self.pairs()
        return PostingLists.from_pairs(keys[keep], ids[keep], None if values is None else values[keep])

    def merged(self, newer: PostingLists) -> PostingLists:
        """The union with postings whose ids are all greater than any id here (ids keep ascending per key)."""
        if newer.size == 0:
            return self
        if self.size == 0:
            return newer
        old_keys, old_ids, old_values = self.pairs()
        new_keys, new_ids, new_values = newer.pairs()
        values = None
        if old_values is not None and new_values is not None:
            values = np.concatenate((old_values, new_values))
        return PostingLists.from_pairs(np.concatenate((old_keys, new_keys)), np.concatenate((old_ids, new_ids)), values)

    def to_arrays(self, prefix: str, *, narrow_ids: bool = False) -> dict[str, npt.NDArray[Any]]:
        """The arrays that store these postings under `prefix` in a segment part, narrow where the values fit
        (`narrow_ids`: the ids may be stored as uint16 when they all fit)."""
        out: dict[str, npt.NDArray[Any]] = {f"{prefix}.keys": self.keys, f"{prefix}.off": narrow_offsets(self.offsets)}
        fits = narrow_ids and (self.ids.size == 0 or int(self.ids.max()) <= np.iinfo(np.uint16).max)
        out[f"{prefix}.ids"] = self.ids.astype(np.uint16) if fits else self.ids
        if self.values is not None:
            out[f"{prefix}.values"] = _narrow_values(self.values)
        return out

    @staticmethod
    def from_arrays(arrays: Mapping[str, npt.NDArray[Any]], prefix: str) -> PostingLists:
        """Postings stored with `to_arrays` (views: nothing is copied; narrow arrays stay narrow). Raises
        ContainerError when an array has a dtype no writer gives it (the segment is then analysed anew)."""
        values_name = f"{prefix}.values"
        postings = PostingLists(
            keys=arrays[f"{prefix}.keys"],
            offsets=arrays[f"{prefix}.off"],
            ids=arrays[f"{prefix}.ids"],
            values=arrays.get(values_name, None),
        )
        checks: list[tuple[npt.NDArray[Any], tuple[np.dtype[Any], ...], str]] = [
            (postings.offsets, OFFSET_DTYPES, "off"),
            (postings.ids, ID_DTYPES, "ids"),
        ]
        if postings.values is not None:
            checks.append((postings.values, VALUE_DTYPES, "values"))
        for array, dtypes, name in checks:
            if array.dtype not in dtypes:
                raise ContainerError(f"{prefix}.{name} of dtype {array.dtype}")
        return postings

    def ids_of(self, start: int, end: int) -> U32:
        """The ids of positions [start, end), as uint32."""
        return self.ids[start:end].astype(np.uint32, copy=False)

    def values_of(self, start: int, end: int) -> F32:
        """The values of positions [start, end), as float32 (exactly the values given: narrow ones are whole)."""
        assert self.values is not None
        return self.values[start:end].astype(np.float32, copy=False)


def narrow_offsets(offsets: I64) -> npt.NDArray[Any]:
    """Ascending non-negative offsets as uint32 when the last one fits (it is the largest)."""
    if offsets.size and int(offsets[-1]) > np.iinfo(np.uint32).max:
        return offsets
    return offsets.astype(np.uint32)


def _narrow_values(values: F32) -> npt.NDArray[Any]:
    """Values that are all whole numbers in uint8's or uint16's range stored as such (each converts back to the
    same float32), else as given."""
    if values.size == 0:
        return values.astype(np.uint8)
    whole = bool(np.all(values == np.floor(values))) and float(values.min()) >= 0
    top = float(values.max())
    for dtype in (np.uint8, np.uint16):
        if whole and top <= np.iinfo(dtype).max:
            return values.astype(dtype)
    return values

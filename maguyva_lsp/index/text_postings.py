"""Immutable posting lists in CSR form (sorted keys → sorted ids, optional values), stored per segment as plain
arrays (mapped from the store or in memory). Shared by the trigram index and BM25.

Stored narrow where the values fit: offsets as uint32 (a segment holds fewer than 2**32 postings); ids as uint16
when asked and every id fits (a segment's file ids), or gap-coded when asked (`id_gaps`): each list's first id + 1
and then the differences to the previous id, as uint8 or uint16, the few gaps too wide for that kept aside as
(position, gap) pairs — a list is decoded on its own at query time (one cumsum over its slice), nothing at open.
Whole-number values (term frequencies) are stored as uint8 with the few larger ones kept aside the same way. Keys
that are exactly 0..n-1 (BM25's term ranks) need not be stored (`dense_keys`). Readers widen what they take
(`ids_of`, `values_of`) so every computation sees the dtypes it was written for.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import run_starts
from maguyva_lsp.store.container import ContainerError

U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]

_EMPTY_U32: U32 = np.empty(0, dtype=np.uint32)
_EMPTY_F32: F32 = np.empty(0, dtype=np.float32)
# The dtypes a stored array may have (anything else is refused when the part is opened).
OFFSET_DTYPES = (np.dtype(np.uint32), np.dtype(np.int64))
ID_DTYPES = (np.dtype(np.uint16), np.dtype(np.uint32))
GAP_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16))
WIDE_DTYPES = (np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.int64))  # an entry kept aside
VALUE_DTYPES = (np.dtype(np.uint8), np.dtype(np.float32))


@dataclass(frozen=True, slots=True)
class AsideColumn:
    """A column stored narrow, its entries too wide for the narrow dtype kept aside: `at` (ascending positions) and
    `full` (their values); the narrow column holds 0 there."""

    narrow: npt.NDArray[Any]
    at: npt.NDArray[Any]
    full: npt.NDArray[Any]

    @staticmethod
    def encode(values: I64, dtype: type[np.unsignedinteger[Any]]) -> AsideColumn:
        """Non-negative whole numbers as `dtype`, the larger ones kept aside."""
        top = np.iinfo(dtype).max
        wide = values > top
        at = np.flatnonzero(wide)
        full = values[at]
        return AsideColumn(
            np.where(wide, 0, values).astype(dtype),
            narrow_offsets(at.astype(np.int64)),
            _narrowest_wide(full),
        )

    def to_arrays(self, name: str) -> dict[str, npt.NDArray[Any]]:
        return {name: self.narrow, f"{name}.at": self.at, f"{name}.full": self.full}

    @staticmethod
    def from_arrays(
        arrays: Mapping[str, npt.NDArray[Any]], name: str, narrow_dtypes: tuple[np.dtype[Any], ...]
    ) -> AsideColumn:
        column = AsideColumn(_array(arrays, name), _array(arrays, f"{name}.at"), _array(arrays, f"{name}.full"))
        for array, dtypes, part in (
            (column.narrow, narrow_dtypes, name),
            (column.at, OFFSET_DTYPES, f"{name}.at"),
            (column.full, WIDE_DTYPES, f"{name}.full"),
        ):
            if array.dtype not in dtypes or array.ndim != 1:
                raise ContainerError(f"{part} of dtype {array.dtype}")
        if column.at.size != column.full.size:
            raise ContainerError(f"{name}.at and {name}.full differ in length")
        return column

    @property
    def nbytes(self) -> int:
        return int(self.narrow.nbytes + self.at.nbytes + self.full.nbytes)

    def take(self, start: int, end: int, dtype: type[np.number[Any]]) -> npt.NDArray[Any]:
        """Entries [start, end) as `dtype` (wide enough for every entry kept aside)."""
        out = self.narrow[start:end].astype(dtype)
        at = self.at
        if at.size:
            lo, hi = _bounds(at, start, end)
            if hi > lo:
                out[at[lo:hi].astype(np.int64) - start] = self.full[lo:hi]
        return out


@dataclass(frozen=True, slots=True)
class PostingLists:
    """key → ids, as CSR: `keys` sorted and unique (None: they are 0..n-1), `ids[offsets[i]:offsets[i+1]]` sorted
    for the i-th key.

    The ids are plain (`ids`, any unsigned dtype), split (`ids` their uint16 low halves, `steps` where a list's high
    halves step up) or gap-coded (`gaps`, then `ids` is empty). `values` (one per id,
    e.g. a term frequency; float32, or narrow whole numbers with `value_aside`) is None for pure set postings.
    Instances are never mutated.
    """

    keys: U32 | None
    offsets: npt.NDArray[Any]
    ids: npt.NDArray[Any]
    values: npt.NDArray[Any] | None
    gaps: AsideColumn | None = None
    value_aside: AsideColumn | None = None
    steps: npt.NDArray[Any] | None = None  # with split ids: positions (ascending, repeated) where an id gains 2**16

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

    @staticmethod
    def from_sorted(keys: U32, ids: U32, values: F32 | None) -> PostingLists:
        """(key, id[, value]) triples already ordered by key, then id, grouped by key (no sort)."""
        if keys.size == 0:
            return PostingLists.empty(values is not None)
        starts = run_starts(keys)
        return PostingLists(
            keys=np.ascontiguousarray(keys[starts]),
            offsets=np.append(starts.astype(np.int64), np.int64(keys.size)),
            ids=np.ascontiguousarray(ids),
            values=None if values is None else np.ascontiguousarray(values),
        )

    @property
    def key_count(self) -> int:
        return int(self.offsets.size) - 1

    @property
    def size(self) -> int:
        return int(self.offsets[-1]) if self.offsets.size else 0

    @property
    def nbytes(self) -> int:
        total = int(self.offsets.nbytes + self.ids.nbytes)
        for part in (self.keys, self.values):
            total += 0 if part is None else int(part.nbytes)
        for column in (self.gaps, self.value_aside):
            total += 0 if column is None else column.nbytes
        total += 0 if self.steps is None else int(self.steps.nbytes)
        return total

    def ranges(self, query_keys: U32) -> tuple[I64, I64]:
        """For each query key, the [start, end) of its postings (empty when the key is absent)."""
        n = self.key_count
        if n <= 0:
            nothing = np.zeros(query_keys.size, dtype=np.int64)
            return nothing, nothing
        if self.keys is None:
            found = query_keys < n
            pos_clipped = np.where(found, query_keys, 0).astype(np.int64)
        else:
            pos = np.searchsorted(self.keys, query_keys)
            pos_clipped = np.minimum(pos, n - 1)
            found = (pos < n) & (self.keys[pos_clipped] == query_keys)
        starts = np.where(found, self.offsets[pos_clipped], 0)
        ends = np.where(found, self.offsets[pos_clipped + 1], 0)
        return starts.astype(np.int64), ends.astype(np.int64)

    def to_arrays(
        self,
        prefix: str,
        *,
        narrow_ids: bool = False,
        id_gaps: type[np.unsignedinteger[Any]] | None = None,
        split_ids: bool = False,
        dense_keys: bool = False,
    ) -> dict[str, npt.NDArray[Any]]:
        """The arrays that store these postings under `prefix` in a segment part, narrow where the values fit
        (`narrow_ids`: the ids as uint16 when they all fit; `id_gaps`: the ids gap-coded in that dtype; `split_ids`:
        the ids' low halves with where their high halves step; `dense_keys`: the keys, which must be 0..n-1, are left
        out)."""
        assert self.keys is not None and self.gaps is None, "built postings only"
        offsets = self.offsets.astype(np.int64)
        out: dict[str, npt.NDArray[Any]] = {f"{prefix}.off": narrow_offsets(offsets)}
        if dense_keys:
            assert np.array_equal(self.keys, np.arange(self.keys.size)), "dense keys are 0..n-1"
        else:
            out[f"{prefix}.keys"] = self.keys
        if split_ids:
            out.update(_split_arrays(f"{prefix}.low", self.ids, offsets))
        elif id_gaps is not None:
            out.update(AsideColumn.encode(id_gaps_of(self.ids, offsets), id_gaps).to_arrays(f"{prefix}.gaps"))
        else:
            fits = narrow_ids and (self.ids.size == 0 or int(self.ids.max()) <= np.iinfo(np.uint16).max)
            out[f"{prefix}.ids"] = self.ids.astype(np.uint16) if fits else self.ids
        if self.values is not None:
            out.update(_values_arrays(f"{prefix}.values", self.values))
        return out

    @staticmethod
    def from_arrays(arrays: Mapping[str, npt.NDArray[Any]], prefix: str) -> PostingLists:
        """Postings stored with `to_arrays` (views: nothing is copied or decoded; narrow arrays stay narrow). Raises
        ContainerError when an array is missing or has a dtype no writer gives it."""
        offsets = _array(arrays, f"{prefix}.off")
        keys = arrays.get(f"{prefix}.keys")
        gaps = None
        ids: npt.NDArray[Any] = _EMPTY_U32
        steps = None
        if f"{prefix}.low" in arrays:
            ids, steps = _array(arrays, f"{prefix}.low"), _array(arrays, f"{prefix}.low.steps")
            if ids.dtype != np.uint16 or steps.dtype not in OFFSET_DTYPES:
                raise ContainerError(f"{prefix}.low of dtype {ids.dtype}, its steps {steps.dtype}")
        elif f"{prefix}.gaps" in arrays:
            gaps = AsideColumn.from_arrays(arrays, f"{prefix}.gaps", GAP_DTYPES)
        else:
            ids = _array(arrays, f"{prefix}.ids")
            if ids.dtype not in ID_DTYPES:
                raise ContainerError(f"{prefix}.ids of dtype {ids.dtype}")
        values = arrays.get(f"{prefix}.values")
        value_aside = None
        if values is not None:
            if values.dtype not in VALUE_DTYPES:
                raise ContainerError(f"{prefix}.values of dtype {values.dtype}")
            if values.dtype == np.uint8:
                value_aside = AsideColumn.from_arrays(arrays, f"{prefix}.values", VALUE_DTYPES[:1])
        if offsets.dtype not in OFFSET_DTYPES:
            raise ContainerError(f"{prefix}.off of dtype {offsets.dtype}")
        if keys is not None and (keys.dtype != np.uint32 or keys.size + 1 != offsets.size):
            raise ContainerError(f"{prefix}.keys of dtype {keys.dtype} and size {keys.size}")
        return PostingLists(keys, offsets, ids, values, gaps, value_aside, steps)

    def ids_of(self, start: int, end: int) -> U32:
        """The ids of positions [start, end) (one key's list, or none), as uint32."""
        if self.steps is not None:
            ids: U32 = self.ids[start:end].astype(np.uint32)
            steps = self.steps
            lo, hi = _bounds(steps, start, end)
            for at in steps[lo:hi].tolist():  # a list steps at most (its last id >> 16) times
                ids[at - start :] += np.uint32(1 << 16)
            return ids
        if self.gaps is None:
            return self.ids[start:end].astype(np.uint32, copy=False)
        # uint32 throughout (3x faster than int64 over a long list): the sums wrap only past the last id, and the
        # modular result minus 1 is still the id, which fits uint32. A gap kept aside is 0 in the narrow column (a
        # real gap is >= 1), so a list without one is told by `all()`, without looking the positions up.
        narrow = self.gaps.narrow[start:end]
        if narrow.all():
            ids = np.cumsum(narrow, dtype=np.uint32)
        else:
            ids = np.cumsum(self.gaps.take(start, end, np.uint32), dtype=np.uint32)
        ids -= np.uint32(1)
        return ids

    def lists_of(self, starts: I64, ends: I64) -> list[U32]:
        """The ids of several keys' lists ([starts[i], ends[i]) each), as uint32. Gap-coded lists are decoded
        together (one concatenation, one cumsum): a trigram query reads ~10 short lists, and per list the numpy
        calls cost more than the work."""
        bounds = list(zip(starts.tolist(), ends.tolist(), strict=True))
        gaps = self.gaps
        if gaps is None or len(bounds) <= 1:
            return [self.ids_of(a, b) for a, b in bounds]
        narrow = gaps.narrow
        decoded = np.concatenate([narrow[a:b] for a, b in bounds], dtype=np.uint32)
        into = np.concatenate(([0], np.cumsum(ends - starts)))  # each list's place in the concatenation
        aside = np.flatnonzero(decoded == 0)  # a gap kept aside is 0 there (a real gap is >= 1)
        if aside.size:
            which = np.searchsorted(into, aside, side="right") - 1
            where = aside - into[which] + starts[which]  # positions in the whole column
            decoded[aside] = gaps.full[np.searchsorted(gaps.at, where.astype(gaps.at.dtype))]
        sums = np.cumsum(decoded, dtype=np.uint32)  # modular, as in ids_of
        before = np.concatenate(([np.uint32(0)], sums), dtype=np.uint32)[into[:-1]] + np.uint32(1)
        sums -= np.repeat(before, ends - starts)
        cuts = into.tolist()
        return [sums[lo:hi] for lo, hi in itertools.pairwise(cuts)]

    def values_of(self, start: int, end: int) -> F32:
        """The values of positions [start, end), as float32 (exactly the values given: narrow ones are whole)."""
        assert self.values is not None
        if self.value_aside is None:
            return self.values[start:end].astype(np.float32, copy=False)
        return self.value_aside.take(start, end, np.float32)


def id_gaps_of(ids: U32, offsets: I64) -> I64:
    """Each list's ids as gaps: its first id + 1, then the difference to the previous id (>= 1: ids ascend)."""
    wide = ids.astype(np.int64)
    gaps = np.diff(wide, prepend=np.int64(-1))
    starts = offsets[:-1][offsets[:-1] < offsets[1:]]
    gaps[starts] = wide[starts] + 1
    return gaps


def _split_arrays(name: str, ids: U32, offsets: I64) -> dict[str, npt.NDArray[Any]]:
    """Ids as their low 16 bits, and the positions where a list's high halves step up (a position repeated for a step
    of more than one; a list's first id steps from 0): ascending ids read back with an add per step, no cumsum."""
    high = ids.astype(np.int64) >> 16
    previous = np.concatenate(([0], high[:-1])) if high.size else high
    starts = offsets[:-1][offsets[:-1] < offsets[1:]]
    previous[starts] = 0
    rise = high - previous
    steps = np.repeat(np.arange(ids.size, dtype=np.int64), rise)
    return {
        name: (ids & 0xFFFF).astype(np.uint16),
        f"{name}.steps": narrow_offsets(steps) if steps.size else steps.astype(np.uint32),
    }


def narrow_offsets(offsets: I64) -> npt.NDArray[Any]:
    """Ascending non-negative offsets as uint32 when the last one fits (it is the largest)."""
    if offsets.size and int(offsets[-1]) > np.iinfo(np.uint32).max:
        return offsets
    return offsets.astype(np.uint32)


def _values_arrays(name: str, values: F32) -> dict[str, npt.NDArray[Any]]:
    """Whole non-negative values as uint8 with the larger ones kept aside (each converts back to the same
    float32), else float32 as given."""
    whole = values.size == 0 or (bool(np.all(values == np.floor(values))) and float(values.min()) >= 0)
    if whole and (values.size == 0 or float(values.max()) <= np.iinfo(np.uint32).max):
        return AsideColumn.encode(values.astype(np.int64), np.uint8).to_arrays(name)
    return {name: values.astype(np.float32)}


def _bounds(positions: npt.NDArray[Any], start: int, end: int) -> list[int]:
    """Where [start, end) lies in ascending positions, by one binary search of both ends. The ends are given in the
    positions' own dtype: as Python ints (int64) numpy would first cast the whole array, ~200 us for 200k."""
    bounds: list[int] = np.searchsorted(positions, np.array((start, end), dtype=positions.dtype)).tolist()
    return bounds


def _narrowest_wide(full: I64) -> npt.NDArray[Any]:
    """Entries kept aside as uint16 or uint32 when they all fit (int64 else)."""
    top = int(full.max()) if full.size else 0
    for dtype in (np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return full.astype(dtype)
    return full


def _array(arrays: Mapping[str, npt.NDArray[Any]], name: str) -> npt.NDArray[Any]:
    array = arrays.get(name)
    if array is None:
        raise ContainerError(f"no {name} array")
    return array

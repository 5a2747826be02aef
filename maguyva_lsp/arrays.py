"""Distinct values of integer arrays found by sorting, instead of `np.unique`.

From numpy 2.3 on, `np.unique` without return_index/inverse/counts finds the distinct values in a hash table and then
sorts them. For the integer keys this code base makes (string ids, node slots, id pairs packed into int64) that is
10-70 times slower than one sort (numpy 2.4.6, 2 cores: the stdlib graph's 387k packed (source, target) pairs
0.45-0.8 s against 8 ms; 80k int32 ids 20 ms against 0.8 ms), and it holds the GIL throughout: on the writer thread
at every save (the graph's edge count) it stalled the searches answering beside it. Integers only: `np.unique`
also folds NaNs into one, which a sort does not.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

_T = TypeVar("_T", bound=np.generic)


def unique(values: npt.NDArray[_T]) -> npt.NDArray[_T]:
    """The distinct values, ascending, in the input's dtype: what `np.unique(values)` returns for integers."""
    ordered = np.sort(values, axis=None)  # a flattened copy; the input is left as it is
    if len(ordered) < 2:
        return ordered
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def run_starts(ordered: npt.NDArray[np.generic]) -> npt.NDArray[np.intp]:
    """Where each run of equal values of a sorted array starts (empty for an empty array)."""
    if len(ordered) == 0:
        return np.zeros(0, dtype=np.intp)
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return np.flatnonzero(first)


def distinct_count(values: npt.NDArray[np.generic]) -> int:
    """How many distinct values (`len(np.unique(values))` for integers), without making the distinct array."""
    if len(values) < 2:
        return int(values.size)
    ordered = np.sort(values, axis=None)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def spans_text(array: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64]) -> bytes:
    """The bytes at these spans of the array (none empty), each followed by a space: its `split()` is the spans'
    strings when they hold no whitespace, cut in C instead of by a Python slice each."""
    if starts.size == 0:
        return b""
    bounds = np.zeros(starts.size + 1, dtype=np.int64)
    np.cumsum(lengths + 1, out=bounds[1:])
    at = np.repeat(starts - bounds[:-1], lengths + 1) + np.arange(int(bounds[-1]), dtype=np.int64)
    spaces = bounds[1:] - 1  # the slot after each span (past the array's end for a span that ends it)
    at[spaces] = 0
    picked = array[at]
    picked[spaces] = 0x20
    return picked.tobytes()

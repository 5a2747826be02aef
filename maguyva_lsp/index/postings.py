"""The building blocks of the symbol part: sorted string vocabularies searched on their bytes, and CSR posting lists
(key → ascending ids) stored as plain arrays, mapped from the store or in memory.

A vocabulary keeps, beside its UTF-8 blob, the first 8 bytes of each string as a big-endian integer (its *head*):
binary search runs in numpy on the heads and only compares bytes among the few strings that share one. UTF-8 keeps
code-point order, so the order of the bytes is the order of the Python strings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS, Array, encode_strings

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]
Bools = npt.NDArray[np.bool_]

HEAD_BYTES = 8
# Every string that starts with a prefix sorts before the prefix followed by a byte UTF-8 never uses.
_ABOVE_UTF8 = b"\xff"
EMPTY_IDS: I32 = np.zeros(0, dtype=np.int32)
_MAX_HEAD = (1 << 64) - 1


def utf8(text: str) -> bytes:
    return text.encode(ENCODING, ENCODING_ERRORS)


def head_of(key: bytes) -> int:
    return int.from_bytes(key[:HEAD_BYTES].ljust(HEAD_BYTES, b"\0"), "big")


def heads_of(blob: npt.NDArray[np.uint8], offsets: npt.NDArray[np.integer]) -> U64:
    """`head_of` every string of an encoded column (a blob and its n + 1 offsets), in numpy."""
    starts = np.asarray(offsets[:-1], dtype=np.int64)
    lengths = np.minimum(np.diff(np.asarray(offsets, dtype=np.int64)), HEAD_BYTES)
    padded = np.concatenate((np.asarray(blob, dtype=np.uint8), np.zeros(HEAD_BYTES, dtype=np.uint8)))
    at = np.arange(HEAD_BYTES, dtype=np.int64)
    first = np.where(at < lengths[:, None], padded[starts[:, None] + at], np.uint8(0))  # zero past a string's end
    return np.ascontiguousarray(first, dtype=np.uint8).view(">u8").reshape(-1).astype(np.uint64)


def vocabulary_arrays(name: str, strings: Sequence[str]) -> dict[str, Array]:
    """The arrays of a vocabulary of these strings, which must be sorted and unique."""
    blob, offsets = encode_strings(strings)
    return {f"{name}.blob": blob, f"{name}.off": offsets, f"{name}.head": heads_of(blob, offsets)}


class Vocabulary:
    """Sorted unique strings: find one, or the range of those that start with a prefix, in O(log n) numpy steps."""

    __slots__ = ("_blob", "_head", "_off", "size")

    def __init__(self, blob: npt.NDArray[np.uint8], offsets: I64, heads: U64) -> None:
        self._blob = blob
        self._off = offsets
        self._head = heads
        self.size = int(heads.size)

    @staticmethod
    def of(arrays: Mapping[str, Array], name: str) -> Vocabulary:
        return Vocabulary(arrays[f"{name}.blob"], arrays[f"{name}.off"], arrays[f"{name}.head"])

    def raw(self, index: int) -> bytes:
        return self._blob[int(self._off[index]) : int(self._off[index + 1])].tobytes()

    def text(self, index: int) -> str:
        return self.raw(index).decode(ENCODING, ENCODING_ERRORS)

    def texts(self, indexes: Sequence[int] | Array) -> list[str]:
        """The strings at these indexes (ascending, for one copy of the bytes that cover them)."""
        index = np.asarray(indexes, dtype=np.int64)
        if index.size == 0:
            return []
        base = int(self._off[index[0]])
        data = self._blob[base : int(self._off[index[-1] + 1])].tobytes()
        starts = (self._off[index] - base).tolist()
        ends = (self._off[index + 1] - base).tolist()
        return [data[s:e].decode(ENCODING, ENCODING_ERRORS) for s, e in zip(starts, ends, strict=True)]

    def bisect(self, key: bytes) -> int:
        """The position of the first string not below `key`."""
        head = head_of(key)
        lo = int(self._head.searchsorted(np.uint64(head)))
        hi = self.size if head == _MAX_HEAD else int(self._head.searchsorted(np.uint64(head + 1)))
        return self._refine(key, lo, hi)

    def _refine(self, key: bytes, lo: int, hi: int) -> int:
        while lo < hi:  # only among the strings whose first 8 bytes are the key's
            mid = (lo + hi) // 2
            if self.raw(mid) < key:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def find(self, text: str) -> int:
        """The index of `text`, or -1."""
        key = utf8(text)
        i = self.bisect(key)
        return i if i < self.size and self.raw(i) == key else -1

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the strings that start with `prefix` (one numpy search for both ends)."""
        key = utf8(prefix)
        above = key + _ABOVE_UTF8
        low, high = head_of(key), head_of(above)
        if high == _MAX_HEAD:
            return self.bisect(key), self.bisect(above)
        bounds = self._head.searchsorted(np.array([low, low + 1, high, high + 1], dtype=np.uint64)).tolist()
        return self._refine(key, bounds[0], bounds[1]), self._refine(above, bounds[2], bounds[3])


class Spellings:
    """Strings (a blob and offsets) tested against a given text as bytes, many rows at once, none decoded."""

    __slots__ = ("_blob", "_fold", "_off")

    def __init__(self, blob: npt.NDArray[np.uint8], offsets: I64, fold: npt.NDArray[np.uint8] | None = None) -> None:
        self._blob = blob
        self._off = offsets
        self._fold = fold  # a byte → byte map applied to the stored bytes before comparing (ASCII_LOWER), or none

    def starting_with(self, rows: Array, prefix: str) -> Bools:
        """Which rows' strings start with `prefix` (UTF-8 keeps prefixes: a prefix of the text is one of the bytes)."""
        key = np.frombuffer(utf8(prefix), dtype=np.uint8)
        starts = self._off[rows]
        fits = (self._off[rows + 1] - starts) >= key.size
        if key.size == 0 or not fits.any():
            return np.asarray(fits)
        at = np.minimum(starts[:, None] + np.arange(key.size), max(self._blob.size - 1, 0))
        stored = self._blob[at] if self._fold is None else self._fold[self._blob[at]]
        return np.asarray(fits & (stored == key).all(axis=1))

    def equal_to(self, rows: Array, text: str) -> Bools:
        """Which rows' strings are `text`."""
        size = len(utf8(text))
        return np.asarray(((self._off[rows + 1] - self._off[rows]) == size) & self.starting_with(rows, text))


# Maps each byte to its ASCII lower case: `bytes.lower`, which is `str.lower` on the UTF-8 of every name whose
# lower case changes no non-ASCII letter (symbol_part keeps the lower case of the other names as exceptions).
ASCII_LOWER: npt.NDArray[np.uint8] = np.arange(256, dtype=np.uint8)
ASCII_LOWER[ord("A") : ord("Z") + 1] += ord("a") - ord("A")


class FoldedSpellings:
    """The lower case of stored strings, tested like Spellings without being stored: the strings' bytes in ASCII
    lower case, except the rows listed (ascending) whose lower case is kept in a table of its own."""

    __slots__ = ("_exception_rows", "_exceptions", "_folded")

    def __init__(self, strings: Spellings, exception_rows: I32, exceptions: Spellings) -> None:
        self._folded = strings
        self._exception_rows = exception_rows
        self._exceptions = exceptions

    def _apply(self, rows: Array, out: Bools, test: str, text: str) -> Bools:
        listed = self._exception_rows
        if listed.size == 0 or out.size == 0:
            return out
        at = np.minimum(np.searchsorted(listed, rows), listed.size - 1)
        hit = listed[at] == rows
        if hit.any():
            out = out.copy()
            out[hit] = getattr(self._exceptions, test)(at[hit], text)
        return out

    def starting_with(self, rows: Array, prefix: str) -> Bools:
        return self._apply(rows, self._folded.starting_with(rows, prefix), "starting_with", prefix)

    def equal_to(self, rows: Array, text: str) -> Bools:
        return self._apply(rows, self._folded.equal_to(rows, text), "equal_to", text)


def live_counts(offsets: I64, ids: I32, alive: Bools) -> I64:
    """Per key, how many of its ids are alive."""
    running = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(alive[ids], out=running[1:])
    return running[offsets[1:]] - running[offsets[:-1]]


def csr_rows(offsets: I64, values: Array, rows: Array) -> tuple[I64, Array]:
    """The values of several CSR rows, concatenated, with the position in `rows` each value came from."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.size == 1:  # the common case of a precise query: one slice
        start, end = offsets[rows[0] : rows[0] + 2].tolist()
        return np.zeros(end - start, dtype=np.int64), values[start:end]
    starts, ends = offsets[rows], offsets[rows + 1]
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), values[:0]
    owner = np.repeat(np.arange(rows.size, dtype=np.int64), lengths)
    shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    return owner, values[np.arange(total, dtype=np.int64) + shift]


def csr_from_pairs(keys: Array, ids: Array, key_count: int) -> tuple[I64, I32]:
    """Group (key, id) pairs by key: the offsets (key_count + 1) and the ids, ascending within each key and unique."""
    if keys.size == 0:
        return np.zeros(key_count + 1, dtype=np.int64), EMPTY_IDS
    code = np.asarray(keys, dtype=np.int64) * (int(ids.max()) + 1) + np.asarray(ids, dtype=np.int64)
    code = unique(code)
    width = int(ids.max()) + 1
    sorted_keys, sorted_ids = code // width, code % width
    offsets = np.zeros(key_count + 1, dtype=np.int64)
    np.cumsum(np.bincount(sorted_keys, minlength=key_count), out=offsets[1:])
    return offsets, sorted_ids.astype(np.int32)


def members(ids: I32, sorted_ids: I32) -> Bools:
    """Which of `ids` are in the ascending array `sorted_ids`."""
    if sorted_ids.size == 0 or ids.size == 0:
        return np.zeros(ids.size, dtype=np.bool_)
    at = np.minimum(np.searchsorted(sorted_ids, ids), sorted_ids.size - 1)
    return np.asarray(sorted_ids[at] == ids)


def intersect(groups: Sequence[I32]) -> I32:
    """The ids in every ascending group (the smallest group tested against the others)."""
    if not groups:
        return EMPTY_IDS
    ordered = sorted(groups, key=len)
    out = ordered[0]
    for group in ordered[1:]:
        if out.size == 0:
            break
        out = out[members(out, group)]
    return out

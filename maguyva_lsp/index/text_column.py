"""The source text of a segment's files, as the core stores it: each file's UTF-8 (surrogatepass) is one zstd frame
(level 1), the frames concatenated in local-id order.

Why compressed, and why per file: the raw text was 37 MB of the stdlib's 186 MB index; zstd level 1 keeps 9 MB of it
(level 3 8.7 MB, lz4 13 MB) and a frame per file decodes only the file asked for. Line starts are not stored: a file's
are one numpy pass over its bytes, made when a hit or a chunk needs them (they were another 3.9 MB).

Exact search reads a candidate's bytes again and again (a common literal reads some 600 files per query), so it asks
`TextColumn.cached`: decompressed files are kept in one process-wide cache bounded in bytes (`TEXT_CACHE_BYTES`,
least recently read evicted). Nothing else fills it (building parts, the embedding lane, chunk texts decode and let
go), so what it holds is what searches read: the files' texts, and for case-insensitive literals and regexes their
lower-cased copies. A cached file is a `bytes` object searched in place with no further copy (the mapped raw text
needed one memcpy per read before).

A broad literal reads its candidates in one fixed order, query after query: when they hold more than the budget, plain
LRU evicts every file just before it is read again and no read ever hits (stdlib x5, 186 MB of text, 64 MB budget:
"ValueError" decoded its 2,960 files per query, 227 ms). So a full cache inserts the way bimodal insertion does
(Qureshi et al., ISCA 2007): a new file goes to the least recent end, where the next insertion evicts it unless it is
read again first, and one in `_FULL_MRU_EVERY` goes to the most recent end so that what is kept still follows what
searches read. Files that are read again are moved to the most recent end as in LRU.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import zstandard

from maguyva_lsp.store.container import Array, ContainerError

# zstd level 1: 9.0 MB for the stdlib's 37.2 MB, ~1 GB/s to decode on one core; higher levels gain 4 % for 50 % more
# time to write (every save and merge compresses its files).
TEXT_COMPRESSION_LEVEL = 1
# Decompressed files kept for exact search, in bytes: the whole text of the stdlib (37 MB) and of five copies of it
# (186 MB) fits, so their broad literals decode each file once per process (x5 "ValueError": 227 ms per query with a
# 64 MB budget, 50 ms with this one; the steady server at x5 holds some 335 MB besides, under the 2 GB target); a
# larger workspace keeps what searches read most (see the insertion rule above).
TEXT_CACHE_BYTES = 256 << 20
# When the cache is full, one new file in this many is inserted as most recent, the others as least recent.
_FULL_MRU_EVERY = 32
# A file larger than this share of the cache is decoded for each search instead (it would evict too much).
_LARGEST_CACHED_SHARE = 8
_NEWLINE = 10

U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]

_local = threading.local()
_tokens = itertools.count()


def _compressor() -> zstandard.ZstdCompressor:
    # zstandard's contexts must not be shared between threads: one of each per thread.
    found: zstandard.ZstdCompressor | None = getattr(_local, "compressor", None)
    if found is None:
        found = _local.compressor = zstandard.ZstdCompressor(level=TEXT_COMPRESSION_LEVEL)
    return found


def _decompressor() -> zstandard.ZstdDecompressor:
    found: zstandard.ZstdDecompressor | None = getattr(_local, "decompressor", None)
    if found is None:
        found = _local.decompressor = zstandard.ZstdDecompressor()
    return found


def offsets_of(counts: Sequence[int]) -> I64:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    if counts:
        np.cumsum(np.asarray(counts, dtype=np.int64), out=out[1:])
    return out


def text_arrays(texts: Sequence[bytes]) -> dict[str, Array]:
    """The core's text columns for these files' UTF-8: `file.text` (offsets of each file in the decompressed text,
    i.e. its size), `file.textz` and `textz` (each file's zstd frame)."""
    compress = _compressor().compress
    frames = [compress(data) for data in texts]
    return {
        "file.text": offsets_of([len(data) for data in texts]),
        "file.textz": offsets_of([len(frame) for frame in frames]),
        "textz": np.frombuffer(b"".join(frames), dtype=np.uint8),
    }


def line_starts(data: bytes) -> U32:
    """Byte offset of each line's start: 0, then one after each newline (a text ending in one ends in an empty line)."""
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == _NEWLINE)
    starts = np.empty(newlines.size + 1, dtype=np.uint32)
    starts[0] = 0
    starts[1:] = newlines + 1
    return starts


# What the cache keeps of a file (the third part of its key): its text, its line starts, and what exact search derives
# from the text for case-insensitive literals (text_views.py: the lower-cased copy, the folded copy's trigrams).
TEXT, LINE_STARTS, LOWERED, FOLDED_TRIGRAMS = 0, 1, 2, 3
_Key = tuple[int, int, int]  # (column token, local id, TEXT or LINE_STARTS)


def _nbytes(value: bytes | U32) -> int:
    return len(value) if isinstance(value, bytes) else int(value.nbytes)


class _Cache:
    """Decompressed files and their line starts, by key, least recently read evicted past the budget (a full cache
    inserts bimodally: see the module note)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.size = 0
        self._files: OrderedDict[_Key, bytes | U32] = OrderedDict()
        self._lock = threading.Lock()
        self._full_inserts = 0

    def get(self, key: _Key) -> bytes | U32 | None:
        with self._lock:
            value = self._files.get(key)
            if value is not None:
                self._files.move_to_end(key)
            return value

    def put(self, key: _Key, value: bytes | U32) -> None:
        size = _nbytes(value)
        if size * _LARGEST_CACHED_SHARE > self.budget:
            return
        with self._lock:
            if key in self._files:
                return
            full = self.size + size > self.budget
            while self._files and self.size + size > self.budget:
                _, dropped = self._files.popitem(last=False)
                self.size -= _nbytes(dropped)
            self._files[key] = value
            self.size += size
            if full:
                self._full_inserts += 1
                if self._full_inserts % _FULL_MRU_EVERY:
                    self._files.move_to_end(key, last=False)  # least recent: the next insertion evicts it

    def forget(self, token: int) -> None:
        """Drop the files of a column nobody reads any more (its segment was merged away or replaced)."""
        with self._lock:
            for key in [key for key in self._files if key[0] == token]:
                self.size -= _nbytes(self._files.pop(key))

    def clear(self) -> None:
        with self._lock:
            self._files.clear()
            self.size = 0


CACHE = _Cache(TEXT_CACHE_BYTES)


class TextColumn:
    """One segment's compressed text: a file's bytes decoded on demand, for search through the shared cache."""

    __slots__ = ("__weakref__", "_frame_off", "_frames", "_sizes_off", "_token")

    def __init__(self, frames: Array, frame_offsets: Array, size_offsets: Array) -> None:
        self._frames = frames
        self._frame_off = frame_offsets
        self._sizes_off = size_offsets
        self._token = next(_tokens)
        weakref.finalize(self, CACHE.forget, self._token)

    @staticmethod
    def check(frames: Array, frame_offsets: Array, size_offsets: Array, files: int) -> None:
        """Raise ContainerError unless the columns have the dtypes and lengths the writer gives them."""
        if frames.dtype != np.uint8 or frame_offsets.dtype != np.int64 or size_offsets.dtype != np.int64:
            raise ContainerError(f"text: dtypes {frames.dtype}, {frame_offsets.dtype}, {size_offsets.dtype}")
        if frame_offsets.shape != (files + 1,) or size_offsets.shape != (files + 1,):
            raise ContainerError(f"text: {frame_offsets.shape} / {size_offsets.shape} offsets for {files} files")
        if files and int(frame_offsets[-1]) != frames.size:
            raise ContainerError(f"text: frames end at {int(frame_offsets[-1])} of {frames.size} bytes")

    def size(self, local: int) -> int:
        return int(self._sizes_off[local + 1]) - int(self._sizes_off[local])

    def sizes(self) -> I64:
        return np.diff(np.asarray(self._sizes_off))

    def read(self, local: int) -> bytes:
        """The file's UTF-8, decoded from its frame (not kept)."""
        start, end = int(self._frame_off[local]), int(self._frame_off[local + 1])
        data = _decompressor().decompress(self._frames[start:end].data)
        if len(data) != self.size(local):
            raise ContainerError(f"text of file {local}: {len(data)} bytes decoded, {self.size(local)} recorded")
        return data

    def cached(self, local: int) -> bytes:
        """`read`, through the process-wide cache (exact search: the files it reads are read again soon)."""
        key = (self._token, local, TEXT)
        data = CACHE.get(key)
        if not isinstance(data, bytes):
            data = self.read(local)
            CACHE.put(key, data)
        return data

    def cached_derived(self, local: int, kind: int, make: Callable[[bytes], bytes | U32]) -> bytes | U32:
        """`make` of the file's cached bytes, kept in the cache under `kind` (LOWERED, FOLDED_TRIGRAMS): made once
        for the files a rare literal ignoring case reads query after query."""
        key = (self._token, local, kind)
        found = CACHE.get(key)
        if found is None:
            found = make(self.cached(local))
            CACHE.put(key, found)
        return found

    def cached_line_starts(self, local: int) -> U32:
        """`line_starts` of the file, through the cache (made for the files whose hits are shown: a rare literal's
        hits are in the same few files query after query)."""
        key = (self._token, local, LINE_STARTS)
        starts = CACHE.get(key)
        if not isinstance(starts, np.ndarray):
            starts = line_starts(self.cached(local))
            CACHE.put(key, starts)
        return starts

"""Trigram index: each byte trigram of a document's lower-cased UTF-8 text → the documents (files) that contain it.

The index only narrows: one index serves case-sensitive and case-insensitive search, and verification on the text
decides. Postings are built per segment (`trigram_arrays`, stored in the segment's text part) and read over a
snapshot of the segments (`TrigramIndex`), dead files masked, so readers never see a mix.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.text_postings import U32, PostingLists
from maguyva_lsp.model import Chunk
from maguyva_lsp.store.container import Array

if TYPE_CHECKING:
    from maguyva_lsp.index.segment_set import Segment, SegmentSet

TRIGRAM_LEN = 3
# Non-ASCII characters that Python's re.IGNORECASE equates with an ASCII letter (İ, ı → i; ſ → s; Kelvin K → k),
# found by brute force over every code point (tests check it). A case-insensitive match of an ASCII query can then
# have other bytes than the query, so documents holding one are candidates of every case-insensitive search.
ASCII_FOLDING_CHARS: frozenset[str] = frozenset("\u0130\u0131\u017f\u212a")

# An AND keeps at most this many trigrams (an evenly spread subset): far more than narrowing needs, and it keeps the
# analysis of a long regex linear.
MAX_AND_TRIGRAMS = 256

_EMPTY_CODES: U32 = np.empty(0, dtype=np.uint32)


def utf8(text: str) -> bytes:
    """The bytes the index sees for a text (lone surrogates kept, so every str encodes and offsets stay faithful)."""
    return text.encode("utf-8", "surrogatepass")


def trigram_codes(data: bytes) -> U32:
    """The code `b0 << 16 | b1 << 8 | b2` of every 3-byte window of data, in order, duplicates kept."""
    if len(data) < TRIGRAM_LEN:
        return _EMPTY_CODES
    raw = np.frombuffer(data, dtype=np.uint8).astype(np.uint32)
    codes = (raw[:-2] << 16) | (raw[1:-1] << 8) | raw[2:]
    return codes.astype(np.uint32, copy=False)


def string_trigrams(text: str, *, ignore_case: bool) -> frozenset[int]:
    """The trigram codes a document must hold to contain `text` (case-sensitively, or not when ignore_case).

    Case-insensitively only windows of ASCII characters count: a non-ASCII character may match another casing with
    other bytes (É/é), and windows across it would not be in the document.
    """
    if not ignore_case or text.isascii():
        return frozenset(trigram_codes(utf8(text).lower()).tolist())
    out: set[int] = set()
    run: list[str] = []
    for char in [*text, "\x80"]:  # a sentinel non-ASCII character flushes the last run
        if char.isascii():
            run.append(char)
        elif run:
            out.update(trigram_codes("".join(run).lower().encode("ascii")).tolist())
            run = []
    return frozenset(out)


@dataclass(frozen=True, slots=True)
class TrigramQuery:
    """A monotone condition on the trigram set of a document.

    "and": every trigram present and every sub-query true (with neither: true of every document).
    "or": some trigram present or some sub-query true.
    """

    op: Literal["and", "or"]
    trigrams: frozenset[int] = frozenset()
    subs: tuple[TrigramQuery, ...] = ()

    @property
    def is_all(self) -> bool:
        return self.op == "and" and not self.trigrams and not self.subs


MATCH_ALL = TrigramQuery("and")


def _flatten(op: Literal["and", "or"], subs: Iterable[TrigramQuery]) -> tuple[set[int], list[TrigramQuery]]:
    """The trigrams and sub-queries of an `op` over `subs`: same-op children are inlined, one-trigram ones lifted."""
    grams: set[int] = set()
    kept: list[TrigramQuery] = []
    for sub in subs:
        if sub.op == op:
            grams.update(sub.trigrams)
            kept.extend(sub.subs)
        elif len(sub.trigrams) == 1 and not sub.subs:
            grams.update(sub.trigrams)
        else:
            kept.append(sub)
    return grams, kept


def all_of(trigrams: Iterable[int] = (), subs: Iterable[TrigramQuery] = ()) -> TrigramQuery:
    """AND, flattened: nested ANDs are inlined and always-true parts dropped."""
    grams, kept = _flatten("and", subs)
    grams.update(trigrams)
    if not grams and len(kept) == 1:
        return kept[0]
    if len(grams) > MAX_AND_TRIGRAMS:
        ordered = sorted(grams)
        grams = set(ordered[:: -(-len(ordered) // MAX_AND_TRIGRAMS)])
    return TrigramQuery("and", frozenset(grams), tuple(dict.fromkeys(kept)))


def any_of(subs: Iterable[TrigramQuery]) -> TrigramQuery:
    """OR, flattened; one always-true alternative makes the whole OR always true."""
    subs = tuple(subs)
    if any(sub.is_all for sub in subs):
        return MATCH_ALL
    grams, kept = _flatten("or", subs)
    if not grams and not kept:
        return MATCH_ALL  # an OR of nothing never comes from a real pattern; staying sound costs nothing
    if not grams and len(kept) == 1:
        return kept[0]
    if len(grams) == 1 and not kept:
        return TrigramQuery("and", frozenset(grams))
    return TrigramQuery("or", frozenset(grams), tuple(dict.fromkeys(kept)))


class TextDocument:
    """What text search reads of one file, made on demand from its segment's columns: its text is decoded when
    first read, its chunks built when first asked for; the view lives as long as the query that made it."""

    __slots__ = ("_chunks", "_core", "_local", "_text", "doc_id", "language", "path", "path_class")

    def __init__(self, doc_id: int, core: CoreColumns, local: int) -> None:
        self.doc_id = doc_id
        self._core = core
        self._local = local
        self.path = core.paths[local]
        self.path_class = core.path_class(local)
        self.language = core.language(local)
        self._text: str | None = None
        self._chunks: tuple[Chunk, ...] | None = None

    @property
    def core(self) -> CoreColumns:
        """The columns of the file's segment."""
        return self._core

    @property
    def local(self) -> int:
        """The file's id within its segment."""
        return self._local

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._core.text(self._local)
        return self._text

    @property
    def size(self) -> int:
        """Bytes of the file's UTF-8 text (what a scan cap counts without decoding it)."""
        return self._core.text_size(self._local)

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        if self._chunks is None:
            self._chunks = self._core.chunks(self._local, self.text)
        return self._chunks


def _intersect(a: U32, b: U32) -> U32:
    """Sorted unique ∩ sorted unique, by binary search of the smaller in the larger."""
    small, large = (a, b) if a.size <= b.size else (b, a)
    if small.size == 0 or large.size == 0:
        return _EMPTY_CODES
    pos = np.minimum(np.searchsorted(large, small), large.size - 1)
    both: U32 = small[large[pos] == small]
    return both


def _unique_codes(data: bytes) -> U32:
    """A document's distinct trigram codes, ascending. numpy's vectorised sort then one comparison: faster on the
    stdlib (0.20 vs 0.33 s CPU) than the 2^24-entry scratch table it replaces, whose 64 MB were touched at random."""
    codes = np.sort(trigram_codes(data))
    if codes.size <= 1:
        return codes
    kept: U32 = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]
    return kept


def trigram_arrays(core: CoreColumns) -> dict[str, Array]:
    """The trigram part of a segment: postings (trigram code → local file ids) and the files with ASCII-folding
    characters, over every file of the segment."""
    datas = [core.text_bytes(local).lower() for local in range(core.file_count)]
    per_doc = [_unique_codes(data) for data in datas]
    postings = _postings_of(per_doc)
    folding = [i for i, data in enumerate(datas) if _has_ascii_folding_bytes(data)]
    # file ids gap-coded as uint8 (5 % of the stdlib's gaps are wider and kept aside): 7.2 -> 4.8 MB there
    return {**postings.to_arrays("tri", id_gaps=np.uint8), "tri.fold": np.array(folding, dtype=np.uint32)}


def _postings_of(per_doc: list[U32]) -> PostingLists:
    """code → file ids from each file's distinct codes: the (code, file) pairs packed into one int64 each (a code
    has 24 bits) and sorted by numpy's vectorised sort, several times faster than grouping them by a stable argsort."""
    total = sum(codes.size for codes in per_doc)
    if total == 0:
        return PostingLists.empty(False)
    bits = max(len(per_doc) - 1, 1).bit_length()
    ids = np.repeat(np.arange(len(per_doc), dtype=np.int64), [codes.size for codes in per_doc])
    packed = np.sort((np.concatenate(per_doc).astype(np.int64) << bits) | ids)
    keys: U32 = (packed >> bits).astype(np.uint32)
    files: U32 = (packed & ((1 << bits) - 1)).astype(np.uint32)
    return PostingLists.from_sorted(keys, files, None)


_FOLDING_BYTES: tuple[bytes, ...] = tuple(utf8(c) for c in sorted(ASCII_FOLDING_CHARS))


def _has_ascii_folding_bytes(data: bytes) -> bool:
    """Whether UTF-8 text holds a character that case-insensitive matching equates with an ASCII letter (bytes
    lower-casing leaves the multi-byte sequences alone)."""
    return not data.isascii() and any(seq in data for seq in _FOLDING_BYTES)


@dataclass(frozen=True, slots=True)
class TrigramPostings:
    """One segment's trigram part, over its arrays."""

    postings: PostingLists
    folding: U32

    @staticmethod
    def open(arrays: Mapping[str, Array]) -> TrigramPostings:
        return TrigramPostings(PostingLists.from_arrays(arrays, "tri"), arrays["tri.fold"])

    @property
    def nbytes(self) -> int:
        return self.postings.nbytes + int(self.folding.nbytes)

    def lookup_many(self, keys: U32) -> list[U32]:
        starts, ends = self.postings.ranges(keys)
        return self.postings.lists_of(starts, ends)

    def evaluate(self, query: TrigramQuery) -> U32 | None:
        """Local ids of the files that may satisfy the query (sorted), or None when it does not narrow at all."""
        if query.op == "or":
            parts = [*self._posting_ids(query.trigrams)]
            for sub in query.subs:
                found = self.evaluate(sub)
                if found is None:
                    return None
                parts.append(found)
            if not parts:
                return None
            return unique(np.concatenate(parts)).astype(np.uint32)
        result: U32 | None = None
        for ids in sorted(self._posting_ids(query.trigrams), key=lambda ids: ids.size):  # rarest first
            result = ids if result is None else _intersect(result, ids)
            if result.size == 0:
                return result
        for sub in query.subs:
            found = self.evaluate(sub)
            if found is not None:
                result = found if result is None else _intersect(result, found)
                if result.size == 0:
                    return result
        return result

    def _posting_ids(self, trigrams: frozenset[int]) -> list[U32]:
        if not trigrams:
            return []
        keys = np.array(sorted(trigrams), dtype=np.uint32)
        return self.lookup_many(keys)


class _LiveDocuments(Mapping[int, TextDocument]):
    """Global document id → a view of the file, over the live files of every segment (ids in segment order)."""

    __slots__ = ("_index",)

    def __init__(self, index: TrigramIndex) -> None:
        self._index = index

    def __getitem__(self, doc_id: int) -> TextDocument:
        index = self._index
        position = int(np.searchsorted(index.bases, doc_id, side="right")) - 1
        if position < 0 or position >= len(index.segments):
            raise KeyError(doc_id)
        segment = index.segments[position]
        local = doc_id - int(index.bases[position])
        if local >= segment.alive.size or not segment.alive[local]:
            raise KeyError(doc_id)
        return TextDocument(doc_id, segment.core, local)

    def __iter__(self) -> Iterator[int]:
        index = self._index
        for base, segment in zip(index.bases.tolist(), index.segments, strict=False):
            for local in np.flatnonzero(segment.alive).tolist():
                yield base + local

    def __len__(self) -> int:
        return self._index.document_count

    def values(self) -> Iterator[TextDocument]:  # type: ignore[override]
        index = self._index
        for base, segment in zip(index.bases.tolist(), index.segments, strict=False):
            core = segment.core
            for local in np.flatnonzero(segment.alive).tolist():
                yield TextDocument(base + local, core, local)


class TrigramIndex:
    """The trigram side of text search over one snapshot of the segments: documents by global id (segment base +
    local id), candidates for a trigram query with dead files masked, and the bookkeeping for case-insensitive
    soundness. Never mutated: a new snapshot makes a new index."""

    def __init__(self, snapshot: SegmentSet | None = None, part: str = "text") -> None:
        self.segments: tuple[Segment, ...] = () if snapshot is None else snapshot.segments
        sizes = [s.alive.size for s in self.segments]
        self.bases = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))[: len(sizes)].astype(np.int64)
        self._parts: list[TrigramPostings] = [s.part(part).trigrams for s in self.segments]
        self.docs: Mapping[int, TextDocument] = _LiveDocuments(self)

    @property
    def document_count(self) -> int:
        return sum(s.live_count for s in self.segments)

    @property
    def nbytes(self) -> int:
        return sum(p.nbytes for p in self._parts)

    def document(self, path: str) -> TextDocument | None:
        for position in range(len(self.segments) - 1, -1, -1):
            segment = self.segments[position]
            local = segment.core.local_id(path)
            if local >= 0 and segment.alive[local]:
                return TextDocument(int(self.bases[position]) + local, segment.core, local)
        return None

    def by_rarity(self, trigrams: Iterable[int]) -> tuple[int, ...]:
        """Trigram codes, those the fewest files hold first (over every segment, dead files included)."""
        keys = np.array(sorted(set(trigrams)), dtype=np.uint32)
        held = np.zeros(keys.size, dtype=np.int64)
        for part in self._parts:
            starts, ends = part.postings.ranges(keys)
            held += np.asarray(ends, dtype=np.int64) - np.asarray(starts, dtype=np.int64)
        return tuple(keys[np.argsort(held, kind="stable")].tolist())

    def with_folding(self, ids: U32) -> U32:
        """Sorted global ids with the live files that fold onto ASCII letters added: what `candidates` adds to a
        query's postings when it ignores case."""
        extra = [
            part.folding[segment.alive[part.folding]].astype(np.int64) + base
            for base, segment, part in zip(self.bases.tolist(), self.segments, self._parts, strict=True)
            if part.folding.size
        ]
        if not extra:
            return ids
        return np.union1d(ids, np.concatenate(extra)).astype(np.uint32)

    def candidates(self, query: TrigramQuery, *, ignore_case: bool) -> U32 | None:
        """Live documents that may hold a match (sorted global ids), or None when the query does not narrow at
        all."""
        found: list[npt.NDArray[np.int64]] = []
        for base, segment, part in zip(self.bases.tolist(), self.segments, self._parts, strict=True):
            local = part.evaluate(query)
            if local is None:
                return None
            if ignore_case and part.folding.size:
                local = np.union1d(local, part.folding)
            local = local[segment.alive[local]] if local.size else local
            found.append(local.astype(np.int64) + base)
        if not found:
            return None if query.is_all else _EMPTY_CODES
        return np.concatenate(found).astype(np.uint32)

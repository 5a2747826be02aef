"""Trigram index: each byte trigram of a document's lower-cased UTF-8 text → the documents (files) that contain it.

The index only narrows: one index serves case-sensitive and case-insensitive search, and verification on the text
decides. Immutable: `with_changes` returns a new index sharing the untouched arrays, so readers never see a mix.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.text_postings import U32, PostingLists, SegmentedPostings
from maguyva_lsp.model import Chunk, FileAnalysis, PathClass

TRIGRAM_LEN = 3
_CODE_SPACE = 1 << (8 * TRIGRAM_LEN)
# Batches with more text than this dedupe each document's trigrams through a 2^24-entry scratch table (linear, no
# sort; measured 5x faster than np.unique on the stdlib); smaller batches use np.unique and skip the 64 MB table.
SCRATCH_MIN_BYTES = 1 << 20
# Non-ASCII characters that Python's re.IGNORECASE equates with an ASCII letter (İ, ı → i; ſ → s; Kelvin K → k),
# found by brute force over every code point (tests check it). A case-insensitive match of an ASCII query can then
# have other bytes than the query, so documents holding one are candidates of every case-insensitive search.
ASCII_FOLDING_CHARS: frozenset[str] = frozenset("\u0130\u0131\u017f\u212a")

# An AND keeps at most this many trigrams (an evenly spread subset): far more than narrowing needs, and it keeps the
# analysis of a long regex linear.
MAX_AND_TRIGRAMS = 256

_EMPTY_CODES: U32 = np.empty(0, dtype=np.uint32)
_scratch = threading.local()


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


@dataclass(frozen=True, slots=True)
class TextDocument:
    """What the text retriever keeps of one file: its text (shared with the analysis, not copied) and chunks."""

    doc_id: int
    path: str
    text: str
    path_class: PathClass
    language: str | None
    chunks: tuple[Chunk, ...]


def _intersect(a: U32, b: U32) -> U32:
    """Sorted unique ∩ sorted unique, by binary search of the smaller in the larger."""
    small, large = (a, b) if a.size <= b.size else (b, a)
    if small.size == 0 or large.size == 0:
        return _EMPTY_CODES
    pos = np.minimum(np.searchsorted(large, small), large.size - 1)
    both: U32 = small[large[pos] == small]
    return both


def _unique_codes(data: bytes, scratch: npt.NDArray[np.int32] | None) -> U32:
    codes = trigram_codes(data)
    if scratch is None or codes.size == 0:
        unique: U32 = np.unique(codes)
        return unique
    # Every window writes its own index into the table; exactly one window per distinct code then finds its index
    # there (whichever write won), so this keeps one copy of each code without sorting.
    index = np.arange(codes.size, dtype=np.int32)
    scratch[codes] = index
    kept: U32 = codes[scratch[codes] == index]
    return kept


def _build_postings(docs: Sequence[TextDocument]) -> PostingLists:
    """Postings of new documents (ids ascending), deduplicated per document."""
    datas = [utf8(doc.text).lower() for doc in docs]
    scratch = None
    if sum(len(d) for d in datas) >= SCRATCH_MIN_BYTES:
        scratch = getattr(_scratch, "table", None)
        if scratch is None:
            scratch = _scratch.table = np.empty(_CODE_SPACE, dtype=np.int32)
    per_doc = [_unique_codes(data, scratch) for data in datas]
    if scratch is not None:
        _scratch.table = None  # 64 MB: not worth keeping between batches
    if not per_doc:
        return PostingLists.empty(False)
    counts = np.array([codes.size for codes in per_doc], dtype=np.int64)
    ids = np.repeat(np.array([doc.doc_id for doc in docs], dtype=np.uint32), counts)
    return PostingLists.from_pairs(np.concatenate(per_doc), ids, None)


def _has_ascii_folding(text: str) -> bool:
    return not text.isascii() and any(char in text for char in ASCII_FOLDING_CHARS)


@dataclass(frozen=True, slots=True)
class TrigramIndex:
    """Documents by id and path, their trigram postings, and the bookkeeping for case-insensitive soundness."""

    docs: dict[int, TextDocument] = field(default_factory=dict)
    by_path: dict[str, int] = field(default_factory=dict)
    postings: SegmentedPostings = field(default_factory=lambda: SegmentedPostings.empty(False))
    ascii_folding_ids: frozenset[int] = frozenset()
    next_id: int = 0
    total_chars: int = 0

    @property
    def document_count(self) -> int:
        return len(self.docs)

    @property
    def nbytes(self) -> int:
        """Memory of the index structures (the texts are shared with the analyses and not counted)."""
        return self.postings.nbytes

    def document(self, path: str) -> TextDocument | None:
        doc_id = self.by_path.get(path)
        return None if doc_id is None else self.docs.get(doc_id)

    def with_changes(self, updated: Sequence[FileAnalysis], removed: Iterable[str]) -> TrigramIndex:
        """A new index with `removed` forgotten and `updated` (re)indexed; a path in both ends up indexed."""
        docs = dict(self.docs)
        by_path = dict(self.by_path)
        dead: list[int] = []
        total_chars = self.total_chars
        latest = {analysis.path: analysis for analysis in updated}
        for path in [*removed, *latest]:
            old = by_path.pop(path, None)
            if old is not None:
                dead.append(old)
                total_chars -= len(docs.pop(old).text)
        fresh: list[TextDocument] = []
        next_id = self.next_id
        for analysis in latest.values():
            doc = TextDocument(
                next_id,
                analysis.path,
                analysis.text,
                analysis.file.path_class,
                analysis.file.language,
                analysis.chunks,
            )
            docs[next_id] = doc
            by_path[doc.path] = next_id
            total_chars += len(doc.text)
            fresh.append(doc)
            next_id += 1
        postings = self.postings.with_changes(
            _build_postings(fresh), next_id, np.array(dead, dtype=np.uint32), len(fresh)
        )
        folding = (self.ascii_folding_ids - set(dead)) | {doc.doc_id for doc in fresh if _has_ascii_folding(doc.text)}
        return TrigramIndex(docs, by_path, postings, frozenset(folding), next_id, total_chars)

    def live_ids(self) -> U32:
        return np.flatnonzero(self.postings.alive).astype(np.uint32)

    def candidates(self, query: TrigramQuery, *, ignore_case: bool) -> U32 | None:
        """Live documents that may hold a match (sorted ids), or None when the query does not narrow at all."""
        found = self._evaluate(query)
        if found is None:
            return None
        if ignore_case and self.ascii_folding_ids:
            found = np.union1d(found, np.array(sorted(self.ascii_folding_ids), dtype=np.uint32))
        return found[self.postings.alive[found]]

    def _posting_ids(self, trigrams: frozenset[int]) -> list[U32]:
        keys = np.array(sorted(trigrams), dtype=np.uint32)
        return [ids for ids, _ in self.postings.lookup_many(keys)]

    def _evaluate(self, query: TrigramQuery) -> U32 | None:
        if query.op == "or":
            parts = [*self._posting_ids(query.trigrams)]
            for sub in query.subs:
                found = self._evaluate(sub)
                if found is None:
                    return None
                parts.append(found)
            if not parts:
                return None
            return np.unique(np.concatenate(parts)).astype(np.uint32)
        result: U32 | None = None
        for ids in sorted(self._posting_ids(query.trigrams), key=lambda ids: ids.size):  # rarest first
            result = ids if result is None else _intersect(result, ids)
            if result.size == 0:
                return result
        for sub in query.subs:
            found = self._evaluate(sub)
            if found is not None:
                result = found if result is None else _intersect(result, found)
                if result.size == 0:
                    return result
        return result

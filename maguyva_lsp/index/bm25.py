"""BM25 over chunks with identifier-aware tokens (`parse config` finds `parseConfig` and `parse_config`), scored
sparsely: only the postings of the query's terms are touched, with numpy, never a loop over all chunks.

    score(q, c) = Σ_{t∈q} idf(t) · tf(t,c)·(k1+1) / (tf(t,c) + k1·(1 − b + b·|c|/avgdl))
    idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

(Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009, eq. 3.15; the idf is Lucene's
variant, which never goes negative for terms in more than half of the chunks.)
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import run_starts, unique
from maguyva_lsp.config import MAX_QUERY_CHARS
from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.bm25_lines import best_line_in
from maguyva_lsp.index.bm25_words import batch_words, chunk_byte_batches
from maguyva_lsp.index.subword_split import index_tokens_of
from maguyva_lsp.index.symbol_build import Strings
from maguyva_lsp.index.text_postings import F32, I64, ID_DTYPES, U32, Bools, PostingLists
from maguyva_lsp.model import Chunk, FileAnalysis, chunk_id
from maguyva_lsp.parse.chunker import DEFAULT_WINDOW_LINES
from maguyva_lsp.store.container import Array, ContainerError, StringColumn, string_arrays
from maguyva_lsp.tokens import IDENTIFIER_RE, STOPWORDS, index_tokens, subword_tokens

if TYPE_CHECKING:
    from maguyva_lsp.index.segment_set import Segment, SegmentSet

BM25_K1 = 1.2  # term-frequency saturation
BM25_B = 0.75  # length normalisation
# A chunk's own name (its symbol) counts this many extra times: a light BM25F in which the name field weighs more,
# so that the chunk defining `parse_config` beats the chunks that merely call it.
SYMBOL_TOKEN_BOOST = 2
# A long query (a pasted snippet) keeps only its most specific distinct terms (highest idf).
MAX_QUERY_TERMS = 32


def idf(df: npt.NDArray[np.float64], n_chunks: int) -> npt.NDArray[np.float64]:
    """Lucene's BM25 idf: ln(1 + (N − df + 0.5) / (df + 0.5))."""
    result: npt.NDArray[np.float64] = np.log1p((n_chunks - df + 0.5) / (df + 0.5))
    return result


def term_scores(tf: F32, lengths: F32, avgdl: float, term_idf: float) -> npt.NDArray[np.float64]:
    """One term's BM25 contribution to each chunk: idf · tf·(k1+1) / (tf + k1·(1 − b + b·|c|/avgdl))."""
    tf64 = tf.astype(np.float64)
    norm = BM25_K1 * (1.0 - BM25_B + BM25_B * lengths.astype(np.float64) / avgdl)
    result: npt.NDArray[np.float64] = term_idf * tf64 * (BM25_K1 + 1.0) / (tf64 + norm)
    return result


# Chunks whose words are gathered at once while building (chunk_term_postings): as Python lists for every chunk of
# a merged stdlib segment (millions of strings) the words took ~400 MB; a batch's are reduced to arrays at once.
WORD_BATCH_CHUNKS = 4096


class TermPostings(NamedTuple):
    """A segment's BM25 postings as built: `terms` sorted; (key, row, tf) triples ordered by key then row, a key
    being a term's rank in `terms`; `lengths` each chunk's sum of term frequencies."""

    terms: list[str]
    keys: U32
    rows: U32
    tf: F32
    lengths: F32


def chunk_term_postings(texts: Sequence[str], symbols: Sequence[str | None]) -> TermPostings:
    """Each chunk's term frequencies: how often each of `index_tokens` occurs in its text, plus SYMBOL_TOKEN_BOOST
    times in its symbol.

    Built with arrays, not per-chunk dicts: the identifiers of a batch of chunks are found (one findall per chunk, in
    C) and given ids, each new distinct identifier is split into terms once (`words_index_tokens`), every identifier
    occurrence is expanded into its terms' ids, and the (term, chunk) pairs are counted by sorting them as packed
    integers (numpy's vectorised sort: ~4x faster than an argsort, ~10x than a stable one). Term and word ids are
    first-seen: only the final ranks, the terms sorted, are stored.
    """
    words_seen = _WordTerms()
    parts: list[tuple[I64, I64, I64]] = []
    n_chunks = len(texts)
    for at in range(0, n_chunks, WORD_BATCH_CHUNKS):
        batch_texts, batch_symbols = texts[at : at + WORD_BATCH_CHUNKS], symbols[at : at + WORD_BATCH_CHUNKS]
        found = list(map(IDENTIFIER_RE.findall, batch_texts))
        sizes = list(map(len, found))
        rows = np.repeat(np.arange(len(found), dtype=np.int64), sizes)
        ids = words_seen.ids_of(chain.from_iterable(found), rows.size)
        symbol_ids, symbol_rows = _symbol_words(batch_symbols, words_seen)
        ids, rows = np.concatenate((ids, symbol_ids)), np.concatenate((rows, symbol_rows))
        parts.append(_batch_pairs(ids, rows + at, words_seen, n_chunks))
    return _term_postings(words_seen, parts, n_chunks)


def core_term_postings(core: CoreColumns) -> TermPostings:
    """`chunk_term_postings` of a core's chunks (`core.chunk_texts()`), the identifiers found in the chunks' bytes
    (index/bm25_words.py) instead of in their decoded texts: the same postings, for array work in place of a Python
    string per identifier occurrence."""
    words_seen = _WordTerms()
    parts: list[tuple[I64, I64, I64]] = []
    n_chunks = core.chunk_count
    symbol_of = np.asarray(core.arrays["chunk.symbol"], dtype=np.int64)
    pool = Strings.pool(core)
    for at, buffer, chunk_starts in chunk_byte_batches(core, WORD_BATCH_CHUNKS):
        batch = batch_words(buffer, chunk_starts)
        ids = words_seen.ids_of(batch.words, len(batch.words))[batch.word_of]
        symbol_ids, symbol_rows, symbol_counts = _pool_symbol_words(
            symbol_of[at : at + chunk_starts.size], pool, words_seen
        )
        ids = np.concatenate((ids, symbol_ids))
        rows = np.concatenate((batch.row_of, symbol_rows))
        counts = np.concatenate((batch.occurrences, symbol_counts))
        parts.append(_batch_pairs(ids, rows + at, words_seen, n_chunks, counts))
    return _term_postings(words_seen, parts, n_chunks)


def _symbol_words(symbols: Sequence[str | None], words_seen: _WordTerms) -> tuple[I64, I64]:
    """The word occurrences (ids, rows) of a batch's chunks' symbols: SYMBOL_TOKEN_BOOST of each word."""
    in_symbols = [IDENTIFIER_RE.findall(symbol) * SYMBOL_TOKEN_BOOST if symbol else [] for symbol in symbols]
    sizes = list(map(len, in_symbols))
    rows = np.repeat(np.arange(len(in_symbols), dtype=np.int64), sizes)
    return words_seen.ids_of(chain.from_iterable(in_symbols), rows.size), rows


def _pool_symbol_words(symbol_of: I64, pool: Strings, words_seen: _WordTerms) -> tuple[I64, I64, I64]:
    """The word occurrences (ids, rows, counts) of a batch's chunks' symbols, given as pool ids (-1: none): each word
    of a chunk's symbol once, counted SYMBOL_TOKEN_BOOST times (what `_symbol_words` gives, its pairs summed).

    Only the batch's distinct symbols are decoded and split, once each: decoding the whole pool (it also holds the
    chunks' own texts and hashes, ~180k strings on the stdlib) cost more than the rest of the symbols' work."""
    has_symbol = np.flatnonzero(symbol_of >= 0)
    distinct, symbol_at = np.unique(symbol_of[has_symbol], return_inverse=True)
    found = [IDENTIFIER_RE.findall(symbol) for symbol in pool.strings(distinct)]
    sizes = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    word_ids = words_seen.ids_of(chain.from_iterable(found), int(sizes.sum()))
    # each symbol-bearing chunk's words: its symbol's run of `word_ids`
    per = sizes[symbol_at]
    total = int(per.sum())
    first = np.cumsum(sizes) - sizes
    into = np.repeat(first[symbol_at] - (np.cumsum(per) - per), per) + np.arange(total, dtype=np.int64)
    return word_ids[into], np.repeat(has_symbol, per), np.full(total, SYMBOL_TOKEN_BOOST, dtype=np.int64)


def _term_postings(words_seen: _WordTerms, parts: list[tuple[I64, I64, I64]], n_chunks: int) -> TermPostings:
    """A segment's postings from its batches' distinct (term id, row) pairs and frequencies."""
    # the terms sorted, and each term id's rank among them (one sort of the ids by their terms: no look-up per term)
    by_id = list(words_seen.term_ids)
    order = sorted(range(len(by_id)), key=by_id.__getitem__)
    terms = [by_id[i] for i in order]
    if not parts or not terms:
        empty = np.zeros(0, dtype=np.uint32)
        return TermPostings(terms, empty, empty, np.zeros(0, dtype=np.float32), np.zeros(n_chunks, dtype=np.float32))
    rank = np.empty(len(terms), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(terms), dtype=np.int64)
    term_of = np.concatenate([p[0] for p in parts])
    row_of = np.concatenate([p[1] for p in parts])
    tf = np.concatenate([p[2] for p in parts])
    lengths = np.bincount(row_of, weights=tf, minlength=n_chunks).astype(np.float32)
    # ordered by (term rank, row), the pairs being distinct; the frequency packed in the low bits rides along
    tf_bits = int(tf.max()).bit_length()
    key = rank[term_of] * n_chunks + row_of
    if (len(terms) * n_chunks) << tf_bits < 1 << 63:
        packed = np.sort((key << tf_bits) | tf)
        key, tf = packed >> tf_bits, packed & ((1 << tf_bits) - 1)
    else:  # too wide to pack (never seen): sort the keys and carry the frequencies
        by_key = np.argsort(key)
        key, tf = key[by_key], tf[by_key]
    return TermPostings(
        terms,
        (key // n_chunks).astype(np.uint32),
        (key % n_chunks).astype(np.uint32),
        tf.astype(np.float32),
        lengths,
    )


class _WordTerms:
    """The identifiers met so far while building one segment's BM25 part, each with an id and its terms' ids (one
    array of every word's terms one after the other, and each word's count of them).

    Ids are given by looking words up in a defaultdict whose factory counts: one pass in C both numbers the words
    not met before and reads every word's id (a dict.fromkeys first, then the look-ups, took two)."""

    def __init__(self) -> None:
        self.word_ids: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self.term_ids: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self._terms: list[I64] = []
        self._counts: list[I64] = []

    def ids_of(self, words: Iterable[str], count: int) -> I64:
        """The id of each of `count` words, the words not met before split into their terms."""
        known = len(self.word_ids)
        ids = np.fromiter(map(self.word_ids.__getitem__, words), dtype=np.int64, count=count)
        # in id order; the words are ASCII identifiers (IDENTIFIER_RE): split with numpy, as words_index_tokens does
        tokens, counts = index_tokens_of(list(itertools.islice(self.word_ids, known, None)))
        self._terms.append(np.fromiter(map(self.term_ids.__getitem__, tokens), dtype=np.int64, count=len(tokens)))
        self._counts.append(counts)
        return ids

    def terms(self) -> tuple[I64, I64]:
        """Every word's term ids one after the other (in word id order), and how many each word has."""
        if len(self._terms) > 1:
            self._terms, self._counts = [np.concatenate(self._terms)], [np.concatenate(self._counts)]
        return self._terms[0], self._counts[0]


def _batch_pairs(
    occurrences: I64, rows: I64, words: _WordTerms, n_chunks: int, counts: I64 | None = None
) -> tuple[I64, I64, I64]:
    """A batch's distinct (term id, chunk row) pairs with their frequencies, from its identifier occurrences (word
    ids and their chunk rows, each `counts` times when given): each occurrence expanded into its word's terms, equal
    pairs counted."""
    flat_terms, term_counts = words.terms()
    if occurrences.size == 0:
        return occurrences, occurrences, occurrences
    starts = np.concatenate(([0], np.cumsum(term_counts)[:-1]))
    per = term_counts[occurrences]
    total = int(per.sum())
    # the position of each expanded term in flat_terms: its word's start + its rank among the word's terms
    into = np.repeat(starts[occurrences] - (np.cumsum(per) - per), per) + np.arange(total, dtype=np.int64)
    pair = flat_terms[into] * n_chunks + np.repeat(rows, per)
    if pair.size == 0:  # only words without terms (single letters)
        return pair, pair, pair
    weights: I64 | None = None
    if counts is None:
        pair.sort()
    else:  # the counts ride in the low bits of the sorted pairs, then are summed over equal pairs
        weights = np.repeat(counts, per)
        bits = int(weights.max()).bit_length()
        if (len(words.term_ids) * n_chunks) << bits < 1 << 63:
            packed = np.sort((pair << bits) | weights)
            pair, weights = packed >> bits, packed & ((1 << bits) - 1)
        else:  # too wide to pack (never seen)
            order = np.argsort(pair)
            pair, weights = pair[order], weights[order]
    first = run_starts(pair)
    frequency = np.diff(np.append(first, pair.size)) if weights is None else np.add.reduceat(weights, first)
    distinct = pair[first]
    return distinct // n_chunks, distinct % n_chunks, frequency


def query_terms(text: str) -> list[str]:
    """Distinct index tokens of a query, without stopwords unless nothing else is left, plus the compounds of
    adjacent words as an identifier would spell them (`parse config` → `parse_config`, `parseconfig`): a chunk that
    names the identifier itself then beats one that merely holds both words."""
    text = text[:MAX_QUERY_CHARS]
    tokens = list(dict.fromkeys(index_tokens(text)))
    content = [t for t in tokens if t not in STOPWORDS]
    words = subword_tokens(text, drop_stopwords=True)
    compounds = [f"{a}{joint}{b}" for a, b in pairwise(words) if a != b for joint in ("_", "")]
    return list(dict.fromkeys([*(content or tokens), *compounds]))


def fallback_chunks(analysis: FileAnalysis) -> tuple[Chunk, ...]:
    """Line windows (of the chunker's default size) for a file whose analysis has no chunks, so that BM25 still sees
    its text."""
    lines = analysis.text.split("\n")
    out: list[Chunk] = []
    for start in range(0, len(lines), DEFAULT_WINDOW_LINES):
        text = "\n".join(lines[start : start + DEFAULT_WINDOW_LINES])
        if text.strip():
            end = min(start + DEFAULT_WINDOW_LINES, len(lines)) - 1
            out.append(Chunk(analysis.path, analysis.file.language, start, end, text))
    return tuple(out)


class ChunkHead(NamedTuple):
    """What a chunk is, without its text: where it lies and what it defines."""

    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None

    @property
    def chunk_id(self) -> str:
        return chunk_id(self.path, self.start_line, self.end_line)


class ScoredChunk:
    """A chunk BM25 scored: its global id, its score and the query terms it holds with their idf. The chunk object
    is read from the segments when first asked for: a deep list (a question asks for 6 × limit) is mostly cut before
    anyone looks at its tail."""

    __slots__ = ("_chunk", "_head", "_index", "chunk_id", "score", "term_idf")

    def __init__(
        self, index: Bm25Index, chunk_id: int, score: float, term_idf: dict[str, float], head: ChunkHead | None = None
    ) -> None:
        self._index = index
        self._chunk: Chunk | None = None
        self._head = head
        self.chunk_id = chunk_id
        self.score = score
        self.term_idf = term_idf  # the query terms the chunk holds, with their idf

    @property
    def chunk(self) -> Chunk:
        if self._chunk is None:
            self._chunk = self._index.chunk(self.chunk_id)
        return self._chunk

    @property
    def head(self) -> ChunkHead:
        if self._head is None:
            self._head = self._index.chunk_head(self.chunk_id)
        return self._head

    def __repr__(self) -> str:
        return f"ScoredChunk({self.chunk_id}, {self.score:.4g}, {sorted(self.term_idf)})"


def bm25_arrays(core: CoreColumns) -> dict[str, Array]:
    """The BM25 part of a segment: term → chunk-row postings with term frequencies (terms sorted, so a term is found
    by binary search), each chunk's length and its file."""
    built = core_term_postings(core)
    postings = PostingLists.from_sorted(built.keys, built.rows, built.tf)
    return {
        # the keys are the terms' ranks 0..n-1 (every term has a posting): not stored; the chunk rows split in halves
        # (a cumsum over gaps made the longest list 10x slower to read)
        **postings.to_arrays("bm25", split_ids=True, dense_keys=True),
        **string_arrays("bm25.terms", built.terms, ascii=True),  # sub-words of ASCII identifiers
        **bm25_tail_arrays(built.lengths, core),
    }


def bm25_tail_arrays(lengths: F32, core: CoreColumns) -> dict[str, Array]:
    """The BM25 part's per-chunk arrays: each chunk's length (whole numbers) and its file, narrow where they fit."""
    files = core.chunk_files()
    return {
        "bm25.len": _narrow_whole(lengths),
        "bm25.file": files.astype(np.uint16) if _fits_uint16(files) else files,
    }


def _fits_uint16(values: npt.NDArray[Any]) -> bool:
    return values.size == 0 or float(values.max()) <= np.iinfo(np.uint16).max


def _narrow_whole(lengths: F32) -> npt.NDArray[Any]:
    """Chunk lengths (sums of term frequencies: whole numbers) as uint16 when they all fit, else float32."""
    if _fits_uint16(lengths):
        return lengths.astype(np.uint16)
    return lengths


@dataclass(frozen=True, slots=True)
class Bm25Postings:
    """One segment's BM25 part, over its arrays."""

    postings: PostingLists
    terms: StringColumn
    lengths: npt.NDArray[Any]  # uint16 (whole numbers) or float32
    chunk_file: npt.NDArray[Any]  # uint16 or uint32

    @staticmethod
    def open(arrays: Mapping[str, Array]) -> Bm25Postings:
        """The part's reader; ContainerError when an array is missing or of a dtype no writer gives it."""
        try:
            terms = StringColumn(arrays["bm25.terms.blob"], arrays["bm25.terms.off"])
            lengths, chunk_file = arrays["bm25.len"], arrays["bm25.file"]
        except KeyError as exc:
            raise ContainerError(f"no {exc.args[0]} array") from None
        if lengths.dtype not in (np.dtype(np.uint16), np.dtype(np.float32)):
            raise ContainerError(f"bm25.len of dtype {lengths.dtype}")
        if chunk_file.dtype not in ID_DTYPES:
            raise ContainerError(f"bm25.file of dtype {chunk_file.dtype}")
        return Bm25Postings(PostingLists.from_arrays(arrays, "bm25"), terms, lengths, chunk_file)

    @property
    def nbytes(self) -> int:
        return self.postings.nbytes + int(self.lengths.nbytes) + int(self.chunk_file.nbytes)

    def term(self, term: str) -> tuple[U32, F32] | None:
        """The chunk rows (ascending) and term frequencies of a term, or None when the segment lacks it."""
        key = self.terms.find(term)
        if key < 0:
            return None
        postings = self.postings
        start, end = int(postings.offsets[key]), int(postings.offsets[key + 1])
        return postings.ids_of(start, end), postings.values_of(start, end)


def _live_stats(segment: Segment, part: Bm25Postings) -> tuple[Bools, int, float]:
    """Which chunk rows of a segment are live, how many, and their total length (cached on the snapshot's segment)."""
    cached = segment.cache.get("bm25")
    if cached is None:
        chunk_alive = segment.alive[part.chunk_file] if part.chunk_file.size else np.zeros(0, dtype=np.bool_)
        # Lengths are whole numbers: their float64 sum is exact, so every split into segments gives the same avgdl.
        total = float(np.sum(part.lengths[chunk_alive], dtype=np.float64))
        cached = segment.cache["bm25"] = (chunk_alive, int(np.count_nonzero(chunk_alive)), total)
    alive, count, length = cached
    return alive, int(count), float(length)


class Bm25Index:
    """BM25 over the chunks of one snapshot of the segments, dead files masked: document frequencies, the chunk
    count and the average length are those of the live chunks, exactly as one fresh index of them would have."""

    def __init__(self, snapshot: SegmentSet | None = None, part: str = "text") -> None:
        self.segments: tuple[Segment, ...] = () if snapshot is None else snapshot.segments
        self._parts: list[Bm25Postings] = [s.part(part).bm25 for s in self.segments]
        sizes = [p.lengths.size for p in self._parts]
        self._bases = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64))).astype(np.int64)
        stats = [_live_stats(s, p) for s, p in zip(self.segments, self._parts, strict=True)]
        self._alive = [a for a, _, _ in stats]
        self._count = sum(n for _, n, _ in stats)
        self._total_length = sum(t for _, _, t in stats)

    @property
    def chunk_count(self) -> int:
        return self._count

    @property
    def nbytes(self) -> int:
        return sum(p.nbytes for p in self._parts)

    def chunk(self, chunk_id: int) -> Chunk:
        """The chunk of a global id (segment base + row), as an object."""
        position = int(np.searchsorted(self._bases, chunk_id, side="right")) - 1
        return self.segments[position].core.chunk(chunk_id - int(self._bases[position]))

    def chunk_head(self, chunk_id: int) -> ChunkHead:
        """Where the chunk of a global id lies and what it defines, read from its segment's columns (its text, the
        costly part of a chunk object, is not decoded)."""
        position = int(np.searchsorted(self._bases, chunk_id, side="right")) - 1
        core = self.segments[position].core
        row = chunk_id - int(self._bases[position])
        a = core.arrays
        return ChunkHead(
            core.paths[core.chunk_file(row)],
            int(a["chunk.start"][row]),
            int(a["chunk.end"][row]),
            core.pool_string(int(a["chunk.symbol"][row])),
            core.pool_string(int(a["chunk.kind"][row])),
        )

    def _postings(self, term: str) -> tuple[U32, F32] | None:
        """A term's live postings over every segment: global chunk ids (ascending) and term frequencies."""
        ids: list[npt.NDArray[np.int64]] = []
        tfs: list[F32] = []
        for base, part, alive in zip(self._bases.tolist(), self._parts, self._alive, strict=False):
            found = part.term(term)
            if found is None:
                continue
            rows, tf = found
            keep = alive[rows]
            if bool(keep.any()):
                ids.append(rows[keep].astype(np.int64) + base)
                tfs.append(tf[keep])
        if not ids:
            return None
        return np.concatenate(ids).astype(np.uint32), np.concatenate(tfs)

    def _lengths(self, ids: U32) -> F32:
        positions = np.searchsorted(self._bases, ids, side="right") - 1
        out = np.empty(ids.size, dtype=np.float32)
        for position in unique(positions).tolist():
            rows = positions == position
            out[rows] = self._parts[position].lengths[ids[rows].astype(np.int64) - self._bases[position]]
        return out

    def search(self, text: str, limit: int, accept: Callable[[ChunkHead], bool] | None = None) -> list[ScoredChunk]:
        """The `limit` best chunks for a natural-language (or code) query, best first; only chunks `accept` takes
        when it is given (asked in score order, so only as many as it takes to fill the limit)."""
        n_chunks = self._count
        if limit <= 0 or n_chunks == 0:
            return []
        live: list[tuple[str, U32, F32]] = []
        for term in query_terms(text):
            found = self._postings(term)
            if found is not None:
                live.append((term, *found))
        if not live:
            return []
        idfs = idf(np.array([ids.size for _, ids, _ in live], dtype=np.float64), n_chunks)
        ranked_terms = sorted(range(len(live)), key=lambda k: -idfs[k])[:MAX_QUERY_TERMS]
        avgdl = max(self._total_length / n_chunks, 1.0)
        all_ids = np.concatenate([live[k][1] for k in ranked_terms])
        all_scores = np.concatenate(
            [term_scores(live[k][2], self._lengths(live[k][1]), avgdl, float(idfs[k])) for k in ranked_terms]
        )
        unique_ids, inverse = np.unique(all_ids, return_inverse=True)
        scores = np.bincount(inverse, weights=all_scores)
        built: dict[int, ChunkHead] = {}
        if accept is not None:
            best = self._accepted(unique_ids, scores, limit, accept, built)
        else:
            top = min(limit, unique_ids.size)
            best = np.argpartition(-scores, top - 1)[:top] if top < unique_ids.size else np.arange(unique_ids.size)
            best = best[np.lexsort((unique_ids[best], -scores[best]))]  # by score, ties by segment order and row
        best_ids = unique_ids[best]
        holds = _presence([live[k][1] for k in ranked_terms], best_ids)
        terms = [(live[k][0], float(idfs[k])) for k in ranked_terms]
        out: list[ScoredChunk] = []
        for column, position in enumerate(best.tolist()):
            chunk_id = int(unique_ids[position])
            present = {terms[row][0]: terms[row][1] for row in np.flatnonzero(holds[:, column]).tolist()}
            out.append(ScoredChunk(self, chunk_id, float(scores[position]), present, built.get(chunk_id)))
        return out

    def _accepted(
        self,
        ids: U32,
        scores: npt.NDArray[Any],
        limit: int,
        accept: Callable[[ChunkHead], bool],
        built: dict[int, ChunkHead],
    ) -> npt.NDArray[np.intp]:
        """Positions of the `limit` best-scoring ids whose chunk `accept` takes, in the order `search` ranks (the
        heads it took are kept in `built`)."""
        taken: list[int] = []
        for position in np.lexsort((ids, -scores)).tolist():
            chunk_id = int(ids[position])
            head = self.chunk_head(chunk_id)
            if accept(head):
                built[chunk_id] = head
                taken.append(position)
                if len(taken) >= limit:
                    break
        return np.array(taken, dtype=np.intp)


def _presence(postings: list[U32], ids: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """terms × ids: whether each term's (ascending) posting ids hold each id."""
    holds = np.zeros((len(postings), ids.size), dtype=np.bool_)
    for row, term_ids in enumerate(postings):
        if term_ids.size == 0 or ids.size == 0:
            continue
        at = np.minimum(np.searchsorted(term_ids, ids), term_ids.size - 1)
        holds[row] = term_ids[at] == ids
    return holds


def best_line(scored: ScoredChunk) -> tuple[int, int, int, str]:
    """The chunk's line holding the most query weight (sum of idf of the distinct query terms on it), as
    (line, start column, end column of its first matching identifier, line text): index/bm25_lines.py."""
    chunk = scored.chunk
    offset, start_col, end_col, text = best_line_in(chunk.text, scored.term_idf)
    return chunk.start_line + offset, start_col, end_col, text

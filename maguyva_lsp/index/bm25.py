"""BM25 over chunks with identifier-aware tokens (`parse config` finds `parseConfig` and `parse_config`), scored
sparsely: only the postings of the query's terms are touched, with numpy, never a loop over all chunks.

    score(q, c) = Σ_{t∈q} idf(t) · tf(t,c)·(k1+1) / (tf(t,c) + k1·(1 − b + b·|c|/avgdl))
    idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))

(Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009, eq. 3.15; the idf is Lucene's
variant, which never goes negative for terms in more than half of the chunks.)
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import sparse

from maguyva_lsp.config import MAX_QUERY_CHARS
from maguyva_lsp.index.text_postings import F32, U32, PostingLists, SegmentedPostings
from maguyva_lsp.model import Chunk, FileAnalysis
from maguyva_lsp.parse.chunker import DEFAULT_WINDOW_LINES
from maguyva_lsp.tokens import IDENTIFIER_RE, STOPWORDS, index_tokens, subword_tokens

BM25_K1 = 1.2  # term-frequency saturation
BM25_B = 0.75  # length normalisation
# A chunk's own name (its symbol) counts this many extra times: a light BM25F in which the name field weighs more,
# so that the chunk defining `parse_config` beats the chunks that merely call it.
SYMBOL_TOKEN_BOOST = 2
# A long query (a pasted snippet) keeps only its most specific distinct terms (highest idf).
MAX_QUERY_TERMS = 32
# Tokens of an identifier are cached (identifiers repeat a lot); the cache is dropped when it grows past this.
WORD_CACHE_LIMIT = 1 << 18

_word_cache: dict[str, tuple[str, ...]] = {}


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


def word_tokens(word: str) -> tuple[str, ...]:
    """`index_tokens` of one identifier, cached."""
    tokens = _word_cache.get(word)
    if tokens is None:
        if len(_word_cache) >= WORD_CACHE_LIMIT:
            _word_cache.clear()
        tokens = _word_cache[word] = tuple(index_tokens(word))
    return tokens


def chunk_word_counts(chunk: Chunk) -> Counter[str]:
    """How often each identifier occurs in a chunk, its symbol's words counted SYMBOL_TOKEN_BOOST more times."""
    counts = Counter(IDENTIFIER_RE.findall(chunk.text))
    if chunk.symbol:
        for word in IDENTIFIER_RE.findall(chunk.symbol):
            counts[word] += SYMBOL_TOKEN_BOOST
    return counts


def term_frequencies(chunks: Sequence[Chunk], vocabulary: dict[str, int]) -> sparse.csr_matrix:
    """Chunks × terms matrix of term frequencies (terms added to the vocabulary as met).

    Built as (chunks × words) @ (words × terms): identifiers are counted per chunk in C (Counter), and each distinct
    identifier is split into its tokens once per batch, not once per occurrence.
    """
    words: list[str] = []
    counts: list[int] = []
    row_sizes: list[int] = []
    for chunk in chunks:
        chunk_words = chunk_word_counts(chunk)
        words.extend(chunk_words)
        counts.extend(chunk_words.values())
        row_sizes.append(len(chunk_words))
    word_ids = {word: i for i, word in enumerate(dict.fromkeys(words))}
    columns = list(map(word_ids.__getitem__, words))  # the lookups run in C, not in a Python loop
    word_rows = sparse.csr_matrix(
        (np.array(counts, dtype=np.float32), np.array(columns, dtype=np.int64), _indptr(row_sizes)),
        shape=(len(chunks), len(word_ids)),
    )
    term_columns: list[int] = []
    term_sizes: list[int] = []
    for word in word_ids:  # insertion order is id order
        tokens = word_tokens(word)
        term_columns.extend([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
        term_sizes.append(len(tokens))
    word_terms = sparse.csr_matrix(
        (np.ones(len(term_columns), dtype=np.float32), np.array(term_columns, dtype=np.int64), _indptr(term_sizes)),
        shape=(len(word_ids), len(vocabulary)),
    )
    return (word_rows @ word_terms).tocsr()


def _indptr(sizes: list[int]) -> npt.NDArray[np.int64]:
    return np.concatenate(([0], np.cumsum(np.array(sizes, dtype=np.int64)))).astype(np.int64)


def _postings_of(frequencies: sparse.csr_matrix, first_id: int) -> PostingLists:
    """Term → chunk postings (ids from first_id) with term frequencies as values, straight from the CSC layout."""
    by_term = frequencies.tocsc()
    by_term.sort_indices()
    indptr = by_term.indptr.astype(np.int64)
    present = np.flatnonzero(np.diff(indptr))
    if present.size == 0:
        return PostingLists.empty(True)
    return PostingLists(
        keys=present.astype(np.uint32),
        offsets=np.append(indptr[present], indptr[-1]).astype(np.int64),
        ids=(by_term.indices.astype(np.int64) + first_id).astype(np.uint32),
        values=by_term.data.astype(np.float32),
    )


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
            digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
            end = min(start + DEFAULT_WINDOW_LINES, len(lines)) - 1
            out.append(Chunk(analysis.path, analysis.file.language, start, end, text, digest))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class ScoredChunk:
    chunk: Chunk
    score: float
    term_idf: dict[str, float]  # the query terms the chunk holds, with their idf


@dataclass(frozen=True, slots=True)
class Bm25Index:
    """Chunks by id, term postings with term frequencies, chunk lengths. Never mutated: `with_changes` returns a new
    index. The vocabulary is shared and only grows (a term id never changes meaning); only the writer adds to it."""

    chunks: dict[int, Chunk] = field(default_factory=dict)
    by_path: dict[str, tuple[int, ...]] = field(default_factory=dict)
    vocabulary: dict[str, int] = field(default_factory=dict)
    postings: SegmentedPostings = field(default_factory=lambda: SegmentedPostings.empty(True))
    lengths: F32 = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    total_length: float = 0.0
    next_id: int = 0

    @property
    def chunk_count(self) -> int:
        return len(self.chunks)

    @property
    def nbytes(self) -> int:
        return self.postings.nbytes + int(self.lengths.nbytes)

    def with_changes(self, updated: Sequence[FileAnalysis], removed: Iterable[str]) -> Bm25Index:
        chunks = dict(self.chunks)
        by_path = dict(self.by_path)
        dead: list[int] = []
        total = self.total_length
        latest = {analysis.path: analysis for analysis in updated}
        for path in [*removed, *latest]:
            for chunk_id in by_path.pop(path, ()):
                dead.append(chunk_id)
                del chunks[chunk_id]
                total -= float(self.lengths[chunk_id])
        new_chunks: list[Chunk] = []
        next_id = self.next_id
        for analysis in latest.values():
            owned = analysis.chunks or fallback_chunks(analysis)
            by_path[analysis.path] = tuple(range(next_id + len(new_chunks), next_id + len(new_chunks) + len(owned)))
            new_chunks.extend(owned)
        frequencies = term_frequencies(new_chunks, self.vocabulary)
        new_lengths = np.asarray(frequencies.sum(axis=1), dtype=np.float32).ravel()
        total += float(new_lengths.sum())
        for offset, chunk in enumerate(new_chunks):
            chunks[next_id + offset] = chunk
        added = _postings_of(frequencies, next_id)
        next_id += len(new_chunks)
        postings = self.postings.with_changes(added, next_id, np.array(dead, dtype=np.uint32), len(new_chunks))
        lengths = np.concatenate((self.lengths, new_lengths))
        return Bm25Index(chunks, by_path, self.vocabulary, postings, lengths, max(total, 0.0), next_id)

    def search(self, text: str, limit: int, accept: Callable[[Chunk], bool] | None = None) -> list[ScoredChunk]:
        """The `limit` best chunks for a natural-language (or code) query, best first; only chunks `accept` takes
        when it is given (asked in score order, so only as many as it takes to fill the limit)."""
        n_chunks = len(self.chunks)
        if limit <= 0 or n_chunks == 0:
            return []
        known = [(t, self.vocabulary.get(t)) for t in query_terms(text)]
        terms = [(t, i) for t, i in known if i is not None]
        if not terms:
            return []
        alive = self.postings.alive
        postings = self.postings.lookup_many(np.array([i for _, i in terms], dtype=np.uint32))
        live: list[tuple[str, U32, F32]] = []
        for (term, _), (ids, tfs) in zip(terms, postings, strict=True):
            keep = alive[ids]
            assert tfs is not None
            if bool(keep.any()):
                live.append((term, ids[keep], tfs[keep]))
        if not live:
            return []
        idfs = idf(np.array([ids.size for _, ids, _ in live], dtype=np.float64), n_chunks)
        ranked_terms = sorted(range(len(live)), key=lambda k: -idfs[k])[:MAX_QUERY_TERMS]
        avgdl = max(self.total_length / n_chunks, 1.0)
        all_ids = np.concatenate([live[k][1] for k in ranked_terms])
        all_scores = np.concatenate(
            [term_scores(live[k][2], self.lengths[live[k][1]], avgdl, float(idfs[k])) for k in ranked_terms]
        )
        unique_ids, inverse = np.unique(all_ids, return_inverse=True)
        scores = np.bincount(inverse, weights=all_scores)
        if accept is not None:
            best = self._accepted(unique_ids, scores, limit, accept)
        else:
            top = min(limit, unique_ids.size)
            best = np.argpartition(-scores, top - 1)[:top] if top < unique_ids.size else np.arange(unique_ids.size)
            best = best[np.lexsort((unique_ids[best], -scores[best]))]  # by score, ties by chunk id (older first)
        term_idf = {live[k][0]: float(idfs[k]) for k in ranked_terms}
        out: list[ScoredChunk] = []
        for position in best.tolist():
            chunk = self.chunks[int(unique_ids[position])]
            present = {t: w for t, w in term_idf.items() if _holds(live, t, int(unique_ids[position]))}
            out.append(ScoredChunk(chunk, float(scores[position]), present))
        return out

    def _accepted(
        self, ids: U32, scores: npt.NDArray[Any], limit: int, accept: Callable[[Chunk], bool]
    ) -> npt.NDArray[np.intp]:
        """Positions of the `limit` best-scoring ids whose chunk `accept` takes, in the order `search` ranks."""
        taken: list[int] = []
        for position in np.lexsort((ids, -scores)).tolist():
            if accept(self.chunks[int(ids[position])]):
                taken.append(position)
                if len(taken) >= limit:
                    break
        return np.array(taken, dtype=np.intp)


def _holds(live: list[tuple[str, U32, F32]], term: str, chunk_id: int) -> bool:
    for name, ids, _ in live:
        if name == term:
            pos = int(np.searchsorted(ids, chunk_id))
            return pos < ids.size and int(ids[pos]) == chunk_id
    return False


def best_line(scored: ScoredChunk) -> tuple[int, int, int, str]:
    """The chunk's line holding the most query weight (sum of idf of the distinct query terms on it), as
    (line, start column, end column of its first matching identifier, line text)."""
    best: tuple[float, int, int, int] = (-1.0, 0, 0, 0)
    lines = scored.chunk.text.split("\n")
    for offset, line in enumerate(lines):
        seen: set[str] = set()
        first: tuple[int, int] | None = None
        for m in IDENTIFIER_RE.finditer(line):
            matched = [t for t in word_tokens(m.group()) if t in scored.term_idf]
            if matched:
                seen.update(matched)
                first = first or m.span()
        weight = sum(scored.term_idf[t] for t in seen)
        if first is not None and weight > best[0]:
            best = (weight, offset, first[0], first[1])
    _, offset, start_col, end_col = best
    text = lines[offset] if lines else ""
    return scored.chunk.start_line + offset, start_col, end_col, text.removesuffix("\r")

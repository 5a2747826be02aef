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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.config import MAX_QUERY_CHARS
from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.bm25_lines import best_line_in
from maguyva_lsp.index.text_postings import F32, ID_DTYPES, U32, Bools, PostingLists
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


def chunk_word_counts(text: str, symbol: str | None) -> Counter[str]:
    """How often each identifier occurs in a chunk, its symbol's words counted SYMBOL_TOKEN_BOOST more times."""
    counts = Counter(IDENTIFIER_RE.findall(text))
    if symbol:
        for word in IDENTIFIER_RE.findall(symbol):
            counts[word] += SYMBOL_TOKEN_BOOST
    return counts


# Chunks whose words are gathered at once while building (term_frequencies).
WORD_BATCH_CHUNKS = 4096


def term_frequencies(texts: Sequence[str], symbols: Sequence[str | None], vocabulary: dict[str, int]) -> Any:
    """Chunks × terms matrix (scipy CSR) of term frequencies (terms added to the vocabulary as met).

    Built as (chunks × words) @ (words × terms): identifiers are counted per chunk in C (Counter), and each distinct
    identifier is split into its tokens once per batch, not once per occurrence.
    """
    from scipy import sparse  # building only: a query never needs it, and it costs 0.4 s to import

    # The chunks' words are gathered a batch of chunks at a time and kept as arrays: as Python lists for every chunk
    # of a merged stdlib segment (millions of strings and ints) they took ~400 MB. Word ids are first-seen, as one
    # pass over all the chunks gives them.
    word_ids: dict[str, int] = {}
    count_parts: list[npt.NDArray[np.float32]] = []
    column_parts: list[npt.NDArray[np.int64]] = []
    row_sizes: list[int] = []
    for at in range(0, len(texts), WORD_BATCH_CHUNKS):
        words: list[str] = []
        counts: list[int] = []
        for text, symbol in zip(texts[at : at + WORD_BATCH_CHUNKS], symbols[at : at + WORD_BATCH_CHUNKS], strict=True):
            chunk_words = chunk_word_counts(text, symbol)
            words.extend(chunk_words)
            counts.extend(chunk_words.values())
            row_sizes.append(len(chunk_words))
        for word in dict.fromkeys(words):
            word_ids.setdefault(word, len(word_ids))
        # the lookups run in C, not in a Python loop
        column_parts.append(np.fromiter(map(word_ids.__getitem__, words), dtype=np.int64, count=len(words)))
        count_parts.append(np.array(counts, dtype=np.float32))
    word_rows = sparse.csr_matrix(
        (
            np.concatenate(count_parts) if count_parts else np.zeros(0, dtype=np.float32),
            np.concatenate(column_parts) if column_parts else np.zeros(0, dtype=np.int64),
            _indptr(row_sizes),
        ),
        shape=(len(texts), len(word_ids)),
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
    texts, symbols = core.chunk_texts()
    vocabulary: dict[str, int] = {}
    frequencies = term_frequencies(texts, symbols, vocabulary)
    terms = sorted(vocabulary, key=vocabulary.__getitem__)  # by first-seen id
    order = sorted(range(len(terms)), key=terms.__getitem__)
    rank = np.empty(len(terms), dtype=np.int64)
    rank[np.array(order, dtype=np.int64)] = np.arange(len(terms), dtype=np.int64)
    lengths = np.asarray(frequencies.sum(axis=1), dtype=np.float32).ravel()
    coo = frequencies.tocoo()
    keys = rank[coo.col.astype(np.int64)].astype(np.uint32) if coo.nnz else np.zeros(0, dtype=np.uint32)
    rows = coo.row.astype(np.uint32)
    # from_pairs wants each key's ids ascending: order the pairs by row first (a stable sort by key keeps it).
    by_row = np.argsort(rows, kind="stable")
    postings = PostingLists.from_pairs(keys[by_row], rows[by_row], coo.data.astype(np.float32)[by_row])
    return {
        # the keys are the terms' ranks 0..n-1 (every term has a posting): not stored; the chunk rows split in halves
        # (a cumsum over gaps made the longest list 10x slower to read)
        **postings.to_arrays("bm25", split_ids=True, dense_keys=True),
        **string_arrays("bm25.terms", [terms[i] for i in order]),
        **bm25_tail_arrays(lengths, core),
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

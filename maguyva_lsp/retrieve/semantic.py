"""The semantic retriever: chunks embedded as binary codes, searched by Hamming distance and rescored.

Only chunks whose embedded text is new are embedded: a re-applied file reuses its rows, and the embedding cache
answers for texts embedded but not stored yet (an interrupted batch). The vectors are a chain of column parts
(index/vectors.py) that the segment set stores with its manifest (`chain`: opened mapped at start, exported at each
commit); `stale` names the stored files the vectors lag behind.

The cache is not a second copy of the chain: a fresh embedding stays in it until a commit holds its row in the chain,
then it is dropped (`_CacheKeys`). An export's keys are known stored when the next export starts (the segment set
commits one at a time, and a failed one is undone by `export_failed` first) or when the retriever closes (the engine
commits before); a chain opened at start drops its keys from the cache once its checksums read back whole.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from maguyva_lsp.embed.base import BITS_PER_BYTE, Embedder, EmbedderError, Embeddings, TextStyle
from maguyva_lsp.embed.text import EMBED_TEXT_VERSION, document_text, query_text, snippet_text
from maguyva_lsp.index.segment_parts import ChainExport
from maguyva_lsp.index.vector_part import VECTORS_PART, FileRows, RowColumns, RowRef, RowVectors
from maguyva_lsp.index.vectors import (
    BinaryVectorStore,
    RowLocation,
    StoredArrays,
    VectorMatch,
    VectorStoreError,
    row_vectors,
)
from maguyva_lsp.model import ChangeBatch, Chunk, FileAnalysis, Hit, Intent, Modality, RetrievalQuery, RetrieverStatus
from maguyva_lsp.model import Span as ModelSpan
from maguyva_lsp.query.snippet import snippet_code, snippet_kinds
from maguyva_lsp.retrieve.base import RetrieverError
from maguyva_lsp.store.container import ContainerError, ContainerRecord
from maguyva_lsp.store.embedding_cache import CachedRow, EmbeddingCache, text_hash

log = logging.getLogger(__name__)

# A hit's snippet: the chunk's signature, else its first non-blank line, cut to this length.
SNIPPET_CHARS = 200
# Recent query embeddings kept in memory: typing a query re-asks the same text, and with Voyage each ask costs.
QUERY_CACHE_SIZE = 256
FINGERPRINT_BYTES = 16
# A question's hits are ranked by file: a file's best score, plus this weight × the scores of its next chunks. (Chosen
# on the dev set's flask, attrs and express questions, checked on starlette and cobra: see notes/i13-rank.md.)
FILE_SUPPORT_WEIGHT = 0.3
FILE_SUPPORT_CHUNKS = 2
# A pasted snippet's nearest rows are read this many times over, so that enough of them are chunks of its unit.
SNIPPET_OVERFETCH = 4
# Texts sent to the embedder at once while indexing: each slice reaches the embedding cache before the next starts, so
# that work stopped midway (the process ends: `stop`) is not lost, and a stop waits for one slice at most.
EMBED_SLICE_TEXTS = 1024


class _StoppedError(Exception):
    """`stop` was called while a batch was being embedded."""


@dataclass(frozen=True, slots=True)
class _Planned:
    """A chunk to index and where its vector comes from."""

    ref: RowRef
    text: str
    reuse: RowLocation | None  # a live row of the same path with the same text


class SemanticRetriever:
    """The `semantic` modality (SPEC §2): binary embeddings with exact Hamming search and float rescoring."""

    def __init__(self, embedder: Embedder, *, cache: EmbeddingCache | None = None) -> None:
        """`cache`: the embedding cache (fresh embeddings until a commit stores them); in memory when None. The
        vectors themselves are stored by the segment set (`chain`), or kept in memory only."""
        self._embedder = embedder
        self._apply_lock = threading.Lock()
        self._query_lock = threading.Lock()
        self._queries: OrderedDict[str, Embeddings] = OrderedDict()
        self._failure: str | None = None
        self._pending: dict[str, FileAnalysis] = {}  # files whose embedding failed, retried with the next batch
        self._unverified: list[tuple[StoredArrays, ContainerRecord]] = []  # opened, checksum not yet read
        # Not `cache or ...`: an empty cache has length 0, and is then falsy.
        self._cache = cache if cache is not None else EmbeddingCache(None)
        self._store = self._empty_store()
        self._doc_floats = _gives_document_floats(embedder)
        self._stopping = threading.Event()
        self._keys = _CacheKeys()
        self._current: Callable[[str], str | None] | None = None
        self.embedded_texts = 0  # texts sent to the embedder since start (the rest came from reuse or the cache)

    def _empty_store(self) -> BinaryVectorStore:
        embedder = self._embedder
        return BinaryVectorStore(embedder.dimension, embedder.name, f"{embedder.text_style}:{EMBED_TEXT_VERSION}")

    @property
    def name(self) -> Modality:
        return "semantic"

    @property
    def embedder_name(self) -> str:
        return self._embedder.name

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    @property
    def chunk_count(self) -> int:
        return self._store.live_count

    @property
    def store(self) -> BinaryVectorStore:
        return self._store

    def status(self) -> RetrieverStatus:
        if self._failure is not None:
            return RetrieverStatus(False, self._failure)
        return RetrieverStatus(True)

    # -- the stored chain ------------------------------------------------------------------------------------------

    def open(self, containers: Sequence[StoredArrays], records: Sequence[ContainerRecord] = ()) -> bool:
        """Take the stored chain (oldest first; mapped, so this costs O(headers)). Unusable containers (another
        model, damaged arrays) are logged and dropped: the vectors are rebuilt (embedded again) as `stale`
        reports their files. `records` (the manifest's sizes and checksums) are checked by `stale`, in the
        background, since that reads every byte. Returns whether the chain was taken."""
        with self._apply_lock:
            store = self._empty_store()
            try:
                store.open(containers)
            except VectorStoreError as exc:
                log.warning("semantic index not reused, rebuilding it: %s", exc)
                self._store = self._empty_store()
                self._store.export_failed()
                self._unverified = []
                return False
            self._store = store
            self._unverified = list(zip(containers, records, strict=True)) if records else []
            return True

    @property
    def chain(self) -> VectorChain:
        """The vectors as a chain part of the segment set (`Segments.attach_chain`): exported at each commit."""
        return VectorChain(self)

    def stale(self, live: Mapping[str, str], *, verify: bool = True) -> tuple[list[str], list[str]]:
        """Given every live file (path → content hash): the files whose vectors lag or differ (to apply again, from
        their stored analyses) and the paths the vectors hold that are gone. O(files), no vector read. With `verify`
        it first reads the checksums `open` left to check (every byte of the chain); a damaged container drops the
        chain (every file is then stale, and embedded again)."""
        with self._apply_lock:
            if verify:
                unverified, self._unverified = self._unverified, []
                problem = _damaged(unverified)
                if problem is not None:
                    log.warning("semantic index not reused, rebuilding it: %s", problem)
                    self._store = self._empty_store()
                    self._store.export_failed()
            held = self._store.contents()
        changed = [path for path, content in live.items() if held.get(path) != content]
        gone = [path for path in held if path not in live]
        return changed, gone

    def chain_damaged(self) -> bool:
        """Read the checksums `open` left to check (every byte of the stored chain: run it in the background); a
        damaged chain stays in place until `stale(..., verify=True)` drops it. A chain that reads back whole is the
        stored copy of its rows: the embedding cache drops them."""
        with self._apply_lock:
            unverified = list(self._unverified)
        if _damaged(unverified) is not None:
            return True
        self._drop_stored([container for container, _ in unverified])
        return False

    def _drop_stored(self, containers: Sequence[StoredArrays]) -> None:
        """Drop from the embedding cache the keys of rows these stored containers hold."""
        cached = self._cache.keys(self._embedder.name, self._embedder.dimension) if containers else set()
        if cached:
            held = set().union(*(_row_hashes(c.arrays) for c in containers))
            self._cache.delete(self._embedder.name, self._embedder.dimension, cached & held)

    def warm_up(self) -> None:
        """Load the embedder's model now if it loads lazily (never a request to a remote model)."""
        load = getattr(self._embedder, "load", None)
        if callable(load) and not self.stopping:
            try:
                load()
            except EmbedderError as exc:  # said again at the first embedding, where it matters
                log.warning("semantic index: %s", exc)

    def follow(self, current: Callable[[str], str | None]) -> None:
        """Answer only from rows of the file versions the other modalities hold: `current(path)` gives a file's
        content hash as indexed now (None when it is not). The vectors lag an edit until the lane catches up; the
        old version's rows are left out of searches meanwhile, instead of being returned as the file's content."""
        self._current = current

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def stop(self) -> None:
        """End the batch being embedded at its next slice (what was embedded stays in the cache); later batches
        apply nothing. For a process that is about to exit."""
        self._stopping.set()

    # -- indexing --------------------------------------------------------------------------------------------------

    def apply(self, batch: ChangeBatch) -> None:
        """Index the batch's files, embedding only chunks whose text has no vector yet. An embedder failure leaves
        those files' previous vectors in place, marks the retriever unavailable with the reason, and keeps the files
        to retry with the next batch."""
        self._drop_committed()
        with self._apply_lock:
            for path in batch.removed:
                self._pending.pop(path, None)
            analyses = {**self._pending, **{a.path: a for a in batch.updated}}
            for path in batch.removed:
                analyses.pop(path, None)
            style = self._embedder.text_style
            changed: dict[str, tuple[FileAnalysis, str, list[_Planned]]] = {}
            for path, analysis in analyses.items():
                tag = file_tag(analysis, style)
                if self._store.path_tag(path) != tag:  # else same content, same chunks: nothing to do
                    changed[path] = (analysis, tag, self._plan(analysis))
            plans = [p for _, _, plan in changed.values() for p in plan]
            try:
                vectors = self._vectors(plans)
            except _StoppedError:
                return  # the vectors stay as they were; the next start finds these files stale
            except EmbedderError as exc:
                self._failure = f"embedding failed: {exc}"
                self._pending = {path: analyses[path] for path in changed}
                log.warning("semantic index: %s (%d files kept for retry)", self._failure, len(self._pending))
                self._store.replace(batch.removed)
                return
            self._failure = None
            self._pending = {}
            files = [
                FileRows(path, tag, analysis.content_hash, [p.ref for p in plan])
                for path, (analysis, tag, plan) in changed.items()
            ]
            if files or batch.removed:
                self._store.replace(batch.removed, files, vectors)

    def apply_rows(self, files: Sequence[FileRows], vectors: RowVectors, embedded: int) -> None:
        """Rows embedded elsewhere (`semantic_workers`: a cold build's worker processes, from the stored analyses) for
        these files, as `apply` would have made them: a file whose rows are already built from the same analysis
        (same tag) keeps them. `embedded`: the distinct texts the workers embedded. They skip the embedding cache: a
        process that ends before the next commit embeds them again."""
        self._drop_committed()
        with self._apply_lock:
            if self._stopping.is_set():
                return
            keep = [i for i, f in enumerate(files) if self._store.path_tag(f.path) != f.tag]
            if len(keep) < len(files):
                ends = np.cumsum([len(f.refs) for f in files], dtype=np.int64)
                rows = [r for i in keep for r in range(int(ends[i]) - len(files[i].refs), int(ends[i]))]
                vectors = RowVectors(
                    vectors.codes[rows],
                    None if vectors.quantized is None else vectors.quantized[rows],
                    None if vectors.scales is None else vectors.scales[rows],
                )
                files = [files[i] for i in keep]
            self.embedded_texts += embedded
            if files:
                self._store.replace((), files, vectors)

    @property
    def worker_embedder(self) -> Callable[[], Embedder] | None:
        """How a worker process makes this retriever's embedder (a picklable factory), when it can: a local model
        (a remote one is asked from this process, through its rate limits)."""
        factory = getattr(self._embedder, "worker_factory", None)
        return factory() if callable(factory) and self._doc_floats else None

    def _plan(self, analysis: FileAnalysis) -> list[_Planned]:
        """What to index for a file: its chunks, each with the live row of the same text to reuse, if any."""
        by_hash = {ref.text_hash: location for location, ref in self._store.rows_of(analysis.path)}
        return planned_rows(analysis, self._embedder.text_style, by_hash)

    def _vectors(self, plan: list[_Planned]) -> RowVectors:
        """Vectors for planned rows, in order: reused rows, then the cache, then the embedder for what is left."""
        embedder = self._embedder
        dimension = embedder.dimension
        codes = np.zeros((len(plan), dimension // BITS_PER_BYTE), dtype=np.uint8)
        quantized = np.zeros((len(plan), dimension), dtype=np.int8) if self._doc_floats else None
        scales = np.zeros(len(plan), dtype=np.float32) if self._doc_floats else None

        def put(rows: list[int], found: RowVectors) -> None:
            codes[rows] = found.codes
            if quantized is not None and scales is not None and found.quantized is not None:
                quantized[rows] = found.quantized
                scales[rows] = found.scales

        reuse = [i for i, p in enumerate(plan) if p.reuse is not None]
        if reuse:
            stored = self._store.vectors_of([location for i in reuse if (location := plan[i].reuse) is not None])
            if (stored.quantized is not None) == self._doc_floats:
                put(reuse, stored)
            else:  # rows of another form (cannot happen in one store): fetched again below
                reuse = []
        have = set(reuse)
        missing = [i for i in range(len(plan)) if i not in have]
        cached = self._cache.get(embedder.name, dimension, [plan[i].ref.text_hash for i in missing])
        hits: list[int] = []
        for i in missing:
            hit = cached.get(plan[i].ref.text_hash)
            # A row must carry floats exactly when the model gives them; anything else is re-embedded.
            if hit is not None and (hit[1] is not None) == self._doc_floats:
                hits.append(i)
        if hits:
            put(hits, _stored_form([cached[plan[i].ref.text_hash] for i in hits]))
        have.update(hits)
        todo = [i for i in range(len(plan)) if i not in have]
        if todo:
            put(todo, fresh_rows([plan[i] for i in todo], self._embed_slice, dimension))
        return RowVectors(codes, quantized, scales)

    def _embed_slice(self, keys: list[bytes], texts: Mapping[bytes, str]) -> Embeddings:
        """Embed one slice of new texts and put it in the cache; raises _StoppedError when `stop` was called before."""
        if self._stopping.is_set():
            raise _StoppedError
        embedder = self._embedder
        fresh = embedder.embed_documents([texts[key] for key in keys])
        if len(fresh) != len(keys) or (fresh.floats is not None) != self._doc_floats:
            raise EmbedderError(f"{embedder.name} returned {len(fresh)} embeddings of another form than expected")
        self.embedded_texts += len(keys)
        self._cache.put(embedder.name, embedder.dimension, keys, fresh)
        self._keys.cached(keys)
        return fresh

    def _drop_committed(self) -> None:
        """Drop from the embedding cache the fresh embeddings a commit now holds in the chain."""
        due = self._keys.take_due()
        if due:
            self._cache.delete(self._embedder.name, self._embedder.dimension, due)

    def close(self) -> None:
        """Release the cache and the embedder's resources. The engine commits before closing: what the last export
        held is stored, so it leaves the cache."""
        self._keys.stored()
        self._drop_committed()
        self._cache.close()
        closer = getattr(self._embedder, "close", None)
        if callable(closer):
            closer()

    # -- search ----------------------------------------------------------------------------------------------------

    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        """Chunks nearest in meaning. For find_similar the snippet (the query's target) is embedded, else the query."""
        if self._store.live_count == 0:
            if self._failure is not None:
                raise RetrieverError(f"semantic search unavailable: {self._failure}")
            return []
        if limit <= 0:
            return []
        style = self._embedder.text_style
        kinds: frozenset[str] | None = None
        if query.intent is Intent.FIND_SIMILAR:
            code = snippet_code(query.target)
            kinds = snippet_kinds(code)
            text = snippet_text(code, style)
        else:
            text = query_text(query.text, style)
        if not text.strip():
            return []  # nothing to mean anything: an empty query has no nearest neighbours
        vector = self._query_vector(text)
        if kinds is not None:
            # A pasted function is answered by functions (query/snippet.py): the nearest rows of its unit, unless
            # none is among the nearest SNIPPET_OVERFETCH × limit.
            matches = self._current_matches(vector, limit * SNIPPET_OVERFETCH)
            own = [m for m in matches if m.ref.kind in kinds][:limit]
            if own:
                return [_hit(match.ref, match.score, match.distance) for match in own]
        hits = [_hit(match.ref, match.score, match.distance) for match in self._current_matches(vector, limit)]
        return by_file_support(hits) if query.intent is Intent.UNDERSTAND_CODE else hits

    def _current_matches(self, vector: Embeddings, limit: int) -> list[VectorMatch]:
        """The best rows of current file versions (`follow`): a file whose rows lag is searched again without them
        (rare: only while the lane catches up with an edit), so the answer is the best `limit` current rows."""
        current = self._current
        hidden: set[str] = set()
        known: dict[str, str | None] = {}
        while True:
            matches = self._store.search(vector, limit, hidden)
            if current is None:
                return matches
            lagging = set()
            for match in matches:
                path = match.ref.path
                if path not in known:
                    known[path] = current(path)
                if known[path] != match.content:
                    lagging.add(path)
            if not lagging:
                return matches
            hidden |= lagging

    def _query_vector(self, text: str) -> Embeddings:
        with self._query_lock:
            cached = self._queries.get(text)
            if cached is not None:
                self._queries.move_to_end(text)
                return cached
        try:
            vector = self._embedder.embed_query(text)
        except EmbedderError as exc:
            raise RetrieverError(f"semantic search unavailable: {exc}") from exc
        with self._query_lock:
            self._queries[text] = vector
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vector


def by_file_support(hits: list[Hit]) -> list[Hit]:
    """A question's hits grouped by file, files in order of their best score plus FILE_SUPPORT_WEIGHT × the scores of
    their next FILE_SUPPORT_CHUNKS hits, each file's hits in score order: a file with several chunks near the question
    is more likely what it is about than a file with one."""
    per_file: dict[str, list[Hit]] = {}
    for hit in hits:  # best first already
        per_file.setdefault(hit.path, []).append(hit)

    def support(path: str) -> float:
        scores = [h.score for h in per_file[path]]
        return scores[0] + FILE_SUPPORT_WEIGHT * sum(scores[1 : 1 + FILE_SUPPORT_CHUNKS])

    return [hit for path in sorted(per_file, key=support, reverse=True) for hit in per_file[path]]


class VectorChain:
    """The semantic retriever's vectors as a chain part (index/segment_parts.py's ChainPart), named "vectors" in the
    manifest: the segment set opens it at start and writes what `export` gives at each commit."""

    def __init__(self, retriever: SemanticRetriever) -> None:
        self._retriever = retriever

    @property
    def name(self) -> str:
        return VECTORS_PART

    def export(self) -> ChainExport:
        """The parts not stored yet (safe while a batch is being embedded: the store publishes whole snapshots)."""
        retriever = self._retriever
        keys = retriever._keys
        keys.stored()  # the previous export was committed (or undone by export_failed)
        export = retriever.store.export()
        keys.exporting([arrays for arrays, _ in export.containers])
        return export

    def export_failed(self) -> None:
        self._retriever._keys.export_failed()
        self._retriever.store.export_failed()

    def open(self, containers: Sequence[StoredArrays], records: Sequence[ContainerRecord] = ()) -> None:
        self._retriever.open(containers, records)


class _CacheKeys:
    """Which fresh embeddings (cache keys) are held by which export, so that each leaves the cache once its row is
    stored: `cached` (put in the cache), `exporting` (the keys of rows an export is writing), `stored` (that export
    was committed), `take_due` (what to drop now). Thread-safe: the lane embeds while the writer exports."""

    __slots__ = ("_due", "_exported", "_fresh", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fresh: set[bytes] = set()
        self._exported: set[bytes] = set()
        self._due: set[bytes] = set()

    def cached(self, keys: Sequence[bytes]) -> None:
        with self._lock:
            self._fresh.update(keys)

    def exporting(self, containers: Sequence[Mapping[str, object]]) -> None:
        """The keys of fresh rows among these containers' (no work when nothing fresh waits: a warm process)."""
        with self._lock:
            fresh = set(self._fresh)
        held = set().union(*(_row_hashes(arrays) for arrays in containers)) if fresh and containers else set()
        with self._lock:
            self._exported = fresh & held

    def export_failed(self) -> None:
        with self._lock:
            self._exported = set()

    def stored(self) -> None:
        with self._lock:
            self._due |= self._exported
            self._fresh -= self._exported
            self._exported = set()

    def take_due(self) -> set[bytes]:
        with self._lock:
            due, self._due = self._due, set()
            return due


def _row_hashes(arrays: Mapping[str, object]) -> set[bytes]:
    """The text hashes of a vectors container's rows."""
    hashes = np.ascontiguousarray(arrays["row.hash"])
    width = int(hashes.shape[1]) if hashes.ndim == 2 else 0
    blob = hashes.tobytes()
    return {blob[at : at + width] for at in range(0, len(blob), width)} if width else set()


def _damaged(unverified: Sequence[tuple[StoredArrays, ContainerRecord]]) -> str | None:
    """The first checksum failure among opened containers, or None when every one reads back whole."""
    for container, record in unverified:
        verify = getattr(container, "verify", None)
        try:
            if callable(verify):
                verify(record)
        except (ContainerError, OSError) as exc:
            return str(exc)
    return None


def planned_rows(analysis: FileAnalysis, style: TextStyle, reuse: Mapping[bytes, RowLocation]) -> list[_Planned]:
    """A file's chunks to index, each with its embedded text and the live row of the same text to reuse, if any."""
    plan: list[_Planned] = []
    prepared = analysis.embed_style == style and len(analysis.embed_texts) == len(analysis.chunks)
    for index, chunk in enumerate(analysis.chunks):
        text = analysis.embed_texts[index] if prepared else document_text(chunk, style)
        ref = _row_ref(chunk, text_hash(text))
        plan.append(_Planned(ref, text, reuse.get(ref.text_hash)))
    return plan


def fresh_rows(
    plan: Sequence[_Planned], embed_slice: Callable[[list[bytes], Mapping[bytes, str]], Embeddings], dimension: int
) -> RowVectors:
    """The planned rows embedded anew: each distinct text once, in slices of EMBED_SLICE_TEXTS."""
    return fresh_vectors([p.ref.text_hash for p in plan], [p.text for p in plan], embed_slice, dimension)


def fresh_vectors(
    keys: Sequence[bytes],
    texts: Sequence[str],
    embed_slice: Callable[[list[bytes], Mapping[bytes, str]], Embeddings],
    dimension: int,
) -> RowVectors:
    """Rows of these texts (`keys`: their hashes) embedded anew: each distinct text once, in slices of
    EMBED_SLICE_TEXTS."""
    by_key = dict(zip(keys, texts, strict=True))
    unique = list(by_key)  # first-seen order, as dict keys keep it
    slices = range(0, len(unique), EMBED_SLICE_TEXTS)
    fresh = Embeddings.concat([embed_slice(unique[at : at + EMBED_SLICE_TEXTS], by_key) for at in slices], dimension)
    row_of = {key: r for r, key in enumerate(unique)}
    return row_vectors(fresh.take(list(map(row_of.__getitem__, keys))))


def planned_columns(analysis: FileAnalysis, style: TextStyle) -> tuple[RowColumns, list[bytes], list[str]]:
    """A file's rows as columns, with their embedded texts and the texts' hashes (planned_rows without reuse, and no
    object per row: what a cold build's worker processes send)."""
    chunks = analysis.chunks
    prepared = analysis.embed_style == style and len(analysis.embed_texts) == len(chunks)
    texts = list(analysis.embed_texts) if prepared else [document_text(chunk, style) for chunk in chunks]
    keys = list(map(text_hash, texts))
    return row_columns(chunks, keys), keys, texts


def row_columns(chunks: Sequence[Chunk], keys: Sequence[bytes]) -> RowColumns:
    """The rows of these chunks (`keys`: their texts' hashes) as columns, each field as `_row_ref` makes it."""
    return RowColumns(
        [chunk.start_line for chunk in chunks],
        [chunk.end_line for chunk in chunks],
        list(map(_end_col, chunks)),
        b"".join(keys),
        list(map(_symbol, chunks)),
        [chunk.kind for chunk in chunks],
        list(map(_snippet, chunks)),
    )


def file_tag(analysis: FileAnalysis, style: str) -> str:
    """What a file's rows are built from: its content and the chunks cut from it (lines, names, kinds). Also used by
    the worker processes that build rows (`semantic_workers`)."""
    digest = hashlib.blake2b(digest_size=FINGERPRINT_BYTES)
    digest.update(f"{style}\0{analysis.content_hash}".encode())
    for chunk in analysis.chunks:
        fields = (chunk.chunk_id, chunk.symbol, chunk.parent, chunk.kind, chunk.signature, chunk.language)
        digest.update("\0".join("" if f is None else f for f in fields).encode("utf-8", "surrogatepass"))
        digest.update(b"\1")
    return digest.hexdigest()


def _row_ref(chunk: Chunk, key: bytes) -> RowRef:
    return RowRef(
        path=chunk.path,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        text_hash=key,
        symbol=_symbol(chunk),
        kind=chunk.kind,
        snippet=_snippet(chunk),
        end_col=_end_col(chunk),
    )


def _symbol(chunk: Chunk) -> str | None:
    return f"{chunk.parent}.{chunk.symbol}" if chunk.parent and chunk.symbol else chunk.symbol


def _snippet(chunk: Chunk) -> str:
    """What a hit shows of the chunk: its signature, else its first non-blank line, cut to SNIPPET_CHARS."""
    snippet = chunk.signature or next((line.strip() for line in chunk.text.splitlines() if line.strip()), "")
    return snippet[:SNIPPET_CHARS]


def _end_col(chunk: Chunk) -> int:
    return len(chunk.text.rsplit("\n", 1)[-1])


def _hit(ref: RowRef, score: float, distance: int) -> Hit:
    return Hit(
        path=ref.path,
        span=ModelSpan(ref.start_line, 0, ref.end_line, ref.end_col),
        score=score,
        symbol=ref.symbol,
        kind=ref.kind,
        snippet=ref.snippet,
        detail={"hamming": distance, "chunk": ref.chunk_id},
    )


def _stored_form(rows: list[CachedRow]) -> RowVectors:
    """Cached rows (codes, int8 vector and scale, or None) as the store keeps them: the cache holds that very form."""
    codes = np.stack([r[0] for r in rows]).astype(np.uint8, copy=False)
    if any(r[1] is None or r[2] is None for r in rows):
        return RowVectors(codes)
    quantized = np.stack([r[1] for r in rows if r[1] is not None]).astype(np.int8, copy=False)
    return RowVectors(codes, quantized, np.array([r[2] for r in rows], dtype=np.float32))


def _gives_document_floats(embedder: Embedder) -> bool:
    """Whether the embedder's document embeddings carry floats: an empty call tells (no text, so no request)."""
    try:
        return embedder.embed_documents([]).floats is not None
    except EmbedderError:
        return False

"""The semantic retriever: chunks embedded as binary codes, searched by Hamming distance and rescored.

Only chunks whose embedded text is new are embedded: a re-applied file reuses its rows, and the embedding cache
answers for texts seen before (across edits and restarts). The vector store persists to `store_dir`.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from maguyva_lsp.embed.base import BITS_PER_BYTE, Embedder, EmbedderError, Embeddings
from maguyva_lsp.embed.text import document_text, query_text, snippet_text
from maguyva_lsp.index.vectors import BinaryVectorStore, RowRef, VectorStoreError
from maguyva_lsp.model import ChangeBatch, Chunk, FileAnalysis, Hit, Intent, Modality, RetrievalQuery, RetrieverStatus
from maguyva_lsp.model import Span as ModelSpan
from maguyva_lsp.query.snippet import snippet_code, snippet_kinds
from maguyva_lsp.retrieve.base import RetrieverError
from maguyva_lsp.store.embedding_cache import CACHE_FILE, EmbeddingCache, text_hash

log = logging.getLogger(__name__)

# A hit's snippet: the chunk's signature, else its first non-blank line, cut to this length.
SNIPPET_CHARS = 200
# Recent query embeddings kept in memory: typing a query re-asks the same text, and with Voyage each ask costs.
QUERY_CACHE_SIZE = 256
# After a change, the vector snapshot is written at most this often (a burst of batches during indexing writes once
# per interval, not once per batch); a pending write also runs at close and at interpreter exit.
SAVE_INTERVAL_SECONDS = 5.0
FINGERPRINT_BYTES = 16
# A question's hits are ranked by file: a file's best score, plus this weight × the scores of its next chunks. (Chosen
# on the dev set's flask, attrs and express questions, checked on starlette and cobra: see notes/i13-rank.md.)
FILE_SUPPORT_WEIGHT = 0.3
FILE_SUPPORT_CHUNKS = 2
# A pasted snippet's nearest rows are read this many times over, so that enough of them are chunks of its unit.
SNIPPET_OVERFETCH = 4


@dataclass(frozen=True, slots=True)
class _Planned:
    """A chunk to index and where its vector comes from."""

    ref: RowRef
    key: bytes  # cache key of the embedded text
    text: str
    reuse_row: int | None  # a live row of the same path with the same text


class SemanticRetriever:
    """The `semantic` modality (SPEC §2): binary embeddings with exact Hamming search and float rescoring."""

    def __init__(
        self, embedder: Embedder, store_dir: Path | None = None, *, cache: EmbeddingCache | None = None
    ) -> None:
        self._embedder = embedder
        self._store_dir = store_dir
        self._apply_lock = threading.Lock()
        self._query_lock = threading.Lock()
        self._queries: OrderedDict[str, Embeddings] = OrderedDict()
        self._failure: str | None = None
        self._pending: dict[str, FileAnalysis] = {}  # files whose embedding failed, retried with the next batch
        self._dirty = False
        self._last_save = 0.0
        self._save_timer: threading.Timer | None = None
        self._cache = cache or EmbeddingCache(None if store_dir is None else store_dir / CACHE_FILE)
        self._store = self._load_store()
        self._doc_floats = _gives_document_floats(embedder)
        self.embedded_texts = 0  # texts sent to the embedder since start (the rest came from reuse or the cache)
        if store_dir is not None:
            self._exit_hook: Callable[[], None] | None = _weak_flush(self)
            atexit.register(self._exit_hook)
        else:
            self._exit_hook = None

    def _load_store(self) -> BinaryVectorStore:
        embedder = self._embedder
        if self._store_dir is not None:
            try:
                return BinaryVectorStore.load(self._store_dir, embedder.dimension, embedder.name)
            except FileNotFoundError:
                pass
            except (VectorStoreError, OSError) as exc:
                log.warning("semantic index not reused, rebuilding from the embedding cache: %s", exc)
        return BinaryVectorStore(embedder.dimension, embedder.name)

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

    def status(self) -> RetrieverStatus:
        if self._failure is not None:
            return RetrieverStatus(False, self._failure)
        return RetrieverStatus(True)

    # -- indexing --------------------------------------------------------------------------------------------------

    def apply(self, batch: ChangeBatch) -> None:
        """Index the batch's files, embedding only chunks whose text has no vector yet. An embedder failure leaves
        those files' previous vectors in place, marks the retriever unavailable with the reason, and keeps the files
        to retry with the next batch."""
        with self._apply_lock:
            for path in batch.removed:
                self._pending.pop(path, None)
            analyses = {**self._pending, **{a.path: a for a in batch.updated}}
            for path in batch.removed:
                analyses.pop(path, None)
            tags = {path: _fingerprint(analysis, self._embedder.text_style) for path, analysis in analyses.items()}
            changed: dict[str, list[_Planned]] = {}
            for path, analysis in analyses.items():
                if self._store.path_tag(path) == tags[path]:
                    continue  # same content, same chunks: nothing to do, not even building texts
                plan = self._plan(analysis)
                if plan is not None:
                    changed[path] = plan
            try:
                vectors = self._vectors([p for plan in changed.values() for p in plan])
            except EmbedderError as exc:
                self._failure = f"embedding failed: {exc}"
                self._pending = {path: analyses[path] for path in changed}
                log.warning("semantic index: %s (%d files kept for retry)", self._failure, len(self._pending))
                if batch.removed:
                    self._store.replace(batch.removed, (), Embeddings.empty(self._embedder.dimension))
                    self._changed()
                return
            self._failure = None
            self._pending = {}
            refs = [p.ref for plan in changed.values() for p in plan]
            new_tags = {path: tag for path, tag in tags.items() if self._store.path_tag(path) != tag}
            removed = self._store.replace([*batch.removed, *changed], refs, vectors, tags=new_tags)
            if refs or removed or new_tags:
                self._changed()

    def _plan(self, analysis: FileAnalysis) -> list[_Planned] | None:
        """What to index for a file, or None when its rows already match its chunks (same ids, same texts)."""
        style = self._embedder.text_style
        existing = self._store.rows_of(analysis.path)
        by_hash = {ref.text_hash: row for row, ref in existing}
        plan: list[_Planned] = []
        prepared = analysis.embed_style == style and len(analysis.embed_texts) == len(analysis.chunks)
        for index, chunk in enumerate(analysis.chunks):
            text = analysis.embed_texts[index] if prepared else document_text(chunk, style)
            key = text_hash(text)
            ref = _row_ref(chunk, key.hex())
            plan.append(_Planned(ref, key, text, by_hash.get(ref.text_hash)))
        unchanged = len(existing) == len(plan) and {ref for _, ref in existing} == {p.ref for p in plan}
        return None if unchanged else plan

    def _vectors(self, plan: list[_Planned]) -> Embeddings:
        """Vectors for planned rows, in order: reused rows, then the cache, then the embedder for what is left."""
        embedder = self._embedder
        dimension = embedder.dimension
        codes = np.zeros((len(plan), dimension // BITS_PER_BYTE), dtype=np.uint8)
        floats = np.zeros((len(plan), dimension), dtype=np.float32) if self._doc_floats else None
        reuse = [i for i, p in enumerate(plan) if p.reuse_row is not None]
        if reuse:
            stored = self._store.embeddings_of([row for i in reuse if (row := plan[i].reuse_row) is not None])
            codes[reuse] = stored.codes
            if floats is not None and stored.floats is not None:
                floats[reuse] = stored.floats
        have = set(reuse)
        missing = [i for i in range(len(plan)) if i not in have]
        cached = self._cache.get(embedder.name, dimension, [plan[i].key for i in missing])
        for i in missing:
            hit = cached.get(plan[i].key)
            # A row must carry floats exactly when the model gives them; anything else is re-embedded.
            if hit is None or (hit[1] is not None) != self._doc_floats:
                continue
            codes[i] = hit[0]
            if floats is not None and hit[1] is not None:
                floats[i] = hit[1]
            have.add(i)
        todo = [i for i in range(len(plan)) if i not in have]
        if todo:
            unique = list(dict.fromkeys(plan[i].key for i in todo))
            texts = {plan[i].key: plan[i].text for i in todo}
            fresh = embedder.embed_documents([texts[key] for key in unique])
            if len(fresh) != len(unique) or (fresh.floats is not None) != self._doc_floats:
                raise EmbedderError(f"{embedder.name} returned {len(fresh)} embeddings of another form than expected")
            self.embedded_texts += len(unique)
            self._cache.put(embedder.name, dimension, unique, fresh)
            row_of = {key: r for r, key in enumerate(unique)}
            rows = [row_of[plan[i].key] for i in todo]
            codes[todo] = fresh.codes[rows]
            if floats is not None and fresh.floats is not None:
                floats[todo] = fresh.floats[rows]
        return Embeddings(codes, floats)

    def _changed(self) -> None:
        """Persist soon, on a timer thread: at once when the last write is an interval old, else when it will be (a
        burst of batches writes once per interval). The caller never waits for the write (~0.2 s on the stdlib)."""
        if self._store_dir is None:
            return
        self._dirty = True
        if self._save_timer is None:
            wait = max(self._last_save + SAVE_INTERVAL_SECONDS - time.monotonic(), 0.0)
            self._save_timer = threading.Timer(wait, self.flush)
            self._save_timer.daemon = True
            self._save_timer.start()

    def _save_locked(self) -> None:
        if self._store_dir is None or not self._dirty:
            return
        try:
            self._store.save(self._store_dir)
        except OSError as exc:
            log.warning("cannot save the semantic index to %s: %s", self._store_dir, exc)
        self._dirty = False
        self._last_save = time.monotonic()

    def flush(self) -> None:
        """Write pending changes to disk now."""
        with self._apply_lock:
            if self._save_timer is not None:
                self._save_timer.cancel()
                self._save_timer = None
            self._save_locked()

    def close(self) -> None:
        """Flush and release the cache and the embedder's resources."""
        self.flush()
        if self._exit_hook is not None:
            atexit.unregister(self._exit_hook)
            self._exit_hook = None
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
            matches = self._store.search(vector, limit * SNIPPET_OVERFETCH)
            own = [m for m in matches if m.ref.kind in kinds][:limit]
            if own:
                return [_hit(match.ref, match.score, match.distance) for match in own]
        hits = [_hit(match.ref, match.score, match.distance) for match in self._store.search(vector, limit)]
        return by_file_support(hits) if query.intent is Intent.UNDERSTAND_CODE else hits

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


def _fingerprint(analysis: FileAnalysis, style: str) -> str:
    """What a file's rows are built from: its content and the chunks cut from it (lines, names, kinds)."""
    digest = hashlib.blake2b(digest_size=FINGERPRINT_BYTES)
    digest.update(f"{style}\0{analysis.content_hash}".encode())
    for chunk in analysis.chunks:
        fields = (chunk.chunk_id, chunk.symbol, chunk.parent, chunk.kind, chunk.signature, chunk.language)
        digest.update("\0".join("" if f is None else f for f in fields).encode("utf-8", "surrogatepass"))
        digest.update(b"\1")
    return digest.hexdigest()


def _row_ref(chunk: Chunk, hash_hex: str) -> RowRef:
    last_line = chunk.text.rsplit("\n", 1)[-1]
    snippet = chunk.signature or next((line.strip() for line in chunk.text.splitlines() if line.strip()), "")
    return RowRef(
        chunk_id=chunk.chunk_id,
        path=chunk.path,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        text_hash=hash_hex,
        symbol=f"{chunk.parent}.{chunk.symbol}" if chunk.parent and chunk.symbol else chunk.symbol,
        kind=chunk.kind,
        snippet=snippet[:SNIPPET_CHARS],
        end_col=len(last_line),
    )


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


def _gives_document_floats(embedder: Embedder) -> bool:
    """Whether the embedder's document embeddings carry floats: an empty call tells (no text, so no request)."""
    try:
        return embedder.embed_documents([]).floats is not None
    except EmbedderError:
        return False


def _weak_flush(retriever: SemanticRetriever) -> Callable[[], None]:
    """An exit hook that flushes the retriever if it still exists (the hook must not keep it alive)."""
    ref = weakref.ref(retriever)

    def hook() -> None:
        target = ref()
        if target is not None:
            target.flush()

    return hook

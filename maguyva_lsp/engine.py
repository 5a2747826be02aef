"""The engine facade: open a workspace root, index it (warm from the store), apply changes, search, navigate, report.

The server and the CLI call only this. It owns the segments, the retrievers and the search pipeline; its indexing
side (indexing.py) applies batches of changes, one writer at a time, while searches read a snapshot concurrently.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from maguyva_lsp.config import Settings
from maguyva_lsp.embed.factory import make_embedder
from maguyva_lsp.failures import failure_log
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH
from maguyva_lsp.heap import return_free_memory
from maguyva_lsp.index.graph_inputs import reference_source
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.symbol_part import SymbolPart
from maguyva_lsp.index.text_part import TextPart
from maguyva_lsp.indexer import INDEX_SCHEMA, Analyzer, IndexClosedError
from maguyva_lsp.indexing import IndexCounters, IndexProgress, IndexWriter, ProgressCallback
from maguyva_lsp.model import ChangeBatch, Definition, FileAnalysis, Modality, PathClass, Span
from maguyva_lsp.navigation import Navigator
from maguyva_lsp.rank.response import SearchResponse
from maguyva_lsp.retrieve.base import Retriever
from maguyva_lsp.retrieve.graph import GraphRetriever, ImpactResult
from maguyva_lsp.retrieve.semantic import SemanticRetriever
from maguyva_lsp.retrieve.structural import StructuralRetriever
from maguyva_lsp.retrieve.text import TextRetriever
from maguyva_lsp.scan.skips import Skip, problem_warning, summarize
from maguyva_lsp.search import SearchPipeline
from maguyva_lsp.semantic_lane import SemanticLane
from maguyva_lsp.store.embedding_cache import CACHE_FILE, EmbeddingCache
from maguyva_lsp.store.segment_store import SegmentStore, StoreError, default_index_dir
from maguyva_lsp.uris import uri_from_path

__all__ = ["Engine", "IndexCounters", "IndexProgress", "ProgressCallback"]

log = logging.getLogger(__name__)

# The parts every segment holds besides its core columns (index/segment_parts.py).
INDEX_PARTS = (TextPart(), SymbolPart())
# A process answering one request (the command line) waits for the embeddings of at most this many files; past
# that it answers with what is ready and says the semantic part is partial (the server does the same at any size).
ONE_SHOT_EMBED_FILES = 64
# The structural status while a cold build's references are pending: definitions are complete, mentions are not.
MENTIONS_PENDING = (
    "mentions of names are incomplete, and Python definitions come from the outline scanner, until the second pass "
    "parses every file"
)
# The URIs of this many files are kept: every search result carries its file's URI, and a few files answer most.
URI_CACHE_FILES = 4096


class Engine:
    """One workspace root, indexed and searchable."""

    def __init__(self, root: Path, settings: Settings | None = None, *, persist: bool = True) -> None:
        self.root = root.resolve()
        self.settings = settings or Settings()
        self.messages: list[str] = []  # notices for the user (fallbacks, store problems)
        self._closed = False
        self.index_dir = default_index_dir(self.root, self.settings.index_dir)
        self.segments = (self._open_store() if persist else None) or Segments(None, INDEX_PARTS)
        self.stored = self.segments.has_store
        embedder, notes = make_embedder(self.settings)
        self.messages.extend(notes)
        analyzer = Analyzer(
            self.settings.chunk_lines,
            self.settings.workers,
            embedder.text_style,
            max_file_size=self.settings.max_file_size,
        )
        self.text = TextRetriever(self.segments)
        self.structural = StructuralRetriever(self.segments)
        self.graph = GraphRetriever()
        # The segments hold every file's references: the graph stores only imports and base lists, and reads the
        # rest of a stored file from the segments when it resolves it again.
        self.graph.set_reference_source(reference_source(self.segments))
        self.segments.attach_chain(self.graph)  # its stored state, before any batch; written with every commit
        # The vectors are a chain of the segment store; the embedding cache (texts already embedded, across edits
        # and restarts) stays beside it.
        cache = EmbeddingCache(self.index_dir / "semantic" / CACHE_FILE) if self.segments.writable else None
        self.semantic = SemanticRetriever(embedder, cache=cache)
        self.segments.attach_chain(self.semantic.chain)
        self.retrievers: dict[Modality, Retriever] = {
            "semantic": self.semantic,
            "text": self.text,
            "structural": self.structural,
            "graph": self.graph,
        }
        self._semantic_lane = SemanticLane(self.semantic, on_idle=self._lane_idle)
        # Text and structural read the segments; the graph takes an index run's changes once they are complete.
        self._writer = IndexWriter(
            self.root,
            self.settings,
            self.segments,
            analyzer,
            fed=(),
            follow=(self.graph,),
            semantic_lane=self._semantic_lane,
            semantic=self.semantic,
        )
        self._analyzer = analyzer
        self.files = self._writer.files
        self.semantic.follow(self.files.content_hash)  # no hit from a file version the others no longer hold
        self._pipeline = SearchPipeline(self.retrievers, self)
        self._navigator = Navigator(self)

    def _lane_idle(self) -> None:
        """The semantic lane caught up: its vectors reach the store, and the memory its batches used (analyses
        decoded from the segments, embedding inputs) goes back to the system."""
        self.segments.commit_chains()
        return_free_memory()

    @property
    def counters(self) -> IndexCounters:
        return self._writer.counters

    @property
    def skipped(self) -> dict[str, Skip]:
        """Printable root-relative path → why it is not indexed."""
        return self._writer.skipped

    def _open_store(self) -> Segments | None:
        fingerprint = f"chunk_lines={self.settings.chunk_lines}"
        try:
            store = Segments(SegmentStore(self.index_dir, INDEX_SCHEMA, fingerprint), INDEX_PARTS)
        except StoreError as exc:
            self.messages.append(f"index not persisted: {exc}")
            log.warning("index not persisted: %s", exc)
            return None
        if store.discarded_reason:
            self.messages.append(f"rebuilt the index store: {store.discarded_reason}")
        self.messages.extend(store.problems)
        return store

    # -- the SearchContext the pipeline reads

    @property
    def indexing(self) -> bool:
        """True while any index is still being built: files being analysed, or chunks waiting to be embedded."""
        writer = self._writer
        return writer.running or not writer.indexed_once or self._semantic_lane.busy

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Block until the semantic index has caught up with every applied change; False on timeout."""
        return self._semantic_lane.wait(timeout)

    def centrality(self, path: str, symbol: str | None) -> float:
        """The boost's input: the symbol's PageRank × node count. A hit outside any definition (imports, module-level
        code) gets 0: the boost lifts hubs, and the lines at the top of a much-imported file are not one."""
        return self.graph.centrality(path, symbol) if symbol else 0.0

    def path_class(self, path: str) -> PathClass:
        return self.files.path_class(path)

    def chunk_key(self, path: str, line: int) -> str:
        """The chunk holding a line, so that hits of different retrievers on one chunk agree in fusion."""
        return self.files.chunk_key(path, line)

    def uri(self, path: str) -> str:
        return _file_uri(self.root, path)

    # -- indexing (indexing.py)

    def index(
        self,
        progress: ProgressCallback | None = None,
        *,
        wait_for_embeddings: bool = True,
        one_shot: bool = False,
        questions_follow: bool = True,
    ) -> IndexCounters:
        """Bring the index in line with the folder: reuse stored analyses of unchanged files, analyse the rest.

        Embedding runs on its own thread, overlapping the rest; `wait_for_embeddings=False` returns as soon as the
        text, structural and graph indexes are current (the server does, so file events are not held up).
        `one_shot`: this process answers a request and exits (the command line): no background checks of the stored
        vectors, and it waits for the embeddings only when this run gave the semantic lane at most
        ONE_SHOT_EMBED_FILES files (else searches say they are partial; `close` keeps what was embedded).
        `questions_follow=False`: the process exits once the index is complete (`maguyva index`): the embedding model
        is not loaded ahead of questions (a cold build's workers embed; the load only delayed the exit)."""
        first = not self._writer.indexed_once
        # A process that answers while it indexes (the server: it does not wait for the embeddings) builds a cold
        # index in two passes: text and definitions searchable first, the references after (indexing.py).
        try:
            counters = self._writer.index(progress, verify_vectors=not one_shot, two_pass=not wait_for_embeddings)
        except IndexClosedError:  # closed while it ran (the server is leaving): the store keeps what was committed
            log.info("indexing %s stopped: the folder was closed", self.root)
            return self.counters
        if first and not one_shot and questions_follow:
            # A long-lived process loads the embedding model in the background: its first question does not wait.
            self._semantic_lane.submit_background(self.semantic.warm_up)
        if wait_for_embeddings or (one_shot and self._writer.lane_files <= ONE_SHOT_EMBED_FILES):
            self._semantic_lane.wait()
        return counters

    @property
    def embeddings_pending(self) -> bool:
        """The semantic index lags behind the others (searches say they are partial)."""
        return self._semantic_lane.busy

    def update(self, paths: Iterable[str | Path], *, wait_for_embeddings: bool = True) -> ChangeBatch:
        """Re-index just these paths (absolute or root-relative): files or folders changed, created, deleted."""
        batch = self._writer.update(paths)
        if wait_for_embeddings:
            self._semantic_lane.wait()
        return batch

    def remove(self, paths: Iterable[str | Path]) -> None:
        """Forget these paths (deleted, or moved away)."""
        self._writer.remove(paths)

    def set_buffer(self, path: str | Path, text: str) -> bool:
        """Search sees this unsaved content for the file until `close_buffer`. False when the path is not indexable."""
        return self._writer.set_buffer(path, text)

    def close_buffer(self, path: str | Path) -> None:
        """Stop overriding the file with its buffer: the disk's content is indexed again."""
        self._writer.close_buffer(path)

    # -- queries

    def search(
        self,
        query: str,
        preset: str | None = None,
        limit: int | None = None,
        explain: bool = False,
        *,
        regex: bool = False,
        case_sensitive: bool = False,
    ) -> SearchResponse:
        """Classify the query, run the right retrievers, fuse. `regex` marks the query as a regular expression.
        Raises ValueError for an unknown preset or an empty query."""
        return self._pipeline.search(
            query,
            preset=preset if preset is not None else self.settings.preset,
            limit=limit if limit is not None else self.settings.limit,
            explain=explain,
            regex=regex,
            case_sensitive=case_sensitive,
        )

    def workspace_symbols(self, query: str, limit: int) -> list[tuple[float, Definition]]:
        """Definitions whose names match what is typed, best first (type-ahead speed: the symbol table only)."""
        return [(m.score, m.definition) for m in self.structural.table.search(query, limit)]

    def definition(self, path: str, line: int, column: int) -> list[tuple[str, Span]]:
        return [(loc.path, loc.span) for loc in self._navigator.definition(path, line, column)]

    def definitions_of(self, symbol: str) -> list[tuple[str, Span]]:
        """Every definition of a (possibly qualified) name: `parse_config`, `Config.parse`."""
        return [(loc.path, loc.span) for loc in self._navigator.definitions_of(symbol)]

    def references(self, path: str, line: int, column: int, *, include_declaration: bool) -> list[tuple[str, Span]]:
        found = self._navigator.references(path, line, column, include_declaration)
        return [(loc.path, loc.span) for loc in found]

    def impact(
        self,
        symbol: str | None = None,
        *,
        path: str | None = None,
        line: int = 0,
        column: int = 0,
        max_depth: int = DEFAULT_IMPACT_DEPTH,
    ) -> ImpactResult | None:
        """Transitive dependents of a symbol (by name, or at a position); None when no such symbol is known."""
        return self._navigator.impact(symbol, path, line, column, max_depth)

    def analysis(self, path: str) -> FileAnalysis | None:
        """A file's whole analysis as indexed (rebuilt from its segment: for tools and tests, not for queries)."""
        return self.files.analysis(path)

    def line_text(self, path: str, line: int) -> str:
        """One line of a file as the index holds it (an open buffer's text when there is one); "" when unknown."""
        return self.files.line_text(path, line)

    @property
    def file_count(self) -> int:
        return self.files.file_count

    def status(self) -> dict[str, Any]:
        """Counts and health of every part, as `maguyva/status` reports them."""
        graph_stats = self.graph.stats()
        references_pending = self.segments.references_pending
        return {
            "root": str(self.root),
            "indexing": self.indexing,
            "files": self.files.file_count,
            "chunks": self.files.chunk_count,
            "symbols": self.structural.symbol_count,
            "edges": graph_stats.get("edges", 0),
            "nodes": graph_stats.get("nodes", 0),
            "embedder": self.semantic.embedder_name,
            "skipped": len(self.skipped),
            "skips": summarize(self.skipped),
            "open_buffers": len(self._writer.buffers),
            # A cold build's first pass is published: text and definitions are complete (Python's read by the outline
            # scanner, `parse/python_outline.py`, equal to the parse's wherever it does not decline), the mentions of
            # names (structural) and the graph wait for the references.
            "references_pending": references_pending,
            "modalities": {
                name: {
                    "available": s.available,
                    "partial": s.partial
                    or name in self._writer.catching_up
                    or (name == "graph" and references_pending)
                    or (name == "semantic" and self._semantic_lane.busy),
                    "reason": s.reason or (MENTIONS_PENDING if name == "structural" and references_pending else None),
                }
                for name, r in self.retrievers.items()
                for s in (r.status(),)
            },
            "embedding_batches_pending": self._semantic_lane.pending,
            "store": {
                "dir": str(self.index_dir) if self.stored else None,
                "writable": self.segments.writable,
            },
            "counters": {
                "analyzed": self.counters.analyzed,
                "reused": self.counters.reused,
                "removed": self.counters.removed,
                "skipped": self.counters.skipped,
                "last_index_seconds": round(self.counters.last_index_seconds, 3),
            },
            "messages": list(self.messages),
            "last_error": failure_log().last_json(),  # the latest background failure of this process, or None
        }

    def skip_warning(self) -> str | None:
        """One sentence about the entries the last run had to skip for a problem (unreadable, broken...), or None."""
        return problem_warning(self.root.name, self.skipped)

    @property
    def closed(self) -> bool:
        return self._closed

    def wait_for_merges(self, timeout: float | None = None) -> None:
        """Block until background merges of the segments are done (the command line's `index` waits; otherwise the
        next start merges again)."""
        self._writer.wait_for_merges(timeout)

    def close(self) -> None:
        self._writer.close()  # staged changes are written first; merges still running are not adopted
        self._closed = True
        self._pipeline.close()
        self._analyzer.close()
        self.semantic.stop()  # the batch being embedded ends at its next slice; what was embedded stays in the cache
        self._semantic_lane.close()
        self.segments.commit_chains()  # what the semantic lane did last reaches the store
        self.semantic.close()
        self.segments.close()


@functools.lru_cache(maxsize=URI_CACHE_FILES)
def _file_uri(root: Path, path: str) -> str:
    """The URI of a file below a root (percent-encoding a path costs more than a search result's other fields)."""
    return uri_from_path(root / path)

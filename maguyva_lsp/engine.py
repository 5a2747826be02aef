"""The engine facade: open a workspace root, index it (warm from the store), apply changes, search, navigate, report.

The server and the CLI call only this. It owns the retrievers, the store and the search pipeline; one writer at a time
applies batches of changes while searches read the retrievers concurrently.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from maguyva_lsp.config import Settings
from maguyva_lsp.embed.factory import make_embedder
from maguyva_lsp.failures import BACKGROUND, failure_log
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH
from maguyva_lsp.heap import collector_paused
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.text_part import TextPart
from maguyva_lsp.indexer import INDEX_SCHEMA, Analyzer, Skipped, read_and_analyze
from maguyva_lsp.model import ChangeBatch, Definition, FileAnalysis, Modality, PathClass, Span
from maguyva_lsp.navigation import Navigator
from maguyva_lsp.rank.response import SearchResponse
from maguyva_lsp.retrieve.base import Retriever
from maguyva_lsp.retrieve.graph import GraphRetriever, ImpactResult
from maguyva_lsp.retrieve.semantic import SemanticRetriever
from maguyva_lsp.retrieve.structural import StructuralRetriever
from maguyva_lsp.retrieve.text import TextRetriever
from maguyva_lsp.scan.ignore import IGNORE_FILE_NAMES
from maguyva_lsp.scan.skips import NOT_RECORDED, Skip, SkipReason, printable_path, problem_warning, summarize
from maguyva_lsp.scan.walker import WorkspaceScanner
from maguyva_lsp.search import SearchPipeline
from maguyva_lsp.semantic_lane import SemanticLane
from maguyva_lsp.store.segment_store import SegmentStore, StoreError, default_index_dir
from maguyva_lsp.uris import uri_from_path

log = logging.getLogger(__name__)

# The parts every segment holds besides its core columns (index/segment_parts.py).
INDEX_PARTS = (TextPart(),)

# Files applied to the retrievers at once during a full index: searches in between see partial results. Each batch
# costs the retrievers a merge (and the graph a re-resolution of the names the batch adds), so batches grow
# geometrically: the first results come early and a cold index still makes only a handful of merges.
FIRST_APPLY_BATCH_FILES = 256
# An index run that loads or analyses at least this many files runs with the cyclic collector paused and freezes what
# it built (heap.py): on the stdlib the warm start drops from 15.6 to 13 s; the next request skips a 1.5 s collection.
LARGE_INDEX_FILES = 500
APPLY_BATCH_GROWTH = 2


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Where an index run is: a phase, and files done out of total in that phase."""

    phase: str  # "scanning", "loading", "analyzing", "done"
    done: int
    total: int


@dataclass(slots=True)
class IndexCounters:
    """What indexing did, cumulatively: files parsed anew versus taken from the store."""

    analyzed: int = 0
    reused: int = 0
    removed: int = 0
    skipped: int = 0
    last_index_seconds: float = 0.0


ProgressCallback = Callable[[IndexProgress], None]


@dataclass(slots=True)
class _FileState:
    analysis: FileAnalysis
    chunk_starts: list[int] = field(default_factory=list)
    from_buffer: bool = False


class Engine:
    """One workspace root, indexed and searchable."""

    def __init__(self, root: Path, settings: Settings | None = None, *, persist: bool = True) -> None:
        self.root = root.resolve()
        self.settings = settings or Settings()
        self.messages: list[str] = []  # notices for the user (fallbacks, store problems)
        self.counters = IndexCounters()
        self.skipped: dict[str, Skip] = {}  # printable root-relative path → why it is not indexed
        self._files: dict[str, _FileState] = {}
        self._buffers: dict[str, str] = {}
        self._write_lock = threading.RLock()
        self._indexing = False
        self._indexed_once = False
        self._closed = False
        self._scanner = self._new_scanner()
        self.index_dir = default_index_dir(self.root, self.settings.index_dir)
        self.segments = (self._open_store() if persist else None) or Segments(None, INDEX_PARTS)
        self.stored = self.segments.writable or self.segments.has_store
        embedder, notes = make_embedder(self.settings)
        self.messages.extend(notes)
        self._analyzer = Analyzer(
            self.settings.chunk_lines,
            self.settings.workers,
            embedder.text_style,
            max_file_size=self.settings.max_file_size,
        )
        self.text = TextRetriever(self.segments)
        self.structural = StructuralRetriever()
        self.graph = GraphRetriever()
        semantic_dir = self.index_dir / "semantic" if self.segments.writable else None
        self.semantic = SemanticRetriever(embedder, store_dir=semantic_dir)
        self.retrievers: dict[Modality, Retriever] = {
            "semantic": self.semantic,
            "text": self.text,
            "structural": self.structural,
            "graph": self.graph,
        }
        self._semantic_lane = SemanticLane(self.semantic)
        self._pipeline = SearchPipeline(self.retrievers, self)
        self._navigator = Navigator(self)
        self._lines_cache: tuple[str, str, list[str]] | None = None  # (path, content hash, lines)

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
        return self._indexing or not self._indexed_once or self._semantic_lane.busy

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Block until the semantic index has caught up with every applied change; False on timeout."""
        return self._semantic_lane.wait(timeout)

    def centrality(self, path: str, symbol: str | None) -> float:
        """The boost's input: the symbol's PageRank × node count. A hit outside any definition (imports, module-level
        code) gets 0: the boost lifts hubs, and the lines at the top of a much-imported file are not one."""
        return self.graph.centrality(path, symbol) if symbol else 0.0

    def path_class(self, path: str) -> PathClass:
        state = self._files.get(path)
        return state.analysis.file.path_class if state else PathClass.SOURCE

    def chunk_key(self, path: str, line: int) -> str:
        """The chunk holding a line, so that hits of different retrievers on one chunk agree in fusion."""
        state = self._files.get(path)
        if state is None or not state.chunk_starts:
            return f"{path}#{line}"
        index = max(bisect.bisect_right(state.chunk_starts, line) - 1, 0)
        return state.analysis.chunks[index].chunk_id

    def uri(self, path: str) -> str:
        return uri_from_path(self.root / path)

    # -- indexing

    def index(self, progress: ProgressCallback | None = None, *, wait_for_embeddings: bool = True) -> IndexCounters:
        """Bring the index in line with the folder: reuse stored analyses of unchanged files, analyse the rest.

        Embedding runs on its own thread, overlapping the rest; `wait_for_embeddings=False` returns as soon as the
        text, structural and graph indexes are current (the server does, so file events are not held up)."""
        started = time.perf_counter()
        with self._write_lock:
            self._indexing = True
            try:
                self._index(progress)
            finally:
                self._indexing = False
                self._indexed_once = True
        if wait_for_embeddings:
            self._semantic_lane.wait()
        self.counters.last_index_seconds = time.perf_counter() - started
        return self.counters

    def _index(self, progress: ProgressCallback | None) -> None:
        report = progress or (lambda _p: None)
        report(IndexProgress("scanning", 0, 0))
        scan = self._scanner.scan()
        self.skipped = dict(scan.skipped)
        stored = self.segments.stored_files()
        current = {f.path: f for f in scan.files}
        gone = [p for p in self._files if p not in current and p not in self._buffers]
        stale_stored = [p for p in stored if p not in current]
        unchanged_in_memory = {
            p
            for p, f in current.items()
            if (s := self._files.get(p)) is not None
            and (s.from_buffer or (s.analysis.file.size, s.analysis.file.mtime_ns) == (f.size, f.mtime_ns))
        }
        reusable = [
            p
            for p, f in current.items()
            if p not in unchanged_in_memory
            and (row := stored.get(p)) is not None
            and (row.size, row.mtime_ns) == (f.size, f.mtime_ns)
        ]
        reusable_set = set(reusable)
        to_analyze = [f for p, f in current.items() if p not in unchanged_in_memory and p not in reusable_set]
        large = len(reusable) + len(to_analyze) >= LARGE_INDEX_FILES
        with collector_paused(freeze=True) if large else contextlib.nullcontext():
            if gone:
                self._apply(ChangeBatch(removed=tuple(gone)))
                self.counters.removed += len(gone)
            stale_stored = [p for p in stale_stored if p not in gone]
            if stale_stored:
                self.segments.save((), removed=stale_stored)
            if reusable:
                report(IndexProgress("loading", 0, len(reusable)))
                loaded: set[str] = set()
                # A stored analysis describes the same bytes (same size and mtime), refined language and class included.
                # Applied as one batch: decoding is the slow part, and one batch lets the graph resolve names once.
                batch = tuple(self.segments.load(reusable))
                self._apply(ChangeBatch(updated=batch), indexed=True)
                loaded.update(a.path for a in batch)
                self.counters.reused += len(batch)
                report(IndexProgress("loading", len(loaded), len(reusable)))
                # Rows the store could not unpack are analysed afresh.
                to_analyze.extend(current[p] for p in reusable if p not in loaded)
            self._analyze_and_apply(to_analyze, report)
        report(IndexProgress("done", len(current), len(current)))

    def _analyze_and_apply(self, files: list[Any], report: ProgressCallback) -> None:
        total = len(files)
        done = 0
        pending: list[FileAnalysis] = []
        batch_files = FIRST_APPLY_BATCH_FILES
        report(IndexProgress("analyzing", 0, total))
        for batch in self._analyzer.analyze(files):
            for result in batch:
                if isinstance(result, Skipped):
                    self.skipped[result.path] = result.skip
                    self.counters.skipped += 1
                    if result.path in self._files:
                        self._apply(ChangeBatch(removed=(result.path,)))
                else:
                    pending.append(result)
            done += len(batch)
            if len(pending) >= batch_files:
                self._apply(ChangeBatch(updated=tuple(pending)))
                self.counters.analyzed += len(pending)
                pending = []
                batch_files *= APPLY_BATCH_GROWTH
            report(IndexProgress("analyzing", done, total))
        if pending:
            self._apply(ChangeBatch(updated=tuple(pending)))
            self.counters.analyzed += len(pending)

    def update(self, paths: Iterable[str | Path], *, wait_for_embeddings: bool = True) -> ChangeBatch:
        """Re-index just these paths (absolute or root-relative): files or folders changed, created, deleted.

        A changed ignore file re-evaluates its folder: newly ignored files leave the index, newly included ones join.
        Files whose size and modification time match what is indexed are not re-read."""
        updated: list[FileAnalysis] = []
        removed: list[str] = []
        with self._write_lock:
            requested = list(paths)
            ignore_folders = self._changed_ignore_folders(requested)
            if ignore_folders:
                self._scanner = self._new_scanner()
                requested.extend(ignore_folders)
            for rel in self._expand(requested):
                if rel in self._buffers:
                    continue  # an open buffer's content wins over the disk until the buffer is closed
                verdict = self._scanner.check(self.root / rel)
                if not isinstance(verdict, Skip) and self._unchanged(rel, verdict.size, verdict.mtime_ns):
                    continue
                result = (
                    read_and_analyze(verdict, self.settings.chunk_lines, max_file_size=self.settings.max_file_size)
                    if not isinstance(verdict, Skip)
                    else Skipped(rel, verdict)
                )
                if isinstance(result, FileAnalysis):
                    updated.append(result)
                    self.skipped.pop(rel, None)
                    continue
                if result.skip.reason in NOT_RECORDED:  # a deleted or ignored file is gone, not skipped
                    self.skipped.pop(printable_path(rel), None)
                else:
                    self.skipped[printable_path(rel)] = result.skip
                if rel in self._files:
                    removed.append(rel)
            batch = ChangeBatch(updated=tuple(updated), removed=tuple(removed))
            if updated or removed:
                self._apply(batch)
                self.counters.analyzed += len(updated)
                self.counters.removed += len(removed)
        if wait_for_embeddings:
            self._semantic_lane.wait()
        return batch

    def _unchanged(self, rel: str, size: int, mtime_ns: int) -> bool:
        state = self._files.get(rel)
        if state is None or state.from_buffer:
            return False
        return (state.analysis.file.size, state.analysis.file.mtime_ns) == (size, mtime_ns)

    def _changed_ignore_folders(self, paths: list[str | Path]) -> list[str]:
        """The folders whose ignore rules these paths change (a `.gitignore` or `.maguyvaignore` among them)."""
        folders: list[str] = []
        for raw in paths:
            rel = self._relative(raw)
            if rel is not None and PurePosixPath(rel).name in IGNORE_FILE_NAMES:
                parent = PurePosixPath(rel).parent.as_posix()
                folders.append("" if parent == "." else parent)
        return folders

    def _new_scanner(self) -> WorkspaceScanner:
        return WorkspaceScanner(self.root, max_file_size=self.settings.max_file_size, exclude=self.settings.exclude)

    def _expand(self, paths: Iterable[str | Path]) -> list[str]:
        """Root-relative file paths behind these paths: a folder stands for the files in it (on disk or indexed)."""
        out: dict[str, None] = {}
        for raw in paths:
            rel = self._relative(raw)
            if rel is None:
                continue
            absolute = self.root / rel
            if absolute.is_dir():
                out.update(dict.fromkeys(f.path for f in self._scanner.scan_folder(rel).files))
                prefix = rel + "/" if rel else ""
                out.update(dict.fromkeys(p for p in self._files if p.startswith(prefix)))
            else:
                # A path that is no folder now may have been one: its indexed files go (deleted, or the folder was
                # replaced by a file of the same name).
                prefix = rel + "/"
                out.update(dict.fromkeys(p for p in self._files if p.startswith(prefix)))
                if absolute.exists() or rel in self._files or printable_path(rel) in self.skipped:
                    out[rel] = None
        return list(out)

    def remove(self, paths: Iterable[str | Path]) -> None:
        """Forget these paths (deleted, or moved away)."""
        with self._write_lock:
            gone = [rel for rel in self._expand(paths) if rel in self._files]
            if gone:
                self._apply(ChangeBatch(removed=tuple(gone)))
                self.counters.removed += len(gone)

    def set_buffer(self, path: str | Path, text: str) -> bool:
        """Search sees this unsaved content for the file until `close_buffer`. False when the path is not indexable."""
        rel = self._relative(path)
        if rel is None:
            return False
        verdict = self._scanner.check(self.root / rel)
        if isinstance(verdict, Skip):
            if verdict.reason is not SkipReason.MISSING:
                return False
            # A new, unsaved file: describe it from its name alone.
            verdict = self._scanner.describe(rel)
        result = read_and_analyze(verdict, self.settings.chunk_lines, text=text)
        if not isinstance(result, FileAnalysis):
            return False
        with self._write_lock:
            self._buffers[rel] = text
            self._apply(ChangeBatch(updated=(result,)), from_buffer=True)
        return True

    def close_buffer(self, path: str | Path) -> None:
        """Stop overriding the file with its buffer: the disk's content is indexed again."""
        rel = self._relative(path)
        if rel is None:
            return
        with self._write_lock:
            if self._buffers.pop(rel, None) is not None:
                self.update([rel])

    def _relative(self, raw: str | Path) -> str | None:
        """Root-relative POSIX path ("" for the root itself), or None outside the root."""
        path = Path(raw)
        rel = path.as_posix() if not path.is_absolute() else self._scanner.relative(path)
        return "" if rel == "." else rel

    def _apply(self, batch: ChangeBatch, *, indexed: bool = False, from_buffer: bool = False) -> None:
        """Apply one batch to the segments (a new segment: stored, unless it holds open buffers), the file table and
        the retrievers (semantic on its own thread). `indexed`: the batch's files are in the segments already (taken
        from the store), so only the retrievers that do not read segments get it."""
        if from_buffer:
            self.segments.show_buffers(batch.updated)
        elif not indexed:
            self.segments.save(batch.updated, batch.removed)
        for analysis in batch.updated:
            starts = [c.start_line for c in analysis.chunks]
            # The prepared embedding texts serve the semantic retriever once; the file table need not keep them.
            kept = dataclasses.replace(analysis, embed_texts=(), embed_style="") if analysis.embed_texts else analysis
            self._files[analysis.path] = _FileState(kept, starts, from_buffer)
        for path in batch.removed:
            self._files.pop(path, None)
        order: tuple[Modality, ...] = ("structural", "graph")  # text reads the segments
        for name in order:
            retriever = self.retrievers[name]
            try:
                retriever.apply(batch)
            except Exception:  # one retriever's failure must not take the others down; its status says why
                log.exception("the %s retriever failed to apply a batch", name, extra=BACKGROUND)
        self._semantic_lane.submit(batch)

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
        state = self._files.get(path)
        return state.analysis if state else None

    def line_text(self, path: str, line: int) -> str:
        """One line of a file as the index holds it (an open buffer's text when there is one); "" when unknown."""
        state = self._files.get(path)
        if state is None:
            return ""
        analysis = state.analysis
        cached = self._lines_cache
        if cached is None or cached[0] != path or cached[1] != analysis.content_hash:
            cached = (path, analysis.content_hash, analysis.text.split("\n"))
            self._lines_cache = cached
        lines = cached[2]
        return lines[line].rstrip("\r") if 0 <= line < len(lines) else ""

    @property
    def file_count(self) -> int:
        return len(self._files)

    def status(self) -> dict[str, Any]:
        """Counts and health of every part, as `maguyva/status` reports them."""
        chunks = sum(len(s.analysis.chunks) for s in list(self._files.values()))
        graph_stats = self.graph.stats()
        return {
            "root": str(self.root),
            "indexing": self.indexing,
            "files": len(self._files),
            "chunks": chunks,
            "symbols": self.structural.symbol_count,
            "edges": graph_stats.get("edges", 0),
            "nodes": graph_stats.get("nodes", 0),
            "embedder": self.semantic.embedder_name,
            "skipped": len(self.skipped),
            "skips": summarize(self.skipped),
            "open_buffers": len(self._buffers),
            "modalities": {
                name: {
                    "available": s.available,
                    "partial": s.partial or (name == "semantic" and self._semantic_lane.busy),
                    "reason": s.reason,
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

    def close(self) -> None:
        self._closed = True
        self._pipeline.close()
        self._analyzer.close()
        self._semantic_lane.close()
        self.semantic.close()
        self.segments.close()

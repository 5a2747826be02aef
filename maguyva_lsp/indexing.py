"""The indexing side of the engine: brings the segments (and the retrievers fed by batches of analyses) in line with
the folder — a scan compared with the stored files' size and mtime, analysis of what changed, one segment per
applied batch, open editor buffers shown over the stored files — one writer at a time.

A single change (a watcher's batch, a removal, a closed buffer) is searchable as soon as it is analysed: its segment
is staged in memory (`Segments.stage`) and written by the persister thread (`Segments.persist`, then a background
merge when due), so the fsyncs, the manifest switch and the chains' export stay off the path from save to search.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from maguyva_lsp.config import Settings
from maguyva_lsp.embed.base import Embedder
from maguyva_lsp.failures import BACKGROUND
from maguyva_lsp.graph.inputs import GraphInput
from maguyva_lsp.heap import collector_paused
from maguyva_lsp.index.analysis_columns import CORE_PART
from maguyva_lsp.index.file_table import FileTable
from maguyva_lsp.index.graph_inputs import graph_inputs, stored_graph_files
from maguyva_lsp.index.segment_build import merge_segments
from maguyva_lsp.index.segment_set import MAX_SEGMENTS, MergePlan, Segments, StoredFile
from maguyva_lsp.index.text_part import TEXT_PART
from maguyva_lsp.indexer import Analyzer, IndexClosedError, Skipped, read_and_analyze
from maguyva_lsp.model import ChangeBatch, FileAnalysis, Modality, SourceFile
from maguyva_lsp.retrieve.base import Retriever
from maguyva_lsp.retrieve.semantic import SemanticRetriever
from maguyva_lsp.retrieve.semantic_workers import embed_jobs, embed_stored, joined_rows
from maguyva_lsp.scan.ignore import IGNORE_FILE_NAMES
from maguyva_lsp.scan.skips import NOT_RECORDED, Skip, SkipReason, printable_path
from maguyva_lsp.scan.walker import WorkspaceScanner
from maguyva_lsp.semantic_lane import SemanticLane
from maguyva_lsp.store.container import ContainerRecord
from maguyva_lsp.store.skip_memo import SkipMemo

log = logging.getLogger(__name__)

_F = TypeVar("_F")  # what a cold index cuts into segment jobs (its files)
_J = TypeVar("_J")
_R = TypeVar("_R")

# Files applied at once during a full index: searches in between see partial results. Each batch costs a segment
# (and the graph a re-resolution of the names the batch adds), so batches grow geometrically: the first results come
# early and a cold index still makes only a handful of segments.
FIRST_APPLY_BATCH_FILES = 256
APPLY_BATCH_GROWTH = 2
# Files per segment built by a worker on a cold index: the first segments small, so that the first files are
# searchable within seconds, then larger ones (fewer to merge at the end).
FIRST_SEGMENT_FILES = 64
MAX_SEGMENT_FILES = 512
# The smallest job of a cold index's tail (see segment_groups): with 512-file jobs to the end, one core idled through
# most of the other's last job (up to ~2 s on the stdlib, where the text and structural indexes are complete only
# once the last job is in).
TAIL_SEGMENT_FILES = 128
# An index run that loads or analyses at least this many files runs with the cyclic collector paused and freezes what
# it built (heap.py): the index makes no cycles, and full collections rescanning its objects cost seconds.
LARGE_INDEX_FILES = 500
# Stored files whose vectors lag are given to the semantic lane in groups of this many: each group is decoded and
# applied on its own, so that a process that ends midway (`SemanticRetriever.stop`) keeps what was done.
CATCH_UP_GROUP_FILES = 64
# Stored files at least this many (a cold build's) are resolved into the graph by the analysis pool's workers, a
# share each, instead of in this process (which would hold the interpreter lock for the whole resolution).
WORKER_GRAPH_FILES = 500
# Files built by workers at least this many (a cold build's) are embedded by the pool's workers, not on the lane.
WORKER_EMBED_FILES = 500
# The semantic lane waiting for a cold build's merge checks this often whether the process is closing.
MERGE_WAIT_SLICE_S = 0.2


def _combined(batches: Sequence[ChangeBatch]) -> ChangeBatch:
    """Consecutive batches as one: each path's last state (analysed, or removed)."""
    latest: dict[str, FileAnalysis | None] = {}
    for batch in batches:
        for path in batch.removed:
            latest[path] = None
        for analysis in batch.updated:
            latest[analysis.path] = analysis
    return ChangeBatch(
        updated=tuple(a for a in latest.values() if a is not None),
        removed=tuple(p for p, a in latest.items() if a is None),
    )


def segment_groups(files: Sequence[_F], workers: int = 1) -> list[list[_F]]:
    """The files of a cold index cut into segment jobs of growing size (FIRST_SEGMENT_FILES, doubling up to
    MAX_SEGMENT_FILES), shrinking again towards the end: a job takes at most a 2 × `workers` share of the files left
    (down to TAIL_SEGMENT_FILES), so that the workers end within a small job of each other."""
    groups: list[list[_F]] = []
    size = FIRST_SEGMENT_FILES
    start = 0
    while start < len(files):
        share = -(-(len(files) - start) // (2 * max(workers, 1)))
        take = min(size, max(TAIL_SEGMENT_FILES, share))
        groups.append(list(files[start : start + take]))
        start += take
        size = min(size * APPLY_BATCH_GROWTH, MAX_SEGMENT_FILES)
    return groups


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Where an index run is: a phase, files done out of total in that phase, and the modalities already complete."""

    phase: str  # "scanning", "loading", "analyzing", "extracting references", "resolving graph", "done"
    done: int
    total: int
    ready: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for a progress report: `analyzing 120/2281 files` (`; text, structural ready`)."""
        text = f"{self.phase} {self.done}/{self.total} files" if self.total else self.phase
        return f"{text}; {', '.join(self.ready)} ready" if self.ready and self.phase != "done" else text


@dataclass(slots=True)
class IndexCounters:
    """What indexing did, cumulatively: files parsed anew versus taken from the store."""

    analyzed: int = 0
    reused: int = 0
    removed: int = 0
    skipped: int = 0
    last_index_seconds: float = 0.0


ProgressCallback = Callable[[IndexProgress], None]


class IndexWriter:
    """The one writer of a workspace's index. `fed` retrievers take batches of analyses (those that do not read the
    segments themselves) as they are applied; `follow` retrievers too, except during an index run, where they get
    the run's changes in one batch once the text and structural indexes are complete (they are searchable first);
    the semantic retriever takes every batch on its own lane."""

    def __init__(
        self,
        root: Path,
        settings: Settings,
        segments: Segments,
        analyzer: Analyzer,
        *,
        fed: Sequence[Retriever],
        follow: Sequence[Retriever] = (),
        semantic_lane: SemanticLane,
        semantic: SemanticRetriever | None = None,
    ) -> None:
        self.root = root
        self.settings = settings
        self.segments = segments
        self.files = FileTable(segments)
        self.counters = IndexCounters()
        self.skipped: dict[str, Skip] = {}  # printable root-relative path → why it is not indexed
        self.buffers: dict[str, str] = {}
        self.lock = threading.RLock()
        self.running = False  # an index run is under way
        self.indexed_once = False
        self._analyzer = analyzer
        self._fed = tuple(fed)
        self._follow = tuple(follow)
        self._deferred: list[ChangeBatch] | None = None  # during a run: what the follow retrievers get at its end
        self._deferred_indexed: list[str] = []  # during a run: files built into segments by workers, likewise
        self._embed_later: list[list[str]] = []  # during a run: those files, for the semantic lane after the run
        self._stored_follow: dict[int, list[ChangeBatch]] = {}  # during a run: stored files they lack, by retriever
        self.catching_up: frozenset[Modality] = frozenset()  # modalities not yet current during a run
        self._lane = semantic_lane
        self._semantic = semantic
        self._known: set[str] = set()  # paths the fed retrievers hold (they learn of stored files at the first run)
        self._merges: list[threading.Thread] = []
        self._merge_queued = threading.Event()  # set once the last merge started is queued in the pool (or ended)
        self._merge_queued.set()
        self._merge_after_run = False  # a cold build's segments are merged at the end of its run
        # During a run, between its passes and its graph: whether the second pass ran (the merge and the embedding
        # are then still to be queued, `_queue_follow_up`); None once they are.
        self._follow_up: bool | None = None
        self._embed_after_graph = False  # the run's embedding goes to the lane, once the graph is complete
        # With a store, merges run in a worker process (merge_in_background), never inside a save: a save that merged
        # in the writer thread rebuilt every merged part there, holding a watcher's change for seconds.
        segments.defer_merges = self._background_merges
        self.lane_files = 0  # files the last run gave the semantic lane (its own analyses, lagging stored files)
        self.closed = False
        self.scanner = self._new_scanner()
        # Files skipped for their content (binary, too large), remembered across starts so an unchanged one is not
        # read again; `_run_identity`: during a run, each scanned file's (size, mtime) for recording new skips.
        self._memo = SkipMemo(segments.folder, writable=segments.writable)
        self._run_identity: dict[str, tuple[int, int]] = {}
        self._persist_wanted = threading.Event()
        self._persister: threading.Thread | None = None
        self._two_pass = False  # during a run: cold segments are built without references first
        # During a two-pass run: each segment of the first pass (by id) and the files it holds, for the second.
        self._first_pass: list[tuple[str, list[SourceFile]]] = []

    # -- whole runs ---------------------------------------------------------------------------------------------------

    def index(
        self, progress: ProgressCallback | None = None, *, verify_vectors: bool = True, two_pass: bool = False
    ) -> IndexCounters:
        """Bring the index in line with the folder: stored files of unchanged size and mtime are kept, the rest is
        analysed, files gone from the folder are removed. `verify_vectors`: at the first run, the stored vectors'
        checksums are read in the background (a process answering one request skips it, as it skips reading every
        byte of the segments). `two_pass`: a cold build (files analysed in workers into a store) publishes segments
        without references first, so that text and structural search are complete early (a process answering
        queries meanwhile, the server), then extracts the references (`_complete_references`); in all, it costs
        more CPU than one pass."""
        started = time.perf_counter()
        report = progress or (lambda _p: None)
        with self.lock:
            self.running = True
            self._deferred = []
            self._deferred_indexed = []
            self._two_pass = two_pass
            self.catching_up = frozenset({"text", "structural", *(r.name for r in self._follow)})
            self.lane_files = 0
            try:
                reused = self._index(report)
                if reused and verify_vectors and self._semantic is not None and not self.indexed_once:
                    self._lane.submit_background(self._verify_vectors)
                self.catching_up = frozenset(r.name for r in self._follow)
                completed = self._complete_references(report)
                # The merge and the embedding are queued in the pool as soon as the graph's worker jobs are (the
                # workers take them as they end their shares, while this process joins the shares and ranks the
                # graph); without graph workers, after the graph.
                self._follow_up = completed
                self._catch_up(report)
                self._queue_follow_up()
                if self._embed_after_graph:
                    for paths in self._embed_later:
                        self._embed(paths)
                report(IndexProgress("done", 0, 0, ready=("text", "structural", *(r.name for r in self._follow))))
            finally:
                self._deferred = None
                self._deferred_indexed = []
                self._embed_later = []
                self._follow_up = None
                self._embed_after_graph = False
                self._first_pass = []
                self._two_pass = False
                self.catching_up = frozenset()
                self.running = False
                self.indexed_once = True
        self.counters.last_index_seconds = time.perf_counter() - started
        with self.lock:
            self._merge_if_due()
        self._release_pool()
        return self.counters

    def _release_pool(self, finishing: threading.Thread | None = None) -> None:
        """Between runs, with no merge going on (`finishing`: the merge thread asking as it ends), the analysis
        pool's workers exit: after a cold build they hold most of the process tree's memory, and a save or a merge
        later starts what it needs again."""
        with self.lock:
            if self.running or any(t.is_alive() and t is not finishing for t in self._merges):
                return
        self._analyzer.release()

    @property
    def _background_merges(self) -> bool:
        return self.segments.data_dir is not None  # a writable store: merge jobs read and write its data folder

    def _merge_if_due(self, finishing: threading.Thread | None = None) -> None:
        """Past MAX_SEGMENTS stored segments, merge the smallest in the background (one merge at a time; `finishing`:
        the merge thread asking as it ends)."""
        self._merges = [t for t in self._merges if t.is_alive() and t is not finishing]
        if not self._merges and self.segments.stored_segment_count > MAX_SEGMENTS:
            self.merge_in_background(everything=False)

    def _index(self, report: ProgressCallback) -> int:
        """One run; returns how many stored files it kept."""
        report(IndexProgress("scanning", 0, 0))
        scan = self.scanner.scan()
        self.skipped = dict(scan.skipped)
        stored = self.segments.stored_files()
        # Files of segments whose references an earlier process did not extract (it ended between the passes of a
        # cold build) are analysed again; their new segments replace the pending ones.
        pending = self.segments.pending_paths()
        current = {f.path: f for f in scan.files}
        gone = [p for p in {*stored, *self._known} if p not in current and p not in self.buffers]
        kept: list[str] = []
        to_analyze: list[SourceFile] = []
        for path, file in current.items():
            if path in self.buffers:
                continue  # an open buffer's content wins over the disk until the buffer is closed
            row = stored.get(path)
            if row is not None and (row.size, row.mtime_ns) == (file.size, file.mtime_ns) and path not in pending:
                kept.append(path)
            elif (known := self._memo.get(path, file.size, file.mtime_ns)) is not None:
                self._skip(Skipped(path, known))
            else:
                self._memo.forget(path)  # a remembered verdict for other bytes
                to_analyze.append(file)
                self._run_identity[path] = (file.size, file.mtime_ns)
        self._memo.keep_only(set(current))
        needs = self._stored_needs(kept, stored, set(current))
        if not self.indexed_once:
            self._catch_up_vectors(kept, stored, current)
        large = len(set().union(*(w for w, _ in needs.values()))) + len(to_analyze) >= LARGE_INDEX_FILES
        with collector_paused(freeze=True) if large else contextlib.nullcontext():
            if gone:
                self.apply(ChangeBatch(removed=tuple(gone)))
                self.counters.removed += len(gone)
            unreadable = self._feed_stored(needs, report)
            # Stored files the segments could not give back are analysed afresh.
            to_analyze.extend(current[p] for p in unreadable)
            if not self.indexed_once:
                self.counters.reused += len(kept) - len(unreadable)
            try:
                self._analyze_and_apply(to_analyze, report)
            finally:
                self._run_identity = {}
                self._memo.save()
        self.lane_files += len(to_analyze)
        report(IndexProgress("indexed", len(current), len(current), ready=("text", "structural")))
        return len(kept)

    def _queue_follow_up(self) -> None:
        """Once per run: the run's end merge (a cold build's segments into one), then the embedding of the files
        workers built, queued in that order in a fresh pool (the old workers' heaps hold what they analysed or
        resolved), so that one worker merges while the other embeds. With graph workers, called as their shares
        return, before this process joins them and ranks the graph; otherwise once the graph is complete."""
        completed, self._follow_up = self._follow_up, None
        if completed is None:
            return
        if completed or self._merge_after_run:
            self._analyzer.advance()
        if self._merge_after_run:
            self._merge_after_run = False
            merge = self.merge_in_background()
            if merge is not None and self._embed_later:
                # The embedding's worker jobs run beside it (the merge uses one core): they are queued after the
                # merge job, so one worker merges while the other embeds (the tree's peak stays under a gigabyte:
                # the merge worker ~400 MB since the text part is merged from the segments' parts).
                self._lane.submit_call(functools.partial(self._await_merge_queued, self._merge_queued))
        if not self._embed_in_workers([p for paths in self._embed_later for p in paths]):
            # Embedding here starts once the graph is complete: the lane's thread shares this process's interpreter
            # lock with the graph's resolution, and would only slow it down.
            self._embed_after_graph = True

    def _catch_up(self, report: ProgressCallback) -> None:
        """Give each follow retriever the stored files it lacked, the files workers built into segments and the run's
        changes, as one batch (the graph resolves names once)."""
        batches = self._deferred or []
        self._deferred = None
        indexed, self._deferred_indexed = self._deferred_indexed, []
        stored, self._stored_follow = self._stored_follow, {}
        for retriever in self._follow:
            combined = _combined([*stored.get(id(retriever), []), *batches])
            changed = {a.path for a in combined.updated}.union(combined.removed)
            built = [p for p in indexed if p not in changed]
            if not combined.updated and not combined.removed and not built:
                continue
            count = len(combined.updated) + len(built)
            report(IndexProgress(f"resolving {retriever.name}", 0, count, ready=("text", "structural")))
            self._feed_with_indexed(retriever, combined, built)
        self.segments.commit_chains()  # the caught-up state reaches the store with the segments it matches

    def _catch_up_vectors(self, kept: list[str], stored: dict[str, StoredFile], scanned: Mapping[str, object]) -> None:
        """Once per process, before the run applies anything: the kept files whose vectors lag behind (an earlier
        process ended before embedding them) go to the semantic lane, in groups; the paths the vectors hold that are
        gone from the folder are removed. O(files) in numpy and dicts: no analysis decoded, no checksum read, and
        unchanged files cost nothing."""
        semantic = self._semantic
        if semantic is None:
            return
        changed, gone = semantic.stale({p: stored[p].content_hash for p in kept}, verify=False)
        gone = [p for p in gone if p not in scanned]  # files analysed again in this run come with its batches
        if gone:
            self._lane.submit(ChangeBatch(removed=tuple(gone)))
        for start in range(0, len(changed), CATCH_UP_GROUP_FILES):
            self._lane.submit_call(
                functools.partial(self._apply_stored_vectors, changed[start : start + CATCH_UP_GROUP_FILES])
            )
        self.lane_files += len(changed)

    def _await_merge_queued(self, queued: threading.Event) -> None:
        """On the semantic lane: wait for a merge to be queued in the pool, or to end (or the semantic retriever to
        stop)."""
        while not queued.is_set() and not (self._semantic is not None and self._semantic.stopping) and not self.closed:
            queued.wait(MERGE_WAIT_SLICE_S)

    def _apply_stored_vectors(self, paths: list[str]) -> None:
        """On the semantic lane: the stored analyses of these files, applied to the semantic retriever."""
        semantic = self._semantic
        if semantic is not None and not semantic.stopping:
            semantic.apply(ChangeBatch(tuple(self.segments.load(paths, symbols=False))))

    def _verify_vectors(self) -> None:
        """A background check on the semantic lane: the stored vectors' checksums (every byte of the chain); a
        damaged chain is dropped and every live file applied again (the embedding cache answers for them)."""
        semantic = self._semantic
        if semantic is None or semantic.stopping or not semantic.chain_damaged():
            return

        def rebuild() -> None:
            changed, gone = semantic.stale(self.files.content_hashes(), verify=True)
            semantic.apply(ChangeBatch(tuple(self.segments.load(changed, symbols=False)), tuple(gone)))

        self._lane.submit_call(rebuild)

    def _feed_with_indexed(self, retriever: Retriever, batch: ChangeBatch, indexed: list[str]) -> None:
        """Feed a batch plus files already in the segments: read from the columns, as the graph's inputs (no text)
        when the retriever takes those, else as analyses."""
        if indexed:
            apply_inputs = getattr(retriever, "apply_inputs", None)
            if callable(apply_inputs):
                try:
                    given = [GraphInput.of(a) for a in batch.updated]
                    if not self._apply_in_workers(retriever, indexed, given, batch.removed):
                        apply_inputs([*given, *graph_inputs(self.segments.current, indexed)], batch.removed)
                except IndexClosedError:
                    raise
                except Exception:  # as in _feed: its status says why, the others go on
                    log.exception("the %s retriever failed to apply a batch", retriever.name, extra=BACKGROUND)
                return
            batch = ChangeBatch((*batch.updated, *self.segments.load(indexed)), batch.removed)
        self._feed((retriever,), batch)

    def _apply_in_workers(
        self, retriever: Retriever, indexed: list[str], given: list[GraphInput], removed: Sequence[str]
    ) -> bool:
        """Many stored files for a retriever that resolves them in worker processes (the graph, on a cold build):
        the analysis pool's workers read them from the store and resolve a share each. False: not done (too few
        files, no stored segments for them, or the retriever declined); the caller applies them here."""
        apply_in_workers = getattr(retriever, "apply_in_workers", None)
        analyzer = self._analyzer
        if not callable(apply_in_workers) or len(indexed) < WORKER_GRAPH_FILES or analyzer.workers < 2:
            return False
        stored = stored_graph_files(self.segments, indexed)
        if stored is None:
            return False

        def runner(function: Callable[[_J], _R], jobs: Sequence[_J]) -> list[_R]:
            if self._follow_up is not None and (self._merge_after_run or self._embed_later):
                analyzer.start_next()  # the follow-up's fresh pool starts while the shares run
            try:
                return analyzer.map(function, jobs)
            finally:
                # The shares are back: the merge and the embedding start in a fresh pool while this process joins
                # the shares and ranks the graph (the share workers' heaps stay large after a share: taking the
                # follow-up jobs in them put the tree's peak past a gigabyte, 983-1,039 MB against 759-796 MB).
                self._queue_follow_up()

        # The run's merge commits only once the run ends (`adopt_merge` takes the run's lock): the segments' files the
        # graph read stay meanwhile.
        return bool(apply_in_workers(stored, indexed, given, removed, runner=runner, workers=analyzer.workers))

    def _stored_needs(
        self, kept: list[str], stored: dict[str, StoredFile], scanned: set[str]
    ) -> dict[int, tuple[set[str], list[str]]]:
        """Per retriever taking batches (by id; 0 for the semantic lane): the stored, unchanged files it lacks, and
        the paths it holds that are no longer indexed. A retriever that persists itself (`file_versions`: path →
        content hash of what it holds) lacks only the files whose version differs; the others lack every file they
        have not been given in this process."""
        # The semantic retriever (key 0) persists itself: its catch-up runs on its lane (`_semantic_catch_up`).
        lane: set[str] = set() if self._semantic is not None else {p for p in kept if p not in self._known}
        needs: dict[int, tuple[set[str], list[str]]] = {0: (lane, [])}
        for retriever in (*self._fed, *self._follow):
            versions = getattr(retriever, "file_versions", None)
            if not callable(versions):
                needs[id(retriever)] = ({p for p in kept if p not in self._known}, [])
                continue
            held: dict[str, str] = versions()
            wanted = {p for p in kept if held.get(p) != stored[p].content_hash}
            removed = [p for p in held if p not in stored and p not in scanned]
            needs[id(retriever)] = (wanted, removed)
        return needs

    def _feed_stored(self, needs: dict[int, tuple[set[str], list[str]]], report: ProgressCallback) -> set[str]:
        """Hand stored files to what takes batches (the fed retrievers now, the follow ones at the run's end, the
        semantic lane); returns the paths whose analysis could not be rebuilt."""
        wanted = sorted(set().union(*(w for w, _ in needs.values())))
        if not wanted and not any(r for _, r in needs.values()):
            return set()
        report(IndexProgress("loading", 0, len(wanted)))
        # A stored analysis describes the same bytes (same size and mtime), refined language and class included.
        analyses = {a.path: a for a in self.segments.load(wanted)}

        def batch_for(key: int) -> ChangeBatch:
            paths, removed = needs[key]
            return ChangeBatch(tuple(analyses[p] for p in sorted(paths) if p in analyses), tuple(removed))

        for retriever in self._fed:
            self._feed((retriever,), batch_for(id(retriever)))
        for retriever in self._follow:
            batch = batch_for(id(retriever))
            if self._deferred is None:
                self._feed((retriever,), batch)
            else:
                self._stored_follow.setdefault(id(retriever), []).append(batch)
        lane = batch_for(0)
        if lane.updated:
            self._lane.submit(lane)
        self._known.update(a.path for a in lane.updated)
        report(IndexProgress("loading", len(analyses), len(wanted)))
        return set(wanted) - set(analyses)

    def _analyze_and_apply(self, files: list[SourceFile], report: ProgressCallback) -> None:
        if self._analyzer.parallel(len(files)):
            self._build_in_workers(files, report)
            return
        total = len(files)
        done = 0
        pending: list[FileAnalysis] = []
        batch_files = FIRST_APPLY_BATCH_FILES
        report(IndexProgress("analyzing", 0, total))
        for batch in self._analyzer.analyze(files):
            for result in batch:
                if isinstance(result, Skipped):
                    self._skip(result)
                else:
                    pending.append(result)
            done += len(batch)
            if len(pending) >= batch_files:
                self.apply(ChangeBatch(updated=tuple(pending)))
                self.counters.analyzed += len(pending)
                pending = []
                batch_files *= APPLY_BATCH_GROWTH
            report(IndexProgress("analyzing", done, total))
        if pending:
            self.apply(ChangeBatch(updated=tuple(pending)))
            self.counters.analyzed += len(pending)

    def _skip(self, result: Skipped) -> None:
        self.skipped[result.path] = result.skip
        if (identity := self._run_identity.get(result.path)) is not None:
            self._memo.record(result.path, *identity, result.skip)
        self.counters.skipped += 1
        if result.path in self.files:
            self.apply(ChangeBatch(removed=(result.path,)))

    def _build_in_workers(self, files: list[SourceFile], report: ProgressCallback) -> None:
        """Many files: each worker analyses a group and builds its segment; each segment is adopted (searchable)
        as it comes, and one merge at the end unites them. Only arrays come back from the workers: the follow
        retrievers read the built files from the segments at the run's end, the semantic lane as it goes. Retrievers
        fed with batches (and a lane without a semantic retriever) get the analyses in batches that grow, as on the
        single-process path."""
        groups = segment_groups(files, self._analyzer.workers)
        targets = [self.segments.reserve() for _ in groups]
        total = len(files)
        done = 0
        fed: list[FileAnalysis] = []
        fed_batch = FIRST_APPLY_BATCH_FILES
        keep = bool(self._fed) or self._semantic is None
        # Two passes only when nobody takes the analyses (they would lack references) and the segments are stored
        # (the second pass's cores are merged from the store's data folder).
        two_pass = self._two_pass and not keep and self.segments.data_dir is not None
        report(IndexProgress("analyzing", 0, total))
        self.segments.defer_merges = True
        try:
            jobs = self._analyzer.build_segments(
                groups, self.segments.parts, targets, keep_analyses=keep, references=not two_pass
            )
            for group, target, result in zip(groups, targets, jobs, strict=True):
                for skipped in result.skipped:
                    self._skip(skipped)
                if result.built is not None:
                    self.segments.adopt(result.built, pending=two_pass)
                    if two_pass:
                        gone = {s.path for s in result.skipped}
                        self._first_pass.append((result.built.ident, [f for f in group if f.path not in gone]))
                else:
                    self.segments.release(target)
                self.counters.analyzed += len(group) - len(result.skipped)
                if keep:
                    fed.extend(result.analyses)
                    if len(fed) >= fed_batch:
                        self.apply(ChangeBatch(updated=tuple(fed)), indexed=True)
                        fed = []
                        fed_batch *= APPLY_BATCH_GROWTH
                elif result.built is not None:
                    gone = {s.path for s in result.skipped}
                    self._indexed([f.path for f in group if f.path not in gone])
                done += len(group)
                report(IndexProgress("analyzing", done, total))
            if fed:
                self.apply(ChangeBatch(updated=tuple(fed)), indexed=True)
        finally:
            self.segments.defer_merges = self._background_merges
            for target in targets:
                self.segments.release(target)
        # One merge unites the segments once the follow retrievers have read them (the graph's workers read the
        # segments' files, which a merge's commit deletes).
        self._merge_after_run = True

    def _complete_references(self, report: ProgressCallback) -> bool:
        """The second pass of a two-pass cold build: the workers analyse each first-pass segment's files again, with
        their references, into a core container each (not adopted: queries go on over the first pass's segments),
        then one merge builds every part from those cores and replaces the pending segments in one commit. A
        process that ends before that commit leaves them pending in the store: the next writer analyses their files
        again. The graph's catch-up, after this, reads the references from the merged segment. Returns whether it
        ran."""
        first, self._first_pass = self._first_pass, []
        if not first:
            return False
        total = sum(len(files) for _, files in first)
        done = 0
        ready = ("text", "structural")
        report(IndexProgress("extracting references", 0, total, ready=ready))
        targets = [self.segments.reserve() for _ in first]
        cores: dict[str, ContainerRecord] = {}
        try:
            jobs = self._analyzer.build_segments([files for _, files in first], (), targets, keep_analyses=False)
            for (ident, files), result in zip(first, jobs, strict=True):
                for skipped in result.skipped:
                    self._skip(skipped)
                if result.built is not None:
                    cores[ident] = result.built.records[CORE_PART]
                done += len(files)
                report(IndexProgress("extracting references", done, total, ready=ready))
            # The workers' heaps hold what they analysed: the merge starts a fresh one (the peak of the tree).
            self._analyzer.release()
            self._merge_pending(cores)
        finally:
            for target in targets:
                self.segments.release(target)
        return True

    def _merge_pending(self, cores: Mapping[str, ContainerRecord]) -> None:
        """Replace the pending segments by one merged from their second pass's cores: in a worker, else here in
        memory (not stored: the next start analyses those files again). The run's end merge is then not needed."""
        data_dir = self.segments.data_dir
        plan = self.segments.plan_completion()
        if plan is None or data_dir is None:
            return
        # The text part reads no references: the first pass's is kept where the second read the same bytes.
        sources = self.segments.completion_sources(plan, cores, kept_parts=(TEXT_PART,))
        target = self.segments.reserve()
        if sources is None or target is None:  # a second pass lost files: they stay pending, for the next writer
            log.warning("references of %d index segments could not be completed", len(plan.segments))
            self.segments.release(target)
            self.segments.abandon_merge(plan)
            return
        try:
            built = self._analyzer.merge(data_dir, sources, self.segments.parts, target)
        except IndexClosedError:
            raise
        except Exception:  # a worker died, or the store could not be written: merged here, kept in memory
            log.warning("merging the completed segments failed: merging them in memory", exc_info=True)
            self.segments.release(target)
            try:
                built = merge_segments(data_dir, sources, self.segments.parts, None)
            except Exception:  # the pending segments stay: correct text and definitions, no references
                self.segments.abandon_merge(plan)
                log.exception("completing the references of the index failed", extra=BACKGROUND)
                return
        self.segments.adopt_merge(plan, built)
        self.segments.release(target)
        self._merge_after_run = False
        # The merge worker's heap holds the merged arrays: the graph's resolution starts fresh workers.
        self._analyzer.release()

    def _indexed(self, paths: list[str]) -> None:
        """Files a worker built into a segment (adopted): the follow retrievers get them at the run's end, then the
        semantic lane reads them back from the segments on its own thread."""
        self._known.update(paths)
        if self._deferred is not None:
            self._deferred_indexed.extend(paths)
            self._embed_later.append(paths)
            return
        for retriever in self._follow:
            self._feed_with_indexed(retriever, ChangeBatch(), paths)
        self._embed(paths)

    def _embed(self, paths: list[str]) -> None:
        """Stored files for the semantic lane, in groups decoded and applied one by one (`_apply_stored_vectors`)."""
        for start in range(0, len(paths), CATCH_UP_GROUP_FILES):
            self._lane.submit_call(
                functools.partial(self._apply_stored_vectors, paths[start : start + CATCH_UP_GROUP_FILES])
            )

    def _embed_in_workers(self, paths: list[str]) -> bool:
        """Many files built by workers (a cold build): the semantic lane has the pool's workers embed them from the
        store (`semantic_workers`), after the merge it may be waiting for. False: not done that way (too few files,
        a remote embedder, one worker); the caller gives them to the lane in groups."""
        semantic = self._semantic
        factory = semantic.worker_embedder if semantic is not None else None
        if (
            factory is None
            or len(paths) < WORKER_EMBED_FILES
            or self._analyzer.workers < 2
            or self.segments.data_dir is None
        ):
            return False
        self._lane.submit_call(functools.partial(self._embed_with_workers, paths, factory))
        return True

    def _embed_with_workers(self, paths: list[str], factory: Callable[[], Embedder]) -> None:
        """On the semantic lane: the files' rows embedded by the pool's workers from the stored segments as they are
        now (a cold build's merge may be running beside them), then applied. Files the store cannot give the workers
        are embedded here."""
        semantic = self._semantic
        if semantic is None or semantic.stopping or self.closed:
            return
        stored = stored_graph_files(self.segments, paths)
        try:
            if stored is None:
                raise LookupError("files outside the stored segments")
            # a merge adopted meanwhile replaces the segments the jobs read: their files stay until the jobs end
            with self.segments.files_kept(record.name for _, record in stored.cores):
                results = self._analyzer.map(embed_stored, embed_jobs(stored, paths, factory))
        except Exception:  # a worker died, or the store changed under the jobs: this process embeds them instead
            if semantic.stopping or self.closed:
                return
            log.warning("embedding in worker processes failed: embedding here", exc_info=True)
            for start in range(0, len(paths), CATCH_UP_GROUP_FILES):
                self._apply_stored_vectors(paths[start : start + CATCH_UP_GROUP_FILES])
            return
        finally:
            self._release_pool()
        rows = joined_rows(results, semantic.embedder.dimension)
        semantic.apply_rows(rows.files, rows.vectors, rows.embedded)

    def merge_in_background(self, *, everything: bool = True) -> threading.Thread | None:
        """Unite the segments in a worker process while queries go on (one segment answers fastest); without a store
        the merge runs here. Returns the thread doing it, if any."""
        if self.segments.data_dir is None:
            with self.lock:
                self.segments.merge_now(everything=everything)
            return None
        plan = self.segments.plan_merge(everything=everything)
        if plan is None:
            return None
        self._merge_queued = queued = threading.Event()
        thread = threading.Thread(target=self._merge, args=(plan, queued), name="maguyva-merge", daemon=True)
        self._merges.append(thread)
        thread.start()
        return thread

    def _merge(self, plan: MergePlan, queued: threading.Event) -> None:
        try:
            self._merge_queued_as(plan, queued)
        finally:
            queued.set()  # also when it never reached the pool

    def _merge_queued_as(self, plan: MergePlan, queued: threading.Event) -> None:
        data_dir = self.segments.data_dir
        target = self.segments.reserve()
        if data_dir is None or target is None:
            self.segments.abandon_merge(plan)
            return
        try:
            sources = self.segments.merge_sources(plan)
            built = self._analyzer.merge(data_dir, sources, self.segments.parts, target, submitted=queued.set)
        except Exception:  # the segments stay as they are: correct, only slower to query
            self.segments.release(target)
            self.segments.abandon_merge(plan)
            if not self.closed:
                log.exception("merging the index segments failed", extra=BACKGROUND)
            return
        with self.lock:
            if self.closed:
                self.segments.abandon_merge(plan)
            else:
                self.segments.adopt_merge(plan, built)
                # Saves that came meanwhile may have passed MAX_SEGMENTS again: the next merge follows this one.
                self._merge_if_due(finishing=threading.current_thread())
        self._release_pool(finishing=threading.current_thread())

    def wait_for_merges(self, timeout: float | None = None) -> None:
        """Block until the background merges are done (a merge that ends may start the next one: waited for too,
        unless a timeout is given)."""
        while True:
            running = list(self._merges)
            for thread in running:
                thread.join(timeout)
            self._merges = [t for t in self._merges if t.is_alive()]
            if timeout is not None or not self._merges:
                return

    # -- single changes -----------------------------------------------------------------------------------------------

    def update(self, paths: Iterable[str | Path]) -> ChangeBatch:
        """Re-index just these paths (absolute or root-relative): files or folders changed, created, deleted.

        A changed ignore file re-evaluates its folder: newly ignored files leave the index, newly included ones join.
        Files whose size and modification time match what is indexed are not re-read."""
        updated: list[FileAnalysis] = []
        removed: list[str] = []
        with self.lock:
            requested = list(paths)
            ignore_folders = self._changed_ignore_folders(requested)
            if ignore_folders:
                self.scanner = self._new_scanner()
                requested.extend(ignore_folders)
            for rel in self._expand(requested):
                if rel in self.buffers:
                    continue  # an open buffer's content wins over the disk until the buffer is closed
                verdict = self.scanner.check(self.root / rel)
                if not isinstance(verdict, Skip) and self.files.identity(rel) == (verdict.size, verdict.mtime_ns):
                    continue
                result = (
                    read_and_analyze(verdict, self.settings.chunk_lines, max_file_size=self.settings.max_file_size)
                    if not isinstance(verdict, Skip)
                    else Skipped(rel, verdict)
                )
                if isinstance(result, FileAnalysis):
                    updated.append(result)
                    self.skipped.pop(rel, None)
                    self._memo.forget(rel)
                    continue
                if isinstance(verdict, Skip):
                    self._memo.forget(rel)
                else:
                    self._memo.record(rel, verdict.size, verdict.mtime_ns, result.skip)
                if result.skip.reason in NOT_RECORDED:  # a deleted or ignored file is gone, not skipped
                    self.skipped.pop(printable_path(rel), None)
                else:
                    self.skipped[printable_path(rel)] = result.skip
                if rel in self.files:
                    removed.append(rel)
            batch = ChangeBatch(updated=tuple(updated), removed=tuple(removed))
            if updated or removed:
                self.apply(batch)
                self.counters.analyzed += len(updated)
                self.counters.removed += len(removed)
            self._memo.save()
        return batch

    def remove(self, paths: Iterable[str | Path]) -> None:
        """Forget these paths (deleted, or moved away)."""
        with self.lock:
            gone = [rel for rel in self._expand(paths) if rel in self.files]
            if gone:
                self.apply(ChangeBatch(removed=tuple(gone)))
                self.counters.removed += len(gone)

    def set_buffer(self, path: str | Path, text: str) -> bool:
        """Search sees this unsaved content for the file until `close_buffer`. False when the path is not indexable."""
        rel = self.relative(path)
        if rel is None:
            return False
        verdict = self.scanner.check(self.root / rel)
        if isinstance(verdict, Skip):
            if verdict.reason is not SkipReason.MISSING:
                return False
            # A new, unsaved file: describe it from its name alone.
            verdict = self.scanner.describe(rel)
        result = read_and_analyze(verdict, self.settings.chunk_lines, text=text)
        if not isinstance(result, FileAnalysis):
            return False
        with self.lock:
            self.buffers[rel] = text
            self.apply(ChangeBatch(updated=(result,)), from_buffer=True)
        return True

    def close_buffer(self, path: str | Path) -> None:
        """Stop overriding the file with its buffer: the disk's content is indexed again."""
        rel = self.relative(path)
        if rel is None:
            return
        with self.lock:
            if self.buffers.pop(rel, None) is not None:
                self.update([rel])

    def apply(self, batch: ChangeBatch, *, indexed: bool = False, from_buffer: bool = False) -> None:
        """Apply one batch: a new segment (stored, unless it holds open buffers), then the fed retrievers and the
        semantic lane. `indexed`: the batch's files are in the segments already (taken from the store). Outside an
        index run the segment is staged: searchable now, written by the persister thread."""
        if from_buffer:
            self.segments.show_buffers(batch.updated)
        elif not indexed:
            if not self.running:
                self.segments.defer_merges = self._background_merges
            if self.running or not self.segments.writable:
                self.segments.save(batch.updated, batch.removed)
            else:
                self.segments.stage(batch.updated, batch.removed)
                self._persist_soon()
            if self._background_merges and not self.running:
                self._merge_if_due()
        self._feed(self._fed, batch)
        if self._deferred is not None:
            self._deferred.append(batch)
        else:
            self._feed(self._follow, batch)
        self._known.update(a.path for a in batch.updated)
        self._known.difference_update(batch.removed)
        self._lane.submit(batch)

    # -- persisting staged changes ------------------------------------------------------------------------------------

    def _persist_soon(self) -> None:
        """Wake the persister (started at the first staged change)."""
        self._persist_wanted.set()
        if self._persister is None:
            self._persister = threading.Thread(target=self._persist_loop, name="maguyva-persist", daemon=True)
            self._persister.start()

    def _persist_loop(self) -> None:
        while True:
            self._persist_wanted.wait()
            if self.closed:
                return
            self._persist_wanted.clear()
            self._persist()

    def _persist(self) -> None:
        """Write what is staged; then merge if the new stored segment made too many (under the writer's lock, as the
        merges' bookkeeping is)."""
        try:
            self.segments.persist()
        except Exception:  # the snapshot stays correct in memory; the next start analyses what was not written
            log.exception("writing the staged index changes failed", extra=BACKGROUND)
            return
        if self._background_merges:
            with self.lock:
                if not self.closed:
                    self._merge_if_due()

    def flush(self) -> None:
        """Make every staged change durable now (closing, or a caller that needs the store current)."""
        self._persist()

    def close(self) -> None:
        """Stop the persister after writing what is staged (the merges see `closed` and are not adopted)."""
        self.closed = True
        self._persist_wanted.set()
        if self._persister is not None:
            self._persister.join()
        try:
            self.segments.persist()
        except Exception:
            log.exception("writing the staged index changes failed", extra=BACKGROUND)

    def _feed(self, retrievers: Sequence[Retriever], batch: ChangeBatch) -> None:
        for retriever in retrievers:
            try:
                retriever.apply(batch)
            except Exception:  # one retriever's failure must not take the others down; its status says why
                log.exception("the %s retriever failed to apply a batch", retriever.name, extra=BACKGROUND)

    # -- paths --------------------------------------------------------------------------------------------------------

    def relative(self, raw: str | Path) -> str | None:
        """Root-relative POSIX path ("" for the root itself), or None outside the root."""
        path = Path(raw)
        rel = path.as_posix() if not path.is_absolute() else self.scanner.relative(path)
        return "" if rel == "." else rel

    def _changed_ignore_folders(self, paths: list[str | Path]) -> list[str]:
        """The folders whose ignore rules these paths change (a `.gitignore` or `.maguyvaignore` among them)."""
        folders: list[str] = []
        for raw in paths:
            rel = self.relative(raw)
            if rel is not None and PurePosixPath(rel).name in IGNORE_FILE_NAMES:
                parent = PurePosixPath(rel).parent.as_posix()
                folders.append("" if parent == "." else parent)
        return folders

    def _new_scanner(self) -> WorkspaceScanner:
        return WorkspaceScanner(self.root, max_file_size=self.settings.max_file_size, exclude=self.settings.exclude)

    def _expand(self, paths: Iterable[str | Path]) -> list[str]:
        """Root-relative file paths behind these paths: a folder stands for the files in it (on disk or indexed)."""
        out: dict[str, None] = {}
        indexed: list[str] | None = None
        for raw in paths:
            rel = self.relative(raw)
            if rel is None:
                continue
            absolute = self.root / rel
            if indexed is None:
                indexed = self.files.paths()
            if absolute.is_dir():
                out.update(dict.fromkeys(f.path for f in self.scanner.scan_folder(rel).files))
                prefix = rel + "/" if rel else ""
                out.update(dict.fromkeys(p for p in indexed if p.startswith(prefix)))
            else:
                # A path that is no folder now may have been one: its indexed files go (deleted, or the folder was
                # replaced by a file of the same name).
                prefix = rel + "/"
                out.update(dict.fromkeys(p for p in indexed if p.startswith(prefix)))
                if absolute.exists() or rel in self.files or printable_path(rel) in self.skipped:
                    out[rel] = None
        return list(out)

    def status(self) -> dict[str, Any]:
        return {"open_buffers": len(self.buffers)}

"""Read and analyse files, in worker processes when there are many: the CPU-heavy half of indexing.

Tree-sitter parsing and querying hold the GIL, so threads would not help; a process pool uses every core on a cold
index, while a handful of changed files is analysed in the calling thread (a pool's start-up would cost more). The
parser and the process pool are imported when first needed: a warm start of an unchanged folder needs neither.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from maguyva_lsp import worker_pool
from maguyva_lsp.config import DEFAULT_MAX_FILE_SIZE
from maguyva_lsp.embed.base import TextStyle
from maguyva_lsp.embed.text import document_text
from maguyva_lsp.heap import paused_collector
from maguyva_lsp.index.analysis_columns import CORE_VERSION
from maguyva_lsp.index.segment_build import BuiltSegment, MergeSource, SegmentTarget, build_segment, merge_segments
from maguyva_lsp.index.segment_parts import PartBuilder
from maguyva_lsp.model import FileAnalysis, PathClass, SourceFile
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.scan.generated import looks_generated
from maguyva_lsp.scan.read import read_source
from maguyva_lsp.scan.skips import Skip, SkipReason
from maguyva_lsp.worker_pool import worker_count

if TYPE_CHECKING:
    from concurrent.futures import Executor

log = logging.getLogger(__name__)

_J = TypeVar("_J")
_R = TypeVar("_R")

# Bump when what the analyzers extract changes: older stores are then rebuilt once. The core columns' layout is part
# of the index schema.
ANALYZER_VERSION = 5  # 2: venv/virtualenv folders are no longer vendor by name; 3: JS/TS definition forms;
# 4: generated/minified files by their content; 5: test folders named for what they test (`typing_tests`)
INDEX_SCHEMA = f"{ANALYZER_VERSION}.{CORE_VERSION}"

# Below this many files, analyse inline: a process pool's start-up (importing the grammars) costs about a second.
PARALLEL_MIN_FILES = 200
# Files handed to a worker at once: large enough to amortise pickling, small enough to report progress smoothly.
WORKER_BATCH_FILES = 32


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file that could not be indexed, and why."""

    path: str
    skip: Skip

    @property
    def reason(self) -> str:
        return str(self.skip)


def read_and_analyze(
    file: SourceFile,
    chunk_lines: int,
    text: str | None = None,
    embed_style: TextStyle | None = None,
    *,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    references: bool = True,
) -> FileAnalysis | Skipped:
    """Read a file (or take an open buffer's `text`) and analyse it; unreadable, changed, huge or binary: Skipped.
    `references=False`: without its references (see `analyze_file`)."""
    from maguyva_lsp.parse.analyze import analyze_file, is_binary

    if text is None:
        data = read_source(file.abs_path, max_file_size)  # whatever the entry became since it was listed
        if isinstance(data, Skip):
            return Skipped(file.path, data)
        if is_binary(data):
            return Skipped(file.path, Skip(SkipReason.BINARY, "binary content (NUL bytes)"))
        # The file may have changed since it was scanned: describe what was actually read.
        file = dataclasses.replace(file, size=len(data))
    else:
        data = text.encode("utf-8", "surrogatepass")
        file = dataclasses.replace(file, size=len(data))
    file = _refine(file, data)
    try:
        analysis = analyze_file(file, data, chunk_lines=chunk_lines, references=references)
    except Exception as exc:  # an analyzer bug must cost one file, never the index
        log.exception("analysis of %s failed", file.path)
        return Skipped(file.path, Skip(SkipReason.ANALYSIS_FAILED, f"{type(exc).__name__}: {exc}"))
    if embed_style is None:
        return analysis
    # Preparing the embedding input here puts that per-chunk work in the worker processes of a cold index.
    texts = tuple(document_text(chunk, embed_style) for chunk in analysis.chunks)
    return dataclasses.replace(analysis, embed_texts=texts, embed_style=embed_style)


def _refine(file: SourceFile, data: bytes) -> SourceFile:
    """What the content tells beyond the name: a `#!` interpreter, or a generated/minified file."""
    if file.language is None and data.startswith(b"#!"):
        language = language_for_path(file.path, data.split(b"\n", 1)[0])
        if language is not None:
            file = dataclasses.replace(file, language=language)
    if file.path_class in (PathClass.SOURCE, PathClass.TEST) and looks_generated(data):
        file = dataclasses.replace(file, path_class=PathClass.BUILD)
    return file


def _analyze_batch(
    files: Sequence[SourceFile],
    chunk_lines: int,
    embed_style: TextStyle | None,
    max_file_size: int,
    references: bool = True,
) -> list[FileAnalysis | Skipped]:
    return [
        read_and_analyze(f, chunk_lines, embed_style=embed_style, max_file_size=max_file_size, references=references)
        for f in files
    ]


class IndexClosedError(Exception):
    """The analyzer was closed (its engine is closing) while a run used it: the run stops where it stands, and the
    store keeps what it committed (a cold build's pending segments are completed by the next writer)."""


@dataclass(frozen=True, slots=True)
class SegmentJobResult:
    """What a segment job gives back: the segment it built (None when every file was skipped), the analyses when the
    caller feeds retrievers with them, and the skipped files."""

    built: BuiltSegment | None
    analyses: tuple[FileAnalysis, ...]
    skipped: tuple[Skipped, ...]


@paused_collector
def _segment_job(
    files: Sequence[SourceFile],
    options: tuple[int, TextStyle | None, int],
    parts: Sequence[PartBuilder],
    target: SegmentTarget | None,
    *,
    keep_analyses: bool,
    references: bool = True,
) -> SegmentJobResult:
    """Analyse files and build their segment (run in a worker process: only arrays and records come back, plus the
    analyses when asked for, with their embedding input prepared). `references=False`: a segment without references
    (a two-pass cold build's first pass); `parts` empty: only the core columns (its second pass)."""
    if not keep_analyses:
        options = (options[0], None, options[2])  # nobody reads the embedding input of analyses not sent back
    # A job allocates millions of objects it keeps until its segment is written, and makes no cycles: with the
    # collector on, its full collections rescan them over and over (measured: a fifth of a worker's CPU on the
    # stdlib). Objects are still freed by reference counting when the job drops them.
    results = _analyze_batch(files, *options, references=references)
    analyses = [r for r in results if isinstance(r, FileAnalysis)]
    skipped = tuple(r for r in results if isinstance(r, Skipped))
    built = build_segment(analyses, parts, target) if analyses else None
    return SegmentJobResult(built, tuple(analyses) if keep_analyses else (), skipped)


class Analyzer:
    """Analyses batches of files, with a lazily started process pool for large batches. The pool is shut down when
    idle (`release`, after a cold build and its merge): its workers hold hundreds of megabytes each (grammars,
    the heap of the analyses they built), and a later merge or cold build starts it again."""

    def __init__(
        self,
        chunk_lines: int,
        workers: int,
        embed_style: TextStyle | None = None,
        *,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    ) -> None:
        self.chunk_lines = chunk_lines
        self.embed_style = embed_style
        self.max_file_size = max_file_size
        self.workers = worker_count(workers)
        self._pool: Executor | None = None
        self._next: Executor | None = None  # the pool to follow this one, started ahead of need (`start_next`)
        self._lock = threading.Lock()  # the pool's start, use count and shutdown
        self._users = 0  # calls using the pool now (a release waits for none)
        self.closed = False  # closed for good: no pool starts again, and a failed job is not done here instead

    def analyze(
        self, files: Sequence[SourceFile], on_done: Callable[[int], None] | None = None
    ) -> Iterator[list[FileAnalysis | Skipped]]:
        """Analyse files, yielding results in batches as they complete (order within the whole run is kept)."""
        if len(files) < PARALLEL_MIN_FILES or self.workers < 2:
            for start in range(0, len(files), WORKER_BATCH_FILES):
                batch = _analyze_batch(files[start : start + WORKER_BATCH_FILES], *self._options)
                if on_done:
                    on_done(len(batch))
                yield batch
            return
        with self._using() as pool:
            yield from self._analyze_in(pool, files, on_done)

    def _analyze_in(
        self, pool: Executor, files: Sequence[SourceFile], on_done: Callable[[int], None] | None
    ) -> Iterator[list[FileAnalysis | Skipped]]:
        futures = [
            pool.submit(_analyze_batch, files[start : start + WORKER_BATCH_FILES], *self._options)
            for start in range(0, len(files), WORKER_BATCH_FILES)
        ]
        try:
            for future in futures:
                try:
                    batch = future.result()
                except Exception as exc:  # a worker died (e.g. killed): fall back to analysing inline
                    self._raise_if_closed(exc)
                    log.warning("analysis worker failed (%s): analysing its files in-process", exc)
                    index = futures.index(future)
                    part = files[index * WORKER_BATCH_FILES : (index + 1) * WORKER_BATCH_FILES]
                    batch = _analyze_batch(part, *self._options)
                if on_done:
                    on_done(len(batch))
                yield batch
        finally:
            for future in futures:
                future.cancel()

    def parallel(self, files: int) -> bool:
        """Whether this many files are analysed in worker processes."""
        return files >= PARALLEL_MIN_FILES and self.workers >= 2

    def build_segments(
        self,
        groups: Sequence[Sequence[SourceFile]],
        parts: Sequence[PartBuilder],
        targets: Sequence[SegmentTarget | None],
        *,
        keep_analyses: bool,
        references: bool = True,
    ) -> Iterator[SegmentJobResult]:
        """Analyse each group of files and build its segment in a worker, yielding results in group order (a worker
        that dies has its group done in this process). `references`: see `_segment_job`."""
        with self._using() as pool:
            yield from self._build_in(pool, groups, parts, targets, keep_analyses=keep_analyses, references=references)

    def _build_in(
        self,
        pool: Executor,
        groups: Sequence[Sequence[SourceFile]],
        parts: Sequence[PartBuilder],
        targets: Sequence[SegmentTarget | None],
        *,
        keep_analyses: bool,
        references: bool,
    ) -> Iterator[SegmentJobResult]:
        # One job, run in a worker or, when the pool is broken or its worker died, here.
        job = functools.partial(
            _segment_job, options=self._options, parts=parts, keep_analyses=keep_analyses, references=references
        )
        try:
            futures = [pool.submit(job, group, target=target) for group, target in zip(groups, targets, strict=True)]
        except Exception as exc:  # the pool is broken (a worker was killed earlier): every group in-process
            self._raise_if_closed(exc)
            log.warning("segment workers unavailable (%s): building the segments in-process", exc)
            for group, target in zip(groups, targets, strict=True):
                yield job(group, target=target)
            return
        try:
            for index, future in enumerate(futures):
                try:
                    result = future.result()
                except Exception as exc:  # a worker died (e.g. killed): fall back to building inline
                    self._raise_if_closed(exc)
                    log.warning("segment worker failed (%s): building its segment in-process", exc)
                    result = job(groups[index], target=targets[index])
                yield result
        finally:
            for future in futures:
                future.cancel()

    def merge(
        self,
        data_dir: Path,
        sources: Sequence[MergeSource],
        parts: Sequence[PartBuilder],
        target: SegmentTarget,
        submitted: Callable[[], None] | None = None,
    ) -> BuiltSegment:
        """Merge stored segments in a worker process (the caller's thread waits; queries go on meanwhile).
        `submitted` is called once the job is queued (jobs submitted after it start after it)."""
        with self._using() as pool:
            future = pool.submit(merge_segments, data_dir, sources, parts, target)
            if submitted is not None:
                submitted()
            return future.result()

    def map(self, function: Callable[[_J], _R], jobs: Sequence[_J]) -> list[_R]:
        """Run a function over jobs in the worker processes; results in job order (a job's exception is raised)."""
        with self._using() as pool:
            futures = [pool.submit(function, job) for job in jobs]
            try:
                return [future.result() for future in futures]
            finally:
                for future in futures:
                    future.cancel()

    @property
    def _options(self) -> tuple[int, TextStyle | None, int]:
        return self.chunk_lines, self.embed_style, self.max_file_size

    @contextlib.contextmanager
    def _using(self) -> Iterator[Executor]:
        """The pool (started if needed), counted as in use until the block ends. A failure in the block once the
        analyzer is closed (its jobs cancelled, its pool shut down) is IndexClosedError, whatever call met it."""
        with self._lock:
            if self.closed:
                raise IndexClosedError("the analyzer is closed")
            if self._pool is None:  # the next pool if started, the workers started ahead of need, else new ones
                self._pool, self._next = self._next, None
            if self._pool is None:
                self._pool = worker_pool.take(self.workers) or worker_pool.new_pool(self.workers)
            self._users += 1
            pool = self._pool
        try:
            yield pool
        except Exception as exc:
            self._raise_if_closed(exc)
            raise
        finally:
            with self._lock:
                self._users -= 1

    @property
    def pool_running(self) -> bool:
        return self._pool is not None or self._next is not None

    def start_next(self) -> None:
        """Start the pool that will follow this one (`advance`) now: its workers spawn and import while the current
        pool's last jobs run, and the jobs that follow them start without waiting for a spawn (a cold build's merge
        and embedding after the graph's shares: the spawn had sat in the gap where this process joins the shares on
        one core, the other idle; py-spy put the merge's start ~2 s after the shares' end, ~0.3 s now). Nothing with
        one worker, once closed, or when a next pool is already started. A call that finds no current pool takes
        this one (then the pool after it is spawned when it is needed, as without this)."""
        with self._lock:
            if self.closed or self.workers < 2 or self._next is not None:
                return
            try:
                self._next = worker_pool.warm_pool(self.workers, follow_up=True)
            except Exception:  # the next parallel call starts its pool when it comes, as without this
                log.warning("could not start the next index workers ahead of need", exc_info=True)

    def advance(self) -> bool:
        """Shut the pool down if nothing uses it, as `release`, keeping the next pool if one was started: the next
        parallel call takes it. Returns whether the pool was shut down."""
        return self._shut_down(keep_next=True)

    def release(self) -> bool:
        """Shut the pool down if nothing uses it (its workers exit; the next parallel call starts a new one), and a
        next pool started ahead of need. Returns whether the pool was shut down."""
        return self._shut_down(keep_next=False)

    def _shut_down(self, *, keep_next: bool) -> bool:
        with self._lock:
            pool = self._pool
            if self._users:
                return False
            self._pool = None
            unused = None if keep_next else self._next
            if not keep_next:
                self._next = None
        if unused is not None:
            unused.shutdown(wait=False, cancel_futures=True)
        if pool is None:
            return False
        pool.shutdown(wait=True)
        return True

    def close(self) -> None:
        """For good: queued jobs are cancelled, running ones end in their workers, and the run using the pool stops
        (IndexClosedError) instead of doing their work here."""
        with self._lock:
            self.closed = True
            pools = [p for p in (self._pool, self._next) if p is not None]
            self._pool = self._next = None
        for pool in pools:
            pool.shutdown(wait=False, cancel_futures=True)

    def _raise_if_closed(self, failure: BaseException) -> None:
        """A job failed because the pool was closed under it: stop the run, do not redo the job here."""
        if self.closed and not isinstance(failure, IndexClosedError):
            raise IndexClosedError("the analyzer was closed during the run") from failure

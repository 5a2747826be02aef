"""The segments of an index and which of their files are alive: one immutable snapshot per change.

A segment is a set of files with every derived index of them (its parts), never changed once built. A file that
changes or disappears is tombstoned in the segment that holds it (its `alive` flag cleared, in a new snapshot), and
its new version goes into a newer segment; each path is alive in at most one segment. Readers take `current` once
and see that snapshot to the end of their query, whatever the writer publishes meanwhile.

`Segments` is the single writer's side: it builds segments from analyses, commits them to the store (a new manifest
generation: atomic) and merges small segments into larger ones.

A saved file is searchable before it is durable: `stage` puts its segment in a new snapshot in memory, and `persist`
(a background thread's job) writes the staged segments as one stored segment and commits it with every tombstone
since, in one manifest switch. A process killed in between leaves the store at its previous generation: the files
it lacks, or holds in an older version, are found by the next start's freshness check and analysed again. Commits
write outside the snapshot lock (one committer at a time, each committing the newest snapshot), so a save is never
held up by another thread's fsyncs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.failures import BACKGROUND
from maguyva_lsp.index.analysis_columns import CORE_PART, CoreColumns, merge_core
from maguyva_lsp.index.segment_build import (
    BuiltSegment,
    MergeSource,
    SegmentTarget,
    build_segment,
    finish,
    part_arrays,
)
from maguyva_lsp.index.segment_parts import ChainPart, PartBuilder
from maguyva_lsp.model import FileAnalysis
from maguyva_lsp.store.container import Array, Container, ContainerError, ContainerRecord
from maguyva_lsp.store.manifest import Manifest, SegmentEntry
from maguyva_lsp.store.segment_store import SegmentStore

log = logging.getLogger(__name__)

Bools = npt.NDArray[np.bool_]

# More segments than this after a commit: the smallest are merged into one (a query visits every segment).
MAX_SEGMENTS = 8
# A segment whose dead files pass this share of its files is rewritten at the next merge.
DEAD_FRACTION_TO_MERGE = 0.5


def _kept(segments: list[Segment]) -> list[Segment]:
    """The segments still worth keeping: those with a live file, or a stored file an open buffer hides."""
    return [s for s in segments if s.live_count or (s.hidden is not None and bool(s.hidden.any()))]


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment in a snapshot: its id in the store, its core columns and parts, and which of its files are alive.

    `hidden` marks stored files that an open editor buffer overrides: dead to queries, alive in the store."""

    ident: str  # "" for a segment kept in memory only
    core: CoreColumns
    alive: Bools
    records: Mapping[str, ContainerRecord] = field(default_factory=dict)  # its containers by part, when stored
    parts: Mapping[str, Any] = field(default_factory=dict)  # part name → its reader
    volatile: bool = False  # open buffers' contents: never stored, never merged into a stored segment
    hidden: Bools | None = None
    # Its files' references are not extracted yet (a two-pass cold build's first pass): never merged with others,
    # replaced by `adopt_merge` of a completion (see `completion_sources`), or analysed again by the next writer.
    pending: bool = False
    # Per-snapshot figures a part computes once (live counts, sums): the segment is immutable, so they stay true.
    cache: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def live_count(self) -> int:
        return int(np.count_nonzero(self.alive))

    def dead(self) -> tuple[int, ...]:
        """The local ids dead in the store (a hidden file is alive there)."""
        stored = self.alive if self.hidden is None else self.alive | self.hidden
        return tuple(np.flatnonzero(~stored).tolist())

    def part(self, name: str) -> Any:
        return self.parts[name]

    def with_alive(self, alive: Bools, hidden: Bools | None) -> Segment:
        return Segment(self.ident, self.core, alive, self.records, self.parts, self.volatile, hidden, self.pending)


def same_files(first: CoreColumns, second: CoreColumns) -> bool:
    """Whether two cores hold the same files in the same order with the same bytes (content hashes), language and
    class, cut into the same chunks: what a part that reads only texts and chunks builds is then the same for both
    (the analysis is a function of the bytes). Cheap: a few array comparisons and one string per file."""
    a, b = first.arrays, second.arrays
    if first.file_count != second.file_count:
        return False
    for name in ("file.path.blob", "file.path.off", "file.class", "file.chunks", "chunk.start", "chunk.end"):
        if not np.array_equal(np.asarray(a[name]), np.asarray(b[name])):
            return False
    return all(
        first.content_hash(i) == second.content_hash(i) and first.language(i) == second.language(i)
        for i in range(first.file_count)
    )


@dataclass(frozen=True, slots=True)
class MergePlan:
    """Segments chosen for a merge and which of their files were alive when it was planned."""

    segments: tuple[Segment, ...]
    alive: tuple[Bools, ...]


@dataclass(frozen=True, slots=True)
class StoredFile:
    """What the index knows of a file without rebuilding its analysis."""

    path: str
    size: int
    mtime_ns: int
    content_hash: str


@dataclass(frozen=True, slots=True)
class SegmentSet:
    """An immutable snapshot: the segments, oldest first."""

    segments: tuple[Segment, ...] = ()
    cache: dict[str, Any] = field(default_factory=dict, compare=False)

    def locate(self, path: str) -> tuple[int, int] | None:
        """(segment position, local id) of the live version of a path, or None."""
        return self._where().get(path)

    def where(self, path: str) -> tuple[Segment, int] | None:
        """The segment holding the live version of a path and its local id there, or None."""
        found = self._where().get(path)
        return None if found is None else (self.segments[found[0]], found[1])

    def _where(self) -> dict[str, tuple[int, int]]:
        """path → (segment position, local id) of every live file, built once per snapshot when first needed (the
        paths are decoded once: O(files), a few milliseconds for ten thousand files)."""
        where = self.cache.get("where")
        if where is None:
            where = {}
            for position, segment in enumerate(self.segments):
                paths = segment.core.paths.to_list()  # one pass: path by path took 50 ms for 11,620 paths
                for local in np.flatnonzero(segment.alive).tolist():
                    where[paths[local]] = (position, local)
            self.cache["where"] = where
        return where

    def paths(self) -> list[str]:
        """Every live path (in no particular order)."""
        return list(self._where())

    def live(self) -> Iterator[tuple[Segment, int]]:
        for segment in self.segments:
            for local in np.flatnonzero(segment.alive).tolist():
                yield segment, local

    @property
    def file_count(self) -> int:
        return sum(s.live_count for s in self.segments)


class Segments:
    """The writer's side of a segment set over a store (or in memory only, with `store=None`)."""

    def __init__(self, store: SegmentStore | None, parts: Sequence[PartBuilder] = ()) -> None:
        self._store = store
        self._parts = tuple(parts)
        self._lock = threading.RLock()  # guards `current` and the bookkeeping below; held for no I/O
        self._commit_lock = threading.Lock()  # one commit at a time (taken before `_lock`, never inside it)
        self._persist_lock = threading.Lock()  # one `persist` at a time
        self.current = SegmentSet()
        # Segments `stage` made, kept in memory until `persist` writes them (by id of their core columns), and how
        # many stage calls there were and how many of them `persist` has committed.
        self._staged: dict[int, BuiltSegment] = {}
        self._stages = 0
        self._persisted_stages = 0
        self.problems: list[str] = []  # what opening found wrong (damaged segments), for the user
        self.ready = False  # True once anything was indexed or opened: an index exists, possibly empty
        self._chains: list[ChainPart] = []
        self.defer_merges = False  # set during a cold build: one merge at its end instead of many on the way
        self._merging: set[int] = set()  # ids of the cores a planned merge reads: no other merge takes them
        # Analyses rebuilt from the columns by `load` since start: a warm start of an unchanged folder rebuilds none.
        self.loaded_analyses = 0
        if store is not None:
            self.current = self._open(store.manifest)
            self.ready = bool(self.current.segments)

    def _open(self, manifest: Manifest) -> SegmentSet:
        """Map every segment the manifest names; a damaged one is dropped (its files are analysed again), a part of
        another version is rebuilt from the segment's core columns."""
        assert self._store is not None
        segments: list[Segment] = []
        rebuilt = False
        for entry in manifest.segments:
            record = entry.containers.get(CORE_PART)
            try:
                if record is None:
                    raise ContainerError(f"no {CORE_PART} part")
                core = CoreColumns(self._store.open(record))
                if core.file_count != entry.files:
                    raise ContainerError(f"{core.file_count} files, the manifest says {entry.files}")
                records, parts, fresh = self._open_parts(entry, core)
            except ContainerError as exc:
                problem = (
                    f"index segment {entry.id} is unusable ({exc}): its {entry.live_files} files are analysed anew"
                )
                log.warning("%s (in %s)", problem, self._store.folder)
                self.problems.append(problem)
                continue
            rebuilt |= fresh
            alive = np.ones(entry.files, dtype=np.bool_)
            dead = np.array([d for d in entry.dead if 0 <= d < entry.files], dtype=np.int64)
            alive[dead] = False
            segments.append(Segment(entry.id, core, alive, records, parts, pending=entry.pending))
        if rebuilt or len(segments) != len(manifest.segments):
            self._publish(segments)
        return SegmentSet(tuple(segments))

    def _open_parts(
        self, entry: SegmentEntry, core: CoreColumns
    ) -> tuple[dict[str, ContainerRecord], dict[str, Any], bool]:
        """The segment's part readers; a missing, damaged or outdated part is rebuilt from the core (and written
        when this process is the writer). Returns the records, the readers and whether any part was rebuilt."""
        assert self._store is not None
        records = {CORE_PART: entry.containers[CORE_PART]}
        readers: dict[str, Any] = {}
        fresh = False
        for part in self._parts:
            record = entry.containers.get(part.name)
            container = None
            if record is not None:
                try:
                    container = self._store.open(record)
                    if container.meta.get("version") != part.version:
                        container = None
                except ContainerError as exc:
                    log.warning("the %s part of segment %s is rebuilt: %s", part.name, entry.id, exc)
            if container is not None and record is not None:
                records[part.name] = record
                readers[part.name] = part.open(container.arrays, core)
                continue
            fresh = True
            arrays = part.build(core)
            try:
                stored = self._write_part(entry.id, part, arrays)
            except OSError as exc:
                _write_failed(self._store, exc)
                stored = None
            if stored is None:
                readers[part.name] = part.open(arrays, core)
            else:
                records[part.name], mapped = stored
                readers[part.name] = part.open(mapped, core)
        return records, readers, fresh

    def _write_part(
        self, ident: str, part: PartBuilder, arrays: dict[str, Array]
    ) -> tuple[ContainerRecord, Mapping[str, Array]] | None:
        """Store a part's arrays (writer only) and map them back; None when there is nowhere to store them."""
        store = self._store
        if store is None or not store.writable or not ident:
            return None
        record = store.write(ident, part.name, arrays, {"part": part.name, "version": part.version})
        return record, store.open(record).arrays

    @property
    def discarded_reason(self) -> str | None:
        """Why the store's earlier content was discarded when it was opened (None: it was reused, or there was none)."""
        return self._store.discarded_reason if self._store is not None else None

    @property
    def parts(self) -> tuple[PartBuilder, ...]:
        return self._parts

    @property
    def data_dir(self) -> Path | None:
        """The store's data folder (where merge jobs read segments), or None without a writable store."""
        return self._store.data if self._store is not None and self._store.writable else None

    @property
    def folder(self) -> Path | None:
        """The store's folder (the manifest's, where small side files such as the skip memo live), or None."""
        return self._store.folder if self._store is not None else None

    @property
    def has_store(self) -> bool:
        return self._store is not None

    @property
    def writable(self) -> bool:
        return self._store is not None and self._store.writable

    def stored_files(self) -> dict[str, StoredFile]:
        """Every stored file's identity (O(files): the freshness check compares it with a scan). Open buffers do
        not count: the disk's version they override is what is stored."""
        out: dict[str, StoredFile] = {}
        for segment in self.current.segments:
            if segment.volatile:
                continue
            core = segment.core
            # Whole columns to Python lists at once: per-element numpy access would cost more than the loop itself.
            paths, sizes, mtimes = core.paths.to_list(), core.sizes().tolist(), core.mtimes().tolist()
            stored = segment.alive if segment.hidden is None else segment.alive | segment.hidden
            for local in np.flatnonzero(stored).tolist():
                path = paths[local]
                out[path] = StoredFile(path, sizes[local], mtimes[local], core.content_hash(local))
        return out

    @property
    def references_pending(self) -> bool:
        """Some segment's references are not extracted yet (mentions and the graph lack its files)."""
        return any(s.pending for s in self.current.segments)

    def pending_paths(self) -> set[str]:
        """The live files of segments whose references are pending: a writer that did not complete them (the
        process that built them ended) analyses them again."""
        return {
            segment.core.paths[local]
            for segment in self.current.segments
            if segment.pending
            for local in np.flatnonzero(segment.alive).tolist()
        }

    def load(self, paths: Iterable[str], *, symbols: bool = True) -> Iterator[FileAnalysis]:
        """The stored analyses of these paths (those the index holds); `symbols=False`: without their definitions
        and references (`CoreColumns.analysis`)."""
        snapshot = self.current
        for path in paths:
            found = snapshot.locate(path)
            if found is None:
                continue
            segment = snapshot.segments[found[0]]
            try:
                analysis = segment.core.analysis(found[1], symbols=symbols)
            except (ValueError, IndexError) as exc:  # a damaged column: the file is analysed again
                log.warning("stored analysis of %s is damaged (%s): re-analysing it", path, exc)
                continue
            self.loaded_analyses += 1
            yield analysis

    def save(self, analyses: Sequence[FileAnalysis], removed: Iterable[str] = ()) -> None:
        """Index these analyses as a new segment (stored when the store is writable) and tombstone the older versions
        of their paths and the removed paths, in one commit. An open buffer of such a path is closed by this."""
        latest = {a.path: a for a in analyses}
        gone = [p for p in removed if p not in latest]
        self.ready = True
        target = self.reserve() if latest else None
        segment = None
        if latest:
            try:
                built = build_segment(list(latest.values()), self._parts, target)
            except (OSError, ContainerError) as exc:
                assert self._store is not None
                self.release(target)
                target = None
                _write_failed(self._store, exc)
                built = build_segment(list(latest.values()), self._parts, None)
            segment = self._segment_of(built)
        with self._lock:
            segments = self._tombstoned([*gone, *latest], hide=False)
            if segment is not None:
                segments.append(segment)
            self._show(_kept(segments))
        self._commit()
        self.release(target)  # committed (or kept in memory): no longer pending either way
        if not self.defer_merges and self.stored_segment_count > MAX_SEGMENTS:
            self._merge_smallest()

    def stage(self, analyses: Sequence[FileAnalysis], removed: Iterable[str] = ()) -> None:
        """`save`, searchable at once and durable later: the new segment is kept in memory and nothing is written
        until `persist` (without a writable store, this is `save`). A process that ends before `persist` loses
        nothing: the store still holds the previous versions, which the next start finds stale."""
        if not self.writable:
            self.save(analyses, removed)
            return
        latest = {a.path: a for a in analyses}
        gone = [p for p in removed if p not in latest]
        self.ready = True
        built = build_segment(list(latest.values()), self._parts, None) if latest else None
        segment = self._segment_of(built) if built is not None else None
        with self._lock:
            segments = self._tombstoned([*gone, *latest], hide=False)
            if segment is not None and built is not None:
                self._staged[id(segment.core)] = built
                segments.append(segment)
            self._stages += 1
            self._show(_kept(segments))

    @property
    def unpersisted(self) -> bool:
        """A staged change is not committed yet (false again once `persist` has committed it, or given up on it)."""
        return self._stages != self._persisted_stages

    def persist(self) -> None:
        """Write what `stage` kept in memory: its segments (their live files) as one stored segment, replacing them
        in the snapshot, committed with every tombstone since. Staged segments with files hidden by an open buffer
        wait (they are written with a later save)."""
        if not self.writable:
            return
        with self._persist_lock:
            with self._lock:
                upto = self._stages
                if upto == self._persisted_stages:
                    return
                present = {id(s.core) for s in self.current.segments}
                for key in [k for k in self._staged if k not in present]:
                    del self._staged[key]
                picked = tuple(s for s in self.current.segments if id(s.core) in self._staged and s.hidden is None)
                plan = MergePlan(picked, tuple(s.alive.copy() for s in picked))
                staged = [self._staged[id(s.core)] for s in picked]
            try:
                self._persist(plan, staged)
            finally:
                with self._lock:
                    self._persisted_stages = max(self._persisted_stages, upto)

    def _persist(self, plan: MergePlan, staged: list[BuiltSegment]) -> None:
        picked = plan.segments
        if not picked:
            self._commit()
            return
        target = self.reserve()
        try:
            if len(picked) == 1 and bool(picked[0].alive.all()):
                arrays = {name: dict(a) for name, a in staged[0].arrays.items()}
            else:
                arrays = part_arrays(merge_core([(s.core, a) for s, a in zip(picked, plan.alive, strict=True)]),
                                     self._parts)  # fmt: skip
            built = finish(arrays, self._parts, target)
        except (OSError, ContainerError) as exc:
            assert self._store is not None
            self.release(target)
            _write_failed(self._store, exc)
            with self._lock:  # they stay in memory, as a save that could not be written does
                for segment in picked:
                    self._staged.pop(id(segment.core), None)
            return
        self.adopt_merge(plan, built)
        with self._lock:  # only now: until the stored segment replaced them, no merge may plan them
            for segment in picked:
                self._staged.pop(id(segment.core), None)

    def reserve(self) -> SegmentTarget | None:
        """Where a worker may write a new segment (an id the store keeps until a commit), or None when nothing is
        stored (no writable store)."""
        store = self._store
        if store is None or not store.writable:
            return None
        return SegmentTarget(store.data, store.new_id())

    @contextlib.contextmanager
    def files_kept(self, names: Iterable[str]) -> Iterator[None]:
        """The stored containers of these file names stay on disk while the block runs (worker processes open them by
        path), even when a commit meanwhile replaces their segments."""
        store = self._store
        idents = {name.split("-", 1)[0] for name in names}
        if store is None or not store.writable:
            yield
            return
        store.keep(idents)
        try:
            yield
        finally:
            store.unkeep(idents)

    def release(self, target: SegmentTarget | None) -> None:
        """Give back a reserved id whose segment was not adopted (its files become garbage)."""
        if target is not None and self._store is not None:
            self._store.release([target.ident])

    def adopt(self, built: BuiltSegment, removed: Iterable[str] = (), *, pending: bool = False) -> None:
        """Make a segment that a job built part of the index: the older versions of its files and the removed paths
        are tombstoned, in one commit. `pending`: built without references (see `Segment.pending`)."""
        self.ready = True
        segment = self._segment_of(built)
        if pending:
            segment = dataclasses.replace(segment, pending=True)
        paths = segment.core.paths.to_list()
        with self._lock:
            segments = self._tombstoned([*removed, *paths], hide=False)
            segments.append(segment)
            self._show(_kept(segments))
        self._commit()
        if built.ident:
            self.release(SegmentTarget(Path(), built.ident))
        if not self.defer_merges and self.stored_segment_count > MAX_SEGMENTS:
            self._merge_smallest()

    @property
    def stored_segment_count(self) -> int:
        """Segments in the store (or, without one, kept in memory for good): not open buffers, not staged ones."""
        return sum(not s.volatile and id(s.core) not in self._staged for s in self.current.segments)

    def _segment_of(self, built: BuiltSegment) -> Segment:
        """A built segment, opened: mapped from its containers, or over its arrays when it was built in memory."""
        if built.records:
            assert self._store is not None
            containers = {name: self._store.open(record) for name, record in built.records.items()}
            core = CoreColumns(containers[CORE_PART])
            readers = {part.name: part.open(containers[part.name].arrays, core) for part in self._parts}
            alive = np.ones(core.file_count, dtype=np.bool_)
            return Segment(built.ident, core, alive, dict(built.records), readers)
        core = CoreColumns(dict(built.arrays[CORE_PART]))
        readers = {part.name: part.open(built.arrays[part.name], core) for part in self._parts}
        return Segment("", core, np.ones(core.file_count, dtype=np.bool_), {}, readers)

    def show_buffers(self, analyses: Sequence[FileAnalysis]) -> None:
        """Let queries see these analyses (open editor buffers) instead of the stored files of their paths, which
        stay alive in the store. Never stored; `save` of a path ends its buffer."""
        latest = {a.path: a for a in analyses}
        if not latest:
            return
        self.ready = True
        built = self._segment_of(build_segment(list(latest.values()), self._parts, None))
        with self._lock:
            segments = self._tombstoned(list(latest), hide=True)
            segments.append(Segment("", built.core, built.alive, {}, built.parts, volatile=True))
            # Nothing stored changes: a hidden file stays alive in the store, and buffers are never written.
            self._show(_kept(segments))

    def _tombstoned(self, paths: Iterable[str], *, hide: bool) -> list[Segment]:
        """The current segments with the live version of each path dead to queries. `hide`: a stored version stays
        alive in the store (a buffer overrides it); otherwise it dies there too, hidden or not."""
        snapshot = self.current
        alive = [s.alive.copy() for s in snapshot.segments]
        hidden = [None if s.hidden is None else s.hidden.copy() for s in snapshot.segments]
        for path in paths:
            for position, segment in enumerate(snapshot.segments):
                local = segment.core.local_id(path)
                if local < 0:
                    continue
                mask = hidden[position]
                if alive[position][local]:
                    alive[position][local] = False
                    if hide and not segment.volatile:
                        if mask is None:
                            mask = hidden[position] = np.zeros(segment.alive.size, dtype=np.bool_)
                        mask[local] = True
                elif not hide and mask is not None:
                    mask[local] = False
        return [
            s.with_alive(a, h if h is not None and h.any() else None)
            for s, a, h in zip(snapshot.segments, alive, hidden, strict=True)
        ]

    def attach_chain(self, part: ChainPart) -> None:
        """Persist `part` with every commit from now on, after opening the chain the manifest names for it (a
        damaged container: the part starts from nothing and rebuilds)."""
        with self._lock:
            containers: list[Container] = []
            records: tuple[ContainerRecord, ...] = ()
            store = self._store
            if store is not None:
                records = store.manifest.chains.get(part.name, ())
                try:
                    containers = [store.open(r) for r in records]
                except ContainerError as exc:
                    log.warning("the stored %s index is unusable (%s): it is rebuilt", part.name, exc)
                    self.problems.append(f"the stored {part.name} index was unusable ({exc}) and is rebuilt")
                    containers, records = [], ()
            part.open(containers, records)
            self._chains.append(part)

    def commit_chains(self) -> None:
        """Write what the chain parts changed since the last commit (the segments stay as they are)."""
        self._commit()

    def _chain_records(self, store: SegmentStore) -> dict[str, tuple[ContainerRecord, ...]]:
        """Each chain part's containers after writing what it exported (a part whose write fails keeps its old
        chain and is told, so that its next export is a base)."""
        chains = dict(store.manifest.chains)
        for part in self._chains:
            export = part.export()
            if not export.containers and not export.base:
                continue
            idents = [store.new_id() for _ in export.containers]
            try:
                records = tuple(
                    store.write(ident, part.name, arrays, {**meta, "part": part.name})
                    for ident, (arrays, meta) in zip(idents, export.containers, strict=True)
                )
            except OSError as exc:
                store.release(idents)
                part.export_failed()
                _write_failed(store, exc)
                continue
            if export.base:
                chains[part.name] = records
            else:
                kept = chains.get(part.name, ())
                chains[part.name] = (*kept[: max(len(kept) - export.replaces, 0)], *records)
        return chains

    def _publish(self, segments: list[Segment]) -> None:
        """Make these segments the current snapshot and commit it (and what the chain parts changed) to the store
        when it is writable. Not to be called holding `_lock` (the commit writes)."""
        with self._lock:
            self._show(segments)
        self._commit()

    def _show(self, segments: list[Segment]) -> None:
        """Make these segments the current snapshot, in memory (under `_lock`)."""
        self.current = SegmentSet(tuple(segments))

    def _commit(self) -> None:
        """Commit the newest snapshot's stored segments and tombstones, and what the chain parts changed, as a new
        manifest generation (writer only; nothing when nothing changed). Commits run one at a time, outside
        `_lock`: a save shown meanwhile is in the next commit. A staged segment is not named (it is not written)."""
        store = self._store
        if store is None or not store.writable:
            return
        with self._commit_lock:
            with self._lock:
                segments = self.current.segments
                staged = set(self._staged)
            entries = tuple(
                SegmentEntry(s.ident, s.core.file_count, s.records, s.dead(), s.pending)
                for s in segments
                if s.ident and not s.volatile and id(s.core) not in staged
            )
            base = store.manifest
            try:
                chains = self._chain_records(store)
                # Nothing changed (a warm start's commits, a lane that caught up with nothing to do): no new generation,
                # so a process that only reads writes nothing.
                if entries != base.segments or dict(chains) != dict(base.chains):
                    store.commit(Manifest(base.schema, base.fingerprint, segments=entries, chains=chains))
            except OSError as exc:
                for part in self._chains:
                    part.export_failed()
                _write_failed(store, exc)

    def plan_merge(self, *, everything: bool = False) -> MergePlan | None:
        """The segments a merge should unite now: the smallest stored ones (and the mostly dead ones) so that about
        MAX_SEGMENTS / 2 remain, or (`everything`) all stored segments. None when there is nothing worth merging.
        Segments of open buffers, and those with hidden files (their buffers still open), wait."""
        with self._lock:
            segments = list(self.current.segments)
            candidates = [
                i
                for i, s in enumerate(segments)
                if not s.volatile
                and not s.pending
                and s.hidden is None
                and id(s.core) not in self._merging
                and id(s.core) not in self._staged
            ]
            candidates.sort(key=lambda i: segments[i].live_count)
            if everything:
                chosen = set(candidates)
            else:
                chosen = set(candidates[: max(self.stored_segment_count - MAX_SEGMENTS // 2, 0)])
                chosen |= {
                    i for i in candidates if segments[i].live_count < DEAD_FRACTION_TO_MERGE * segments[i].alive.size
                }
            if len(chosen) < 2 and not (chosen and segments[min(chosen)].live_count < segments[min(chosen)].alive.size):
                return None
            picked = tuple(segments[i] for i in sorted(chosen))
            self._merging.update(id(s.core) for s in picked)
            return MergePlan(picked, tuple(s.alive.copy() for s in picked))

    def plan_completion(self) -> MergePlan | None:
        """The segments whose references are pending (those with files hidden by an open buffer wait for the next
        writer), for one merge over the cores their second pass wrote; None when there are none."""
        with self._lock:
            picked = tuple(
                s
                for s in self.current.segments
                if s.pending and s.hidden is None and s.ident and id(s.core) not in self._merging
            )
            if not picked:
                return None
            self._merging.update(id(s.core) for s in picked)
            return MergePlan(picked, tuple(s.alive.copy() for s in picked))

    def completion_sources(
        self, plan: MergePlan, cores: Mapping[str, ContainerRecord], kept_parts: Iterable[str] = ()
    ) -> list[MergeSource] | None:
        """What the completion's merge reads: for each pending segment, the core its second pass wrote (`cores`, by
        the pending segment's id), with the files alive that are alive in the pending segment (matched by path: the
        second pass skips a file that became unreadable). None when a segment with live files has no such core.

        `kept_parts`: parts that read no references (the text part: file texts and chunks). A pending segment's own
        container of such a part goes with its second core when both passes read the same files in the same order
        with the same bytes (`same_files`): the merge then unites those parts instead of building them again from the
        united core. A file changed, gone or skipped between the passes leaves the part out (built from the cores)."""
        store = self._store
        assert store is not None
        kept = tuple(kept_parts)
        sources: list[MergeSource] = []
        for segment, alive in zip(plan.segments, plan.alive, strict=True):
            record = cores.get(segment.ident)
            if record is None:
                if alive.any():
                    return None
                continue
            core = CoreColumns(store.open(record))
            locals_ = np.array([segment.core.local_id(p) for p in core.paths.to_list()], dtype=np.int64)
            found = locals_ >= 0
            mapped = np.zeros(core.file_count, dtype=np.bool_)
            mapped[found] = alive[locals_[found]]
            same = same_files(segment.core, core)
            parts = {k: segment.records[k] for k in kept if k in segment.records} if same else {}
            sources.append(MergeSource(record, mapped, parts))
        log.debug(
            "completion keeps the first pass's %s for %d of %d segments",
            kept,
            sum(bool(s.parts) for s in sources),
            len(sources),
        )
        return sources

    def abandon_merge(self, plan: MergePlan) -> None:
        """A planned merge that will not be adopted: its segments may be merged again."""
        with self._lock:
            self._merging.difference_update(id(s.core) for s in plan.segments)

    def merge_sources(self, plan: MergePlan) -> list[MergeSource]:
        """What a merge job reads: each planned segment's core container and its live files (stored segments)."""
        return [
            MergeSource(s.records[CORE_PART], alive, {k: r for k, r in s.records.items() if k != CORE_PART})
            for s, alive in zip(plan.segments, plan.alive, strict=True)
        ]

    def adopt_merge(self, plan: MergePlan, built: BuiltSegment) -> bool:
        """Replace the planned segments by the merged one; files that died in them while the merge ran (a planned
        segment gone from the snapshot died whole: no other merge takes planned segments) are dead in it too."""
        merged = self._segment_of(built)
        with self._lock:
            self._merging.difference_update(id(s.core) for s in plan.segments)
            now = {id(s.core): s for s in self.current.segments}
            died: list[str] = []
            for planned, alive_then in zip(plan.segments, plan.alive, strict=True):
                current = now.get(id(planned.core))
                newly_dead = alive_then if current is None else alive_then & ~current.alive
                died.extend(planned.core.paths[i] for i in np.flatnonzero(newly_dead).tolist())
            alive = merged.alive.copy()
            for path in died:
                local = merged.core.local_id(path)
                if local >= 0:
                    alive[local] = False
            merged = merged.with_alive(alive, None)
            planned_cores = {id(s.core) for s in plan.segments}
            kept = [s for s in self.current.segments if id(s.core) not in planned_cores]
            self._show(_kept([*kept, merged]))
        self._commit()
        if built.ident:
            self.release(SegmentTarget(Path(), built.ident))
        return True

    def _merge_smallest(self) -> None:
        self.merge_now()

    def merge_now(self, *, everything: bool = False) -> None:
        """Merge in this thread (an index without a store, or when no worker is at hand)."""
        plan = self.plan_merge(everything=everything)
        if plan is None:
            return
        target = self.reserve()
        try:
            built = finish(
                part_arrays(
                    merge_core([(s.core, a) for s, a in zip(plan.segments, plan.alive, strict=True)]), self._parts
                ),
                self._parts,
                target,
            )
        except (OSError, ContainerError) as exc:
            self.release(target)
            self.abandon_merge(plan)
            if self._store is not None:
                _write_failed(self._store, exc)
            return
        self.adopt_merge(plan, built)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _write_failed(store: SegmentStore, exc: Exception) -> None:
    detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    log.error(
        "could not write the index store in %s: disk I/O error (%s); the in-memory index stays correct, and what was"
        " not written is analysed again at the next start",
        store.folder,
        detail,
        extra=BACKGROUND,
    )

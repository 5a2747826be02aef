"""The segments of an index and which of their files are alive: one immutable snapshot per change.

A segment is a set of files with every derived index of them (its parts), never changed once built. A file that
changes or disappears is tombstoned in the segment that holds it (its `alive` flag cleared, in a new snapshot), and
its new version goes into a newer segment; each path is alive in at most one segment. Readers take `current` once
and see that snapshot to the end of their query, whatever the writer publishes meanwhile.

`Segments` is the single writer's side: it builds segments from analyses, commits them to the store (a new manifest
generation: atomic) and merges small segments into larger ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from maguyva_lsp.failures import BACKGROUND
from maguyva_lsp.index.analysis_columns import CORE_PART, CoreColumns, encode_analyses, merge_core
from maguyva_lsp.model import FileAnalysis
from maguyva_lsp.store.container import Array, ContainerError, ContainerRecord
from maguyva_lsp.store.manifest import Manifest, SegmentEntry
from maguyva_lsp.store.segment_store import SegmentStore

log = logging.getLogger(__name__)

Bools = npt.NDArray[np.bool_]

# More segments than this after a commit: the smallest are merged into one (a query visits every segment).
MAX_SEGMENTS = 8
# A segment whose dead files pass this share of its files is rewritten at the next merge.
DEAD_FRACTION_TO_MERGE = 0.5


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment in a snapshot: its id in the store, its core columns and which of its files are alive."""

    ident: str  # "" for a segment kept in memory only
    core: CoreColumns
    alive: Bools
    records: Mapping[str, ContainerRecord] = field(default_factory=dict)  # its containers by part, when stored

    @property
    def live_count(self) -> int:
        return int(np.count_nonzero(self.alive))

    def dead(self) -> tuple[int, ...]:
        return tuple(np.flatnonzero(~self.alive).tolist())


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

    def locate(self, path: str) -> tuple[int, int] | None:
        """(segment position, local id) of the live version of a path, or None."""
        for position in range(len(self.segments) - 1, -1, -1):
            segment = self.segments[position]
            local = segment.core.local_id(path)
            if local >= 0 and bool(segment.alive[local]):
                return position, local
        return None

    def live(self) -> Iterator[tuple[Segment, int]]:
        for segment in self.segments:
            for local in np.flatnonzero(segment.alive).tolist():
                yield segment, local

    @property
    def file_count(self) -> int:
        return sum(s.live_count for s in self.segments)


class Segments:
    """The writer's side of a segment set over a store (or in memory only, with `store=None`)."""

    def __init__(self, store: SegmentStore | None) -> None:
        self._store = store
        self._lock = threading.Lock()
        self.current = SegmentSet()
        self.problems: list[str] = []  # what opening found wrong (damaged segments), for the user
        if store is not None:
            self.current = self._open(store.manifest)

    def _open(self, manifest: Manifest) -> SegmentSet:
        """Map every segment the manifest names; a damaged one is dropped (its files are analysed again)."""
        assert self._store is not None
        segments: list[Segment] = []
        for entry in manifest.segments:
            record = entry.containers.get(CORE_PART)
            try:
                if record is None:
                    raise ContainerError(f"segment {entry.id} has no {CORE_PART} part")
                core = CoreColumns(self._store.open(record))
                if core.file_count != entry.files:
                    raise ContainerError(
                        f"segment {entry.id}: {core.file_count} files, the manifest says {entry.files}"
                    )
            except ContainerError as exc:
                problem = (
                    f"index segment {entry.id} is unusable ({exc}): its {entry.live_files} files are analysed anew"
                )
                log.warning("%s (in %s)", problem, self._store.folder)
                self.problems.append(problem)
                continue
            alive = np.ones(entry.files, dtype=np.bool_)
            dead = np.array([d for d in entry.dead if 0 <= d < entry.files], dtype=np.int64)
            alive[dead] = False
            segments.append(Segment(entry.id, core, alive, dict(entry.containers)))
        return SegmentSet(tuple(segments))

    @property
    def discarded_reason(self) -> str | None:
        """Why the store's earlier content was discarded when it was opened (None: it was reused, or there was none)."""
        return self._store.discarded_reason if self._store is not None else None

    @property
    def writable(self) -> bool:
        return self._store is not None and self._store.writable

    def stored_files(self) -> dict[str, StoredFile]:
        """Every live file's identity (O(files): the freshness check compares it with a scan)."""
        out: dict[str, StoredFile] = {}
        for segment in self.current.segments:
            core = segment.core
            sizes, mtimes = core.sizes(), core.mtimes()
            for local in np.flatnonzero(segment.alive).tolist():
                path = core.paths[local]
                out[path] = StoredFile(path, int(sizes[local]), int(mtimes[local]), core.content_hash(local))
        return out

    def load(self, paths: Iterable[str]) -> Iterator[FileAnalysis]:
        """The stored analyses of these paths (those the index holds)."""
        snapshot = self.current
        for path in paths:
            found = snapshot.locate(path)
            if found is None:
                continue
            segment = snapshot.segments[found[0]]
            try:
                analysis = segment.core.analysis(found[1])
            except (ValueError, IndexError) as exc:  # a damaged column: the file is analysed again
                log.warning("stored analysis of %s is damaged (%s): re-analysing it", path, exc)
                continue
            yield analysis

    def save(self, analyses: Sequence[FileAnalysis], removed: Iterable[str] = ()) -> None:
        """Persist these analyses as a new segment and tombstone the older versions of their paths and the removed
        paths, in one commit. In memory only when there is no writable store."""
        latest = {a.path: a for a in analyses}
        gone = [p for p in removed if p not in latest]
        with self._lock:
            snapshot = self.current
            alive = [s.alive.copy() for s in snapshot.segments]
            for path in [*gone, *latest]:
                found = snapshot.locate(path)
                if found is not None:
                    alive[found[0]][found[1]] = False
            segments = [Segment(s.ident, s.core, a, s.records) for s, a in zip(snapshot.segments, alive, strict=True)]
            if latest:
                segments.append(self._build(encode_analyses(list(latest.values()))))
            self._publish([s for s in segments if s.live_count])
            if len(self.current.segments) > MAX_SEGMENTS:
                self._merge_smallest()

    def _build(self, arrays: dict[str, Array]) -> Segment:
        """A segment of these core columns: written to the store when it is writable, else (or when the write
        fails) kept in memory; its files are then analysed again at the next start."""
        store = self._store
        if store is not None and store.writable:
            ident = store.new_id()
            try:
                record = store.write(ident, CORE_PART, arrays, {"part": CORE_PART})
                core = CoreColumns(store.open(record))
                return Segment(ident, core, np.ones(core.file_count, dtype=np.bool_), {CORE_PART: record})
            except (OSError, ContainerError) as exc:
                store.release([ident])
                _write_failed(store, exc)
            except BaseException:
                store.release([ident])
                raise
        core = CoreColumns(arrays)
        return Segment("", core, np.ones(core.file_count, dtype=np.bool_))

    def _publish(self, segments: list[Segment]) -> None:
        """Make these segments the current snapshot, committing them to the store first when it is writable."""
        store = self._store
        if store is not None and store.writable:
            entries = tuple(SegmentEntry(s.ident, s.core.file_count, s.records, s.dead()) for s in segments if s.ident)
            base = store.manifest
            try:
                store.commit(Manifest(base.schema, base.fingerprint, segments=entries, chains=base.chains))
            except OSError as exc:
                _write_failed(store, exc)
        self.current = SegmentSet(tuple(segments))

    def _merge_smallest(self) -> None:
        """Merge the smallest segments (and the mostly dead ones) into one, leaving about MAX_SEGMENTS / 2."""
        segments = list(self.current.segments)
        order = sorted(range(len(segments)), key=lambda i: segments[i].live_count)
        chosen = set(order[: len(segments) - MAX_SEGMENTS // 2])
        chosen |= {i for i, s in enumerate(segments) if s.live_count < DEAD_FRACTION_TO_MERGE * s.alive.size}
        if len(chosen) < 2:
            return
        merged = self._build(merge_core([(segments[i].core, segments[i].alive) for i in sorted(chosen)]))
        self._publish([*(s for i, s in enumerate(segments) if i not in chosen), merged])

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

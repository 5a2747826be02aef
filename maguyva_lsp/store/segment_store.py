"""The index folder of one workspace root: the manifest, the immutable containers it names, and the writer lock.

    <index dir>/manifest.json       the current generation (store/manifest.py)
    <index dir>/data/<id>-<part>.mgv    immutable containers (store/container.py)
    <index dir>/writer.lock         one writer at a time (store/lock.py); any number of readers
    <index dir>/semantic/           the embedding cache (store/embedding_cache.py)

One process holds the writer lock: it writes new containers, commits a new manifest and deletes containers no
manifest names any more. Other processes (a CLI call beside the server) read the manifest and map what it names;
immutable files cannot change under them, and on POSIX a file deleted while mapped stays readable. A reader that
finds a named file already gone (the writer committed and collected in between) reads the newer manifest again.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import shutil
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

import platformdirs

from maguyva_lsp.store.container import (
    Array,
    Container,
    ContainerError,
    ContainerRecord,
    open_container,
    write_container,
)
from maguyva_lsp.store.lock import ExclusiveLock, LockUnavailableError
from maguyva_lsp.store.manifest import Manifest, ManifestError, read_manifest, write_manifest

log = logging.getLogger(__name__)

DATA_DIR = "data"
LOCK_NAME = "writer.lock"
CONTAINER_SUFFIX = ".mgv"
# What earlier layouts left in the folder: removed (once) when a store of this format is created there.
LEGACY_FILES: tuple[str, ...] = ("analyses.sqlite", "analyses.sqlite-wal", "analyses.sqlite-shm")
ID_DIGITS = 8


class StoreError(Exception):
    """The store could not be opened or written; the engine then works in memory only."""


def default_index_dir(root: Path, index_dir: str | None) -> Path:
    """Where the store of a workspace root lives: `index_dir` if set, else the user's cache folder, keyed by root."""
    resolved = root.resolve()
    digest = hashlib.sha1(str(resolved).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", resolved.name or "root")[:40]
    base = Path(index_dir).expanduser() if index_dir else Path(platformdirs.user_cache_dir("maguyva-lsp"))
    return base / f"{name}-{digest}"


class SegmentStore:
    """Manifest, containers and lock of one index folder. `writable` when this process holds the writer lock."""

    def __init__(self, folder: Path, schema: str, fingerprint: str) -> None:
        """Open (or create) the store. A manifest of another format, schema or fingerprint, or one that cannot be
        read, is discarded by the writer (the index is rebuilt; `discarded_reason` says why); a reader then starts
        from nothing and keeps its index in memory."""
        self.folder = folder
        self.data = folder / DATA_DIR
        self.schema = schema
        self.fingerprint = fingerprint
        self.discarded_reason: str | None = None
        self._lock = ExclusiveLock(folder / LOCK_NAME)
        self._ids = threading.Lock()
        self._pending: set[str] = set()  # ids handed out and not yet committed: their files are not garbage
        # ids whose files worker processes are reading (by path), kept on disk while the manifest stops naming them
        self._kept: Counter[str] = Counter()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create index folder {folder}: {exc}") from exc
        self.writable = self._acquire()
        self.manifest = self._initial_manifest()
        if self.writable:
            try:
                self.data.mkdir(exist_ok=True)
            except OSError as exc:
                self._lock.release()
                raise StoreError(f"cannot create {self.data}: {exc}") from exc
            self.collect_garbage()

    # -- opening ------------------------------------------------------------------------------------------------------

    def _acquire(self) -> bool:
        try:
            held = self._lock.try_acquire()
        except LockUnavailableError as exc:
            log.warning("%s: working read-only", exc)
            return False
        if not held:
            log.info("another Maguyva process writes the store in %s: this one reads it and keeps changes in memory",
                     self.folder)  # fmt: skip
        return held

    def _empty(self) -> Manifest:
        return Manifest(schema=self.schema, fingerprint=self.fingerprint)

    def _initial_manifest(self) -> Manifest:
        reason: str | None = None
        try:
            manifest = read_manifest(self.folder)
        except ManifestError as exc:
            manifest, reason = None, str(exc)
        if manifest is not None and reason is None:
            if manifest.schema != self.schema:
                reason = f"index layout {manifest.schema} != {self.schema}"
            elif manifest.fingerprint != self.fingerprint:
                reason = "settings that shape the index changed"
        legacy = [name for name in LEGACY_FILES if (self.folder / name).exists()]
        if manifest is None and reason is None and legacy:
            reason = "the store has an older format (v1, SQLite)"
        if reason is None:
            return manifest if manifest is not None else self._empty()
        self.discarded_reason = reason
        if not self.writable:
            log.warning("store in %s is unusable (%s) and another process owns it: working in memory", self.folder,
                        reason)  # fmt: skip
            return self._empty()
        log.warning("discarding the store in %s and rebuilding: %s", self.folder, reason)
        for name in legacy:
            with contextlib.suppress(OSError):
                (self.folder / name).unlink()
        fresh = self._empty()
        # The old generation's ids are skipped, so no new file can be mistaken for one of its leftovers.
        if manifest is not None:
            fresh = Manifest(self.schema, self.fingerprint, manifest.generation + 1, manifest.next_id)
        write_manifest(self.folder, fresh)
        return fresh

    def reload(self) -> Manifest:
        """The newest committed manifest (a reader's refresh). Incompatible or unreadable: the current one is kept."""
        try:
            manifest = read_manifest(self.folder)
        except ManifestError as exc:
            log.warning("cannot read the manifest in %s (%s): keeping generation %d", self.folder, exc,
                        self.manifest.generation)  # fmt: skip
            return self.manifest
        if manifest is None or manifest.schema != self.schema or manifest.fingerprint != self.fingerprint:
            return self.manifest
        self.manifest = manifest
        return manifest

    # -- containers ---------------------------------------------------------------------------------------------------

    def new_id(self) -> str:
        """A fresh container id (writer only); its files are kept by garbage collection until a commit."""
        with self._ids:
            manifest = self.manifest
            used = {int(name.split("-", 1)[0]) for name in self._pending}
            number = max([manifest.next_id, *(n + 1 for n in used)])
            ident = f"{number:0{ID_DIGITS}d}"
            self._pending.add(ident)
            return ident

    def container_name(self, ident: str, part: str) -> str:
        return f"{ident}-{part}{CONTAINER_SUFFIX}"

    def write(self, ident: str, part: str, arrays: Mapping[str, Array], meta: Mapping[str, object]) -> ContainerRecord:
        """Write one container of a segment or chain (writer only); durable when this returns."""
        if not self.writable:
            raise StoreError("this process does not hold the writer lock")
        return write_container(self.data / self.container_name(ident, part), arrays, {**meta, "id": ident})

    def open(self, record: ContainerRecord) -> Container:
        """Map a container the manifest names (size and header checked; see Container.verify for the rest)."""
        container = open_container(self.data / record.name, record)
        ident = record.name.split("-", 1)[0]
        if container.meta.get("id") != ident:
            raise ContainerError(f"{record.name}: written for id {container.meta.get('id')!r}, not {ident!r}")
        return container

    # -- committing ---------------------------------------------------------------------------------------------------

    def commit(self, manifest: Manifest) -> Manifest:
        """Make `manifest` the current generation (writer only): atomic and durable, then unnamed files are deleted.

        The generation number and the next id are filled in here."""
        if not self.writable:
            raise StoreError("this process does not hold the writer lock")
        with self._ids:
            named = manifest.container_names()
            ids = {name.split("-", 1)[0] for name in named}
            next_id = max([self.manifest.next_id, manifest.next_id, *(int(i) + 1 for i in ids | self._pending)])
            final = Manifest(
                manifest.schema,
                manifest.fingerprint,
                self.manifest.generation + 1,
                next_id,
                manifest.segments,
                manifest.chains,
                manifest.meta,
            )
            write_manifest(self.folder, final)
            self.manifest = final
            self._pending -= ids
        self.collect_garbage()
        return final

    def release(self, idents: Iterable[str]) -> None:
        """Forget ids handed out but never committed (a build that failed): their files become garbage."""
        with self._ids:
            self._pending.difference_update(idents)

    def keep(self, idents: Iterable[str]) -> None:
        """Spare these ids' files from garbage collection until `unkeep` (a worker opens them by path later, even if a
        commit meanwhile replaced their segment: a merge adopted while a cold build's embedding jobs run)."""
        with self._ids:
            self._kept.update(idents)

    def unkeep(self, idents: Iterable[str]) -> None:
        """End a `keep` (the files become garbage at the next commit once no manifest names them)."""
        with self._ids:
            self._kept.subtract(idents)
            self._kept = +self._kept  # drop the ids no longer kept

    def collect_garbage(self) -> int:
        """Delete the data files that the current manifest does not name and no pending write owns (writer only).
        A file another process still maps stays readable to it on POSIX; where deletion fails (Windows, a file in
        use) it is tried again at the next commit. Returns how many files were deleted."""
        if not self.writable:
            return 0
        with self._ids:
            keep = self.manifest.container_names()
            pending = {*self._pending, *self._kept}
        deleted = 0
        try:
            entries = list(os.scandir(self.data))
        except OSError:
            return 0
        for entry in entries:
            name = entry.name
            if name in keep:
                continue
            stem = name.lstrip(".").split("-", 1)[0]
            if stem in pending:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
                deleted += 1
            except OSError as exc:
                log.debug("cannot delete %s yet: %s", entry.path, exc)
        return deleted

    def close(self) -> None:
        self._lock.release()

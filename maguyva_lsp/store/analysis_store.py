"""The on-disk store of per-file analyses: SQLite with a schema version, atomic transactions and a writer lock.

Only this module (and the embedding cache) touches the index folder. What is stored is each file's FileAnalysis
(text, definitions, references, chunks) keyed by path with its size, mtime and content hash, so a restart re-analyses
only files that changed; the in-memory indexes are derived from these analyses.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from maguyva_lsp.failures import BACKGROUND
from maguyva_lsp.model import FileAnalysis
from maguyva_lsp.store import codec
from maguyva_lsp.store.lock import ExclusiveLock, LockUnavailableError

log = logging.getLogger(__name__)

# Bump when what the analyzers extract changes: older stores are then rebuilt. The codec's layout is part of it.
ANALYZER_VERSION = 3  # 2: venv/virtualenv folders are no longer vendor by name; 3: JS/TS definition forms
SCHEMA_VERSION = f"{ANALYZER_VERSION}.{codec.CODEC_VERSION}"
DB_NAME = "analyses.sqlite"
LOCK_NAME = "writer.lock"


@dataclass(frozen=True, slots=True)
class StoredFile:
    """What the store knows of a file without unpacking its analysis."""

    path: str
    size: int
    mtime_ns: int
    content_hash: str


def default_index_dir(root: Path, index_dir: str | None) -> Path:
    """Where the store of a workspace root lives: `index_dir` if set, else the user's cache folder, keyed by root."""
    resolved = root.resolve()
    digest = hashlib.sha1(str(resolved).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", resolved.name or "root")[:40]
    base = Path(index_dir).expanduser() if index_dir else Path(platformdirs.user_cache_dir("maguyva-lsp"))
    return base / f"{name}-{digest}"


class StoreError(Exception):
    """The store could not be opened or written; the engine then works in memory only."""


class AnalysisStore:
    """Per-file analyses on disk. One process at a time writes (an advisory lock); others open it read-only."""

    def __init__(self, folder: Path, fingerprint: str) -> None:
        """Open or create the store in `folder`; `fingerprint` names the settings that shape analyses (chunk size...).

        A store of another schema version or fingerprint, or one SQLite cannot read, is discarded and rebuilt."""
        self.folder = folder
        self.fingerprint = fingerprint
        self._writer_lock = ExclusiveLock(folder / LOCK_NAME)
        self._db_lock = threading.Lock()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create index folder {folder}: {exc}") from exc
        self.writable = self._acquire_writer_lock()
        self.discarded_reason: str | None = None
        self._db = self._open()

    # -- opening ------------------------------------------------------------------------------------------------------

    def _acquire_writer_lock(self) -> bool:
        try:
            held = self._writer_lock.try_acquire()
        except LockUnavailableError as exc:
            log.warning("%s: working read-only", exc)
            return False
        if not held:
            log.info("another Maguyva process writes the store in %s: this one reads it and keeps changes in memory",
                     self.folder)  # fmt: skip
        return held

    def _open(self) -> sqlite3.Connection:
        path = self.folder / DB_NAME
        try:
            db = self._connect(path)
            reason = self._incompatibility(db)
        except sqlite3.DatabaseError as exc:
            db, reason = None, f"unreadable store ({exc})"
        if reason is None and db is not None:
            return db
        self.discarded_reason = reason
        if db is not None:
            db.close()
        if not self.writable:
            log.warning("store in %s is unusable (%s) and another process owns it: working in memory", self.folder,
                        reason)  # fmt: skip
            return self._connect(None)
        log.warning("discarding the store in %s and rebuilding: %s", self.folder, reason)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{path}{suffix}")
        db = self._connect(path)
        self._initialise(db)
        return db

    def _connect(self, path: Path | None) -> sqlite3.Connection:
        db = sqlite3.connect(":memory:" if path is None else str(path), check_same_thread=False, isolation_level=None)
        if path is not None:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=5000")
        if path is None:
            self._initialise(db)
        return db

    def _initialise(self, db: sqlite3.Connection) -> None:
        with _transaction(db):
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.execute(
                "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL,"
                " mtime_ns INTEGER NOT NULL, content_hash TEXT NOT NULL, analysis BLOB NOT NULL)"
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('fingerprint', ?)", (self.fingerprint,))

    def _incompatibility(self, db: sqlite3.Connection) -> str | None:
        """Why an existing database cannot be used, or None when it can."""
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            if self.writable:
                self._initialise(db)
                return None
            return "empty store"
        if not {"meta", "files"} <= tables:
            return "missing tables"
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("schema_version") != SCHEMA_VERSION:
            return f"schema version {meta.get('schema_version')} != {SCHEMA_VERSION}"
        if meta.get("fingerprint") != self.fingerprint:
            return "settings that shape the index changed"
        db.execute("SELECT path, size, mtime_ns, content_hash FROM files LIMIT 1").fetchall()
        return None

    # -- reading ------------------------------------------------------------------------------------------------------

    def stored_files(self) -> dict[str, StoredFile]:
        """Every stored file's identity, without unpacking analyses."""
        with self._db_lock:
            rows = self._db.execute("SELECT path, size, mtime_ns, content_hash FROM files").fetchall()
        return {row[0]: StoredFile(*row) for row in rows}

    def load(self, paths: Iterable[str]) -> Iterator[FileAnalysis]:
        """The stored analyses of these paths; a row that cannot be unpacked is dropped (and logged), not raised."""
        wanted = list(paths)
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            marks = ",".join("?" * len(part))
            with self._db_lock:
                rows = self._db.execute(f"SELECT path, analysis FROM files WHERE path IN ({marks})", part).fetchall()
            for path, blob in rows:
                analysis = _unpack(path, blob)
                if analysis is not None:
                    yield analysis

    # -- writing ------------------------------------------------------------------------------------------------------

    def save(self, analyses: Iterable[FileAnalysis], removed: Iterable[str] = ()) -> None:
        """Store these analyses and drop these paths, in one transaction. A read-only store does nothing."""
        if not self.writable:
            return
        rows = [
            (a.path, a.file.size, a.file.mtime_ns, a.content_hash, codec.encode(a))
            for a in analyses
        ]  # fmt: skip
        gone = [(p,) for p in removed]
        try:
            with self._db_lock, _transaction(self._db):
                if rows:
                    self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)", rows)
                if gone:
                    self._db.executemany("DELETE FROM files WHERE path = ?", gone)
        except sqlite3.Error as exc:
            log.error(
                "could not write the index store in %s: %s (the in-memory index stays correct; changes will be"
                " analysed again at the next start)",
                self.folder,
                exc,
                extra=BACKGROUND,
            )

    def close(self) -> None:
        with self._db_lock:
            self._db.close()
        self._writer_lock.release()


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _unpack(path: str, blob: bytes) -> FileAnalysis | None:
    try:
        analysis = codec.decode(blob)
    except Exception as exc:  # a damaged row: zlib, marshal, unpacking or value errors
        log.warning("stored analysis of %s is damaged (%s): re-analysing it", path, exc)
        return None
    if analysis.path != path:
        log.warning("stored analysis of %s is not what was expected: re-analysing it", path)
        return None
    return analysis

"""On-disk embedding cache keyed by (model, dimension, hash of the embedded text).

Fresh embeddings reach it slice by slice while a batch is embedded, so that work stopped midway (the process ends) is
not lost. Once a commit holds them in the vectors chain, the retriever drops them from here (`delete`): the chain is
their copy from then on, and the cache holds only what no commit holds (an interrupted batch, a failed write).
SQLite in WAL mode with a busy timeout is safe across processes; a corrupt file is discarded with a logged reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from maguyva_lsp.embed.base import BITS_PER_BYTE, Embeddings, quantize_int8

log = logging.getLogger(__name__)

CACHE_FILE = "embeddings.sqlite3"
# 2: rows keep int8 rescoring vectors with their scale (the vectors store's form) instead of float16 floats.
SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 10_000  # another process may hold the write lock while it stores a large batch
# Keys per SELECT: under SQLite's historical limit of 999 bound variables (3 are taken by model and dimension).
LOOKUP_BATCH = 900
TEXT_HASH_BYTES = 16
# Beyond this many rows the least recently used are dropped, down to PRUNE_TO_FRACTION of it.
MAX_CACHE_ROWS = 1_000_000
PRUNE_TO_FRACTION = 0.8
# A hit refreshes its last-used time at most this often, so that reads seldom turn into writes.
USED_REFRESH_SECONDS = 24 * 3600
# After a deletion the file is rewritten (VACUUM) when at least this many pages, and this fraction of it, are free.
COMPACT_MIN_FREE_PAGES = 256
COMPACT_FREE_FRACTION = 0.25

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    dimension INTEGER NOT NULL,
    text_hash BLOB NOT NULL,
    codes BLOB NOT NULL,
    rescore BLOB,
    used INTEGER NOT NULL,
    PRIMARY KEY (model, dimension, text_hash)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS embeddings_used ON embeddings (used);
"""

# A cached row: its packed codes, and (for a model that gives floats) its int8 rescoring vector and scale.
CachedRow = tuple[NDArray[np.uint8], NDArray[np.int8] | None, float | None]
_SCALE = np.dtype("<f4")


def text_hash(text: str) -> bytes:
    """The cache key of an embedded text (BLAKE2b, 128 bits)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=TEXT_HASH_BYTES).digest()


class EmbeddingCache:
    """Embeddings by (model, dimension, text hash). `path=None` keeps them in memory only.

    Floats are stored as the vectors store keeps them, int8 with a float32 scale per row (`quantize_int8`, per row):
    a row taken from the cache is the very row a fresh embedding gives, so a recovered index answers like a fresh one.
    Any database failure is logged and answered as a cache miss; a damaged file is replaced by an empty one.
    """

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._rows = 0
        self._open()

    @property
    def path(self) -> Path | None:
        return self._path

    def _open(self) -> None:
        """Open the file; a damaged one is replaced by an empty one; an unusable location (read-only, not a folder)
        leaves an in-memory cache for this session, with a logged reason."""
        try:
            try:
                self._conn = self._connect()
            except sqlite3.DatabaseError as exc:
                if self._path is None:
                    raise
                self._discard(f"cannot open it ({exc})")
                self._conn = self._connect()
        except (OSError, sqlite3.Error) as exc:
            log.warning("embedding cache %s unusable (%s); keeping embeddings in memory only", self._path, exc)
            self._path = None
            self._conn = self._connect()

    def _connect(self) -> sqlite3.Connection:
        target = ":memory:" if self._path is None else str(self._path)
        if self._path is not None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'embeddings'").fetchone()[0]
            if tables and version != SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"schema version {version}, expected {SCHEMA_VERSION}")
            if self._path is not None:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable across crashes of the process
            conn.executescript(_SCHEMA)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._rows = int(conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _discard(self, reason: str) -> None:
        """Delete a damaged cache file (and its WAL side files); the next open starts empty."""
        log.warning("discarding the embedding cache %s: %s", self._path, reason)
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        if self._path is not None:
            for suffix in ("", "-wal", "-shm", "-journal"):
                with contextlib.suppress(OSError):  # gone already, or not ours to delete: the reopen will tell
                    Path(f"{self._path}{suffix}").unlink()

    def _recover(self, exc: sqlite3.Error) -> None:
        """After a failed statement: a damaged file is replaced by an empty one; anything else (busy, read-only,
        disk full) only costs this call its cache answers."""
        if isinstance(exc, sqlite3.OperationalError) or not isinstance(exc, sqlite3.DatabaseError):
            log.warning("embedding cache unavailable for this batch: %s", exc)
            return
        self._discard(str(exc))
        try:
            self._conn = self._connect()
        except (OSError, sqlite3.Error) as again:
            log.warning("embedding cache disabled: %s", again)
            self._conn = None

    def __len__(self) -> int:
        return self._rows

    def get(self, model: str, dimension: int, keys: Sequence[bytes]) -> dict[bytes, CachedRow]:
        """The cached embeddings among `keys` (a miss is simply absent)."""
        found: dict[bytes, CachedRow] = {}
        if not keys:
            return found
        width = dimension // BITS_PER_BYTE
        now = int(time.time())
        stale: list[bytes] = []
        with self._lock:
            if self._conn is None:
                return found
            try:
                unique = list(dict.fromkeys(keys))
                for start in range(0, len(unique), LOOKUP_BATCH):
                    part = unique[start : start + LOOKUP_BATCH]
                    marks = ",".join("?" * len(part))
                    rows = self._conn.execute(
                        "SELECT text_hash, codes, rescore, used FROM embeddings "
                        f"WHERE model = ? AND dimension = ? AND text_hash IN ({marks})",
                        (model, dimension, *part),
                    ).fetchall()
                    for key, codes, rescore, used in rows:
                        decoded = _decode(codes, rescore, width, dimension)
                        if decoded is not None:
                            found[bytes(key)] = decoded
                            if used < now - USED_REFRESH_SECONDS:
                                stale.append(bytes(key))
                if stale:
                    with self._conn:
                        self._conn.execute("BEGIN IMMEDIATE")
                        self._conn.executemany(
                            "UPDATE embeddings SET used = ? WHERE model = ? AND dimension = ? AND text_hash = ?",
                            [(now, model, dimension, key) for key in stale],
                        )
            except sqlite3.Error as exc:
                self._recover(exc)
                return {}
        return found

    def put(self, model: str, dimension: int, keys: Sequence[bytes], embeddings: Embeddings) -> None:
        """Store one embedding per key (rows of `embeddings` in the same order)."""
        if len(keys) != len(embeddings):
            raise ValueError(f"{len(keys)} keys for {len(embeddings)} embeddings")
        if not keys:
            return
        now = int(time.time())
        rescore = None if embeddings.floats is None else quantize_int8(embeddings.floats)
        rows = [
            (
                model, dimension, key, embeddings.codes[i].tobytes(),
                None if rescore is None else rescore[0][i].tobytes() + rescore[1][i : i + 1].astype(_SCALE).tobytes(),
                now,
            )
            for i, key in enumerate(keys)
        ]  # fmt: skip
        with self._lock:
            if self._conn is None:
                return
            try:
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    before = self._conn.total_changes
                    self._conn.executemany("INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?, ?, ?, ?)", rows)
                    self._rows += self._conn.total_changes - before
                if self._rows > MAX_CACHE_ROWS:
                    self._prune_locked()
            except sqlite3.Error as exc:
                self._recover(exc)

    def keys(self, model: str, dimension: int) -> set[bytes]:
        """Every key cached for this model and dimension."""
        with self._lock:
            if self._conn is None:
                return set()
            try:
                rows = self._conn.execute(
                    "SELECT text_hash FROM embeddings WHERE model = ? AND dimension = ?", (model, dimension)
                ).fetchall()
            except sqlite3.Error as exc:
                self._recover(exc)
                return set()
        return {bytes(key) for (key,) in rows}

    def delete(self, model: str, dimension: int, keys: Collection[bytes]) -> None:
        """Drop these keys' rows (the vectors chain holds them now), then give the freed pages back to the file
        system when they are a good part of it: a cold build's whole cache is dropped this way once committed."""
        if not keys:
            return
        with self._lock:
            if self._conn is None:
                return
            try:
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    self._delete_locked(model, dimension, keys)
                self._rows = int(self._conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
                self._compact_locked()
            except sqlite3.Error as exc:
                self._recover(exc)

    def _delete_locked(self, model: str, dimension: int, keys: Collection[bytes]) -> None:
        """Row by row for a few keys; for most of the table, empty it (SQLite's truncation: no per-row work) and put
        back the rows to keep: a cold build's whole cache leaves this way once committed."""
        assert self._conn is not None
        if len(keys) * 2 < self._rows:
            self._conn.executemany(
                "DELETE FROM embeddings WHERE model = ? AND dimension = ? AND text_hash = ?",
                [(model, dimension, key) for key in keys],
            )
            return
        dropped = keys if isinstance(keys, (set, frozenset)) else set(keys)
        kept = [
            row
            for row in self._conn.execute("SELECT * FROM embeddings")
            if not (row[0] == model and row[1] == dimension and bytes(row[2]) in dropped)
        ]
        self._conn.execute("DELETE FROM embeddings")
        self._conn.executemany("INSERT INTO embeddings VALUES (?, ?, ?, ?, ?, ?)", kept)

    def _compact_locked(self) -> None:
        assert self._conn is not None
        free = int(self._conn.execute("PRAGMA freelist_count").fetchone()[0])
        pages = int(self._conn.execute("PRAGMA page_count").fetchone()[0])
        if free >= COMPACT_MIN_FREE_PAGES and free >= pages * COMPACT_FREE_FRACTION:
            self._conn.execute("VACUUM")
            if self._path is not None:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _prune_locked(self) -> None:
        assert self._conn is not None
        excess = self._rows - int(MAX_CACHE_ROWS * PRUNE_TO_FRACTION)
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute(
                "DELETE FROM embeddings WHERE (model, dimension, text_hash) IN "
                "(SELECT model, dimension, text_hash FROM embeddings ORDER BY used LIMIT ?)",
                (excess,),
            )
        self._rows = int(self._conn.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        log.info("embedding cache pruned to %d rows", self._rows)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _decode(codes: bytes, rescore: bytes | None, width: int, dimension: int) -> CachedRow | None:
    """A stored row as arrays, or None when its sizes are wrong (treated as a miss)."""
    if len(codes) != width:
        return None
    code_row = np.frombuffer(codes, dtype=np.uint8).copy()
    if rescore is None:
        return code_row, None, None
    if len(rescore) != dimension + _SCALE.itemsize:
        return None
    scale = float(np.frombuffer(rescore, dtype=_SCALE, offset=dimension)[0])
    return code_row, np.frombuffer(rescore, dtype=np.int8, count=dimension).copy(), scale

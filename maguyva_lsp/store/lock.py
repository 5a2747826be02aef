"""A cross-process exclusive lock on a file, the same on Linux, macOS and Windows (the `filelock` package).

One small interface so the store never touches a platform's locking itself: `flock` on POSIX and `LockFileEx` on
Windows are filelock's job. `filelock` is imported on first use, not at module level: importing it loads `fcntl` on
POSIX, and the server's import path must load nothing POSIX-only (a test checks the imported module set). The lock is
advisory (it binds only processes that ask for it), not reentrant, and released when the holder closes it or exits.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

log = logging.getLogger(__name__)

# How often a blocking acquire looks again while another process holds the lock.
POLL_SECONDS = 0.05


class LockUnavailableError(OSError):
    """The lock file cannot be created or this file system cannot lock it (not: another process holds it)."""


class ExclusiveLock:
    """An exclusive lock on `path`, held by at most one ExclusiveLock at a time across every process.

    Two instances on one path exclude each other even inside one process (each has its own handle), so a second
    store opened on the same folder in the same process sees the first as its owner, as another process would."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._guard = threading.Lock()
        self._lock: Any = None  # a filelock.BaseFileLock while held

    @property
    def held(self) -> bool:
        return self._lock is not None

    def try_acquire(self) -> bool:
        """Take the lock if it is free: True when this instance holds it now, False when another holder has it.

        Raises LockUnavailableError when the lock file cannot be created or locked at all (a read-only folder, a file
        system without locks)."""
        return self.acquire(timeout=0)

    def acquire(self, timeout: float | None = None) -> bool:
        """Wait up to `timeout` seconds (None: forever) for the lock; True once held, False on timeout."""
        with self._guard:
            if self._lock is not None:
                return True
            from filelock import FileLock, Timeout  # first use only: see the module docstring

            lock = FileLock(
                self.path,
                timeout=-1 if timeout is None else max(timeout, 0.0),
                thread_local=False,  # taken on one thread (the store's opener), released on another (shutdown)
                fallback_to_soft=False,  # a marker file would outlive a crash and lock every later start out
                poll_interval=POLL_SECONDS,
            )
            try:
                lock.acquire()
            except Timeout:
                return False
            except (OSError, NotImplementedError, ValueError) as exc:
                raise LockUnavailableError(f"cannot lock {self.path}: {exc}") from exc
            self._lock = lock
            return True

    def release(self) -> None:
        """Let go of the lock (nothing if not held). The lock file stays: waiters share its inode."""
        with self._guard:
            lock, self._lock = self._lock, None
        if lock is not None:
            try:
                lock.release(force=True)
            except OSError as exc:  # closing the handle frees the lock in any case
                log.debug("releasing %s: %s", self.path, exc)

    def __enter__(self) -> ExclusiveLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

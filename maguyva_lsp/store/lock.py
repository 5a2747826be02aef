"""A cross-process exclusive lock on a file, the same on Linux, macOS and Windows.

One small interface so the store never touches a platform's locking elsewhere. On POSIX it is `flock` on an open
descriptor, done here with the standard library: the `filelock` package does the same there but costs 0.1-0.2 s to
import, paid by every CLI call and server start. Elsewhere (`LockFileEx` on Windows) it is filelock's job. Both are
imported on first use, not at module level: the server's import path must load nothing POSIX-only (a test checks the
imported module set). The lock is advisory (it binds only processes that ask for it), not reentrant, and released
when the holder closes it or exits (the OS drops a dead process's locks).
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

log = logging.getLogger(__name__)

# How often a blocking acquire looks again while another process holds the lock.
POLL_SECONDS = 0.05
# Whether locks go through the filelock package by default: only where the OS is not POSIX (see the docstring).
USE_FILELOCK = os.name != "posix"


class LockUnavailableError(OSError):
    """The lock file cannot be created or this file system cannot lock it (not: another process holds it)."""


class ExclusiveLock:
    """An exclusive lock on `path`, held by at most one ExclusiveLock at a time across every process.

    Two instances on one path exclude each other even inside one process (each has its own handle), so a second
    store opened on the same folder in the same process sees the first as its owner, as another process would."""

    def __init__(self, path: Path, *, use_filelock: bool | None = None) -> None:
        """`use_filelock`: take the lock through the filelock package (None: USE_FILELOCK)."""
        self.path = Path(path)
        self._guard = threading.Lock()
        self._filelock = USE_FILELOCK if use_filelock is None else use_filelock
        self._lock: Any = None  # while held: a filelock.BaseFileLock, or the locked descriptor (an int)

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
            if not self._filelock:
                fd = _flock(self.path, timeout)
                if fd is None:
                    return False
                self._lock = fd
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
        if isinstance(lock, int):
            os.close(lock)  # closing the descriptor frees its flock
        elif lock is not None:
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


def _flock(path: Path, timeout: float | None) -> int | None:
    """An open descriptor of `path` holding an exclusive flock, or None when another holder kept it for `timeout`
    seconds (None: wait for ever). Two descriptors exclude each other even in one process (flock binds the open file
    description)."""
    import fcntl  # POSIX only, first use only: see the module docstring

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise LockUnavailableError(f"cannot lock {path}: {exc.strerror or exc}") from exc
    deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                os.close(fd)  # no locks on this file system (ENOLCK, EOPNOTSUPP...)
                raise LockUnavailableError(f"cannot lock {path}: {exc.strerror or exc}") from exc
        if deadline is not None and time.monotonic() >= deadline:
            os.close(fd)
            return None
        time.sleep(POLL_SECONDS)

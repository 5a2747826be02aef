"""File-system events (watchdog) → debounced batches of changed paths, handed to a callback.

A burst such as a `git checkout` of hundreds of files arrives as one batch: the batch is delivered once no event came
for DEBOUNCE_SECONDS, or at the latest MAX_DELAY_SECONDS after its first event, so a never-ending trickle still lands.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from maguyva_lsp.failures import BACKGROUND
from maguyva_lsp.scan.ignore import ALWAYS_SKIPPED_DIRS

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.15
MAX_DELAY_SECONDS = 1.0

BatchCallback = Callable[[list[str]], None]
# The events that can change a file. Reads (opened, closed without writing) are left out where the platform filters
# (inotify's mask): otherwise a `grep -r` or an indexer elsewhere over the folder sends two events per file it reads,
# each one made into a Python object on the watcher's thread, and a search answered meanwhile waits for the GIL
# (ripgrep over the stdlib: ~4,600 events, +50-100 ms on the next search).
CHANGE_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    DirCreatedEvent,
    FileModifiedEvent,
    DirModifiedEvent,
    FileDeletedEvent,
    DirDeletedEvent,
    FileMovedEvent,
    DirMovedEvent,
    FileClosedEvent,
]


class _Collector(FileSystemEventHandler):
    def __init__(self, watcher: FolderWatcher) -> None:
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # reads change nothing (where the platform does not filter them)
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                path = os.fsdecode(raw)
                if not _in_skipped_dir(path):
                    self._watcher.add(path)


def _in_skipped_dir(path: str) -> bool:
    return any(part in ALWAYS_SKIPPED_DIRS for part in Path(path).parts)


class FolderWatcher:
    """Watches one folder recursively and delivers debounced batches of absolute paths to `on_batch`."""

    def __init__(self, root: Path, on_batch: BatchCallback) -> None:
        self.root = root
        self._on_batch = on_batch
        self._pending: dict[str, None] = {}
        self._first_event = 0.0
        self._last_event = 0.0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._observer = Observer()
        self._observer.daemon = True
        self._flusher = threading.Thread(target=self._flush_loop, name=f"maguyva-watch-{root.name}", daemon=True)

    def start(self) -> bool:
        """Start watching; False (logged) when the platform refuses (e.g. inotify watch limits)."""
        try:
            self._observer.schedule(_Collector(self), str(self.root), recursive=True, event_filter=CHANGE_EVENTS)
            self._observer.start()
        except OSError as exc:
            log.warning("cannot watch %s for changes (%s): edits on disk will be seen on the next re-index",
                        self.root, exc)  # fmt: skip
            return False
        self._flusher.start()
        return True

    def add(self, path: str) -> None:
        now = time.monotonic()
        with self._lock:
            if not self._pending:
                self._first_event = now
            self._pending[path] = None
            self._last_event = now
        self._wake.set()

    def take_pending(self) -> list[str]:
        """The paths changed but not yet delivered, now, without waiting for the debounce (a caller about to answer
        a question applies them first, so an edit just saved is seen by the very next question)."""
        with self._lock:
            batch = list(self._pending)
            self._pending.clear()
        return batch

    def _flush_loop(self) -> None:
        while not self._stopped.is_set():
            self._wake.wait()
            if self._stopped.is_set():
                return
            batch: list[str] | None = None
            while True:
                with self._lock:
                    if not self._pending:  # taken by take_pending(): nothing left to deliver
                        self._wake.clear()
                        break
                    now = time.monotonic()
                    quiet = now - self._last_event >= DEBOUNCE_SECONDS
                    overdue = now - self._first_event >= MAX_DELAY_SECONDS
                    if self._pending and (quiet or overdue):
                        batch = list(self._pending)
                        self._pending.clear()
                        self._wake.clear()
                        break
                    wait = min(
                        DEBOUNCE_SECONDS - (now - self._last_event), MAX_DELAY_SECONDS - (now - self._first_event)
                    )
                time.sleep(max(wait, 0.01))
            if batch is None:
                continue
            try:
                self._on_batch(batch)
            except Exception:  # the callback's failure must not stop watching
                log.exception("handling a batch of %d file changes failed", len(batch), extra=BACKGROUND)

    def stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        try:
            self._observer.stop()
            self._observer.join(timeout=2)
        except RuntimeError:  # never started
            pass

"""File-system events (watchdog) → debounced batches of changed paths, handed to a callback.

A burst such as a `git checkout` of hundreds of files arrives as one batch: the batch is delivered once no event came
for DEBOUNCE_SECONDS, or at the latest MAX_DELAY_SECONDS after its first event, so a never-ending trickle still lands.
A batch of a few paths (an editor saving a file) goes after SMALL_BATCH_QUIET_SECONDS of quiet instead: a save is
searchable sooner, and a burst that has only begun waits for the longer quiet once it passes SMALL_BATCH_PATHS.

A folder's "modified" event that comes with an event for a file inside it is dropped: the platform adds one to every
file created, written, moved or deleted (inotify: to each of those events), and a folder in a batch is scanned
whole, so a save at the top of the workspace re-checked every file in it (the stdlib: 1-4 s per save). A folder
modified with no event for anything inside it (a platform that reports only the folder) is still delivered.
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
SMALL_BATCH_PATHS = 4
SMALL_BATCH_QUIET_SECONDS = 0.04

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
        folder_modified = isinstance(event, DirModifiedEvent)
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if raw:
                path = os.fsdecode(raw)
                if not _in_skipped_dir(path):
                    self._watcher.add(path, folder_modified=folder_modified)


def _in_skipped_dir(path: str) -> bool:
    return any(part in ALWAYS_SKIPPED_DIRS for part in Path(path).parts)


class FolderWatcher:
    """Watches one folder recursively and delivers debounced batches of absolute paths to `on_batch`."""

    def __init__(self, root: Path, on_batch: BatchCallback) -> None:
        self.root = root
        self._on_batch = on_batch
        self._pending: dict[str, None] = {}
        # Folders pending only for a "modified" event of their own (dropped once a file inside them comes), and the
        # folders whose files came lately, with when (their own "modified" events are then dropped).
        self._modified_folders: set[str] = set()
        self._parents_seen: dict[str, float] = {}
        self._first_event = 0.0
        self._last_event = 0.0
        self._lock = threading.Lock()
        # Held from taking a batch to handing it to `on_batch`: a `take_pending` meanwhile waits for the hand-over,
        # so a batch is never in neither place (taken, not yet delivered) when a caller is about to answer.
        self._delivering = threading.Lock()
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

    def add(self, path: str, *, folder_modified: bool = False) -> None:
        """A path changed. `folder_modified`: a folder's own "modified" event, dropped when it only echoes an event
        for a file inside it (before or after it)."""
        now = time.monotonic()
        with self._lock:
            if folder_modified:
                seen = self._parents_seen.get(path)
                if seen is not None and now - seen <= MAX_DELAY_SECONDS:
                    return
            else:
                parent = os.path.dirname(path)
                self._parents_seen[parent] = now
                if parent in self._modified_folders:
                    self._modified_folders.discard(parent)
                    self._pending.pop(parent, None)
            if not self._pending:
                self._first_event = now
            if folder_modified and path not in self._pending:
                self._modified_folders.add(path)
            elif not folder_modified:
                self._modified_folders.discard(path)
            self._pending[path] = None
            self._last_event = now
        self._wake.set()

    def _taken(self) -> list[str]:
        """The pending paths, handed out (under the lock); folders seen long ago are forgotten."""
        batch = list(self._pending)
        self._pending.clear()
        self._modified_folders.clear()
        horizon = time.monotonic() - MAX_DELAY_SECONDS
        self._parents_seen = {f: t for f, t in self._parents_seen.items() if t >= horizon}
        return batch

    def take_pending(self) -> list[str]:
        """The paths changed but not yet delivered, now, without waiting for the debounce (a caller about to answer
        a question applies them first, so an edit just saved is seen by the very next question). A batch the flusher
        has just taken is handed to `on_batch` before this returns."""
        with self._delivering, self._lock:
            return self._taken()

    def _flush_loop(self) -> None:
        while not self._stopped.is_set():
            self._wake.wait()
            if self._stopped.is_set():
                return
            while True:
                with self._delivering:
                    with self._lock:
                        batch: list[str] | None = None
                        if not self._pending:  # taken by take_pending(): nothing left to deliver
                            self._wake.clear()
                            break
                        now = time.monotonic()
                        small = len(self._pending) <= SMALL_BATCH_PATHS
                        debounce = SMALL_BATCH_QUIET_SECONDS if small else DEBOUNCE_SECONDS
                        quiet = now - self._last_event >= debounce
                        overdue = now - self._first_event >= MAX_DELAY_SECONDS
                        if quiet or overdue:
                            batch = self._taken()
                            self._wake.clear()
                        wait = min(debounce - (now - self._last_event), MAX_DELAY_SECONDS - (now - self._first_event))
                    if batch is not None:
                        self._deliver(batch)
                        break
                time.sleep(max(wait, 0.01))

    def _deliver(self, batch: list[str]) -> None:
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

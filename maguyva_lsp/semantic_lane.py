"""The semantic retriever's own writer thread: embedding never holds back the other modalities or file updates.

Embedding is the slowest step of indexing (minutes with a remote model under rate limits). Batches reach the lane in
the order the engine applied them and are applied to the semantic retriever one after another, while text,
structural and graph answers are already current; until the lane is idle, searches say their results are partial.
Background checks (reading the stored vectors' checksums) run on the same thread, in order, without making the lane
busy: the vectors are complete while they are checked. Closing drops what is still queued: what was embedded stays in
the embedding cache, and the next start catches the vectors up from there.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from maguyva_lsp.failures import BACKGROUND
from maguyva_lsp.model import ChangeBatch
from maguyva_lsp.retrieve.base import Retriever

log = logging.getLogger(__name__)


class SemanticLane:
    """Applies change batches to one retriever on a dedicated thread, in submission order."""

    def __init__(self, retriever: Retriever, on_idle: Callable[[], None] | None = None) -> None:
        """`on_idle` runs on the lane's thread each time it has caught up (the engine commits the vectors then)."""
        self._retriever = retriever
        self._on_idle = on_idle
        self._queue: queue.Queue[_Item | None] = queue.Queue()
        self._pending = 0
        self._closing = False
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._thread = threading.Thread(target=self._run, name="maguyva-embed", daemon=True)
        self._thread.start()

    @property
    def busy(self) -> bool:
        return not self._idle.is_set()

    @property
    def pending(self) -> int:
        """Batches submitted and not yet applied."""
        return self._pending

    def submit(self, batch: ChangeBatch) -> None:
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put(_Item(batch, counted=True))

    def submit_call(self, task: Callable[[], None]) -> None:
        """Run `task` on the lane's thread, in order with the batches (work that must see the vectors as they are
        after the batches before it, and come before those after)."""
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put(_Item(task, counted=True))

    def submit_background(self, task: Callable[[], None]) -> None:
        """Run `task` on the lane's thread, in order, without counting it as pending work (a check of what is
        already complete: searches are not told their results are partial meanwhile). A task that finds work to do
        submits it."""
        self._queue.put(_Item(task, counted=False))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every submitted batch is applied; False when the timeout came first."""
        return self._idle.wait(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                if self._closing:
                    continue  # dropped: the next start catches up from the embedding cache
                if isinstance(item.work, ChangeBatch):
                    self._retriever.apply(item.work)
                else:
                    item.work()
            except Exception:  # its status says why; the lane keeps serving later batches
                log.exception("the semantic retriever failed to apply a batch", extra=BACKGROUND)
            finally:
                if item.counted:
                    with self._lock:
                        self._pending -= 1
                        caught_up = self._pending == 0
                    if caught_up:
                        self._caught_up()

    def _caught_up(self) -> None:
        try:
            if self._on_idle is not None and not self._closing:  # closing: the engine commits once, itself
                self._on_idle()
        except Exception:
            log.exception("committing the semantic index failed", extra=BACKGROUND)
        finally:
            with self._lock:
                if self._pending == 0:
                    self._idle.set()

    def close(self, timeout: float = 30.0) -> None:
        """Finish what is being applied (up to `timeout`), drop what is still queued, then stop the thread. (To keep
        everything, `wait` first.)"""
        self._closing = True
        self._queue.put(None)
        self._thread.join(timeout)


@dataclass(frozen=True, slots=True)
class _Item:
    work: ChangeBatch | Callable[[], None]
    counted: bool  # pending work (the lane is busy until it is done), or a background check

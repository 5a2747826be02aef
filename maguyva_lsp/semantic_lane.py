"""The semantic retriever's own writer thread: embedding never holds back the other modalities or file updates.

Embedding is the slowest step of indexing (minutes with a remote model under rate limits). Batches reach the lane in
the order the engine applied them and are applied to the semantic retriever one after another, while text,
structural and graph answers are already current; until the lane is idle, searches say their results are partial.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

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
        self._queue: queue.Queue[ChangeBatch | Callable[[], None] | None] = queue.Queue()
        self._pending = 0
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
        self._queue.put(batch)

    def submit_call(self, task: Callable[[], None]) -> None:
        """Run `task` on the lane's thread, in order with the batches (work that must see the vectors as they are
        after the batches before it, and come before those after)."""
        with self._lock:
            self._pending += 1
            self._idle.clear()
        self._queue.put(task)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every submitted batch is applied; False when the timeout came first."""
        return self._idle.wait(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            try:
                if isinstance(item, ChangeBatch):
                    self._retriever.apply(item)
                else:
                    item()
            except Exception:  # its status says why; the lane keeps serving later batches
                log.exception("the semantic retriever failed to apply a batch", extra=BACKGROUND)
            finally:
                with self._lock:
                    self._pending -= 1
                    caught_up = self._pending == 0
                if caught_up:
                    self._caught_up()

    def _caught_up(self) -> None:
        try:
            if self._on_idle is not None:
                self._on_idle()
        except Exception:
            log.exception("committing the semantic index failed", extra=BACKGROUND)
        finally:
            with self._lock:
                if self._pending == 0:
                    self._idle.set()

    def close(self, timeout: float = 30.0) -> None:
        """Finish what was submitted (up to `timeout`), then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout)

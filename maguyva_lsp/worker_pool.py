"""The analysis pool's worker processes: how many, how they are made, and a start ahead of need.

A cold build's workers are spawned Pythons that each import the analysis before their first job (~0.35 s). The
language server spends its first second importing pygls and lsprotocol (lsprotocol.types alone: 0.45 s) on one core
while the other idles, and only then learns which folder to index: `prestart` spawns the workers before that import,
so that their start overlaps it (the MCP server likewise, importing the MCP SDK). The first pool the indexer makes
takes them (`take`) when it wants as many; a folder opened without needing a pool (a warm start, nothing changed)
lets them go (`discard`), as does a shutdown.

Kept free of the analysis's imports: the server calls `prestart` before it has imported anything heavy."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from typing import TYPE_CHECKING

from maguyva_lsp.worker_lifeline import watch_parent

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

log = logging.getLogger(__name__)

# A cold index's workers when the setting leaves it to us: one per core, at most this many (more only multiply the
# memory of the workers' heaps).
MAX_AUTO_WORKERS = 4
# The niceness of a language or MCP server's workers (`in_background`), as an editor's background indexing runs:
# the server's own threads go first on a busy core — its reply to `initialize`, the early open's hand-over of the
# first jobs, the answers it gives while it indexes — and the workers take the rest. Cold starts of the stdlib in
# alternating pairs: niceness 5 against 0 (6 pairs), initialize answered 1.22 → 0.96 s and text + structural 4.76 →
# 4.62 s; 10 against 5 (4 pairs), 4.61 → 4.53 s; 10 against 0 run to the end (3 pairs), ready 25.3 / 25.6 s: the
# build's total is the same CPU in another order. The command line's workers keep the caller's priority: `maguyva
# index` is the job itself.
BACKGROUND_NICENESS = 10


class _Priority:
    """The niceness new pools' workers take (0: the caller's)."""

    niceness = 0


_PRIORITY = _Priority()


def in_background() -> None:
    """This process serves (the language or MCP server): the workers of the pools it starts from now on run at
    BACKGROUND_NICENESS."""
    _PRIORITY.niceness = BACKGROUND_NICENESS


class _Prestarted:
    """The pool started ahead of need and its size, until someone takes it or lets it go."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pool: tuple[int, ProcessPoolExecutor] | None = None

    def pop(self) -> tuple[int, ProcessPoolExecutor] | None:
        with self.lock:
            found, self.pool = self.pool, None
        return found


_PRESTARTED = _Prestarted()


def worker_count(configured: int) -> int:
    """Workers for a cold index: the setting, or one per core (at most MAX_AUTO_WORKERS)."""
    if configured > 0:
        return configured
    return max(1, min(os.cpu_count() or 1, MAX_AUTO_WORKERS))


def new_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of `workers` spawned processes that exit when their owner dies without shutting it down."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: the server process has threads (event loop, watchers) that fork would copy mid-state.
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_start_worker,
        initargs=(os.getpid(), _PRIORITY.niceness),
    )


def _start_worker(parent: int, niceness: int) -> None:
    """Pool initializer: exit with the parent (worker_lifeline.py), at the niceness the pool was made with."""
    watch_parent(parent)
    if niceness and hasattr(os, "nice"):  # not on Windows: its workers keep the normal priority
        with contextlib.suppress(OSError):  # a limit on what this user may set: the caller's priority, as before
            os.nice(niceness)


def _warm_up() -> int:
    """Run in each prestarted worker: import the analysis and the segment build (what a segment job spends its
    imports on; the job's own module, which imports this one, follows with the first job)."""
    import maguyva_lsp.index.segment_build
    import maguyva_lsp.parse.analyze  # noqa: F401

    return os.getpid()


def _warm_up_follow_up() -> int:
    """Run in each worker of a cold build's follow-up pool: import what its merge and embedding jobs run."""
    import maguyva_lsp.index.segment_build
    import maguyva_lsp.retrieve.semantic_workers  # noqa: F401

    return os.getpid()


def warm_pool(workers: int, *, follow_up: bool = False) -> ProcessPoolExecutor:
    """A new pool whose `workers` processes start now, each importing what its jobs will run (the analysis, or with
    `follow_up` the merge and the embedding), instead of at their first job."""
    pool = new_pool(workers)
    try:
        for _ in range(workers):  # a spawn pool starts one process per job submitted while none is idle
            pool.submit(_warm_up_follow_up if follow_up else _warm_up)
    except Exception:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    return pool


def prestart(workers: int) -> None:
    """Spawn a pool of `workers` now, each importing the analysis (nothing when a pool would not be used: one core)."""
    if workers < 2:
        return
    with _PRESTARTED.lock:
        if _PRESTARTED.pool is not None:
            return
        try:
            pool = warm_pool(workers)
        except Exception:  # no workers ahead of need: the indexer starts its own pool as before
            log.warning("could not start the index workers ahead of need", exc_info=True)
            return
        _PRESTARTED.pool = (workers, pool)


def take(workers: int) -> ProcessPoolExecutor | None:
    """The prestarted pool if it has `workers` processes (it is then the caller's), else None (and it is let go)."""
    found = _PRESTARTED.pop()
    if found is None:
        return None
    if found[0] != workers:
        found[1].shutdown(wait=False, cancel_futures=True)
        return None
    return found[1]


def discard() -> None:
    """Let the prestarted workers go if nobody took them."""
    found = _PRESTARTED.pop()
    if found is not None:
        found[1].shutdown(wait=False, cancel_futures=True)

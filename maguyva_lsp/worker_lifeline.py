"""A worker process that outlives its parent exits.

The analysis pool's workers are spawned processes. When the process that owns the pool dies without shutting it
down — the editor SIGKILLs a server that did not exit in time, the out-of-memory killer, a crash — nothing tells
the workers: each holds the write end of the pool's own queues, so they never read end-of-file, and they sleep on
for ever, a few hundred megabytes each (seen: two 210 MB workers alive 49 minutes after their server was killed).

`watch_parent` is the pool's initializer: it starts a daemon thread that notices the parent is gone (the worker is
re-parented, so `os.getppid()` changes) and ends the worker at once. Polling, not Linux's PR_SET_PDEATHSIG: that
signal fires when the *thread* that spawned the worker exits, and the pool spawns workers from whichever thread
submits work, so it would kill live pools' workers; polling is portable too."""

from __future__ import annotations

import os
import threading
import time

# How often a worker checks its parent: a lost pool's workers are gone within about this long, and the check (one
# system call) costs nothing measurable.
PARENT_CHECK_SECONDS = 0.5

# The exit status of a worker whose parent is gone (no one reads it; it tells a core dump or a log what happened).
ORPHAN_EXIT_STATUS = 3


def watch_parent(parent: int | None = None, interval: float = PARENT_CHECK_SECONDS) -> None:
    """Pool initializer: exit this process as soon as its parent (`parent`, else the current one) is gone."""
    expected = os.getppid() if parent is None else parent
    thread = threading.Thread(target=_watch, args=(expected, interval), name="maguyva-parent-watch", daemon=True)
    thread.start()


def _watch(parent: int, interval: float) -> None:
    while True:
        if os.getppid() != parent:
            # os._exit, not sys.exit: the main thread may be deep in a job (or blocked on the pool's queue); no
            # cleanup of a pool whose owner is gone can help anyone.
            os._exit(ORPHAN_EXIT_STATUS)
        time.sleep(interval)

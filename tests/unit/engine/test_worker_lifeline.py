"""The analysis pool's workers end when the process that owns the pool is killed without shutting it down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import psutil

from maguyva_lsp.worker_lifeline import ORPHAN_EXIT_STATUS

# Generous: how long a lost worker may take to notice (it checks twice a second); this is a deadline for a real
# condition on a loaded machine, not a speed figure.
DEADLINE_SECONDS = 60

OWNER = textwrap.dedent(
    """
    import sys, time
    from maguyva_lsp.indexer import Analyzer

    analyzer = Analyzer(chunk_lines=40, workers=2)
    assert analyzer.map(abs, [-1, -2, -3, -4]) == [1, 2, 3, 4]
    print("ready", flush=True)
    time.sleep(600)
    """
)


def test_pool_workers_exit_when_their_owner_is_killed() -> None:
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        assert owner.stdout.readline().strip() == "ready"
        workers = [
            child
            for child in psutil.Process(owner.pid).children()
            if "spawn_main" in " ".join(child.cmdline())  # not the spawn context's resource tracker
        ]
        assert len(workers) == 2
        os.kill(owner.pid, signal.SIGKILL)
        owner.wait(timeout=DEADLINE_SECONDS)
        gone, alive = psutil.wait_procs(workers, timeout=DEADLINE_SECONDS)
        assert not alive, f"workers outlived their killed owner: {[p.pid for p in alive]}"
        assert {process.returncode for process in gone} <= {ORPHAN_EXIT_STATUS, None}
    finally:
        if owner.poll() is None:
            owner.kill()
        for child in psutil.Process().children(recursive=True):
            child.kill()


def test_a_worker_whose_parent_is_gone_exits_with_its_status() -> None:
    # The watcher is told to expect a parent this process does not have: it is an orphan at once.
    code = "from maguyva_lsp.worker_lifeline import watch_parent; import time; watch_parent(parent=-1); time.sleep(60)"
    result = subprocess.run([sys.executable, "-c", code], check=False, timeout=DEADLINE_SECONDS)
    assert result.returncode == ORPHAN_EXIT_STATUS


def test_a_worker_with_its_parent_alive_stays() -> None:
    code = textwrap.dedent(
        """
        import time
        from maguyva_lsp.worker_lifeline import watch_parent
        watch_parent(interval=0.01)
        time.sleep(0.5)  # fifty checks of a live parent
        print("still here")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=DEADLINE_SECONDS
    )
    assert result.returncode == 0 and result.stdout.strip() == "still here"

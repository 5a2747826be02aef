"""Workers started ahead of need (worker_pool.py): the first analyzer of their size takes them; any other size, or
nobody, lets them go, and their processes end."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import psutil
import pytest

from maguyva_lsp import worker_pool
from maguyva_lsp.indexer import Analyzer

# A deadline for a real condition on a loaded machine (processes ending), not a speed figure.
DEADLINE_SECONDS = 60


def _workers(pool: ProcessPoolExecutor) -> list[psutil.Process]:
    """The pool's processes (other tests of a run may leave children of their own, zombies among them)."""
    return [psutil.Process(pid) for pid in pool._processes]  # type: ignore[attr-defined]


def _prestarted() -> ProcessPoolExecutor:
    found = worker_pool._PRESTARTED.pool
    assert found is not None and found[0] == 2
    return found[1]


@pytest.fixture(autouse=True)
def _nothing_left() -> object:
    worker_pool.discard()
    yield
    worker_pool.discard()


def test_the_first_analyzer_of_their_size_takes_the_prestarted_workers() -> None:
    worker_pool.prestart(2)
    pool = _prestarted()
    pids = {p.pid for p in _workers(pool)}
    assert len(pids) == 2 and all(psutil.pid_exists(pid) for pid in pids)  # spawned at once, before anyone asked
    analyzer = Analyzer(chunk_lines=40, workers=2)
    try:
        assert analyzer.map(abs, [-1, -2, -3, -4]) == [1, 2, 3, 4]
        assert analyzer._pool is pool
        assert {p.pid for p in _workers(pool)} == pids  # no new processes: the prestarted ones did the work
        assert worker_pool.take(2) is None  # taken once
    finally:
        analyzer.close()


@pytest.mark.parametrize("let_go", ["another size", "nobody"])
def test_prestarted_workers_nobody_takes_end(let_go: str) -> None:
    worker_pool.prestart(2)
    workers = _workers(_prestarted())
    assert len(workers) == 2
    if let_go == "another size":
        assert worker_pool.take(3) is None
    else:
        worker_pool.discard()
    _, alive = psutil.wait_procs(workers, timeout=DEADLINE_SECONDS)
    assert not alive
    assert worker_pool.take(2) is None


def test_one_core_starts_nothing() -> None:
    worker_pool.prestart(1)
    assert worker_pool._PRESTARTED.pool is None


def test_the_next_pool_starts_ahead_and_takes_over_when_the_pool_advances() -> None:
    """`start_next` spawns the pool that follows the current one while it works; `advance` lets the current workers
    go and the next call runs in the started ones; `release` lets both go."""
    analyzer = Analyzer(chunk_lines=40, workers=2)
    try:
        assert analyzer.map(abs, [-1, -2]) == [1, 2]
        first = analyzer._pool
        assert isinstance(first, ProcessPoolExecutor)
        analyzer.start_next()
        following = analyzer._next
        assert isinstance(following, ProcessPoolExecutor) and following is not first
        ahead = _workers(following)
        assert len(ahead) == 2  # spawned now, before any job asked for them
        analyzer.start_next()
        assert analyzer._next is following  # started once
        assert analyzer.map(abs, [-3]) == [3] and analyzer._pool is first  # the current pool still serves
        old = _workers(first)
        assert analyzer.advance()
        _, alive = psutil.wait_procs(old, timeout=DEADLINE_SECONDS)
        assert not alive
        assert analyzer.pool_running  # the next pool waits for the next call
        assert analyzer.map(abs, [-4, -5]) == [4, 5]
        assert analyzer._pool is following and analyzer._next is None
        assert {p.pid for p in _workers(following)} == {p.pid for p in ahead}
        analyzer.start_next()
        unused = _workers(analyzer._next)  # type: ignore[arg-type]
        assert analyzer.release()
        assert not analyzer.pool_running
        _, alive = psutil.wait_procs([*ahead, *unused], timeout=DEADLINE_SECONDS)
        assert not alive
    finally:
        analyzer.close()


def test_a_closed_analyzer_lets_the_next_pool_go_and_starts_none() -> None:
    analyzer = Analyzer(chunk_lines=40, workers=2)
    analyzer.start_next()
    started = analyzer._next
    assert isinstance(started, ProcessPoolExecutor)
    workers = _workers(started)
    analyzer.close()
    _, alive = psutil.wait_procs(workers, timeout=DEADLINE_SECONDS)
    assert not alive and not analyzer.pool_running
    analyzer.start_next()
    assert analyzer._next is None
    single = Analyzer(chunk_lines=40, workers=1)
    single.start_next()
    assert single._next is None  # one worker: no pool at all


_MAIN_MODULE_CHILD = """
import importlib.abc, runpy, sys
from maguyva_lsp import worker_pool

seen = []


class Watch(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "maguyva_lsp.cli":  # whether the workers were started before the command line's imports
            seen.append(worker_pool._PRESTARTED.pool is not None)
        return None


sys.meta_path.insert(0, Watch())
sys.argv = ["maguyva_lsp", *sys.argv[1:]]
try:
    runpy.run_module("maguyva_lsp", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
worker_pool.discard()
print("SEEN", seen, "NICENESS", worker_pool._PRIORITY.niceness)
"""


@pytest.mark.parametrize(("flags", "started"), [(["--no-such-flag"], True), (["--version"], False)])
def test_python_m_starts_the_workers_before_the_command_line_imports(flags: list[str], started: bool) -> None:
    """`python -m maguyva_lsp` (how editors start the server) spawns the cold build's workers before it imports the
    command line (numpy among its imports); asked only for its version or help, it starts none."""
    done = subprocess.run(
        [sys.executable, "-c", _MAIN_MODULE_CHILD, *flags],
        capture_output=True,
        text=True,
        timeout=DEADLINE_SECONDS,
        check=False,
    )
    assert f"SEEN [{started}]" in done.stdout, done.stdout + done.stderr
    niceness = worker_pool.BACKGROUND_NICENESS if started else 0  # a server's workers index in the background
    assert f"NICENESS {niceness}" in done.stdout


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process niceness on this platform (Windows)")
def test_a_servers_workers_run_at_background_niceness_and_the_command_lines_at_the_callers() -> None:
    own = os.nice(0)
    pool = worker_pool.new_pool(1)
    try:
        assert pool.submit(os.nice, 0).result(timeout=DEADLINE_SECONDS) == own  # `maguyva index`: the job itself
    finally:
        pool.shutdown()
    worker_pool.in_background()
    try:
        pool = worker_pool.new_pool(1)
        try:
            expected = min(own + worker_pool.BACKGROUND_NICENESS, 19)
            assert pool.submit(os.nice, 0).result(timeout=DEADLINE_SECONDS) == expected
        finally:
            pool.shutdown()
    finally:
        worker_pool._PRIORITY.niceness = 0
    assert os.nice(0) == own  # this process keeps its own

"""Workers started ahead of need (worker_pool.py): the first analyzer of their size takes them; any other size, or
nobody, lets them go, and their processes end."""

from __future__ import annotations

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

"""Workers started ahead of need (worker_pool.py): the first analyzer of their size takes them; any other size, or
nobody, lets them go, and their processes end."""

from __future__ import annotations

import psutil
import pytest

from maguyva_lsp import worker_pool
from maguyva_lsp.indexer import Analyzer

# A deadline for a real condition on a loaded machine (processes ending), not a speed figure.
DEADLINE_SECONDS = 60


def _workers() -> list[psutil.Process]:
    return [p for p in psutil.Process().children() if "spawn_main" in " ".join(p.cmdline())]


@pytest.fixture(autouse=True)
def _nothing_left() -> object:
    worker_pool.discard()
    yield
    worker_pool.discard()
    psutil.wait_procs(_workers(), timeout=DEADLINE_SECONDS)


def test_the_first_analyzer_of_their_size_takes_the_prestarted_workers() -> None:
    worker_pool.prestart(2)
    started = worker_pool._PRESTARTED.pool
    assert started is not None and started[0] == 2
    pids = {p.pid for p in _workers()}
    assert len(pids) == 2  # spawned at once, before anyone asked
    analyzer = Analyzer(chunk_lines=40, workers=2)
    try:
        assert analyzer.map(abs, [-1, -2, -3, -4]) == [1, 2, 3, 4]
        assert analyzer._pool is started[1]
        assert {p.pid for p in _workers()} == pids  # no new processes: the prestarted ones did the work
        assert worker_pool.take(2) is None  # taken once
    finally:
        analyzer.close()


@pytest.mark.parametrize("let_go", ["another size", "nobody"])
def test_prestarted_workers_nobody_takes_end(let_go: str) -> None:
    worker_pool.prestart(2)
    workers = _workers()
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
    assert worker_pool._PRESTARTED.pool is None and not _workers()

"""The collector policy around large index runs: paused while building, what was built frozen after."""

from __future__ import annotations

import gc
import pickle
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from maguyva_lsp import indexing as indexing_module
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.graph.build import resolve_share
from maguyva_lsp.heap import collector_paused, paused_collector
from maguyva_lsp.indexer import _segment_job


@pytest.fixture(autouse=True)
def _restore_collector() -> Iterator[None]:
    was_enabled = gc.isenabled()
    yield
    gc.unfreeze()  # the test process is not an index server: give its objects back to the collector
    if was_enabled:
        gc.enable()


def test_paused_nested_and_restored() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()  # a collector that was off stays off


def test_freeze_moves_what_lives_to_the_permanent_generation() -> None:
    gc.unfreeze()
    kept = [[i] for i in range(1000)]
    with collector_paused(freeze=True):
        pass
    assert gc.get_freeze_count() >= len(kept)
    assert gc.isenabled()


def test_a_large_index_run_freezes_and_a_small_one_does_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    for i in range(3):
        (root / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    gc.unfreeze()
    small = Engine(root, Settings(), persist=False)
    try:
        small.index()
        assert gc.get_freeze_count() == 0 and gc.isenabled()
    finally:
        small.close()
    monkeypatch.setattr(indexing_module, "LARGE_INDEX_FILES", 3)
    large = Engine(root, Settings(), persist=False)
    try:
        large.index()
        assert gc.get_freeze_count() > 0 and gc.isenabled()
        assert large.search("where is f2 defined").results[0].symbol == "f2"
    finally:
        large.close()


class _Marker:
    pass


def test_a_paused_job_gets_the_collector_back_only_after_its_locals_are_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[weakref.ref[_Marker]] = []
    alive_at_enable: list[bool] = []
    real_enable = gc.enable

    def job(count: int) -> int:
        assert not gc.isenabled()
        kept = _Marker()  # a local the job drops: the collector must not come back while it lives
        made.append(weakref.ref(kept))
        return count + 1

    def enable() -> None:
        alive_at_enable.append(made[0]() is not None)
        real_enable()

    gc.enable()
    monkeypatch.setattr(gc, "enable", enable)
    assert paused_collector(job)(1) == 2
    assert alive_at_enable == [False] and gc.isenabled()


def test_a_paused_job_restores_the_collector_after_an_error_and_leaves_an_off_one_off() -> None:
    def failing() -> None:
        raise ValueError("job failed")

    gc.enable()
    with pytest.raises(ValueError, match="job failed"):
        paused_collector(failing)()
    assert gc.isenabled()
    gc.disable()
    paused_collector(lambda: None)()
    assert not gc.isenabled()


def test_paused_worker_jobs_pickle_as_themselves() -> None:
    # A process pool sends the job by its qualified name: the wrapper must be what that name finds.
    for job in (resolve_share, _segment_job):
        assert pickle.loads(pickle.dumps(job)) is job

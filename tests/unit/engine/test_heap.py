"""The collector policy around large index runs: paused while building, what was built frozen after."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from maguyva_lsp import indexing as indexing_module
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.heap import collector_paused


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

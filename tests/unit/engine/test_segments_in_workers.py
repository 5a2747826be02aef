"""A cold index built in worker processes — one segment per group of files, adopted as it comes, merged at the end —
answers exactly as an index built in one process; a warm start reuses every file; a background merge racing with
edits keeps the edits."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maguyva_lsp import indexer, indexing
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.index import segment_set
from tests.unit.engine.test_engine import FILES, snapshot, write_tree


def corpus() -> dict[str, str]:
    files = dict(FILES)
    for i in range(36):
        files[f"pkg/mod{i}.py"] = (
            "from app.config import parse_config\n\n\n"
            f"def helper_{i}(value):\n    return parse_config(value) + {i}\n\n\n"
            f"class Widget{i}:\n    def render(self):\n        return helper_{i}('x')\n"
        )
    return files


@pytest.fixture
def small_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "PARALLEL_MIN_FILES", 10)
    monkeypatch.setattr(indexing, "FIRST_SEGMENT_FILES", 8)


@pytest.mark.usefixtures("small_parallel")
def _fresh_build(root: Path, view: Callable[[Engine], Any] = snapshot) -> Any:
    """What a fresh in-memory build of the folder in one process answers, or shows through `view` (the reference for
    every comparison)."""
    engine = Engine(root, Settings(workers=1), persist=False)
    try:
        engine.index()
        return view(engine)
    finally:
        engine.close()


def test_workers_build_the_same_index_as_one_process(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files = corpus()
    write_tree(root, files)
    built = Engine(root, Settings(index_dir=str(tmp_path / "idx"), workers=2))
    try:
        built.index()
        built.wait_for_merges()
        assert built.counters.analyzed == len(files)
        assert len(built.segments.current.segments) == 1, "the batch segments were merged"
        in_workers = snapshot(built)
    finally:
        built.close()
    assert _fresh_build(root) == in_workers
    warm = Engine(root, Settings(index_dir=str(tmp_path / "idx"), workers=2))
    try:
        counters = warm.index()
        assert (counters.analyzed, counters.reused) == (0, len(files))
        assert snapshot(warm) == in_workers
    finally:
        warm.close()


@pytest.mark.usefixtures("small_parallel")
def test_edits_during_a_background_merge_are_kept(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files = corpus()
    write_tree(root, files)
    engine = Engine(root, Settings(index_dir=str(tmp_path / "idx"), workers=2))
    try:
        engine.index()  # the merge starts in the background
        (root / "pkg" / "mod3.py").write_text("def brand_new_helper():\n    return 3\n")
        (root / "pkg" / "mod4.py").unlink()
        engine.update(["pkg/mod3.py", "pkg/mod4.py"])
        engine.wait_for_merges()
        after = snapshot(engine)
        found = engine.search("where is brand_new_helper defined").to_json()["results"]
        assert found and found[0]["uri"].endswith("pkg/mod3.py")
        assert engine.status()["files"] == len(files) - 1
    finally:
        engine.close()
    assert _fresh_build(root) == after


def test_saves_past_max_segments_merge_in_the_background(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save never merges in the writer thread (the watcher's change would wait for every merged part to be rebuilt):
    past MAX_SEGMENTS a worker merges the smallest segments, and the result equals a fresh build."""
    monkeypatch.setattr(segment_set, "MAX_SEGMENTS", 2)
    monkeypatch.setattr(indexing, "MAX_SEGMENTS", 2)
    root = tmp_path / "ws"
    write_tree(root, dict(FILES))
    engine = Engine(root, Settings(index_dir=str(tmp_path / "idx"), workers=2))
    inline: list[str] = []
    original = engine.segments.merge_now

    def spy(*, everything: bool = False) -> None:
        inline.append(threading.current_thread().name)
        original(everything=everything)

    monkeypatch.setattr(engine.segments, "merge_now", spy)
    try:
        engine.index()
        for i in range(6):
            (root / "pkg" / f"saved{i}.py").parent.mkdir(exist_ok=True)
            (root / "pkg" / f"saved{i}.py").write_text(f"def saved_helper_{i}():\n    return {i}\n")
            engine.update([f"pkg/saved{i}.py"])
        engine.wait_for_merges()
        assert inline == [], "no save merged in the writer thread"
        assert engine.segments.stored_segment_count <= 2 + 1  # merged in the background (one save may follow)
        after = snapshot(engine)
    finally:
        engine.close()
    assert _fresh_build(root) == after


def _graph_view(engine: Engine) -> tuple[object, ...]:
    """The whole graph: every edge with its sites (kinds, spans, resolutions, weights), the nodes, each node's and
    file's centrality, the files' versions."""
    graph = engine.graph.graph
    return (
        graph.edges(),
        {n: round(graph.scores.of(n), 12) for n in graph.node_ids()},  # an update renumbers, summing in another order
        {p: round(graph.scores.of_file(p), 12) for p in graph.state.paths()},
        graph.file_versions(),
        graph.stats(),
    )


@pytest.mark.usefixtures("small_parallel")
def test_graph_resolved_in_workers_equals_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a cold build the analysis pool's workers resolve the graph, a share of the files each: the same edges,
    sites, weights and PageRank as one process resolving every file; a save afterwards updates it incrementally as
    before; and the pool is shut down once the run and its merge are done."""
    monkeypatch.setattr(indexing, "WORKER_GRAPH_FILES", 10)
    root = tmp_path / "ws"
    files = corpus()
    files["pkg/__init__.py"] = "from pkg.mod1 import helper_1 as exported\nfrom pkg.mod2 import *\n"
    files["pkg/subclass.py"] = (
        "from pkg import exported\nfrom pkg.mod5 import Widget5\n\n\n"
        "class Fancy(Widget5):\n    def render(self):\n        return super().render() + exported(1)\n"
    )
    write_tree(root, files)
    from maguyva_lsp.graph.build import CodeGraph

    results: list[bool] = []
    original = CodeGraph.apply_in_workers

    def spy(self: CodeGraph, *args: object, **kwargs: object) -> bool:
        done = original(self, *args, **kwargs)  # type: ignore[arg-type]
        results.append(done)
        return done

    monkeypatch.setattr(CodeGraph, "apply_in_workers", spy)
    engine = Engine(root, Settings(index_dir=str(tmp_path / "idx"), workers=2))
    try:
        engine.index()
        assert results == [True], "the graph was resolved in the workers"
        in_workers = _graph_view(engine)
        engine.wait_for_merges()
        assert not engine._analyzer.pool_running, "the pool is shut down after the run and its merge"
        (root / "pkg" / "mod7.py").write_text("from pkg import exported\n\n\ndef helper_7():\n    return exported(7)\n")
        engine.update(["pkg/mod7.py"])
        edited = _graph_view(engine)
    finally:
        engine.close()
    assert _fresh_build(root, _graph_view) == edited
    write_tree(root, {**files})  # back to the first version: one process's graph of it
    (root / "pkg" / "mod7.py").write_text(files["pkg/mod7.py"])
    assert _fresh_build(root, _graph_view) == in_workers

"""A graph that reads stored files' references from a source (the engine's segments) instead of keeping them: the
same graph as one that keeps them, through edits and a reopen, with far fewer rows; a source that lacks a version
the graph must resolve again is an error that leaves the graph as it was."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from graph_project import analyze_path, snapshot, write_tree
from test_incremental import BASE, VARIANTS
from test_persist import FILLER, Store

from maguyva_lsp.graph.inputs import GraphInput, GraphSourceError
from maguyva_lsp.model import ChangeBatch, Reference
from maguyva_lsp.retrieve.graph import GraphRetriever


class DiskSource:
    """References of the files as they are on disk, for the version asked for only (as the segments answer)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.asked: list[str] = []

    def __call__(self, path: str, content_hash: str) -> tuple[Reference, ...] | None:
        self.asked.append(path)
        if not (self.root / path).exists():
            return None
        analysis = analyze_path(self.root, path)
        return analysis.references if analysis.content_hash == content_hash else None


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))


def _fresh(root: Path) -> GraphRetriever:
    graph = GraphRetriever()
    graph.apply(ChangeBatch(updated=tuple(analyze_path(root, f) for f in _files(root))))
    return graph


def _sourced(root: Path, graph: GraphRetriever | None = None) -> GraphRetriever:
    graph = graph if graph is not None else GraphRetriever()
    graph.set_reference_source(DiskSource(root))
    graph.apply_inputs([GraphInput.of(analyze_path(root, f)) for f in _files(root)])
    return graph


def _edit(root: Path, graph: GraphRetriever, rel: str, text: str | None) -> None:
    if text is None:
        (root / rel).unlink(missing_ok=True)
        graph.apply_inputs([], [rel])
    else:
        write_tree(root, {rel: text})
        graph.apply_inputs([GraphInput.of(analyze_path(root, rel))])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_tree(root, BASE | FILLER)
    return root


def test_only_imports_and_bases_are_kept_and_edits_match_fresh_builds(project: Path) -> None:
    graph = _sourced(project)
    assert snapshot(graph.graph) == snapshot(_fresh(project).graph)
    (segment,) = graph.graph.state.segments
    kept = len(segment.arrays["refs.name"])
    every = sum(len(analyze_path(project, f).references) for f in _files(project))
    assert 0 < kept < every / 2
    rng = random.Random(12)
    for _ in range(14):
        rel = rng.choice(sorted(VARIANTS))
        _edit(project, graph, rel, rng.choice(VARIANTS[rel]))
        assert snapshot(graph.graph) == snapshot(_fresh(project).graph), rel


def test_dependents_are_resolved_again_from_the_source(project: Path) -> None:
    graph = _sourced(project)
    source = DiskSource(project)
    graph.set_reference_source(source)
    _edit(project, graph, "pkg/util.py", VARIANTS["pkg/util.py"][0])  # removes twice(): app.py must be re-resolved
    assert "app.py" in source.asked
    assert snapshot(graph.graph) == snapshot(_fresh(project).graph)


def test_a_sourced_graph_is_persisted_smaller_and_reopens(project: Path, tmp_path: Path) -> None:
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _sourced(project, graph)
    store.commit()
    _edit(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    store.commit()
    reopened = store.reopen()
    reopened.set_reference_source(DiskSource(project))
    assert snapshot(reopened.graph) == snapshot(_fresh(project).graph)
    for rel, text in [("pkg/util.py", VARIANTS["pkg/util.py"][0]), ("pkg/__init__.py", None), ("lib_b.py", None)]:
        _edit(project, reopened, rel, text)
        assert snapshot(reopened.graph) == snapshot(_fresh(project).graph), rel
    store.close()


def test_a_source_without_the_version_is_an_error_and_nothing_changes(project: Path) -> None:
    graph = _sourced(project)
    before = snapshot(graph.graph)
    state = graph.graph.state
    graph.set_reference_source(lambda path, content_hash: None)
    write_tree(project, {"pkg/util.py": VARIANTS["pkg/util.py"][0]})
    with pytest.raises(GraphSourceError, match=r"app\.py"):
        graph.apply_inputs([GraphInput.of(analyze_path(project, "pkg/util.py"))])
    assert graph.graph.state is state and snapshot(graph.graph) == before

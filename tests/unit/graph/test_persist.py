"""The persisted graph: a chain written as real containers and mapped back answers like the graph it came from,
keeps answering like a fresh build after further edits, and refuses chains that do not fit together."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from graph_project import analyze_path, snapshot, write_tree
from test_incremental import BASE, VARIANTS

from maguyva_lsp.graph import queries
from maguyva_lsp.graph.build import CodeGraph
from maguyva_lsp.graph.persist import ExportedSegment
from maguyva_lsp.model import ChangeBatch
from maguyva_lsp.store.container import open_container, write_container

FILLER = {
    f"filler/f{i}.py": f"from pkg.util import helper\n\ndef filler{i}():\n    return helper({i})\n" for i in range(20)
}


def _fresh(root: Path) -> CodeGraph:
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    graph = CodeGraph()
    graph.apply(ChangeBatch(updated=tuple(analyze_path(root, f) for f in files)))
    return graph


def _edit(root: Path, graph: CodeGraph, rel: str, text: str | None) -> None:
    if text is None:
        (root / rel).unlink(missing_ok=True)
        graph.apply(ChangeBatch(removed=(rel,)))
    else:
        write_tree(root, {rel: text})
        graph.apply(ChangeBatch(updated=(analyze_path(root, rel),)))


class Store:
    """The chain as the segment store keeps it: containers on disk, a new delta replacing the previous one."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.chain: list[Path] = []
        self.written = 0

    def write(self, exported: list[ExportedSegment]) -> None:
        for segment in exported:
            self.written += 1
            path = self.folder / f"graph-{self.written}.mgv"
            write_container(path, segment.arrays, segment.meta)
            if segment.kind == "base":
                self.chain = [path]
            else:
                self.chain = [*self.chain[:1], path]

    def open(self) -> CodeGraph:
        containers = [open_container(p) for p in self.chain]
        graph = CodeGraph()
        graph.open([c.arrays for c in containers], [c.meta for c in containers])
        return graph


def _answers(graph: CodeGraph) -> dict[str, object]:
    """What the queries say about every node: uses, callees, impact, centrality."""
    state, scores = graph.view()
    out: dict[str, object] = {}
    for node_id in sorted(graph.node_ids()):
        out[node_id] = (
            [(u.source, u.path, u.site) for u in queries.references(state, [node_id], min_weight=0.0)],
            [u.target for u in queries.callees(state, [node_id])],
            [(i.node_id, i.depth, i.via) for i in queries.impact(state, scores, [node_id])],
            round(scores.of(node_id), 9),
            scores.degree(node_id),
        )
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_tree(root, BASE | FILLER)
    return root


def test_a_written_base_maps_back_with_the_same_answers(project: Path, tmp_path: Path) -> None:
    graph = _fresh(project)
    store = Store(tmp_path)
    exported = graph.export()
    assert [e.kind for e in exported] == ["base"]
    store.write(exported)
    opened = store.open()
    assert snapshot(opened) == snapshot(graph)
    assert _answers(opened) == _answers(graph)
    assert opened.file_versions() == graph.file_versions()
    assert opened.file_versions()["pkg/util.py"] == analyze_path(project, "pkg/util.py").content_hash
    assert opened.stats() == graph.stats()
    segment = opened.state.segments[0]
    assert not segment.arrays["nodes.id"].flags.writeable  # mapped from the file, not copied
    assert graph.export() == []  # nothing changed since


def test_deltas_replace_each_other_and_reopen_like_a_fresh_build(project: Path, tmp_path: Path) -> None:
    graph = _fresh(project)
    store = Store(tmp_path)
    store.write(graph.export())
    edits = [
        ("pkg/util.py", VARIANTS["pkg/util.py"][0]),
        ("lib_b.py", VARIANTS["lib_b.py"][0]),
        ("pkg/__init__.py", None),
        ("pkg/core.py", VARIANTS["pkg/core.py"][1]),
    ]
    for rel, text in edits:
        _edit(project, graph, rel, text)
        exported = graph.export()
        assert [e.kind for e in exported] == ["delta"]
        store.write(exported)
        assert len(store.chain) == 2
        reopened = store.open()
        assert snapshot(reopened) == snapshot(graph) == snapshot(_fresh(project))
        assert _answers(reopened) == _answers(graph)


def test_a_reopened_graph_keeps_matching_fresh_builds_as_it_is_edited(project: Path, tmp_path: Path) -> None:
    graph = _fresh(project)
    store = Store(tmp_path)
    store.write(graph.export())
    _edit(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    store.write(graph.export())
    reopened = store.open()  # a mapped base and a mapped delta
    for rel, text in [
        ("pkg/util.py", VARIANTS["pkg/util.py"][1]),
        ("pkg/__init__.py", ""),
        ("app.py", VARIANTS["app.py"][0]),
        ("lib_b.py", None),
        ("pkg/__init__.py", BASE["pkg/__init__.py"]),
    ]:
        _edit(project, reopened, rel, text)
        assert snapshot(reopened) == snapshot(_fresh(project)), rel
        store.write(reopened.export())
    again = store.open()
    assert snapshot(again) == snapshot(_fresh(project))
    assert _answers(again) == _answers(reopened)


def test_full_export_merges_into_one_base(project: Path, tmp_path: Path) -> None:
    graph = _fresh(project)
    store = Store(tmp_path)
    store.write(graph.export())
    _edit(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    before = _answers(graph)
    assert len(graph.state.segments) == 2
    exported = graph.export(full=True)
    assert [e.kind for e in exported] == ["base"]
    assert len(graph.state.segments) == 1
    assert _answers(graph) == before  # centrality carried over exactly
    store.write(exported)
    assert store.chain == [tmp_path / "graph-2.mgv"]
    assert _answers(store.open()) == before


def test_a_base_never_written_goes_out_merged(project: Path, tmp_path: Path) -> None:
    graph = _fresh(project)
    _edit(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    exported = graph.export()
    assert [e.kind for e in exported] == ["base"]
    store = Store(tmp_path)
    store.write(exported)
    assert snapshot(store.open()) == snapshot(_fresh(project))


def test_a_base_left_without_its_delta_is_refreshed_from_file_versions(project: Path, tmp_path: Path) -> None:
    """A crash after the base was written but before a later delta: the stale base opens, and re-applying the files
    whose versions differ from the disk gives the graph of the files on disk."""
    graph = _fresh(project)
    store = Store(tmp_path)
    store.write(graph.export())
    _edit(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    _edit(project, graph, "pkg/util.py", VARIANTS["pkg/util.py"][0])
    assert [e.kind for e in graph.export()] == ["delta"]  # never reaches the disk
    stale = store.open()
    on_disk = {p.relative_to(project).as_posix() for p in project.rglob("*.py")}
    versions = stale.file_versions()
    changed = [p for p in sorted(on_disk) if versions.get(p) != analyze_path(project, p).content_hash]
    assert changed == ["lib_b.py", "pkg/util.py"]
    stale.apply(ChangeBatch(updated=tuple(analyze_path(project, p) for p in changed)))
    assert snapshot(stale) == snapshot(_fresh(project))
    assert _answers(stale) == _answers(_fresh(project))


def test_an_empty_graph_is_written_and_opened(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.write(CodeGraph().export())
    opened = store.open()
    assert opened.stats() == {"files": 0, "nodes": 0, "edges": 0, "sites": 0}
    assert opened.file_versions() == {}


def test_chains_that_do_not_fit_are_refused(project: Path, tmp_path: Path) -> None:
    graph = _fresh(project)
    (base,) = graph.export()
    _edit(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    (delta,) = graph.export()
    other = CodeGraph()
    other.apply(ChangeBatch(updated=(analyze_path(project, "app.py"),)))
    (other_base,) = other.export()
    fresh = CodeGraph()
    with pytest.raises(ValueError, match="format"):
        fresh.open([base.arrays], [{**base.meta, "format": 99}])
    with pytest.raises(ValueError, match="no base"):
        fresh.open([delta.arrays], [delta.meta])
    with pytest.raises(ValueError, match="not written over this base"):
        fresh.open([other_base.arrays, delta.arrays], [other_base.meta, delta.meta])
    missing = {k: v for k, v in base.arrays.items() if k != "segment.sites.target"}
    with pytest.raises(ValueError, match=r"sites\.target"):
        fresh.open([missing], [base.meta])
    wrong = {**base.arrays, "segment.nodes.span": np.zeros(3, dtype=np.int32)}
    with pytest.raises(ValueError, match=r"nodes\.span"):
        fresh.open([wrong], [base.meta])
    assert fresh.stats()["files"] == 0  # a refused chain leaves the graph as it was

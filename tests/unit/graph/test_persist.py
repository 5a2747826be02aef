"""The persisted graph, as a chain part of the real segment store: the chain a commit writes maps back into a graph
that answers like the one it came from, keeps answering like a fresh build as it is edited, survives a lost write,
and a chain that does not fit is dropped for a rebuild instead of being half used."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from graph_project import analyze_path, edit_file, snapshot, write_tree
from test_incremental import BASE, VARIANTS

from maguyva_lsp.graph import queries
from maguyva_lsp.graph.persist import export_base, export_delta
from maguyva_lsp.index.segment_parts import ChainPart
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.model import ChangeBatch
from maguyva_lsp.retrieve.graph import GraphRetriever
from maguyva_lsp.store.container import open_container, write_container
from maguyva_lsp.store.manifest import read_manifest
from maguyva_lsp.store.segment_store import SegmentStore

FILLER = {
    f"filler/f{i}.py": f"from pkg.util import helper\n\ndef filler{i}():\n    return helper({i})\n" for i in range(20)
}


def _fresh(root: Path, graph: GraphRetriever | None = None) -> GraphRetriever:
    """A graph of every file of the folder in one batch (into `graph`, e.g. one attached to a store already)."""
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    graph = graph if graph is not None else GraphRetriever()
    graph.apply(ChangeBatch(updated=tuple(analyze_path(root, f) for f in files)))
    return graph


class Store:
    """The real segment store with the graph attached as a chain part (attaching opens the stored chain, so it comes
    before any batch, as in the engine): `commit` writes what the graph exports in a manifest switch; `reopen` maps
    the chain the manifest names into a new graph, as the engine does at start."""

    def __init__(self, folder: Path, graph: GraphRetriever) -> None:
        self.folder = folder
        self.segments = Segments(SegmentStore(folder, "test", "fp"))
        self.segments.attach_chain(graph)

    def commit(self) -> None:
        self.segments.commit_chains()

    @property
    def chain(self) -> list[str]:
        manifest = read_manifest(self.folder)
        return [] if manifest is None else [r.name for r in manifest.chains.get("graph", ())]

    def reopen(self) -> GraphRetriever:
        self.segments.close()
        self.segments = Segments(SegmentStore(self.folder, "test", "fp"))
        graph = GraphRetriever()
        self.segments.attach_chain(graph)
        return graph

    def close(self) -> None:
        self.segments.close()


def _answers(graph: GraphRetriever) -> dict[str, object]:
    """What the queries say about every node: uses, callees, impact, centrality, degree."""
    state, scores = graph.graph.view()
    out: dict[str, object] = {}
    for node_id in sorted(graph.graph.node_ids()):
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


def test_the_graph_is_a_chain_part() -> None:
    part: ChainPart = GraphRetriever()  # the protocol the segment store persists chains through
    assert part.name == "graph"
    assert all(callable(getattr(part, m)) for m in ("export", "export_failed", "open"))


def test_a_written_base_maps_back_with_the_same_answers(project: Path, tmp_path: Path) -> None:
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(project, graph)
    store.commit()
    assert len(store.chain) == 1
    opened = store.reopen()
    assert snapshot(opened.graph) == snapshot(graph.graph)
    assert _answers(opened) == _answers(graph)
    assert opened.file_versions() == graph.file_versions()
    assert opened.file_versions()["pkg/util.py"] == analyze_path(project, "pkg/util.py").content_hash
    assert opened.stats() == graph.stats()
    assert not opened.graph.state.segments[0].arrays["nodes.id"].flags.writeable  # mapped, not copied
    export = opened.export()
    assert not export.base and not export.containers  # nothing changed since it was written
    store.close()


def test_deltas_replace_each_other_and_reopen_like_a_fresh_build(project: Path, tmp_path: Path) -> None:
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(project, graph)
    store.commit()
    for rel, text in [
        ("pkg/util.py", VARIANTS["pkg/util.py"][0]),
        ("lib_b.py", VARIANTS["lib_b.py"][0]),
        ("pkg/__init__.py", None),
        ("pkg/core.py", VARIANTS["pkg/core.py"][1]),
    ]:
        edit_file(project, graph, rel, text)
        export = graph.export()
        assert not export.base and len(export.containers) == 1
        graph.export_failed()  # this export is dropped: the next one, the commit's, is a base again
        store.commit()
        assert len(store.chain) == 1
        edit_file(project, graph, rel, text)  # the same again: a delta over the new base (removing nothing: no change)
        store.commit()
        assert len(store.chain) == (1 if text is None else 2)
    base = store.chain[0]
    for rel, text in [("app.py", VARIANTS["app.py"][0]), ("lib_b.py", None)]:
        edit_file(project, graph, rel, text)
        store.commit()
        assert len(store.chain) == 2 and store.chain[0] == base  # the new delta replaced the previous one
    reopened = store.reopen()
    assert snapshot(reopened.graph) == snapshot(graph.graph) == snapshot(_fresh(project).graph)
    assert _answers(reopened) == _answers(graph)
    store.close()


def test_a_reopened_graph_keeps_matching_fresh_builds_as_it_is_edited(project: Path, tmp_path: Path) -> None:
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(project, graph)
    store.commit()
    edit_file(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    store.commit()
    reopened = store.reopen()  # a mapped base and a mapped delta
    for rel, text in [
        ("pkg/util.py", VARIANTS["pkg/util.py"][1]),
        ("pkg/__init__.py", ""),
        ("app.py", VARIANTS["app.py"][0]),
        ("lib_b.py", None),
        ("pkg/__init__.py", BASE["pkg/__init__.py"]),
    ]:
        edit_file(project, reopened, rel, text)
        assert snapshot(reopened.graph) == snapshot(_fresh(project).graph), rel
        store.commit()
    again = store.reopen()
    assert snapshot(again.graph) == snapshot(_fresh(project).graph)
    assert _answers(again) == _answers(reopened)
    store.close()


def test_a_base_is_written_whole_with_its_centrality(project: Path, tmp_path: Path) -> None:
    """A delta not yet written goes out merged into the base (no tombstones on disk); the merged graph's centrality is
    the same, carried over by node and path."""
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(project, graph)
    edit_file(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    before = _answers(graph)
    assert len(graph.graph.state.segments) == 2
    store.commit()
    assert len(store.chain) == 1 and len(graph.graph.state.segments) == 1
    assert _answers(graph) == before
    assert _answers(store.reopen()) == before
    store.close()


def test_a_lost_delta_leaves_the_base_which_file_versions_bring_up_to_date(project: Path, tmp_path: Path) -> None:
    """A crash after the base was written and before a delta was: the older chain opens, and re-applying the files
    whose content hash differs from the disk gives the graph of the files on disk."""
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(project, graph)
    store.commit()
    edit_file(project, graph, "lib_b.py", VARIANTS["lib_b.py"][0])
    edit_file(project, graph, "pkg/util.py", VARIANTS["pkg/util.py"][0])
    stale = store.reopen()  # the edits were never committed
    on_disk = {p.relative_to(project).as_posix() for p in project.rglob("*.py")}
    versions = stale.file_versions()
    changed = [p for p in sorted(on_disk) if versions.get(p) != analyze_path(project, p).content_hash]
    assert changed == ["lib_b.py", "pkg/util.py"]
    stale.apply(ChangeBatch(updated=tuple(analyze_path(project, p) for p in changed)))
    assert snapshot(stale.graph) == snapshot(_fresh(project).graph)
    assert _answers(stale) == _answers(_fresh(project))
    store.close()


def test_a_damaged_container_makes_the_graph_start_again(project: Path, tmp_path: Path) -> None:
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(project, graph)
    store.commit()
    (name,) = store.chain
    path = next((tmp_path / "index").rglob(name))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data[: len(data) - 100]))  # truncated and flipped, as a crash or a bad disk leaves it
    reopened = store.reopen()
    assert reopened.stats()["files"] == 0  # nothing half-used: every file is fed again
    assert reopened.file_versions() == {}
    assert reopened.export().base  # and the next commit writes a whole new chain
    store.close()


def test_an_empty_graph_is_written_and_opened(tmp_path: Path) -> None:
    store = Store(tmp_path / "index", GraphRetriever())
    store.commit()
    opened = store.reopen()
    assert opened.stats() == {"files": 0, "nodes": 0, "edges": 0, "sites": 0}
    assert opened.file_versions() == {}
    store.close()


def test_chains_that_do_not_fit_are_dropped_with_the_reason(project: Path, tmp_path: Path) -> None:
    graph = _fresh(project).graph
    base_arrays, base_meta = export_base(graph.state, graph.scores)
    edit_file(project, GraphRetriever(graph), "lib_b.py", VARIANTS["lib_b.py"][0])
    delta_arrays, delta_meta = export_delta(graph.state, graph.scores, int(str(base_meta["strings"])))
    other = GraphRetriever()
    other.apply(ChangeBatch(updated=(analyze_path(project, "app.py"),)))
    other_arrays, other_meta = export_base(other.graph.state, other.graph.scores)
    cases = {
        "format": [(base_arrays, {**base_meta, "format": 99})],
        "no base": [(delta_arrays, delta_meta)],
        "not written over this base": [(other_arrays, other_meta), (delta_arrays, delta_meta)],
        "sites.target": [({k: v for k, v in base_arrays.items() if k != "segment.sites.target"}, base_meta)],
        "nodes.span": [({**base_arrays, "segment.nodes.span": np.zeros(3, dtype=np.int32)}, base_meta)],
    }
    for reason, chain in cases.items():
        containers = []
        for i, (arrays, meta) in enumerate(chain):
            write_container(tmp_path / f"{i}.mgv", arrays, meta)
            containers.append(open_container(tmp_path / f"{i}.mgv"))
        fresh = GraphRetriever()
        fresh.open(containers)
        assert fresh.stats()["files"] == 0, reason
        assert fresh.graph.problem is not None and reason in fresh.graph.problem


def test_files_it_does_not_hold_are_remembered_as_given(project: Path, tmp_path: Path) -> None:
    """Prose and data files given to the graph are not nodes, but their versions are kept (and written) so that a
    warm start does not give them again; one that becomes code joins the graph, and back."""
    write_tree(project, {"README.md": "# Title\n\nSee `shared()`.\n", "conf.json": '{"a": 1}\n'})
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    graph.apply(ChangeBatch(updated=tuple(analyze_path(project, f) for f in sorted(_all(project)))))
    store.commit()
    versions = graph.file_versions()
    assert versions["README.md"] == analyze_path(project, "README.md").content_hash
    assert not graph.graph.state.has_file("README.md")
    write_tree(project, {"README.md": "# Another title\n"})
    graph.apply(ChangeBatch(updated=(analyze_path(project, "README.md"),)))  # not a node: no delta segment yet
    assert len(graph.graph.state.segments) == 1
    store.commit()  # but the new version is written (an empty delta carries it)
    reopened = store.reopen()
    assert reopened.file_versions() == graph.file_versions()
    assert reopened.file_versions()["README.md"] == analyze_path(project, "README.md").content_hash
    write_tree(project, {"tool.sh": "build() {\n  make\n}\n"})
    reopened.apply(ChangeBatch(updated=(analyze_path(project, "tool.sh"),)))
    assert reopened.graph.state.has_node("tool.sh::build")
    reopened.apply(ChangeBatch(removed=("conf.json",)))
    assert "conf.json" not in reopened.file_versions()
    store.commit()
    assert store.reopen().file_versions() == reopened.file_versions()
    store.close()


def _all(root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]


def test_the_edge_count_comes_with_a_rebuilds_scores_and_is_counted_once_after_an_update(
    project: Path, tmp_path: Path
) -> None:
    """Status's edge count (distinct pairs over every live use, test files' included) is counted with a rebuild's
    centrality and stored with it, so a reopened cold index answers status without sorting every use. An
    incremental update leaves it to the first status request of its state (a save must not sort every use: 180 ms
    of each save on the stdlib x5), which counts it once; a reopen of that state counts it again, once."""
    from maguyva_lsp.graph.centrality import live_uses

    def counted(graph: GraphRetriever) -> int:
        state = graph.graph.state
        return live_uses(state).distinct_pairs(state.slot_count)

    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(project, graph)
    assert graph.graph.scores.pair_total == counted(graph) == graph.stats()["edges"] > 0
    store.commit()
    reopened = store.reopen()  # the store now follows the reopened graph
    assert reopened.graph.scores.pair_total == counted(graph)
    edit_file(project, reopened, "lib_b.py", VARIANTS["lib_b.py"][0])
    assert reopened.graph.scores.pair_total == -1
    assert reopened.stats()["edges"] == counted(reopened) != counted(graph)
    first = reopened.graph._edge_count
    assert reopened.stats()["edges"] == counted(reopened) and reopened.graph._edge_count is first  # once per state
    store.commit()
    assert store.reopen().stats()["edges"] == counted(reopened)
    store.close()

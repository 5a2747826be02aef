"""PageRank of the snapshot's uses agrees with networkx; normalisation gives the average node 1."""

from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from graph_project import analyze_path, build_graph, write_tree

from maguyva_lsp.graph.build import CodeGraph
from maguyva_lsp.graph.centrality import DAMPING, pagerank
from maguyva_lsp.model import ChangeBatch, PathClass
from maguyva_lsp.scan.classify import classify_path


def _random_graph(seed: int, nodes: int, edges: int) -> nx.DiGraph:
    rng = random.Random(seed)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(nodes))
    for _ in range(edges):
        u, v = rng.randrange(nodes), rng.randrange(nodes)
        weight = rng.choice([0.25, 0.5, 1.0, 2.0])
        graph.add_edge(u, v, weight=graph.get_edge_data(u, v, {"weight": 0.0})["weight"] + weight)
    return graph


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pagerank_matches_networkx_with_dangling_nodes_and_self_loops(seed: int) -> None:
    graph = _random_graph(seed, 60, 150)
    graph.add_edge(5, 5, weight=1.0)
    expected = nx.pagerank(graph, alpha=DAMPING, weight="weight", tol=1e-10, max_iter=500)
    rows, cols = zip(*graph.edges(), strict=True)
    weights = [graph.edges[e]["weight"] for e in graph.edges()]
    matrix = sp.csr_array((weights, (rows, cols)), shape=(60, 60))
    ours = pagerank(matrix, np.ones(60, dtype=bool), tolerance=1e-10, max_iterations=500)
    assert any(graph.out_degree(n) == 0 for n in graph)  # dangling nodes are part of the check
    np.testing.assert_allclose(ours, [expected[n] for n in range(60)], atol=1e-9)


def _networkx(graph: CodeGraph, *, votes: bool = True) -> nx.DiGraph:
    """The graph's nodes and summed use weights as a networkx graph (test files' uses left out when `votes`)."""
    expected = nx.DiGraph()
    expected.add_nodes_from(graph.node_ids())
    for (u, v), sites in graph.edges().items():
        if not (votes and classify_path(u.partition("::")[0]) is PathClass.TEST):
            expected.add_edge(u, v, weight=sum(s.weight for s in sites))
    return expected


def test_removed_files_hold_nothing_and_do_not_change_the_others(tmp_path: Path) -> None:
    files = {
        "a.py": "from b import bee\n\ndef ay():\n    return bee()\n",
        "b.py": "from c import sea\n\ndef bee():\n    return sea()\n",
        "c.py": "def sea():\n    return 1\n",
        "gone.py": "from a import ay\n\ndef g():\n    return ay() + ay()\n",
        **{f"pad{i}.py": f"def pad{i}():\n    return {i}\n" for i in range(6)},
    }
    graph = build_graph(tmp_path, files)
    (tmp_path / "gone.py").unlink()
    graph.apply(ChangeBatch(removed=("gone.py",)))
    assert len(graph.state.segments) == 2  # applied as a delta: gone.py's rows are dead in the base
    scores = graph.scores
    expected = nx.pagerank(_networkx(graph), alpha=DAMPING)
    for node in expected:
        assert scores.of(node) == pytest.approx(expected[node] * len(expected), rel=1e-5)
    assert scores.of("gone.py::g") == 0.0 and scores.of_file("gone.py") == 0.0
    assert scores.node_count == len(expected)
    assert float(np.sum(scores.values)) == pytest.approx(len(expected))


def test_project_graph_normalisation_and_agreement(tmp_path: Path) -> None:
    files = {
        "core.py": "def hub():\n    return 1\n\ndef leaf():\n    return hub()\n",
        **{f"user{i}.py": f"from core import hub\n\ndef use{i}():\n    return hub()\n" for i in range(6)},
    }
    graph = build_graph(tmp_path, files)
    scores = graph.scores
    nodes = list(graph.node_ids())
    values = np.array([scores.of(n) for n in nodes])
    assert values.mean() == pytest.approx(1.0)
    expected = nx.pagerank(_networkx(graph), alpha=DAMPING, weight="weight")
    for node in nodes:
        assert scores.of(node) == pytest.approx(expected[node] * len(nodes), rel=1e-4)
    assert max(nodes, key=scores.of) == "core.py::hub"
    files_mean = np.mean([scores.of_file(p) for p in files])
    assert files_mean == pytest.approx(1.0)
    assert scores.of_file("core.py") > scores.of_file("user0.py")
    assert scores.degree("core.py::hub") == (13, 0)  # leaf, six callers, six importing modules
    assert scores.of("nowhere.py::nothing") == 0.0


def test_test_files_do_not_vote(tmp_path: Path) -> None:
    files = {
        "lib.py": "def helper():\n    return 1\n\ndef other():\n    return 2\n",
        **{f"tests/test_{i}.py": f"from lib import helper\n\ndef test_{i}():\n    assert helper()\n" for i in range(5)},
    }
    graph = build_graph(tmp_path, files)
    assert graph.scores.of("lib.py::helper") == pytest.approx(graph.scores.of("lib.py::other"))
    assert graph.stats()["sites"] == 10  # the uses stay in the graph (impact follows them)


def test_merging_the_delta_keeps_values(tmp_path: Path) -> None:
    files = {f"m{i}.py": f"from m{i + 1} import f{i + 1}\n\ndef f{i}():\n    return f{i + 1}()\n" for i in range(40)}
    files["m40.py"] = "def f40():\n    return 0\n"
    graph = build_graph(tmp_path, files)
    segments = []
    for i in range(0, 40, 3):  # enough rewritten files that the delta is merged into the base
        write_tree(tmp_path, {f"m{i}.py": files[f"m{i}.py"] + "\n"})
        graph.apply(ChangeBatch(updated=(analyze_path(tmp_path, f"m{i}.py"),)))
        segments.append(len(graph.state.segments))
    assert segments[0] == 2 and 1 in segments  # a delta, then merged into a new base
    expected = nx.pagerank(_networkx(graph), alpha=DAMPING)
    for node in ("m0.py::f0", "m20.py::f20", "m40.py::f40", "m3.py"):
        assert graph.scores.of(node) == pytest.approx(expected[node] * len(expected), rel=1e-4)


def test_a_save_counts_the_graphs_pairs_without_np_unique(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch recomputes the centrality; the distinct-pair count (status's edge count) over every live use is
    left to `stats`, which counts it when asked (sorting every use took 180 ms of a save on the stdlib x5). np.unique
    (without return_* flags) hashes integer keys from numpy 2.3 on, 10-70× slower than a sort and holding the GIL: on
    the stdlib that was 0.45-0.8 s of each save. Neither may call it; the count stays exact."""
    files = {
        "core.py": "def hub():\n    return 1\n\ndef leaf():\n    return hub()\n",
        **{f"user{i}.py": f"from core import hub\n\ndef use{i}():\n    return hub() + hub()\n" for i in range(5)},
        "test_core.py": "from core import hub, leaf\n\ndef test_hub():\n    assert hub() == leaf()\n",
    }
    graph = build_graph(tmp_path, files)
    real = np.unique
    hashed: list[int] = []

    def spy(values: object, *args: object, **kwargs: object) -> object:
        if not any(kwargs.get(flag) for flag in ("return_index", "return_inverse", "return_counts")) and not args:
            hashed.append(np.size(values))
        return real(values, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(np, "unique", spy)
    write_tree(tmp_path, {"user0.py": "from core import hub, leaf\n\ndef use0():\n    return hub() + leaf()\n"})
    graph.apply(ChangeBatch(updated=(analyze_path(tmp_path, "user0.py"),)))
    assert hashed == []
    state = graph.state
    pairs = set()
    for path in state.paths():
        for k, rows in state.file_site_rows(path):
            for row in rows.tolist():
                source, target, _ = state.segments[k].site(state.strings, row)
                pairs.add((source, target))
    assert graph.scores.pair_total == -1  # not counted by the save
    assert graph.stats()["edges"] == len(pairs) > 0
    assert hashed == []

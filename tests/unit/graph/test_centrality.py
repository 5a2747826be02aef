"""PageRank on the maintained sparse matrix agrees with networkx; normalisation gives the average node 1."""

from __future__ import annotations

import random
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from graph_project import build_graph

from maguyva_lsp.graph.centrality import DAMPING, EdgeMatrix, pagerank


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


def test_dead_slots_hold_nothing_and_do_not_change_the_others() -> None:
    matrix = EdgeMatrix()
    for node in ("a", "b", "c", "gone"):
        matrix.add_node(node, "f.py")
    matrix.set_edges("f.py", [("a", "b", 1.0), ("b", "c", 1.0), ("gone", "a", 3.0)])
    matrix.remove_node("gone")
    scores = matrix.prepare().compute()
    graph = nx.DiGraph([("a", "b"), ("b", "c")])
    expected = nx.pagerank(graph, alpha=DAMPING)
    for node in "abc":
        assert scores.of(node) == pytest.approx(expected[node] * 3, rel=1e-5)
    assert scores.of("gone") == 0.0
    assert scores.node_count == 3


def test_project_graph_normalisation_and_agreement(tmp_path: Path) -> None:
    files = {
        "core.py": "def hub():\n    return 1\n\ndef leaf():\n    return hub()\n",
        **{f"user{i}.py": f"from core import hub\n\ndef use{i}():\n    return hub()\n" for i in range(6)},
    }
    graph = build_graph(tmp_path, files)
    scores = graph.scores
    nodes = list(graph.state.graph.nodes)
    values = np.array([scores.of(n) for n in nodes])
    assert values.mean() == pytest.approx(1.0)
    expected = nx.pagerank(graph.state.graph, alpha=DAMPING, weight="weight")
    for node in nodes:
        assert scores.of(node) == pytest.approx(expected[node] * len(nodes), rel=1e-4)
    assert max(nodes, key=scores.of) == "core.py::hub"
    files_mean = np.mean([scores.of_file(p) for p in files])
    assert files_mean == pytest.approx(1.0)
    assert scores.of_file("core.py") > scores.of_file("user0.py")
    assert scores.degree("core.py::hub") == (13, 0)  # leaf, six callers, six importing modules
    assert scores.of("nowhere.py::nothing") == 0.0


def test_compaction_keeps_values(tmp_path: Path) -> None:
    matrix = EdgeMatrix()
    for i in range(3000):
        matrix.add_node(f"n{i}", "f.py")
    matrix.set_edges("f.py", [(f"n{i}", f"n{i + 1}", 1.0) for i in range(2999)])
    for i in range(1000, 3000):
        matrix.remove_node(f"n{i}")
    matrix.set_edges("f.py", [(f"n{i}", f"n{i + 1}", 1.0) for i in range(999)])
    after = matrix.prepare().compute()  # more dead slots than live ones: compacted
    assert after.node_count == 1000 and len(after.values) == 1000
    assert float(after.values.mean()) == pytest.approx(1.0)
    expected = nx.pagerank(nx.DiGraph([(f"n{i}", f"n{i + 1}") for i in range(999)]), alpha=DAMPING)
    for node in ("n0", "n1", "n500", "n999"):
        assert after.of(node) == pytest.approx(expected[node] * 1000, rel=1e-4)

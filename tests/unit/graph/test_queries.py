"""Symbol lookup, references, callers/callees and impact analysis on a small project."""

from __future__ import annotations

import pytest
from graph_project import build_graph

from maguyva_lsp.graph import queries
from maguyva_lsp.graph.build import CodeGraph

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/config.py": """
        class Config:
            def parse(self, text):
                return self.check(text)

            def check(self, text):
                return text

        def parse(text):
            return Config().parse(text)
        """,
    "pkg/loader.py": """
        from pkg.config import parse, Config

        def load(path):
            return parse(path)

        def reload(path):
            return load(path)

        class Loader(Config):
            pass
        """,
    "cli.py": """
        from pkg import loader

        def main():
            loader.reload("x")
            return loader.load("y")
        """,
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return build_graph(tmp_path_factory.mktemp("q"), PROJECT)


def _find(graph: CodeGraph, text: str) -> list[str]:
    return queries.find_symbols(graph.state, graph.scores, text)


def test_find_symbols_by_every_spelling(graph: CodeGraph) -> None:
    assert set(_find(graph, "parse")) == {"pkg/config.py::parse", "pkg/config.py::Config.parse"}
    assert _find(graph, "Config.parse") == ["pkg/config.py::Config.parse"]
    assert _find(graph, "pkg.config.parse") == ["pkg/config.py::parse"]
    assert _find(graph, "pkg.config.Config.parse") == ["pkg/config.py::Config.parse"]
    assert _find(graph, "pkg/config.py::Config.check") == ["pkg/config.py::Config.check"]
    assert _find(graph, "pkg/loader.py") == ["pkg/loader.py"]
    assert _find(graph, "parse()") == _find(graph, "parse")
    assert _find(graph, "nothing_like_this") == []
    assert _find(graph, "") == []


def test_nodes_at_a_use_a_name_and_a_body(graph: CodeGraph) -> None:
    state = graph.state
    assert queries.nodes_at(state, "pkg/loader.py", 3, 12) == ["pkg/config.py::parse"]  # on `parse(path)`
    assert queries.nodes_at(state, "pkg/loader.py", 2, 5) == ["pkg/loader.py::load"]  # on the name `load`
    assert queries.nodes_at(state, "pkg/loader.py", 3, 1) == ["pkg/loader.py::load"]  # inside its body
    assert queries.nodes_at(state, "pkg/loader.py", 0, 0) == ["pkg/loader.py"]  # at module level, no use there
    assert queries.nodes_at(state, "missing.py", 0, 0) == []


def test_references_list_calls_first_with_precise_locations(graph: CodeGraph) -> None:
    uses = queries.references(graph.state, ["pkg/config.py::parse"])
    assert [(u.site.kind, u.path, u.site.span.start_line, u.site.span.start_col) for u in uses] == [
        ("calls", "pkg/loader.py", 3, 11),
        ("imports", "pkg/loader.py", 0, 23),
    ]
    assert uses[0].source == "pkg/loader.py::load"


def test_callers_and_callees(graph: CodeGraph) -> None:
    callers = {u.source for u in queries.callers(graph.state, ["pkg/loader.py::load"])}
    assert callers == {"pkg/loader.py::reload", "cli.py::main"}
    callees = {u.target for u in queries.callees(graph.state, ["pkg/config.py::parse"])}
    assert callees == {"pkg/config.py::Config", "pkg/config.py::Config.parse"}


def test_impact_depths_paths_and_ranking(graph: CodeGraph) -> None:
    impacted = queries.impact(graph.state, graph.scores, ["pkg/config.py::parse"])
    by_node = {i.node_id: i for i in impacted}
    assert by_node["pkg/loader.py::load"].depth == 1
    assert by_node["pkg/loader.py"].depth == 1  # the import
    assert by_node["pkg/loader.py::reload"].depth == 2
    assert by_node["cli.py::main"].depth == 2
    assert by_node["cli.py::main"].via == ("pkg/config.py::parse", "pkg/loader.py::load", "cli.py::main")
    depths = [i.depth for i in impacted]
    assert depths == sorted(depths)
    same_depth = [i.centrality for i in impacted if i.depth == 1]
    assert same_depth == sorted(same_depth, reverse=True)
    shallow = queries.impact(graph.state, graph.scores, ["pkg/config.py::parse"], max_depth=1)
    assert {i.depth for i in shallow} == {1}


def test_impact_of_a_class_includes_users_of_its_methods_and_subclasses(graph: CodeGraph) -> None:
    impacted = {i.node_id: i.depth for i in queries.impact(graph.state, graph.scores, ["pkg/config.py::Config"])}
    assert impacted["pkg/config.py::parse"] == 1  # calls Config() and Config.parse
    assert impacted["pkg/loader.py::Loader"] == 1  # a subclass
    assert "pkg/config.py::Config.parse" not in impacted  # members are part of the change, not impacted by it

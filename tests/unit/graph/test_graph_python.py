"""Name resolution on small Python projects: self, bases, aliases, module-qualified calls, re-exports, ambiguity."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_project import build_graph, edges, resolved

from maguyva_lsp.graph.build import CodeGraph
from maguyva_lsp.graph.model import GUESS_WEIGHT, RESOLVED_WEIGHT
from maguyva_lsp.graph.resolve import READ_GUESS_FACTOR

PROJECT = {
    "pkg/__init__.py": """
        from .core import Engine as Engine
        """,
    "pkg/core.py": """
        import os.path
        from . import util as u
        from .util import helper as h

        class Base:
            def start(self):
                return self.run()

            def run(self):
                return 1

            def stop(self):
                return 0

        class Engine(Base):
            def run(self):
                h(u.twice(2))
                self.stop()
                return super().run()

        def fact(n):
            return 1 if n < 2 else n * fact(n - 1)

        def ping(n):
            return pong(n)

        def pong(n):
            return ping(n - 1) if n else os.path.join("a", "b")
        """,
    "pkg/util.py": """
        def helper(x):
            return twice(x)

        def twice(x):
            return x * 2
        """,
    "main.py": """
        import pkg.core
        from pkg import Engine
        import pkg.util as pu

        def main(helper):
            engine = Engine()
            engine.start()
            pkg.core.fact(3)
            pu.helper(1)
            helper(2)
            dup()
            len([])
        """,
    "a.py": "def dup():\n    pass\n",
    "b.py": "def dup():\n    pass\n",
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return build_graph(tmp_path_factory.mktemp("py"), PROJECT)


def test_nodes_are_definitions_and_modules(graph: CodeGraph) -> None:
    nodes = set(graph.node_ids())
    assert {"pkg/core.py", "pkg/core.py::Base", "pkg/core.py::Base.start", "main.py::main", "a.py::dup"} <= nodes


def test_method_calls_through_self(graph: CodeGraph) -> None:
    calls = resolved(graph)
    assert ("pkg/core.py::Base.start", "pkg/core.py::Base.run") in calls


def test_inherited_method_resolves_to_the_base(graph: CodeGraph) -> None:
    calls = resolved(graph)
    assert ("pkg/core.py::Engine.run", "pkg/core.py::Base.stop") in calls
    assert ("pkg/core.py::Engine.run", "pkg/core.py::Base.run") in calls  # super().run()
    assert ("pkg/core.py::Engine", "pkg/core.py::Base") in resolved(graph, "inherits")


def test_aliased_and_from_imports(graph: CodeGraph) -> None:
    calls = resolved(graph)
    assert ("pkg/core.py::Engine.run", "pkg/util.py::helper") in calls  # from .util import helper as h
    assert ("pkg/core.py::Engine.run", "pkg/util.py::twice") in calls  # from . import util as u; u.twice()
    assert ("main.py::main", "pkg/util.py::helper") in calls  # import pkg.util as pu; pu.helper()


def test_module_qualified_call_and_reexport(graph: CodeGraph) -> None:
    calls = resolved(graph)
    assert ("main.py::main", "pkg/core.py::fact") in calls  # import pkg.core; pkg.core.fact()
    assert ("main.py::main", "pkg/core.py::Engine") in calls  # from pkg import Engine, re-exported by __init__
    assert ("main.py", "pkg/core.py::Engine") in resolved(graph, "imports")
    assert ("main.py", "pkg/util.py") in resolved(graph, "imports")


def test_a_variable_assigned_a_constructor_has_that_type(graph: CodeGraph) -> None:
    sites = graph.edges()[("main.py::main", "pkg/core.py::Base.start")]
    assert [(s.kind, s.resolution, s.weight) for s in sites] == [("calls", "member", RESOLVED_WEIGHT)]


def test_unknown_receiver_is_a_guess_when_one_method_fits(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "box.py": "class Box:\n    def pack_all(self):\n        pass\n\nclass Bag:\n    def seal(self):\n"
            "        pass\n",
            "crate.py": "class Crate:\n    def seal(self):\n        pass\n",
            "use.py": "def run(thing, other):\n    thing.pack_all()\n    other.seal()\n    other.close()\n\n"
            "def later(thing):\n    return thing.pack_all\n",
        },
    )
    (site,) = graph.edges()[("use.py::run", "box.py::Box.pack_all")]
    assert (site.resolution, site.weight) == ("guess", GUESS_WEIGHT)
    (read,) = graph.edges()[("use.py::later", "box.py::Box.pack_all")]
    assert (read.kind, read.resolution, read.weight) == ("references", "guess", GUESS_WEIGHT * READ_GUESS_FACTOR)
    found = {v: sites[0].resolution for (u, v), sites in graph.edges().items() if u == "use.py::run"}
    # `seal` has two candidates: a weaker edge to each; `close` is a built-in method name (files): never guessed
    assert found == {
        "box.py::Box.pack_all": "guess",
        "box.py::Bag.seal": "ambiguous",
        "crate.py::Crate.seal": "ambiguous",
    }


def test_evident_types_of_variables_and_attributes(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "shapes.py": "class Square:\n    def area(self):\n        return 1\n\nclass Circle:\n    def area(self):\n"
            "        return 3\n",
            "use.py": """
                import shapes
                from shapes import Circle

                class Drawing:
                    def __init__(self):
                        self.first = shapes.Square()

                    def total(self, other: Circle, maybe):
                        local = Circle()
                        return self.first.area() + other.area() + local.area() + maybe.area()
                """,
        },
    )
    targets = {(v, sites[0].resolution) for (u, v), sites in graph.edges().items() if u == "use.py::Drawing.total"}
    assert ("shapes.py::Square.area", "member") in targets  # self.first = shapes.Square()
    assert ("shapes.py::Circle.area", "member") in targets  # the annotation, and local = Circle()
    sites = graph.edges()[("use.py::Drawing.total", "shapes.py::Circle.area")]
    assert sorted(s.resolution for s in sites) == ["ambiguous", "member", "member"]  # maybe.area(): either


def test_recursion_and_cycles(graph: CodeGraph) -> None:
    calls = resolved(graph)
    assert ("pkg/core.py::fact", "pkg/core.py::fact") in calls
    assert ("pkg/core.py::ping", "pkg/core.py::pong") in calls
    assert ("pkg/core.py::pong", "pkg/core.py::ping") in calls


def test_a_name_defined_twice_gets_weaker_edges_to_both(graph: CodeGraph) -> None:
    for target in ("a.py::dup", "b.py::dup"):
        (site,) = graph.edges()[("main.py::main", target)]
        assert (site.resolution, site.weight) == ("ambiguous", RESOLVED_WEIGHT / 2)  # an even share of one use


def test_parameters_and_builtins_never_resolve_elsewhere(graph: CodeGraph) -> None:
    targets = {v for u, v in resolved(graph) if u == "main.py::main"}
    assert "pkg/util.py::helper" in targets  # only through pu.helper
    helper_sites = graph.edges()[("main.py::main", "pkg/util.py::helper")]
    assert len(helper_sites) == 1  # `helper(2)` calls the parameter
    assert not any(v.endswith("::len") for v in targets)


def test_external_modules_give_no_edges(graph: CodeGraph) -> None:
    assert not any("join" in v for _, v, _, _ in edges(graph))


def test_sure_edges_have_full_weight(graph: CodeGraph) -> None:
    (site,) = graph.edges()[("pkg/core.py::fact", "pkg/core.py::fact")]
    assert (site.resolution, site.weight) == ("file", RESOLVED_WEIGHT)


def test_src_layout_and_star_imports(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "src/lib/__init__.py": "",
            "src/lib/shapes.py": "class Square:\n    def area(self):\n        return 1\n",
            "src/lib/all.py": "from lib.shapes import *\n",
            "app.py": "from lib.all import *\n\ndef run():\n    return Square().area()\n",
        },
    )
    calls = resolved(graph)
    assert ("app.py::run", "src/lib/shapes.py::Square") in calls
    assert ("app.py::run", "src/lib/shapes.py::Square.area") in calls  # the receiver is a call: a unique guess


def test_class_attribute_access_resolves_through_the_class(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "conf.py": "class Config:\n    @classmethod\n    def parse(cls, t):\n        return cls.check(t)\n\n"
            "    @staticmethod\n    def check(t):\n        return t\n",
            "use.py": "from conf import Config\n\ndef load(t):\n    return Config.parse(t)\n",
        },
    )
    calls = resolved(graph)
    assert ("use.py::load", "conf.py::Config.parse") in calls
    assert ("conf.py::Config.parse", "conf.py::Config.check") in calls


def test_a_workspace_of_projects_with_one_package_name_imports_each_its_own(tmp_path: Path) -> None:
    """Two services of a monorepo, each with its `app` package: an import resolves to the copy nearest the importer
    (Python puts the running project's root on sys.path), not to an ambiguous pair. An importer as near to both
    keeps both, ambiguous."""
    service = {
        "app/__init__.py": "",
        "app/models.py": "def load(key):\n    return key\n",
        "app/views.py": "from app.models import load\n\ndef show(key):\n    return load(key)\n",
        "tests/test_views.py": "import app.models\n\ndef test_load():\n    assert app.models.load(1) == 1\n",
    }
    files = {f"services/{name}/{path}": text for name in ("billing", "search") for path, text in service.items()}
    files["tools/check.py"] = "from app.models import load\n\ndef check():\n    return load(0)\n"
    graph = build_graph(tmp_path, files)
    calls = resolved(graph)
    for name, other in (("billing", "search"), ("search", "billing")):
        mine, theirs = f"services/{name}/app/models.py::load", f"services/{other}/app/models.py::load"
        assert (f"services/{name}/app/views.py::show", mine) in calls
        assert (f"services/{name}/app/views.py::show", theirs) not in calls
        assert (f"services/{name}/tests/test_views.py::test_load", mine) in calls
        assert (f"services/{name}/tests/test_views.py::test_load", theirs) not in calls
    ambiguous = {e for e in edges(graph) if e[0] == "tools/check.py::check"}
    assert {e[1] for e in ambiguous} == {f"services/{n}/app/models.py::load" for n in ("billing", "search")}
    assert {e[3] for e in ambiguous if e[2] == "calls"} == {"ambiguous"}

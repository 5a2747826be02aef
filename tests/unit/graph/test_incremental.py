"""Incremental batches: replacing, removing and restoring files gives exactly the graph a fresh build gives."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from graph_project import analyze_path, build_graph, edit_file, resolved, snapshot, write_tree

from maguyva_lsp.graph.build import CodeGraph
from maguyva_lsp.model import ChangeBatch

BASE = {
    "pkg/__init__.py": "from .core import Engine\n",
    "pkg/core.py": """
        from .util import helper

        class Base:
            def run(self):
                return helper(1)

        class Engine(Base):
            def go(self):
                return self.run()
        """,
    "pkg/util.py": "def helper(x):\n    return x\n\ndef twice(x):\n    return x * 2\n",
    "app.py": """
        from pkg import Engine
        from pkg.util import twice

        def main():
            Engine().go()
            return twice(2) + shared()
        """,
    "lib_a.py": "def shared():\n    return 1\n",
}

# Versions of files a sequence of edits draws from (None: the file is deleted).
VARIANTS: dict[str, list[str | None]] = {
    "pkg/util.py": [
        "def helper(x):\n    return x\n",  # twice() removed
        "def helper(x):\n    return twice(x)\n\ndef twice(x):\n    return x * 2\n",
        None,
    ],
    "pkg/core.py": [
        "from .util import helper\n\nclass Base:\n    def run(self):\n        return 2\n\n"
        "class Engine:\n    def go(self):\n        return self.run()\n",  # Engine no longer inherits run()
        "from .util import twice as helper\n\nclass Base:\n    def run(self):\n        return helper(1)\n\n"
        "class Engine(Base):\n    def go(self):\n        return self.run()\n",
        None,
    ],
    "lib_b.py": ["def shared():\n    return 2\n", None],  # makes `shared` ambiguous while it exists
    "pkg/__init__.py": ["", "from .core import Engine\n", None],
    "app.py": ["from pkg.core import Engine\n\ndef main():\n    return Engine().go()\n"],
}


def _fresh(root: Path) -> CodeGraph:
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py"))
    graph = CodeGraph()
    graph.apply(ChangeBatch(updated=tuple(analyze_path(root, f) for f in files)))
    return graph


def _padded(root: Path) -> CodeGraph:
    """A graph large enough that one-file batches are applied in place (not rebuilt fresh)."""
    write_tree(root, BASE)
    write_tree(root, {f"filler/f{i}.py": f"def filler{i}():\n    return {i}\n" for i in range(20)})
    return _fresh(root)


def test_removed_definition_unresolves_and_resolves_again(tmp_path: Path) -> None:
    graph = _padded(tmp_path)
    assert ("app.py::main", "pkg/util.py::twice") in resolved(graph)
    edit_file(tmp_path, graph, "pkg/util.py", "def helper(x):\n    return x\n")
    assert not any(v == "pkg/util.py::twice" for _, v in resolved(graph))
    assert snapshot(graph) == snapshot(_fresh(tmp_path))
    edit_file(tmp_path, graph, "pkg/util.py", BASE["pkg/util.py"])
    assert ("app.py::main", "pkg/util.py::twice") in resolved(graph)
    assert snapshot(graph) == snapshot(_fresh(tmp_path))


def test_a_second_definition_makes_a_name_ambiguous_and_its_removal_sure_again(tmp_path: Path) -> None:
    graph = _padded(tmp_path)
    (site,) = graph.edges()[("app.py::main", "lib_a.py::shared")]
    assert site.resolution == "global"
    edit_file(tmp_path, graph, "lib_b.py", "def shared():\n    return 2\n")
    assert {s.resolution for s in graph.edges()[("app.py::main", "lib_b.py::shared")]} == {"ambiguous"}
    edit_file(tmp_path, graph, "lib_b.py", None)
    assert snapshot(graph) == snapshot(_fresh(tmp_path))


def test_inheritance_change_elsewhere_re_resolves_self_calls(tmp_path: Path) -> None:
    graph = _padded(tmp_path)
    assert ("pkg/core.py::Engine.go", "pkg/core.py::Base.run") in resolved(graph)
    edit_file(tmp_path, graph, "pkg/core.py", VARIANTS["pkg/core.py"][0])
    assert ("pkg/core.py::Engine.go", "pkg/core.py::Base.run") not in resolved(graph)
    assert snapshot(graph) == snapshot(_fresh(tmp_path))


def test_package_init_coming_and_going(tmp_path: Path) -> None:
    graph = _padded(tmp_path)
    edit_file(tmp_path, graph, "pkg/__init__.py", None)
    assert ("app.py::main", "pkg/core.py::Engine") not in resolved(graph)
    assert snapshot(graph) == snapshot(_fresh(tmp_path))
    edit_file(tmp_path, graph, "pkg/__init__.py", BASE["pkg/__init__.py"])
    assert ("app.py::main", "pkg/core.py::Engine") in resolved(graph)
    assert snapshot(graph) == snapshot(_fresh(tmp_path))


def test_random_edit_sequences_match_fresh_builds(tmp_path: Path) -> None:
    rng = random.Random(4)
    for trial in range(3):
        root = tmp_path / f"t{trial}"
        graph = _padded(root)
        for _ in range(12):
            rel = rng.choice(sorted(VARIANTS))
            edit_file(root, graph, rel, rng.choice(VARIANTS[rel]))
            assert snapshot(graph) == snapshot(_fresh(root)), rel
        shutil.rmtree(root)


def test_large_batches_are_built_fresh_with_the_same_result(tmp_path: Path) -> None:
    graph = build_graph(tmp_path, BASE)
    updated = tuple(analyze_path(tmp_path, rel) for rel in sorted(BASE) if rel != "lib_a.py")
    graph.apply(ChangeBatch(updated=updated, removed=("lib_a.py",)))
    (tmp_path / "lib_a.py").unlink()
    assert snapshot(graph) == snapshot(_fresh(tmp_path))
    assert not graph.state.has_node("lib_a.py::shared")


def test_prose_and_data_files_stay_out_and_code_that_leaves_goes(tmp_path: Path) -> None:
    graph = _padded(tmp_path)
    write_tree(tmp_path, {"README.md": "# Title\n\nSee `shared()`.\n", "conf.json": '{"a": 1}\n'})
    graph.apply(ChangeBatch(updated=(analyze_path(tmp_path, "README.md"), analyze_path(tmp_path, "conf.json"))))
    assert not graph.state.has_node("README.md") and not graph.state.has_node("conf.json")
    write_tree(tmp_path, {"tool.sh": "build() {\n  make\n}\n"})
    graph.apply(ChangeBatch(updated=(analyze_path(tmp_path, "tool.sh"),)))
    assert graph.state.has_node("tool.sh::build")
    write_tree(tmp_path, {"tool.sh": "# nothing left\n"})
    graph.apply(ChangeBatch(updated=(analyze_path(tmp_path, "tool.sh"),)))
    assert not graph.state.has_node("tool.sh")
    (tmp_path / "tool.sh").unlink()
    (tmp_path / "README.md").unlink()
    (tmp_path / "conf.json").unlink()
    assert snapshot(graph) == snapshot(_fresh(tmp_path))

"""The project's own gates, part of the suite so that CI and a local run agree: lint, format, strict types."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.parametrize(
    "command",
    [
        ("ruff", "check", "."),
        ("ruff", "format", "--check", "."),
        ("mypy",),
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict"],
)
def test_gate(command: tuple[str, ...]) -> None:
    result = run(str(BIN / command[0]), *command[1:])
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_never_imports_lsp() -> None:
    """Only the server package may import pygls or lsprotocol (ruff's banned-api rule enforces it too)."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "maguyva_lsp").rglob("*.py")
        if "server" not in path.relative_to(ROOT / "maguyva_lsp").parts
        and any(
            line.lstrip().startswith(("import pygls", "from pygls", "import lsprotocol", "from lsprotocol"))
            for line in path.read_text().splitlines()
        )
    ]
    assert offenders == []


def _module_imports() -> dict[str, set[str]]:
    """Each package module and the package modules it imports (anywhere in it, TYPE_CHECKING blocks included)."""
    import ast

    graph: dict[str, set[str]] = {}
    for path in (ROOT / "maguyva_lsp").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        graph[module] = {m for m in found if m.startswith("maguyva_lsp")}
    return graph


def test_no_module_import_cycles() -> None:
    """Modules import each other one way only (navigation reads a small protocol, not the engine it serves)."""
    import graphlib

    graph = _module_imports()
    sorter = graphlib.TopologicalSorter({m: {d for d in deps if d in graph and d != m} for m, deps in graph.items()})
    try:
        sorter.prepare()
    except graphlib.CycleError as cycle:
        raise AssertionError(f"import cycle: {' → '.join(cycle.args[1])}") from None

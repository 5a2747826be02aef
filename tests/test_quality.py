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

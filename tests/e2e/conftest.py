"""Fixtures of the end-to-end tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.lsp_session import write_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small Python + TypeScript project with an ignored folder."""
    return write_workspace(tmp_path / "ws")

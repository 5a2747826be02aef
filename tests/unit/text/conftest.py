"""Fixtures of the text retriever tests: the sample workspace and a retriever built over it."""

from __future__ import annotations

from pathlib import Path

import pytest
from text_corpus import FILES, build, write_tree

from maguyva_lsp.retrieve.text import TextRetriever


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    return root


@pytest.fixture
def retriever(workspace: Path) -> TextRetriever:
    return build(workspace)

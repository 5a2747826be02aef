"""Fixtures of the text retriever tests: the sample workspace and a retriever built over it."""

from __future__ import annotations

from pathlib import Path

import pytest
from text_corpus import FILES, build, write_tree

from maguyva_lsp.retrieve.text import TextRetriever


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Shared by a module's tests, which only read it."""
    root = tmp_path_factory.mktemp("ws")
    write_tree(root, FILES)
    return root


@pytest.fixture(scope="module")
def retriever(workspace: Path) -> TextRetriever:
    return build(workspace)

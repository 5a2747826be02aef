"""Fixtures of the semantic tests: the real local embedder (loaded once), sockets switched off, file analyses."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from maguyva_lsp.embed.base import Embeddings
from maguyva_lsp.embed.local import LocalEmbedder
from maguyva_lsp.model import FileAnalysis, PathClass, SourceFile
from maguyva_lsp.parse.analyze import analyze_file


class NetworkUsedError(AssertionError):
    """Raised by any attempt to open a socket while networking is disabled."""


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every new socket raises, so any network access fails the test loudly."""

    def refuse(*args: object, **kwargs: object) -> socket.socket:
        raise NetworkUsedError("network access attempted")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture(scope="session")
def local_embedder() -> LocalEmbedder:
    return LocalEmbedder()


class CountingEmbedder(LocalEmbedder):
    """The real local embedder, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def embed_documents(self, texts: Sequence[str]) -> Embeddings:
        if texts:
            self.batches.append(list(texts))
        return super().embed_documents(texts)

    @property
    def texts_embedded(self) -> int:
        return sum(len(batch) for batch in self.batches)


@pytest.fixture
def counting_embedder() -> Iterator[CountingEmbedder]:
    yield CountingEmbedder()


Analyse = Callable[[str, str], FileAnalysis]


@pytest.fixture
def analyse(tmp_path: Path) -> Analyse:
    """Write a file under a workspace folder and analyse it with the engine's real parser and chunker."""
    return lambda rel, text: _analyse(tmp_path / "ws", rel, text)


def _analyse(root: Path, rel: str, text: str) -> FileAnalysis:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    data = path.read_bytes()
    language = "python" if rel.endswith(".py") else None
    source = SourceFile(rel, str(path), language, PathClass.SOURCE, len(data), path.stat().st_mtime_ns)
    return analyze_file(source, data)

"""Embedding runs on its own thread: the other modalities answer while it catches up, and searches say so."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from maguyva_lsp import engine as engine_module
from maguyva_lsp.config import Settings
from maguyva_lsp.embed.base import Embeddings
from maguyva_lsp.embed.local import LocalEmbedder
from maguyva_lsp.engine import Engine


class GatedEmbedder(LocalEmbedder):
    """The real local model, holding document batches until the test opens the gate (a slow remote model)."""

    gate = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Embeddings:
        if texts:  # the retriever probes the model's output form with an empty call
            assert self.gate.wait(30), "the test never opened the gate"
        return super().embed_documents(texts)


def test_index_returns_before_embeddings_and_search_says_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "billing.py").write_text("def compute_invoice_total(lines):\n    return sum(lines)\n")
    monkeypatch.setattr(engine_module, "make_embedder", lambda settings: (GatedEmbedder(), []))
    GatedEmbedder.gate.clear()
    engine = Engine(root, Settings(), persist=False)
    try:
        engine.index(wait_for_embeddings=False)
        # Text, structural and graph are current; the semantic index is still waiting for its embeddings.
        direct = engine.search("where is compute_invoice_total defined").to_json()
        assert direct["results"][0]["symbol"] == "compute_invoice_total"
        assert direct["partial"] is True
        assert engine.status()["modalities"]["semantic"]["partial"] is True
        assert engine.status()["embedding_batches_pending"] == 1
        GatedEmbedder.gate.set()
        assert engine.wait_for_embeddings(30)
        quick = engine.search("invoice totals", preset="quick").to_json()
        assert quick["partial"] is False
        assert quick["results"][0]["uri"].endswith("billing.py")
    finally:
        GatedEmbedder.gate.set()
        engine.close()

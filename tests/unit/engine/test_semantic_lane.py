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
from maguyva_lsp.model import Classification, Intent, RetrievalQuery


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


def test_while_the_lane_lags_an_edit_no_semantic_hit_shows_the_old_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    billing = root / "billing.py"
    billing.write_text("def compute_invoice_total(lines):\n    return sum(lines)\n")
    (root / "shipping.py").write_text("def parcel_weight(items):\n    return len(items)\n")
    monkeypatch.setattr(engine_module, "make_embedder", lambda settings: (GatedEmbedder(), []))
    GatedEmbedder.gate.set()
    engine = Engine(root, Settings(), persist=False)
    query = RetrievalQuery(Classification("invoice totals", Intent.UNDERSTAND_CODE, 0.75, "test", "invoice totals"))
    try:
        engine.index()
        assert any(h.path == "billing.py" for h in engine.semantic.search(query, 10))
        GatedEmbedder.gate.clear()
        billing.write_text("# nothing left to bill\n\n\ndef archive_everything():\n    return None\n")
        engine.update([billing], wait_for_embeddings=False)
        assert engine.embeddings_pending  # the vectors still hold billing.py's old chunk
        lagging = engine.semantic.search(query, 10)
        assert [h.path for h in lagging] == ["shipping.py"]  # the current files' rows only, not the old chunk
        GatedEmbedder.gate.set()
        assert engine.wait_for_embeddings(30)
        caught_up = engine.semantic.search(query, 10)
        assert {h.path for h in caught_up} == {"billing.py", "shipping.py"}
        assert next(h for h in caught_up if h.path == "billing.py").symbol == "archive_everything"
    finally:
        GatedEmbedder.gate.set()
        engine.close()

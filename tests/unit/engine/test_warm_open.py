"""Opening an indexed, unchanged folder reads headers and maps arrays: no stored analysis is rebuilt, nothing is
embedded, the parser and the embedding model are not even loaded; a process answering one request does not wait for
a semantic index that lags far behind, says its answers are partial, and what it embedded before it ended is kept."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from maguyva_lsp import engine as engine_module
from maguyva_lsp.config import Settings
from maguyva_lsp.embed.base import Embeddings
from maguyva_lsp.embed.factory import make_embedder
from maguyva_lsp.embed.local import LocalEmbedder
from maguyva_lsp.engine import Engine
from maguyva_lsp.retrieve import semantic as semantic_module

REPO = Path(__file__).resolve().parents[3]
FILES = {
    "billing/invoice.py": (
        "from billing.tax import apply_tax\n\n\ndef compute_invoice_total(lines):\n"
        '    """Sum the invoice lines and add the tax."""\n    return apply_tax(sum(lines))\n'
    ),
    "billing/tax.py": (
        'RATE = 0.2\n\n\ndef apply_tax(amount):\n    """The amount with VAT added."""\n    return amount * (1 + RATE)\n'
    ),
    "mail/send.py": (
        "import smtplib\n\n\ndef send_email(to, body):\n"
        '    """Deliver a message through the SMTP server."""\n'
        '    smtplib.SMTP("localhost").sendmail("me", [to], body)\n'
    ),
    "README.md": "# Billing\n\nInvoices and their taxes.\n",
}
# Modules a warm name query has no use for: the parser (only changed files are parsed), the worker pool, the
# embedding model (only a semantic query or new chunks need it).
NOT_LOADED = (
    "maguyva_lsp.parse.analyze",
    "maguyva_lsp.parse.references",
    "multiprocessing",
    "tokenizers",
    "safetensors",
)

WARM_CHILD = """
import json, sys
from pathlib import Path
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine

engine = Engine(Path(sys.argv[1]), Settings(index_dir=sys.argv[2]))
engine.index(one_shot=True, wait_for_embeddings=False)
found = engine.search("where is compute_invoice_total defined").to_json()
report = {
    "first": found["results"][0]["symbol"],
    "partial": found["partial"],
    "analyzed": engine.counters.analyzed,
    "reused": engine.counters.reused,
    "loaded_analyses": engine.segments.loaded_analyses,
    "embedded": engine.semantic.embedded_texts,
    "chunks": engine.semantic.chunk_count,
    "modules": sorted(m for m in sys.argv[3].split(",") if m in sys.modules),
}
engine.close()
print(json.dumps(report))
"""


def _write(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _warm_report(root: Path, index_dir: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", WARM_CHILD, str(root), str(index_dir), ",".join(NOT_LOADED)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=REPO,
    )
    report: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return report


def test_a_warm_start_rebuilds_no_analysis_embeds_nothing_and_loads_no_parser_or_model(tmp_path: Path) -> None:
    root = _write(tmp_path / "ws")
    first = Engine(root, Settings(index_dir=str(tmp_path / "index")))
    first.index()
    chunks = first.semantic.chunk_count
    assert chunks > 0 and first.semantic.embedded_texts == chunks
    first.close()

    warm = _warm_report(root, tmp_path / "index")
    assert warm["first"] == "compute_invoice_total" and warm["partial"] is False
    assert (warm["analyzed"], warm["reused"]) == (0, len(FILES))
    assert warm["loaded_analyses"] == 0, "a warm start rebuilt stored analyses"
    assert (warm["embedded"], warm["chunks"]) == (0, chunks)
    assert warm["modules"] == [], f"a warm name query loaded {warm['modules']}"

    # One edited file: only it is parsed, its stored vectors are replaced without waiting long (few files), and
    # still no other file's analysis is rebuilt.
    (root / "billing/tax.py").write_text(FILES["billing/tax.py"].replace("VAT", "value added tax"))
    edited = _warm_report(root, tmp_path / "index")
    assert (edited["analyzed"], edited["reused"]) == (1, len(FILES) - 1)
    assert edited["loaded_analyses"] == 0 and edited["partial"] is False
    assert edited["embedded"] == 1 and edited["chunks"] == chunks


class GatedEmbedder(LocalEmbedder):
    """The real local model, holding each document slice until the test lets one through (a slow remote model)."""

    allowed = threading.Semaphore(0)
    asked = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Embeddings:
        if texts:  # the retriever probes the model's output form with an empty call
            self.asked.set()
            assert self.allowed.acquire(timeout=30), "the test never let a slice through"
        return super().embed_documents(texts)


def test_one_request_does_not_wait_for_a_lagging_semantic_index_and_keeps_what_it_embedded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _write(tmp_path / "ws")
    settings = Settings(index_dir=str(tmp_path / "index"))
    monkeypatch.setattr(engine_module, "ONE_SHOT_EMBED_FILES", 1)
    monkeypatch.setattr(semantic_module, "EMBED_SLICE_TEXTS", 1)
    monkeypatch.setattr(engine_module, "make_embedder", lambda settings: (GatedEmbedder(), []))
    GatedEmbedder.asked.clear()
    one = Engine(root, settings)
    one.index(one_shot=True, wait_for_embeddings=False)  # returns: more files to embed than a request waits for
    found = one.search("where is compute_invoice_total defined").to_json()
    assert found["results"][0]["symbol"] == "compute_invoice_total"
    assert found["partial"] is True and one.embeddings_pending
    assert GatedEmbedder.asked.wait(30)
    closing = threading.Thread(target=one.close)
    closing.start()
    for _ in range(3000):
        if one.semantic.stopping:
            break
        time.sleep(0.01)
    GatedEmbedder.allowed.release()  # the slice being embedded finishes; the close stops the rest
    closing.join(30)
    assert not closing.is_alive() and one.semantic.embedded_texts == 1

    monkeypatch.setattr(engine_module, "make_embedder", make_embedder)
    monkeypatch.setattr(engine_module, "ONE_SHOT_EMBED_FILES", 64)
    again = Engine(root, settings)
    again.index(one_shot=True)  # few files lag: it waits, and the slice embedded before comes from the cache
    assert not again.embeddings_pending and again.segments.loaded_analyses == len(FILES)
    total = again.semantic.chunk_count
    assert total > 1 and again.semantic.embedded_texts == total - 1
    assert again.search("invoice totals with tax", preset="quick").to_json()["partial"] is False
    again.close()


def test_an_index_run_no_question_follows_loads_no_model(tmp_path: Path) -> None:
    """`maguyva index` (questions_follow=False) exits once the index is complete: the embedding model is not loaded
    ahead of questions there, as a process that answers some (the server, `batch`) loads it."""
    root = _write(tmp_path / "ws")
    first = Engine(root, Settings(index_dir=str(tmp_path / "index")))
    try:
        first.index()
    finally:
        first.close()
    for follow in (False, True):
        engine = Engine(root, Settings(index_dir=str(tmp_path / "index")))
        embedder = engine.semantic.embedder
        assert isinstance(embedder, LocalEmbedder)
        try:
            engine.index(questions_follow=follow)
            engine.wait_for_embeddings()
            assert engine.semantic.embedded_texts == 0  # nothing changed: nothing to embed
            deadline = time.monotonic() + 60  # the load runs on the lane, in the background
            while follow and embedder._model is None and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            engine.close()  # the lane's queued tasks run before it ends
        assert (embedder._model is not None) is follow

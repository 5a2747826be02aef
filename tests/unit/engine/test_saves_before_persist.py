"""A single change is searchable before it is written: the engine answers from the staged segment while the store
still holds the previous generation, the persister writes it afterwards, and the result equals a fresh build."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.store.manifest import read_manifest
from maguyva_lsp.store.segment_store import SegmentStore
from tests.unit.engine.test_engine import FILES, new_engine, snapshot, write_tree

NEW_MODULE = "def expire_entries(cache):\n    cache.clear()\n"


def stored_paths(engine: Engine) -> set[str]:
    """The files another process opening the store now would find (read-only: the engine holds the writer lock)."""
    manifest = read_manifest(engine.index_dir)
    assert manifest is not None
    reader = Segments(SegmentStore(engine.index_dir, manifest.schema, manifest.fingerprint))
    try:
        assert not reader.writable
        return set(reader.stored_files())
    finally:
        reader.close()


def test_a_save_is_searchable_before_it_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    engine = new_engine(root, tmp_path)
    gate = threading.Event()
    persist = Segments.persist

    def held(self: Segments) -> None:
        assert gate.wait(60)
        persist(self)

    try:
        engine.index()
        monkeypatch.setattr(Segments, "persist", held)
        (root / "app" / "cache.py").write_text(NEW_MODULE)
        engine.update(["app/cache.py"])
        found = engine.search("where is expire_entries defined").to_json()["results"]
        assert found and found[0]["uri"].endswith("app/cache.py")
        assert engine.segments.unpersisted
        assert "app/cache.py" not in stored_paths(engine)
        gate.set()
        deadline = time.monotonic() + 60
        while engine.segments.unpersisted and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not engine.segments.unpersisted
        assert "app/cache.py" in stored_paths(engine)
    finally:
        gate.set()
        engine.close()
    # The next start reuses every file, the saved one included, and answers as a fresh build does.
    reopened = new_engine(root, tmp_path)
    fresh = Engine(root, Settings(), persist=False)
    try:
        reopened.index()
        assert reopened.counters.analyzed == 0
        fresh.index()
        assert snapshot(reopened) == snapshot(fresh)
    finally:
        reopened.close()
        fresh.close()


def test_closing_writes_what_is_staged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The persister never ran (held back here): closing the engine writes the staged change itself."""
    root = tmp_path / "ws"
    write_tree(root, FILES)
    engine = new_engine(root, tmp_path)
    engine.index()
    monkeypatch.setattr(engine._writer, "_persist_soon", lambda: None)
    (root / "app" / "cache.py").write_text(NEW_MODULE)
    engine.update(["app/cache.py"])
    engine.remove(["README.md"])
    assert engine.segments.unpersisted
    engine.close()
    (root / "README.md").unlink()
    reopened = new_engine(root, tmp_path)
    try:
        reopened.index()
        assert reopened.counters.analyzed == 0 and reopened.counters.removed == 0
        assert "app/cache.py" in reopened.files and "README.md" not in reopened.files
    finally:
        reopened.close()

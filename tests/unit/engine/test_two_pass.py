"""A two-pass cold build (a process that answers while it indexes): the first pass publishes segments without
references — text and definitions searchable, the manifest marking them "references pending" — and the second
extracts the references and merges them in. The result answers exactly as a one-pass build; a process that ends
between the passes leaves pending segments whose files the next writer analyses again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from maguyva_lsp import indexer, indexing
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import MENTIONS_PENDING, Engine
from maguyva_lsp.index.segment_set import Segment
from maguyva_lsp.index.text_part import TEXT_PART, TextPart
from maguyva_lsp.indexing import IndexProgress
from maguyva_lsp.parse.python_outline import python_definitions
from maguyva_lsp.store.manifest import read_manifest
from tests.unit.engine.test_engine import snapshot, write_tree
from tests.unit.engine.test_segments_in_workers import _graph_view, corpus

pytestmark = pytest.mark.usefixtures("small_parallel")


@pytest.fixture
def small_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "PARALLEL_MIN_FILES", 10)
    monkeypatch.setattr(indexing, "FIRST_SEGMENT_FILES", 8)
    monkeypatch.setattr(indexing, "WORKER_GRAPH_FILES", 10)


def _fresh(root: Path) -> tuple[Any, Any]:
    engine = Engine(root, Settings(workers=1), persist=False)
    try:
        engine.index()
        return snapshot(engine), _graph_view(engine)
    finally:
        engine.close()


def _workspace(tmp_path: Path) -> tuple[Path, Path, int]:
    """The corpus written to a folder, the index folder to use beside it, and the corpus's file count."""
    root = tmp_path / "ws"
    files = corpus()
    write_tree(root, files)
    return root, tmp_path / "idx", len(files)


class _EndedError(Exception):
    """Raised from the progress callback: the process "ends" between the passes."""


def test_two_passes_publish_text_first_and_end_like_one_pass(tmp_path: Path) -> None:
    root, store, file_count = _workspace(tmp_path)
    engine = Engine(root, Settings(index_dir=str(store), workers=2))
    seen: list[dict[str, Any]] = []

    def progress(p: IndexProgress) -> None:
        if p.phase == "extracting references" and not seen:
            status = engine.status()
            manifest = read_manifest(engine.index_dir)
            assert manifest is not None
            found = engine.search("where is parse_config defined").to_json()["results"]
            seen.append(
                {
                    "ready": p.ready,
                    "pending": status["references_pending"],
                    "text": status["modalities"]["text"]["partial"],
                    "structural": status["modalities"]["structural"],
                    "graph": status["modalities"]["graph"]["partial"],
                    "marked": [s.pending for s in manifest.segments],
                    "files": status["files"],
                    "counts": (status["symbols"], status["chunks"]),
                    "first": found[0]["uri"] if found else None,
                }
            )

    try:
        engine.index(progress, wait_for_embeddings=False)
        engine.wait_for_embeddings()
        engine.wait_for_merges()
        after = snapshot(engine), _graph_view(engine)
        status = engine.status()
        segments = engine.segments.current.segments
        _assert_text_part_of_its_core(engine, segments[0])
    finally:
        engine.close()
    assert len(seen) == 1, "the second pass ran"
    first = seen[0]
    assert first["ready"] == ("text", "structural")
    assert first["pending"] and not first["text"] and first["graph"]
    assert first["structural"]["partial"] is False and first["structural"]["reason"] == MENTIONS_PENDING
    assert first["marked"] and all(first["marked"]), "every first-pass segment is marked in the manifest"
    assert first["files"] == file_count
    # Python's definitions in the first pass come from the outline scanner, not a parse: the same symbols and chunks
    python_files = [path for path in corpus() if path.endswith(".py")]
    assert python_files and all(
        python_definitions((root / path).read_bytes(), path) is not None for path in python_files
    )
    final_counts = engine_counts(after[0])
    assert first["counts"] == (final_counts["symbols"], final_counts["chunks"])
    assert first["first"] is not None and first["first"].endswith("app/config.py")
    assert not status["references_pending"] and status["modalities"]["structural"]["reason"] is None
    assert len(segments) == 1 and not segments[0].pending
    manifest = read_manifest(engine.index_dir)
    assert manifest is not None and not any(s.pending for s in manifest.segments)
    assert after == _fresh(root)


def engine_counts(observed: list[Any]) -> dict[str, int]:
    """The status counts in a snapshot."""
    return next(item for item in observed if isinstance(item, dict) and "symbols" in item and "chunks" in item)


def _assert_text_part_of_its_core(engine: Engine, segment: Segment) -> None:
    """The stored text part of a segment is exactly what building it from the segment's core gives (a completion
    that kept the first pass's parts must not differ from one that built them again)."""
    store = engine.segments._store
    assert store is not None
    stored = store.open(segment.records[TEXT_PART]).arrays
    built = TextPart().build(segment.core)
    assert sorted(stored) == sorted(built)
    for name, array in built.items():
        assert np.asarray(stored[name]).dtype == array.dtype and np.array_equal(np.asarray(stored[name]), array), name


def test_files_changed_or_gone_between_the_passes_end_as_a_fresh_build_of_the_new_content(tmp_path: Path) -> None:
    """The second pass reads the files again: one rewritten and one deleted after the first pass end as in a fresh
    build of the folder as it is then; the first pass's text part of their segments is not kept."""
    root, store, file_count = _workspace(tmp_path)
    engine = Engine(root, Settings(index_dir=str(store), workers=2))
    changed = root / "pkg" / "mod3.py"

    def change_between_passes(p: IndexProgress) -> None:
        if p.phase == "extracting references" and p.done == 0:
            changed.write_text("def between_passes_marker(value):\n    return value\n", encoding="utf-8")
            (root / "pkg" / "mod20.py").unlink()

    try:
        engine.index(change_between_passes, wait_for_embeddings=False)
        engine.wait_for_embeddings()
        engine.wait_for_merges()
        after = snapshot(engine), _graph_view(engine)
        found = engine.search('"between_passes_marker"').to_json()["results"]
        old = engine.search('"helper_3("').to_json()["results"]
        segments = engine.segments.current.segments
        assert len(segments) == 1 and not segments[0].pending
        _assert_text_part_of_its_core(engine, segments[0])
        assert engine.status()["files"] == file_count - 1
    finally:
        engine.close()
    assert [r["uri"].rsplit("/", 2)[-2:] for r in found] == [["pkg", "mod3.py"]]
    assert not any(r["uri"].endswith("pkg/mod3.py") for r in old)
    assert after == _fresh(root)


def test_pending_segments_left_by_an_ended_process_are_analysed_again(tmp_path: Path) -> None:
    root, store, file_count = _workspace(tmp_path)
    engine = Engine(root, Settings(index_dir=str(store), workers=2))

    def stop_between_passes(p: IndexProgress) -> None:
        if p.phase == "extracting references":
            raise _EndedError

    folder = engine.index_dir
    try:
        with pytest.raises(_EndedError):
            engine.index(stop_between_passes, wait_for_embeddings=False)
    finally:
        engine.close()
    manifest = read_manifest(folder)
    assert manifest is not None and manifest.segments and all(s.pending for s in manifest.segments)
    reopened = Engine(root, Settings(index_dir=str(store), workers=1))
    try:
        assert reopened.status()["references_pending"]
        counters = reopened.index()
        assert (counters.analyzed, counters.reused) == (file_count, 0), "every pending file is analysed again"
        assert not reopened.status()["references_pending"]
        recovered = snapshot(reopened), _graph_view(reopened)
    finally:
        reopened.close()
    assert recovered == _fresh(root)
    manifest = read_manifest(folder)
    assert manifest is not None and not any(s.pending for s in manifest.segments)


def test_the_command_line_build_stays_one_pass(tmp_path: Path) -> None:
    """`maguyva index` (waiting for the embeddings) answers no one meanwhile: one pass, no segment ever pending."""
    root, store, _ = _workspace(tmp_path)
    engine = Engine(root, Settings(index_dir=str(store), workers=2))
    phases: list[str] = []
    try:
        engine.index(lambda p: phases.append(p.phase))
        assert "extracting references" not in phases
        assert not engine.status()["references_pending"]
    finally:
        engine.close()

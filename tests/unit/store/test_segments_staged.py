"""Staged saves: a change is in the snapshot at once and in the store only after `persist`; what a process that
stops in between leaves behind is the previous generation, never a mix; persisting writes the staged segments as
one stored segment and every tombstone since, and leaves the snapshot answering the same."""

from __future__ import annotations

from pathlib import Path

from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.store.manifest import read_manifest
from maguyva_lsp.store.segment_store import DATA_DIR
from tests.unit.store.test_segment_store import analysis, open_segments


def live(segments: Segments) -> dict[str, int]:
    """Each live path and the mtime of its version, as queries see them."""
    snapshot = segments.current
    out: dict[str, int] = {}
    for segment, local in snapshot.live():
        out[segment.core.paths[local]] = int(segment.core.mtimes()[local])
    return out


def test_a_staged_change_is_searchable_before_it_is_stored(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py"), analysis("b.py")])
    generation = read_manifest(tmp_path).generation  # type: ignore[union-attr]
    data = set((tmp_path / DATA_DIR).iterdir())
    segments.stage([analysis("a.py", mtime=2), analysis("c.py")], removed=["b.py"])
    assert live(segments) == {"a.py": 2, "c.py": 1}
    assert segments.unpersisted
    # Nothing written: the manifest and the data folder are the previous generation's.
    assert read_manifest(tmp_path).generation == generation  # type: ignore[union-attr]
    assert set((tmp_path / DATA_DIR).iterdir()) == data
    # A process ending here (no persist, no commit) leaves the store as it was.
    segments.close()
    reopened = open_segments(tmp_path)
    assert {p: f.mtime_ns for p, f in reopened.stored_files().items()} == {"a.py": 1, "b.py": 1}
    reopened.close()


def test_persist_writes_the_staged_segments_as_one_and_the_tombstones(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py"), analysis("b.py"), analysis("d.py"), analysis("e.py")])
    segments.stage([analysis("a.py", mtime=2)])
    segments.stage([analysis("c.py")], removed=["b.py"])
    segments.stage([analysis("a.py", mtime=3)])  # the first staged segment's only file dies again
    segments.stage([], removed=["d.py"])
    before = live(segments)
    segments.persist()
    assert not segments.unpersisted
    assert live(segments) == before == {"a.py": 3, "c.py": 1, "e.py": 1}
    # The staged files now sit in one stored segment beside the saved one (mostly dead).
    assert [s.ident != "" for s in segments.current.segments] == [True, True]
    manifest = read_manifest(tmp_path)
    assert manifest is not None and len(manifest.segments) == 2
    assert {p.name for p in (tmp_path / DATA_DIR).iterdir()} == manifest.container_names()
    loaded = {a.path: a for a in segments.load(["a.py", "c.py"])}
    assert loaded == {"a.py": analysis("a.py", mtime=3), "c.py": analysis("c.py")}
    segments.close()
    reopened = open_segments(tmp_path)
    assert {p: f.mtime_ns for p, f in reopened.stored_files().items()} == {"a.py": 3, "c.py": 1, "e.py": 1}
    assert list(reopened.load(["a.py"])) == [analysis("a.py", mtime=3)]
    reopened.close()


def test_a_change_staged_while_persisting_is_kept_and_persisted_next(tmp_path: Path) -> None:
    """A save that comes while `persist` writes (here: between its pick and its commit) kills the picked version
    in the written segment too, and stays staged for the next persist."""
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py")])
    segments.stage([analysis("a.py", mtime=2), analysis("b.py")])
    original = segments.reserve

    def reserve_then_save() -> object:
        segments.stage([analysis("a.py", mtime=3)])
        return original()

    segments.reserve = reserve_then_save  # type: ignore[method-assign]
    segments.persist()
    segments.reserve = original  # type: ignore[method-assign]
    assert live(segments) == {"a.py": 3, "b.py": 1}
    assert segments.unpersisted
    reader = open_segments(tmp_path)  # what another process reads now: the written b.py, no a.py (dead in both)
    assert {p: f.mtime_ns for p, f in reader.stored_files().items()} == {"b.py": 1}
    reader.close()
    segments.persist()
    assert not segments.unpersisted
    segments.close()
    reopened = open_segments(tmp_path)
    assert {p: f.mtime_ns for p, f in reopened.stored_files().items()} == {"a.py": 3, "b.py": 1}
    reopened.close()


def test_a_commit_before_persist_stores_tombstones_not_staged_files(tmp_path: Path) -> None:
    """Another commit (the chains', a merge's) between a stage and its persist names no staged segment; the
    staged file's older version is dead in it, so a restart from that generation analyses the file again."""
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py"), analysis("b.py")])
    segments.stage([analysis("a.py", mtime=2)])
    segments.commit_chains()
    segments.close()
    reopened = open_segments(tmp_path)
    assert {p: f.mtime_ns for p, f in reopened.stored_files().items()} == {"b.py": 1}
    reopened.close()


def test_without_a_writable_store_stage_is_save(tmp_path: Path) -> None:
    writer = open_segments(tmp_path)
    reader = open_segments(tmp_path)
    assert not reader.writable
    reader.stage([analysis("c.py")])
    assert live(reader) == {"c.py": 1} and not reader.unpersisted
    reader.persist()  # nothing to do
    reader.close()
    writer.close()
    memory = Segments(None)
    memory.stage([analysis("a.py")])
    assert live(memory) == {"a.py": 1}

"""The segment store and segment set: commits are atomic, old and foreign stores are rebuilt once, a second
process reads, damaged segments are dropped (their files analysed again), merges keep every live file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.index.segment_build import merge_segments
from maguyva_lsp.index.segment_parts import ChainExport
from maguyva_lsp.index.segment_set import MAX_SEGMENTS, Segments
from maguyva_lsp.model import Chunk, Definition, FileAnalysis, PathClass, Reference, SourceFile, Span
from maguyva_lsp.store.container import Container, ContainerRecord
from maguyva_lsp.store.manifest import MANIFEST_NAME, STORE_FORMAT, read_manifest
from maguyva_lsp.store.segment_store import DATA_DIR, SegmentStore, default_index_dir


def analysis(path: str, text: str = "def f():\n    return g()\n", mtime: int = 1) -> FileAnalysis:
    file = SourceFile(path, f"/w/{path}", "python", PathClass.SOURCE, len(text), mtime)
    definition = Definition("f", "function", path, Span(0, 0, 1, 14), Span(0, 4, 0, 5), "def f():", None, "python")
    method = Definition("m", "method", path, Span(1, 4, 1, 9), Span(1, 4, 1, 5), "m", "C", None)
    reference = Reference("g", "call", path, Span(1, 11, 1, 12), "f", None, None, None)
    imported = Reference("os", "import", path, Span(0, 0, 0, 2), None, "x", "os.path", "p")
    whole = Chunk(path, "python", 0, 1, "def f():\n    return g()", "f", "function", None, "def f():")
    odd = Chunk(path, "python", 0, 0, "not the file's text")
    return FileAnalysis(file, text, f"hash-{path}-{mtime}", (definition, method), (reference, imported), (whole, odd))


def open_segments(folder: Path, schema: str = "1.1", fingerprint: str = "fp") -> Segments:
    return Segments(SegmentStore(folder, schema, fingerprint))


def test_round_trip_and_removal(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    assert segments.writable
    segments.save([analysis("a.py"), analysis("b.py")])
    segments.save([analysis("a.py", mtime=2)], removed=["b.py"])
    segments.close()
    reopened = open_segments(tmp_path)
    stored = reopened.stored_files()
    assert set(stored) == {"a.py"}
    assert stored["a.py"].mtime_ns == 2
    assert stored["a.py"].content_hash == "hash-a.py-2"
    (loaded,) = reopened.load(["a.py"])
    assert loaded == analysis("a.py", mtime=2)
    reopened.close()


def test_analyses_of_every_shape_round_trip(tmp_path: Path) -> None:
    empty = FileAnalysis(SourceFile("e.txt", "/w/e.txt", None, PathClass.TEST, 0, 5), "", "h", (), (), (), "bad")
    odd = FileAnalysis(
        SourceFile("ü/x.py", "/w/ü/x.py", "python", PathClass.VENDOR, 3, 9), "\ud800\r\n\n", "h", (), (), ()
    )
    segments = open_segments(tmp_path)
    segments.save([empty, odd, analysis("z.py")])
    segments.close()
    reopened = open_segments(tmp_path)
    assert sorted(reopened.load(["e.txt", "ü/x.py", "z.py"]), key=lambda a: a.path) == [empty, analysis("z.py"), odd]
    reopened.close()


def test_other_fingerprint_or_schema_discards_once(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py")])
    segments.close()
    reopened = open_segments(tmp_path, fingerprint="other")
    assert reopened.discarded_reason == "settings that shape the index changed"
    assert reopened.stored_files() == {}
    reopened.save([analysis("b.py")])
    reopened.close()
    again = open_segments(tmp_path, fingerprint="other")
    assert again.discarded_reason is None and set(again.stored_files()) == {"b.py"}
    again.close()
    newer = open_segments(tmp_path, schema="9.9", fingerprint="other")
    assert newer.discarded_reason is not None and "layout" in newer.discarded_reason
    newer.close()
    assert len(list((tmp_path / DATA_DIR).iterdir())) == 0, "the discarded generation's files are deleted"


def test_an_older_sqlite_store_is_rebuilt_once(tmp_path: Path) -> None:
    (tmp_path / "analyses.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    (tmp_path / "analyses.sqlite-wal").write_bytes(b"")
    segments = open_segments(tmp_path)
    assert segments.discarded_reason is not None and "older format" in segments.discarded_reason
    assert not (tmp_path / "analyses.sqlite").exists() and not (tmp_path / "analyses.sqlite-wal").exists()
    segments.close()
    assert open_segments(tmp_path).discarded_reason is None


@pytest.mark.parametrize("content", [b"{not json", b"[]", json.dumps({"format": STORE_FORMAT + 7}).encode()])
def test_unreadable_or_foreign_manifest_is_rebuilt(tmp_path: Path, content: bytes) -> None:
    (tmp_path / MANIFEST_NAME).write_bytes(content)
    segments = open_segments(tmp_path)
    assert segments.discarded_reason is not None
    segments.save([analysis("a.py")])
    segments.close()
    assert set(open_segments(tmp_path).stored_files()) == {"a.py"}


def test_a_damaged_segment_is_dropped_and_its_files_are_missing(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py")])
    segments.save([analysis("b.py")])
    segments.close()
    manifest = read_manifest(tmp_path)
    assert manifest is not None
    first = manifest.segments[0].containers["core"].name
    target = tmp_path / DATA_DIR / first
    target.write_bytes(target.read_bytes()[:100])
    reopened = open_segments(tmp_path)
    assert set(reopened.stored_files()) == {"b.py"}, "a.py is gone from the index: the engine analyses it again"
    reopened.close()


def test_a_second_store_on_the_folder_reads_and_does_not_write(tmp_path: Path) -> None:
    writer = open_segments(tmp_path)
    writer.save([analysis("a.py")])
    reader = open_segments(tmp_path)
    assert not reader.writable
    assert set(reader.stored_files()) == {"a.py"}
    reader.save([analysis("c.py")])  # kept in memory by the reader
    assert set(reader.stored_files()) == {"a.py", "c.py"}
    manifest = read_manifest(tmp_path)
    assert manifest is not None and sum(s.files for s in manifest.segments) == 1
    reader.close()
    writer.close()


def test_commits_keep_only_what_the_manifest_names(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    for i in range(3 * MAX_SEGMENTS):
        segments.save([analysis(f"f{i % 5}.py", mtime=i)])
    manifest = read_manifest(tmp_path)
    assert manifest is not None
    assert len(manifest.segments) <= MAX_SEGMENTS
    on_disk = {p.name for p in (tmp_path / DATA_DIR).iterdir()}
    assert on_disk == manifest.container_names()
    assert set(segments.stored_files()) == {f"f{i}.py" for i in range(5)}
    for i in range(5):
        (loaded,) = segments.load([f"f{i}.py"])
        assert loaded.file.mtime_ns == max(m for m in range(3 * MAX_SEGMENTS) if m % 5 == i)
    segments.close()


def test_leftovers_of_a_crashed_writer_are_collected(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py")])
    segments.close()
    (tmp_path / DATA_DIR / "99999999-core.mgv").write_bytes(b"half written")
    (tmp_path / DATA_DIR / ".00000005-core.mgv.abc.tmp").write_bytes(b"temp")
    reopened = open_segments(tmp_path)
    manifest = read_manifest(tmp_path)
    assert manifest is not None
    assert {p.name for p in (tmp_path / DATA_DIR).iterdir()} == manifest.container_names()
    assert set(reopened.stored_files()) == {"a.py"}
    reopened.close()


def test_in_memory_segments_without_a_store() -> None:
    segments = Segments(None)
    segments.save([analysis("a.py"), analysis("b.py")])
    segments.save([], removed=["a.py"])
    assert set(segments.stored_files()) == {"b.py"}
    assert not segments.writable


def test_generation_grows_and_dead_files_are_recorded(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py"), analysis("b.py")])
    first = read_manifest(tmp_path)
    segments.save([], removed=["a.py"])
    second = read_manifest(tmp_path)
    assert first is not None and second is not None
    assert second.generation == first.generation + 1
    assert second.segments[0].dead == (0,)
    assert np.count_nonzero(segments.current.segments[0].alive) == 1
    segments.close()


def test_default_index_dir_is_keyed_by_root(tmp_path: Path) -> None:
    a = default_index_dir(tmp_path / "one", None)
    b = default_index_dir(tmp_path / "two", None)
    assert a != b
    assert default_index_dir(tmp_path / "one", str(tmp_path / "idx")).parent == tmp_path / "idx"


class CountingChain:
    """A small chain part: each export writes the values added since the last one (a base first)."""

    name = "counting"

    def __init__(self) -> None:
        self.values: list[int] = []
        self.exported = 0
        self.must_base = True
        self.opened: list[list[int]] = []

    def add(self, *values: int) -> None:
        self.values.extend(values)

    def export(self) -> ChainExport:
        base = self.must_base
        fresh = self.values if base else self.values[self.exported :]
        self.must_base = False
        self.exported = len(self.values)
        if not fresh and not base:
            return ChainExport(False)
        return ChainExport(base, [({"v": np.array(fresh, dtype=np.int64)}, {"n": len(fresh)})])

    def export_failed(self) -> None:
        self.must_base = True

    def open(self, containers: Sequence[Container], records: Sequence[ContainerRecord] = ()) -> None:
        assert [c.path.name for c in containers] == [r.name for r in records]
        self.opened = [list(c["v"]) for c in containers]
        self.values = [v for chunk in self.opened for v in chunk]
        self.exported = len(self.values)
        self.must_base = not containers


def test_a_chain_part_is_written_with_each_commit_and_reopened_in_order(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    chain = CountingChain()
    segments.attach_chain(chain)
    chain.add(1, 2)
    segments.save([analysis("a.py")])
    chain.add(3)
    segments.commit_chains()
    segments.commit_chains()  # nothing new: no container
    chain.add(4, 5)
    segments.save([], removed=["a.py"])
    segments.close()
    manifest = read_manifest(tmp_path)
    assert manifest is not None and len(manifest.chains["counting"]) == 3
    reopened = open_segments(tmp_path)
    again = CountingChain()
    reopened.attach_chain(again)
    assert again.opened == [[1, 2], [3], [4, 5]] and again.values == [1, 2, 3, 4, 5]
    again.must_base = True  # a base replaces the chain
    reopened.commit_chains()
    reopened.close()
    manifest = read_manifest(tmp_path)
    assert manifest is not None and len(manifest.chains["counting"]) == 1
    assert {p.name for p in (tmp_path / DATA_DIR).iterdir()} == manifest.container_names()
    last = CountingChain()
    final = open_segments(tmp_path)
    final.attach_chain(last)
    assert last.opened == [[1, 2, 3, 4, 5]]
    final.close()


def test_files_that_die_while_a_merge_runs_stay_dead(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py"), analysis("b.py")])
    segments.save([analysis("c.py")])
    plan = segments.plan_merge(everything=True)
    assert plan is not None and len(plan.segments) == 2
    target = segments.reserve()
    assert target is not None and segments.data_dir is not None
    built = merge_segments(segments.data_dir, segments.merge_sources(plan), (), target)  # as a worker would
    segments.save([analysis("b.py", mtime=9)], removed=["c.py"])  # meanwhile: b changed, c deleted
    assert segments.adopt_merge(plan, built)
    assert {p: f.mtime_ns for p, f in segments.stored_files().items()} == {"a.py": 1, "b.py": 9}
    segments.close()
    reopened = open_segments(tmp_path)
    assert {p: f.mtime_ns for p, f in reopened.stored_files().items()} == {"a.py": 1, "b.py": 9}
    manifest = read_manifest(tmp_path)
    assert manifest is not None and {p.name for p in (tmp_path / DATA_DIR).iterdir()} == manifest.container_names()
    reopened.close()


def test_a_segment_in_a_planned_merge_is_not_merged_again(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py")])
    segments.save([analysis("b.py")])
    plan = segments.plan_merge(everything=True)
    assert plan is not None
    assert segments.plan_merge(everything=True) is None, "both segments are taken by the running merge"
    segments.abandon_merge(plan)
    assert segments.plan_merge(everything=True) is not None
    segments.close()


class CumulativeChain(CountingChain):
    """A chain part whose deltas hold everything since its base, each replacing the previous delta."""

    name = "cumulative"

    def export(self) -> ChainExport:
        if self.must_base:
            self.must_base = False
            self.base_size = self.exported = len(self.values)
            return ChainExport(True, [({"v": np.array(self.values, dtype=np.int64)}, {})])
        if self.exported == len(self.values):
            return ChainExport(False)
        replaces = 1 if self.exported > self.base_size else 0
        self.exported = len(self.values)
        since = np.array(self.values[self.base_size :], dtype=np.int64)
        return ChainExport(False, [({"v": since}, {})], replaces=replaces)


def test_a_delta_may_replace_the_previous_one(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    chain = CumulativeChain()
    segments.attach_chain(chain)
    chain.add(1, 2)
    segments.commit_chains()  # the base
    for value in (3, 4, 5):
        chain.add(value)
        segments.commit_chains()  # a delta replacing the previous delta
    segments.close()
    manifest = read_manifest(tmp_path)
    assert manifest is not None and len(manifest.chains["cumulative"]) == 2
    assert {p.name for p in (tmp_path / DATA_DIR).iterdir()} == manifest.container_names()
    again = CumulativeChain()
    reopened = open_segments(tmp_path)
    reopened.attach_chain(again)
    assert again.opened == [[1, 2], [3, 4, 5]]
    reopened.close()


def test_files_kept_for_workers_outlive_a_merge_adopted_meanwhile(tmp_path: Path) -> None:
    segments = open_segments(tmp_path)
    segments.save([analysis("a.py")])
    segments.save([analysis("b.py")])
    old = {r.name for s in segments.current.segments for r in s.records.values()}
    plan = segments.plan_merge(everything=True)
    target = segments.reserve()
    assert plan is not None and target is not None and segments.data_dir is not None
    with segments.files_kept(old):  # as the embedding jobs of a cold build read them, the merge lands
        built = merge_segments(segments.data_dir, segments.merge_sources(plan), (), target)
        assert segments.adopt_merge(plan, built)
        segments.save([analysis("c.py")])  # a later commit spares them too
        assert old <= {p.name for p in (tmp_path / DATA_DIR).iterdir()}
    segments.save([analysis("d.py")])
    names = {p.name for p in (tmp_path / DATA_DIR).iterdir()}
    assert not old & names
    manifest = read_manifest(tmp_path)
    assert manifest is not None and names == manifest.container_names()
    segments.close()

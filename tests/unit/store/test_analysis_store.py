"""The analysis store: round trips, incompatible and corrupt stores rebuilt, one writer at a time."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from maguyva_lsp.model import Chunk, Definition, FileAnalysis, PathClass, SourceFile, Span
from maguyva_lsp.store.analysis_store import DB_NAME, AnalysisStore, default_index_dir


def analysis(path: str, text: str = "def f():\n    return 1\n", mtime: int = 1) -> FileAnalysis:
    file = SourceFile(path, f"/w/{path}", "python", PathClass.SOURCE, len(text), mtime)
    span = Span(0, 0, 1, 12)
    definition = Definition("f", "function", path, span, Span(0, 4, 0, 5), "def f():", None, "python")
    chunk = Chunk(path, "python", 0, 1, text, "h1", "f", "function", None, "def f():")
    return FileAnalysis(file, text, f"hash-{path}-{mtime}", (definition,), (), (chunk,))


def test_round_trip_and_removal(tmp_path: Path) -> None:
    store = AnalysisStore(tmp_path, "fp")
    assert store.writable
    store.save([analysis("a.py"), analysis("b.py")])
    store.save([analysis("a.py", mtime=2)], removed=["b.py"])
    store.close()
    reopened = AnalysisStore(tmp_path, "fp")
    stored = reopened.stored_files()
    assert set(stored) == {"a.py"}
    assert stored["a.py"].mtime_ns == 2
    (loaded,) = reopened.load(["a.py"])
    assert loaded == analysis("a.py", mtime=2)
    reopened.close()


def test_other_fingerprint_discards(tmp_path: Path) -> None:
    store = AnalysisStore(tmp_path, "chunk_lines=40")
    store.save([analysis("a.py")])
    store.close()
    reopened = AnalysisStore(tmp_path, "chunk_lines=80")
    assert reopened.discarded_reason == "settings that shape the index changed"
    assert reopened.stored_files() == {}
    reopened.close()


def test_corrupt_database_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not an sqlite database at all" * 100)
    store = AnalysisStore(tmp_path, "fp")
    assert store.discarded_reason is not None and "unreadable" in store.discarded_reason
    store.save([analysis("a.py")])
    assert set(store.stored_files()) == {"a.py"}
    store.close()


def test_damaged_row_is_dropped_not_raised(tmp_path: Path) -> None:
    store = AnalysisStore(tmp_path, "fp")
    store.save([analysis("a.py"), analysis("b.py")])
    store.close()
    db = sqlite3.connect(tmp_path / DB_NAME)
    db.execute("UPDATE files SET analysis = ? WHERE path = 'b.py'", (b"garbage",))
    db.commit()
    db.close()
    reopened = AnalysisStore(tmp_path, "fp")
    assert [a.path for a in reopened.load(["a.py", "b.py"])] == ["a.py"]
    reopened.close()


def test_second_process_reads_but_does_not_write(tmp_path: Path) -> None:
    first = AnalysisStore(tmp_path, "fp")
    first.save([analysis("a.py")])
    second = AnalysisStore(tmp_path, "fp")  # flock is per open file description: a second open contends like a process
    assert first.writable and not second.writable
    assert set(second.stored_files()) == {"a.py"}
    second.save([analysis("b.py")])
    assert set(first.stored_files()) == {"a.py"}
    second.close()
    first.close()


def test_default_index_dir_is_keyed_by_root(tmp_path: Path) -> None:
    a = default_index_dir(tmp_path / "one", None)
    b = default_index_dir(tmp_path / "two", None)
    assert a != b and a.name.startswith("one-")
    assert default_index_dir(tmp_path / "one", str(tmp_path / "idx")).parent == tmp_path / "idx"

"""Each bad entry is skipped alone with its reason: the hostile workspace scanned as an ordinary user, entries that
change between listing and reading (the race made deterministic by acting between the real steps), the safe reader,
and the skip summary that status and the one warning per run are made of."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from maguyva_lsp.indexer import Skipped, read_and_analyze
from maguyva_lsp.scan.read import read_source
from maguyva_lsp.scan.skips import Skip, SkipReason, name_problem, printable_path, problem_warning, summarize
from maguyva_lsp.scan.walker import ScanReport, WorkspaceScanner
from tests import hostile_workspace
from tests.unprivileged import as_ordinary_user, assert_readable_by_us, assert_unreadable, ordinary_user_env

SCAN_AND_PRINT = """
import json, sys
from pathlib import Path
from maguyva_lsp.scan.walker import WorkspaceScanner
report = WorkspaceScanner(Path(sys.argv[1]), max_file_size=int(sys.argv[2])).scan()
print(json.dumps({"files": [f.path for f in report.files],
                  "skipped": {p: [s.reason.value, str(s)] for p, s in report.skipped.items()}}))
"""


@pytest.fixture
def hostile(tmp_path: Path) -> object:
    ws = hostile_workspace.build(tmp_path / "ws")
    yield ws
    hostile_workspace.restore_permissions(ws.root)


def test_the_hostile_workspace_scanned_as_an_ordinary_user(hostile: hostile_workspace.Hostile) -> None:
    assert_unreadable(hostile.unreadable)
    assert_readable_by_us(hostile.unreadable)
    result = subprocess.run(
        as_ordinary_user(
            [sys.executable, "-c", SCAN_AND_PRINT, str(hostile.root), str(hostile_workspace.MAX_FILE_SIZE)]
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=ordinary_user_env(),
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # The scan lists the chmod-000 file (its folder is readable); reading it is what fails, at indexing.
    assert report["files"] == sorted([*hostile.normal, "app/private.py"])
    expected = {p: r.value for p, r in hostile.expected_skips.items() if p != "app/private.py"}
    assert {p: reason for p, (reason, _text) in report["skipped"].items()} == expected
    assert "Permission denied" in report["skipped"]["locked"][1]
    assert report["skipped"]["app/pipe.py"][1] == "not a regular file: a FIFO"
    assert report["skipped"]["app/server.sock"][1] == "not a regular file: a socket"
    assert report["skipped"]["app/device.py"][1] == "not a regular file: a character device"


def test_entries_changing_between_listing_and_reading(tmp_path: Path) -> None:
    """The walker lists a folder, then each entry is looked at in turn: change the later ones meanwhile."""
    root = tmp_path / "ws"
    for rel in ("a_first.py", "b_vanishes.py", "d_becomes_fifo.py", "z_last.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    (root / "c_folder_becomes_file").mkdir()
    (root / "c_folder_becomes_file" / "inner.py").write_text("y = 2\n")
    report = ScanReport()
    walk = WorkspaceScanner(root, max_file_size=1 << 20).walk(report)
    first = next(walk)
    assert first.path == "a_first.py"
    # The folder's entries are listed now; change them before the walker reaches them.
    (root / "b_vanishes.py").unlink()
    (root / "c_folder_becomes_file" / "inner.py").unlink()
    (root / "c_folder_becomes_file").rmdir()
    (root / "c_folder_becomes_file").write_text("now a file\n")
    (root / "d_becomes_fifo.py").unlink()
    os.mkfifo(root / "d_becomes_fifo.py")
    rest = [f.path for f in walk]
    assert rest == ["z_last.py"]
    assert report.skipped == {
        "b_vanishes.py": Skip(SkipReason.VANISHED, "No such file or directory"),
        "c_folder_becomes_file": Skip(SkipReason.CHANGED_TYPE, "listed as a folder, now a regular file"),
        "d_becomes_fifo.py": Skip(SkipReason.SPECIAL_FILE, "a FIFO"),
    }


def test_files_changing_between_scan_and_read(tmp_path: Path) -> None:
    """Scanned as regular files, then each becomes something else before the indexer reads it."""
    root = tmp_path / "ws"
    root.mkdir()
    names = ["fifo.py", "folder.py", "gone.py", "huge.py", "binary.py", "locked.py", "fine.py", "parent/inner.py"]
    for name in names:
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text("def f():\n    return 1\n")
    files = {f.path: f for f in WorkspaceScanner(root, max_file_size=100).scan().files}
    assert sorted(files) == sorted(names)
    (root / "fifo.py").unlink()
    os.mkfifo(root / "fifo.py")  # a plain open() of it would block forever: the reader must not
    (root / "folder.py").unlink()
    (root / "folder.py").mkdir()
    (root / "gone.py").unlink()
    (root / "huge.py").write_text("x = 1\n" * 100)
    (root / "binary.py").write_bytes(b"\x00\x01\x02" * 10)
    (root / "parent" / "inner.py").unlink()
    (root / "parent").rmdir()
    (root / "parent").write_text("")  # the folder on the way is a file now
    reasons = {}
    for path, file in files.items():
        result = read_and_analyze(file, chunk_lines=40, max_file_size=100)
        reasons[path] = result.skip.reason if isinstance(result, Skipped) else "indexed"
    assert reasons == {
        "fifo.py": SkipReason.CHANGED_TYPE,
        "folder.py": SkipReason.CHANGED_TYPE,
        "gone.py": SkipReason.VANISHED,
        "huge.py": SkipReason.TOO_LARGE,
        "binary.py": SkipReason.BINARY,
        "locked.py": "indexed",  # root reads it; the ordinary user's view is the next test's
        "fine.py": "indexed",
        "parent/inner.py": SkipReason.CHANGED_TYPE,
    }


READ_AS_USER = """
import json, sys
from maguyva_lsp.scan.read import read_source
print(json.dumps({p: str(read_source(p, 1000)) for p in sys.argv[1:]}))
"""


def test_a_file_losing_its_permission_before_it_is_read(tmp_path: Path) -> None:
    target = tmp_path / "locked.py"
    target.write_text("x = 1\n")
    target.chmod(0)
    assert_unreadable([target])
    result = subprocess.run(
        as_ordinary_user([sys.executable, "-c", READ_AS_USER, str(target)]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=ordinary_user_env(),
    )
    assert json.loads(result.stdout) == {str(target): "unreadable: Permission denied"}


def test_the_reader_never_blocks_and_never_reads_past_the_limit(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    assert read_source(str(tmp_path / "pipe"), 100) == Skip(SkipReason.CHANGED_TYPE, "now a FIFO")
    assert read_source("/dev/zero", 100) == Skip(SkipReason.CHANGED_TYPE, "now a character device")
    (tmp_path / "ok.py").write_bytes(b"a" * 100)
    assert read_source(str(tmp_path / "ok.py"), 100) == b"a" * 100
    assert read_source(str(tmp_path / "ok.py"), 99) == Skip(SkipReason.TOO_LARGE, "100 bytes > max_file_size 99")
    os.symlink("loop2", tmp_path / "loop1")
    os.symlink("loop1", tmp_path / "loop2")
    assert read_source(str(tmp_path / "loop1"), 100).reason is SkipReason.SYMLINK_LOOP  # type: ignore[union-attr]


def test_names_and_printable_paths() -> None:
    assert name_problem("ok_name.py") is None
    assert name_problem("ünïcødé 日本.py") is None
    assert name_problem("new\nline.py") == "holds a control character (a newline or tab)"
    assert name_problem(os.fsdecode(b"caf\xe9.py")) == "not valid UTF-8"
    assert printable_path(os.fsdecode(b"d\xfcr/x.py")) == "d\\xfcr/x.py"
    assert printable_path("new\nline\t.py") == "new\\nline\\t.py"
    assert printable_path("ünï/ok.py") == "ünï/ok.py"


def test_summary_counts_by_reason_with_a_few_examples_and_one_warning() -> None:
    skipped = {f"locked/{i}.py": Skip(SkipReason.UNREADABLE, "Permission denied") for i in range(5)}
    skipped["big.bin"] = Skip(SkipReason.TOO_LARGE, "9 bytes")
    skipped["dangling.py"] = Skip(SkipReason.BROKEN_SYMLINK)
    summary = summarize(skipped)
    assert list(summary) == ["unreadable", "broken_symlink", "too_large"]  # most frequent first
    assert summary["unreadable"] == {
        "count": 5,
        "problem": True,
        "examples": ["locked/0.py", "locked/1.py", "locked/2.py"],
    }
    assert summary["too_large"] == {"count": 1, "problem": False, "examples": ["big.bin"]}
    warning = problem_warning("ws", skipped)
    assert warning is not None and warning.count("\n") == 0
    assert warning.startswith("6 entries in ws could not be indexed and were skipped: 5 unreadable (e.g. locked/0.py)")
    assert "1 broken symlink (e.g. dangling.py)" in warning and "too large" not in warning
    assert problem_warning("ws", {"big.bin": Skip(SkipReason.TOO_LARGE)}) is None  # policy alone: no warning

"""The folder watcher on a real folder: events arrive debounced, bursts become one batch, VCS noise is dropped."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest
from watchdog.events import DirModifiedEvent, FileModifiedEvent, FileSystemEvent

from maguyva_lsp.watch import watcher as watcher_module
from maguyva_lsp.watch.watcher import FolderWatcher


class Batches:
    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.event = threading.Event()

    def __call__(self, paths: list[str]) -> None:
        self.batches.append(paths)
        self.event.set()

    def wait_for(self, predicate: object, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():  # type: ignore[operator]
                return True
            time.sleep(0.05)
        return False


def test_burst_arrives_as_one_batch_and_git_is_ignored(tmp_path: Path) -> None:
    batches = Batches()
    watcher = FolderWatcher(tmp_path, batches)
    assert watcher.start()
    try:
        (tmp_path / ".git").mkdir()
        for i in range(50):
            (tmp_path / f"f{i}.py").write_text(f"x = {i}\n")
        (tmp_path / ".git" / "index").write_text("noise")
        all_seen = lambda: {f"f{i}.py" for i in range(50)} <= {Path(p).name for b in batches.batches for p in b}  # noqa: E731
        assert batches.wait_for(all_seen)
        assert len(batches.batches) <= 3  # one burst, possibly split by the max-delay bound
        assert not any(".git" in Path(p).parts for b in batches.batches for p in b)
    finally:
        watcher.stop()


def test_move_reports_both_ends(tmp_path: Path) -> None:
    (tmp_path / "old.py").write_text("x = 1\n")
    batches = Batches()
    watcher = FolderWatcher(tmp_path, batches)
    assert watcher.start()
    try:
        (tmp_path / "old.py").rename(tmp_path / "new.py")
        names = lambda: {Path(p).name for b in batches.batches for p in b}  # noqa: E731
        assert batches.wait_for(lambda: {"old.py", "new.py"} <= names())
    finally:
        watcher.stop()


def test_reads_are_not_delivered_by_the_platform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `grep -r` over the folder (every file opened and closed) reaches the watcher's thread as no event at all where
    the platform filters (inotify): none to make into objects while a search is answered. A write still arrives."""
    for i in range(100):
        (tmp_path / f"f{i}.py").write_text(f"x = {i}\n")
    seen: list[str] = []
    original = watcher_module._Collector.on_any_event

    def counting(self: watcher_module._Collector, event: FileSystemEvent) -> None:
        seen.append(event.event_type)
        original(self, event)

    monkeypatch.setattr(watcher_module._Collector, "on_any_event", counting)
    batches = Batches()
    watcher = FolderWatcher(tmp_path, batches)
    assert watcher.start()
    try:
        for i in range(100):
            (tmp_path / f"f{i}.py").read_bytes()
        (tmp_path / "f0.py").write_text("x = 'changed'\n")
        assert batches.wait_for(lambda: any(Path(p).name == "f0.py" for b in batches.batches for p in b))
        if sys.platform.startswith("linux"):
            assert not {"opened", "closed_no_write"} & set(seen), seen
    finally:
        watcher.stop()


def test_a_save_comes_without_its_folder(tmp_path: Path) -> None:
    """The platform adds a "modified" event of the folder to each file event; the folder would be scanned whole (at
    the top of the workspace: every file), so it is dropped when a file inside it came, before or after it."""
    (tmp_path / "pkg").mkdir()
    batches = Batches()
    watcher = FolderWatcher(tmp_path, batches)
    assert watcher.start()
    try:
        (tmp_path / "top.py").write_text("x = 1\n")
        (tmp_path / "pkg" / "new.py").write_text("y = 2\n")
        delivered = lambda: {p for b in batches.batches for p in b}  # noqa: E731
        assert batches.wait_for(lambda: {str(tmp_path / "top.py"), str(tmp_path / "pkg" / "new.py")} <= delivered())
        time.sleep(watcher_module.DEBOUNCE_SECONDS * 2)
        assert str(tmp_path) not in delivered() and str(tmp_path / "pkg") not in delivered(), batches.batches
    finally:
        watcher.stop()


def test_a_folder_modified_alone_is_delivered(tmp_path: Path) -> None:
    """A folder reported modified with nothing inside it reported (a platform that says only "look at this folder")
    still arrives, and is dropped again once a file inside it comes in the same batch."""
    batches = Batches()
    watcher = FolderWatcher(tmp_path, batches)
    collector = watcher_module._Collector(watcher)
    folder = tmp_path / "pkg"
    collector.on_any_event(DirModifiedEvent(str(folder)))
    assert watcher.take_pending() == [str(folder)]
    collector.on_any_event(DirModifiedEvent(str(folder)))
    collector.on_any_event(FileModifiedEvent(str(folder / "a.py")))
    assert watcher.take_pending() == [str(folder / "a.py")]

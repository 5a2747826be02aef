"""The cross-platform writer lock (store/lock.py) between real processes: exclusion, waiting, release on death.

Every test runs with both ways of taking the lock in this process: flock through the standard library (POSIX's
default) and the filelock package (the default elsewhere); the other process always uses the default, so the two
also exclude each other."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.store import lock as lock_module
from maguyva_lsp.store.lock import ExclusiveLock, LockUnavailableError
from maguyva_lsp.store.segment_store import LOCK_NAME, SegmentStore

# A second process that takes the lock, says so, and holds it until told (a line on stdin) or killed.
HOLDER = """
import sys
from pathlib import Path
from maguyva_lsp.store.lock import ExclusiveLock
lock = ExclusiveLock(Path(sys.argv[1]))
print("held" if lock.try_acquire() else "busy", flush=True)
sys.stdin.readline()
lock.release()
print("released", flush=True)
sys.stdin.readline()
"""


@pytest.fixture(autouse=True, params=[False, True], ids=["flock", "filelock"])
def lock_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(lock_module, "USE_FILELOCK", request.param)
    return bool(request.param)


def start_holder(path: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    return holder


def tell(holder: subprocess.Popen[str], expect: str) -> None:
    assert holder.stdin is not None and holder.stdout is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    assert holder.stdout.readline().strip() == expect


def test_two_locks_on_one_file_exclude_each_other_in_one_process(tmp_path: Path) -> None:
    first, second = ExclusiveLock(tmp_path / "a.lock"), ExclusiveLock(tmp_path / "a.lock")
    assert first.try_acquire() and first.held
    assert first.try_acquire()  # asking again while holding it is a no-op, not a deadlock
    assert not second.try_acquire() and not second.held
    first.release()
    assert second.try_acquire()
    second.release()
    second.release()  # releasing twice is harmless


@pytest.mark.parametrize("name", ["writer.lock", "with space ü ß 日本.lock", "x" * 200 + ".lock"])
def test_another_process_is_excluded_until_it_releases(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    holder = start_holder(path)
    try:
        mine = ExclusiveLock(path)
        assert not mine.try_acquire()
        assert not mine.acquire(timeout=0.2)  # waits, then gives up
        tell(holder, "released")
        assert mine.try_acquire()
        mine.release()
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_frees_the_lock(tmp_path: Path) -> None:
    path = tmp_path / LOCK_NAME
    holder = start_holder(path)
    mine = ExclusiveLock(path)
    assert not mine.try_acquire()
    holder.kill()  # no clean-up runs: the operating system drops the lock with the process
    holder.wait()
    assert mine.try_acquire()
    mine.release()


def test_a_blocking_acquire_waits_for_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "wait.lock"
    holder = start_holder(path)
    got: list[bool] = []
    mine = ExclusiveLock(path)
    waiter = threading.Thread(target=lambda: got.append(mine.acquire(timeout=60)))
    try:
        waiter.start()
        waiter.join(0.3)
        assert waiter.is_alive() and not got  # still waiting while the other process holds it
        tell(holder, "released")
        waiter.join(60)
        assert got == [True] and mine.held
    finally:
        mine.release()
        holder.kill()
        holder.wait()


def test_released_from_another_thread(tmp_path: Path) -> None:
    lock = ExclusiveLock(tmp_path / "t.lock")
    assert lock.try_acquire()
    releaser = threading.Thread(target=lock.release)
    releaser.start()
    releaser.join()
    assert not lock.held and ExclusiveLock(tmp_path / "t.lock").try_acquire()


def test_a_lock_that_cannot_be_created_says_why(tmp_path: Path) -> None:
    (tmp_path / "not-a-folder").write_text("")
    with pytest.raises(LockUnavailableError, match="cannot lock"):
        ExclusiveLock(tmp_path / "not-a-folder" / "writer.lock").try_acquire()


def test_context_manager_holds_and_releases(tmp_path: Path) -> None:
    path = tmp_path / "cm.lock"
    with ExclusiveLock(path) as lock:
        assert lock.held and not ExclusiveLock(path).try_acquire()
    assert ExclusiveLock(path).try_acquire()


def test_a_store_in_another_process_makes_this_one_read_only(tmp_path: Path) -> None:
    holder = start_holder(tmp_path / LOCK_NAME)
    try:
        store = Segments(SegmentStore(tmp_path, "s", "fp"))
        assert not store.writable
        store.close()
    finally:
        holder.kill()
        holder.wait()
    store = Segments(SegmentStore(tmp_path, "s", "fp"))
    assert store.writable
    store.close()

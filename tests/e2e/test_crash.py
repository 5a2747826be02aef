"""A crash at any moment leaves a usable index: a process indexing and merging is killed with SIGKILL at random
points (during the background merge of the segments among them); a new engine on the same store then answers exactly
as a fresh build of the folder does, and the store holds only what its manifest names."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.store.manifest import read_manifest
from maguyva_lsp.store.segment_store import DATA_DIR
from tests.unit.engine.test_engine import FILES, snapshot, write_tree

pytestmark = pytest.mark.e2e

ROUNDS = 6
# The child: index (segments built by workers, merged in the background), announce the merge, then keep editing.
CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from maguyva_lsp import indexer, indexing
    from maguyva_lsp.config import Settings
    from maguyva_lsp.engine import Engine

    if __name__ == "__main__":
        indexer.PARALLEL_MIN_FILES = 10
        indexing.FIRST_SEGMENT_FILES = 8
        root, index_dir = Path(sys.argv[1]), sys.argv[2]
        engine = Engine(root, Settings(index_dir=index_dir, workers=2))
        engine.index(wait_for_embeddings=False)
        print("MERGING", flush=True)
        for i in range(1000):
            path = root / "pkg" / f"mod{i % 7}.py"
            path.write_text(f"def edited_{i}():\\n    return {i}\\n")
            engine.update([path], wait_for_embeddings=False)
            if i == 3:
                print("EDITING", flush=True)
    """
)


def corpus() -> dict[str, str]:
    files = dict(FILES)
    for i in range(40):
        files[f"pkg/mod{i}.py"] = (
            f"from app.config import parse_config\n\n\ndef helper_{i}(v):\n    return parse_config(v)\n"
        )
    return files


@contextlib.contextmanager
def killed_child(source: str, folder: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """Run `source` as a script (written into `folder`) with `args`, reading its stdout; SIGKILL it and its workers on
    leaving. A session of its own: the kill takes its worker processes too, as a machine that loses power would."""
    script = folder / "child.py"
    script.write_text(source)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    child = subprocess.Popen(
        [sys.executable, str(script), *args], stdout=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    try:
        assert child.stdout is not None
        yield child
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=30)


def kill_at_random(root: Path, index_dir: Path, rng: random.Random) -> None:
    with killed_child(CHILD, root.parent, str(root), str(index_dir)) as child:
        assert child.stdout is not None
        wanted = rng.choice(["MERGING", "EDITING"])
        for line in child.stdout:
            if line.strip() == wanted:
                break
        time.sleep(rng.uniform(0.0, 0.8))


def assert_like_a_fresh_build(root: Path, store: Path, recovered: list[Any]) -> None:
    """The store holds only what its manifest names, and the recovered index answers as a fresh build does."""
    manifest = read_manifest(store)
    assert manifest is not None
    assert {p.name for p in (store / DATA_DIR).iterdir()} == manifest.container_names()
    fresh = Engine(root, Settings(workers=1), persist=False)
    try:
        fresh.index()
        assert recovered == snapshot(fresh)
    finally:
        fresh.close()


def test_a_sigkill_at_any_moment_leaves_an_index_that_answers_like_a_fresh_build(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, corpus())
    index_dir = tmp_path / "idx"
    rng = random.Random(12)
    for _ in range(ROUNDS):
        kill_at_random(root, index_dir, rng)
        engine = Engine(root, Settings(index_dir=str(index_dir), workers=1))
        try:
            engine.index()
            engine.wait_for_merges()
            recovered = snapshot(engine)
            store = engine.index_dir
        finally:
            engine.close()
        assert_like_a_fresh_build(root, store, recovered)


# The child: index, change three files (a new one, an edited one, a deleted one) through the engine's single-change
# path, then wait to be killed — with the persister held back ("staged": searchable, not written) or after it wrote.
STAGED_CHILD = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path
    from maguyva_lsp.config import Settings
    from maguyva_lsp.engine import Engine
    from maguyva_lsp.index.segment_set import Segments

    if __name__ == "__main__":
        root, index_dir, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
        engine = Engine(root, Settings(index_dir=index_dir, workers=1))
        engine.index()
        if mode == "staged":
            Segments.persist = lambda self: time.sleep(3600)
        (root / "app" / "cache.py").write_text("def expire_entries(cache):\\n    cache.clear()\\n")
        (root / "app" / "config.py").write_text("def parse_config(text):\\n    return text.split()\\n")
        (root / "README.md").unlink()
        engine.update(["app/cache.py", "app/config.py", "README.md"])
        while mode == "written" and engine.segments.unpersisted:
            time.sleep(0.01)
        found = engine.search("where is expire_entries defined").to_json()["results"]
        print("SEARCHABLE" if found and found[0]["uri"].endswith("app/cache.py") else "MISSING", flush=True)
        time.sleep(3600)
    """
)


@pytest.mark.parametrize("mode", ["staged", "written"])
def test_a_sigkill_right_after_a_save_loses_nothing(tmp_path: Path, mode: str) -> None:
    """Killed with a save staged (searchable, not written), the store still holds the previous generation, and the
    next start analyses the changed files again; killed after the persister wrote it, the store holds the change
    and nothing is analysed again. Either way the restarted index answers as a fresh build of the folder does."""
    root = tmp_path / "ws"
    write_tree(root, FILES)
    index_dir = tmp_path / "idx"
    with killed_child(STAGED_CHILD, tmp_path, str(root), str(index_dir), mode) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "SEARCHABLE"
    engine = Engine(root, Settings(index_dir=str(index_dir), workers=1))
    try:
        engine.index()
        recovered = snapshot(engine)
        counters = engine.counters
        store = engine.index_dir
    finally:
        engine.close()
    if mode == "staged":
        assert counters.analyzed == 2  # the new and the edited file; the deleted one is removed
    else:
        assert counters.analyzed == 0 and counters.removed == 0
    assert_like_a_fresh_build(root, store, recovered)

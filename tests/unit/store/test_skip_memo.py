"""The skip memo: files skipped for their content are remembered with the size and mtime they had, and a memo that
is missing, foreign or damaged is an empty one (it only saves reads)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.scan.skips import Skip, SkipReason
from maguyva_lsp.store.skip_memo import MEMO_NAME, SkipMemo

BINARY = Skip(SkipReason.BINARY, "binary content (NUL bytes)")


def test_a_verdict_holds_only_at_the_same_size_and_mtime_and_survives_a_restart(tmp_path: Path) -> None:
    memo = SkipMemo(tmp_path, writable=True)
    memo.record("data/tone.aif", 120, 7, BINARY)
    memo.record("data/gone.txt", 5, 1, Skip(SkipReason.VANISHED, "No such file"))  # transient: not remembered
    memo.save()
    again = SkipMemo(tmp_path, writable=True)
    assert len(again) == 1
    assert again.get("data/tone.aif", 120, 7) == BINARY
    assert again.get("data/tone.aif", 121, 7) is None and again.get("data/tone.aif", 120, 8) is None
    assert again.get("data/gone.txt", 5, 1) is None
    again.keep_only({"other.py"})
    again.save()
    assert len(SkipMemo(tmp_path, writable=True)) == 0


def test_a_reader_never_writes_and_a_damaged_or_foreign_memo_is_empty(tmp_path: Path) -> None:
    reader = SkipMemo(tmp_path, writable=False)
    reader.record("a.bin", 1, 1, BINARY)
    reader.save()
    assert not (tmp_path / MEMO_NAME).exists()
    for damaged in (b"{not json", b'{"version": 99, "files": {}}', b'{"version": 1, "files": {"a": [1]}}', b"[]"):
        (tmp_path / MEMO_NAME).write_bytes(damaged)
        assert len(SkipMemo(tmp_path, writable=True)) == 0


def test_an_unchanged_binary_file_is_not_read_again_at_the_next_start(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "data").mkdir(parents=True)
    (root / "tone.py").write_text("def play_tone(hz):\n    return hz\n")
    blob = root / "data" / "tone.aif"
    blob.write_bytes(b"FORM\x00\x00\x00\x1eAIFFCOMM" + bytes(range(40)))
    settings = Settings(index_dir=str(tmp_path / "index"))
    first = Engine(root, settings)
    first.index()
    assert first.skipped["data/tone.aif"].reason is SkipReason.BINARY
    first.close()

    # Same size and mtime, other bytes (text now): a start trusts the memo, as it trusts a stored file's identity.
    stamp = blob.stat()
    blob.write_bytes((b"distinctive_memo_token " * 9)[: stamp.st_size])
    os.utime(blob, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    warm = Engine(root, settings)
    warm.index()
    assert warm.skipped["data/tone.aif"].reason is SkipReason.BINARY
    assert warm.counters.analyzed == 0 and warm.counters.skipped == 1
    warm.close()

    # A new mtime: read again, indexed, and the memo forgets it.
    os.utime(blob, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000_000))
    moved = Engine(root, settings)
    moved.index()
    assert "data/tone.aif" not in moved.skipped
    found = moved.search('"distinctive_memo_token"').to_json()
    assert any(r["uri"].endswith("/data/tone.aif") for r in found["results"])
    moved.close()
    store = next((tmp_path / "index").glob(f"*/{MEMO_NAME}"))
    assert json.loads(store.read_bytes())["files"] == {}

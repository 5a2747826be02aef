"""The early open (server/early_open.py) on real folders and real engines: what an initialize message opens, what
the server may take, and what it closes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from maguyva_lsp.config import Settings, client_settings
from maguyva_lsp.indexing import IndexProgress
from maguyva_lsp.server.early_open import EarlyOpen

DEADLINE_SECONDS = 60.0


def framed(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def initialize(params: dict[str, Any]) -> bytes:
    return framed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "shapes.py").write_text("class Circle:\n    def area(self):\n        return 3.14\n")
    (root / "pkg" / "util.py").write_text("def clamp(value, low, high):\n    return max(low, min(value, high))\n")
    return root


def options(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    return {"indexDir": str(tmp_path / "index"), **extra}


def test_the_first_workspace_folder_is_indexed_with_the_message_settings(folder: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    raw = {"maguyva": options(tmp_path, limit=7)}  # nested, as VS Code sends them
    message = initialize(
        {
            "rootUri": other.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": "p"}, {"uri": other.as_uri()}],
            "initializationOptions": raw,
        }
    )
    stream = io.BytesIO(message + framed({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    early = EarlyOpen.read_from(stream)
    assert early.read[0] == message.split(b"\r\n\r\n", 1)[1] and early.read[1], "the message is kept for pygls"
    assert stream.read().startswith(b"Content-Length"), "nothing past the first message was read"
    assert early.root == folder.resolve()
    expected, _ = client_settings(raw, Settings())
    assert expected.limit == 7
    assert early.take(other, expected) is None, "only the first folder is opened early"
    run = early.take(folder, expected)
    assert run is not None and run.engine is not None
    seen: list[IndexProgress] = []
    run.follow(seen.append)
    run.wait()
    assert early.take(folder, expected) is None, "taken once"
    engine = run.engine
    try:
        assert engine.settings.limit == 7
        assert engine.file_count == 2
        assert engine.search("def clamp").results[0].path == "pkg/util.py"
        assert seen and seen[-1].phase == "done"
    finally:
        engine.close()


def test_other_settings_are_not_taken_and_that_engine_closes(folder: Path, tmp_path: Path) -> None:
    early = EarlyOpen.read_from(
        io.BytesIO(initialize({"rootUri": folder.as_uri(), "initializationOptions": options(tmp_path)}))
    )
    run = early._run
    assert run is not None
    changed = run.settings.replace(limit=run.settings.limit + 1)
    assert early.take(folder, changed) is None
    run.finished.wait(DEADLINE_SECONDS)
    assert run.engine is not None
    _wait_closed(run.engine)


def test_a_folder_the_server_does_not_open_is_closed(folder: Path, tmp_path: Path) -> None:
    early = EarlyOpen.read_from(
        io.BytesIO(initialize({"rootPath": str(folder), "initializationOptions": options(tmp_path)}))
    )
    run = early._run
    assert run is not None and run.root == folder.resolve(), "rootPath when there is no URI"
    early.keep_only([tmp_path / "elsewhere"])
    assert early.take(folder, run.settings) is None
    run.finished.wait(DEADLINE_SECONDS)
    assert run.engine is not None
    _wait_closed(run.engine)


def test_a_shutdown_closes_a_run_nobody_took(folder: Path, tmp_path: Path) -> None:
    early = EarlyOpen.read_from(
        io.BytesIO(initialize({"rootUri": folder.as_uri(), "initializationOptions": options(tmp_path)}))
    )
    run = early._run
    assert run is not None
    early.close()
    assert run.engine is not None and run.engine.closed
    run.finished.wait(DEADLINE_SECONDS)
    assert run.finished.is_set() and run.error is None


@pytest.mark.parametrize(
    "stream",
    [
        b"",  # the client closed at once
        b"Content-Length: 5\r\n\r\n{nope",  # not JSON
        framed({"jsonrpc": "2.0", "id": 1, "method": "maguyva/status", "params": {}}),  # not an initialize
        initialize({"rootUri": "https://example.com/repo"}),  # no file of this machine
        initialize({"rootUri": None, "workspaceFolders": None}),  # no folder at all
        initialize({"workspaceFolders": [{"name": "no uri"}]}),
        b"X-Other: 1\r\n\r\n",  # headers without a length
    ],
)
def test_anything_else_opens_nothing_and_is_kept_as_read(stream: bytes) -> None:
    early = EarlyOpen.read_from(io.BytesIO(stream))
    assert early.root is None
    body, more = early.read
    if stream.startswith(b"Content-Length"):
        assert body == stream.split(b"\r\n\r\n", 1)[1] and more
    else:
        assert body is None and more == (stream != b"")
    early.close()


def test_a_missing_folder_opens_nothing(tmp_path: Path) -> None:
    early = EarlyOpen.read_from(io.BytesIO(initialize({"rootUri": (tmp_path / "gone").as_uri()})))
    assert early.root is None


def _wait_closed(engine: Any) -> None:
    import time

    deadline = time.monotonic() + DEADLINE_SECONDS
    while not engine.closed:
        assert time.monotonic() < deadline, "the engine nobody took was not closed"
        time.sleep(0.02)

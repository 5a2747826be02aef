"""The real server reads the client's initialize before it imports pygls and starts indexing the folder it names with
the settings it carries (server/early_open.py); the server then takes that engine and follows its index. Anything
else on the first line of the conversation is handled as before."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from maguyva_lsp.store.manifest import MANIFEST_NAME
from tests.e2e.jsonrpc_wire import initialize_params, wait_indexed, wire_server

# Deadlines for real conditions on a loaded machine, not speed figures.
DEADLINE_SECONDS = 60.0


def _manifests(index_dir: Path) -> list[Path]:
    return sorted(index_dir.glob(f"*/{MANIFEST_NAME}"))


def _wait_for(check: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_the_folder_is_indexed_from_initialize_on_and_the_server_follows_that_index(
    workspace: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    params = initialize_params(workspace, index_dir)
    params["capabilities"] = {"window": {"workDoneProgress": True}}
    params["initializationOptions"]["exclude"] = ["web/"]  # the early engine has the client's settings
    with wire_server(tmp_path / "server.log") as client:
        assert "result" in client.call(1, "initialize", params)
        # Before `initialized`, which is when the server itself would open the folder, its store is written.
        _wait_for(lambda: _manifests(index_dir), "the folder is indexed before the client says initialized")
        client.notify("initialized", {})
        next_id = wait_indexed(client, 2)
        status = client.call(next_id, "maguyva/status", {})["result"]
        found = client.call(next_id + 1, "maguyva/search", {"query": "def parse_config", "limit": 5})["result"]
        assert found["results"] and found["results"][0]["uri"].endswith("app/config.py")
        excluded = client.call(next_id + 2, "maguyva/search", {"query": "handleRequest", "limit": 5})["result"]
        assert not [r for r in excluded["results"] if "/web/" in r["uri"]], "the excluded folder stayed out"
        client.call(next_id + 3, "shutdown")
        client.notify("exit")
    assert len(_manifests(index_dir)) == 1, "one store: the server took the early engine, it did not open another"
    assert status["files"] == 4  # .gitignore and app/: __init__.py, config.py, server.py (web/ excluded, ignored/ too)
    shown = [n["params"]["message"] for n in client.notifications if n["method"] == "window/showMessage"]
    assert not [m for m in shown if "not persisted" in m or "lock" in m], shown
    progress = [n["params"]["value"] for n in client.notifications if n["method"] == "$/progress"]
    assert progress and progress[0]["kind"] == "begin" and progress[-1]["kind"] == "end"
    assert progress[-1]["message"] == "4 files indexed", "the client sees the early index's progress and end"
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log


def test_a_first_message_other_than_initialize_is_answered_as_before(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    with wire_server(tmp_path / "server.log") as client:
        first = client.call(1, "maguyva/status", {})
        assert "result" in first or "error" in first, "the message read ahead of pygls is still handled"
        assert not _manifests(index_dir), "nothing is opened before an initialize"
        assert "result" in client.call(2, "initialize", initialize_params(workspace, index_dir))
        client.notify("initialized", {})
        next_id = wait_indexed(client, 3)
        found = client.call(next_id, "maguyva/search", {"query": "def parse_config", "limit": 5})["result"]
        assert found["results"]
        client.call(next_id + 1, "shutdown")
        client.notify("exit")


@pytest.mark.parametrize("initialized", [False, True], ids=["before-initialized", "while-the-server-follows-it"])
def test_a_shutdown_during_the_early_index_stops_it(tmp_path: Path, initialized: bool) -> None:
    folder = tmp_path / "big"
    for index in range(400):  # enough files that the early index is still running when the shutdown comes
        package = folder / f"pkg{index % 20}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"mod{index}.py").write_text(
            "".join(f"def function_{index}_{n}(value):\n    return value + {n}\n\n\n" for n in range(40))
        )
    with wire_server(tmp_path / "server.log") as client:
        assert "result" in client.call(1, "initialize", initialize_params(folder, tmp_path / "index"))
        if initialized:
            client.notify("initialized", {})
        assert "result" in client.call(2, "shutdown")
        client.notify("exit")
        process = client._process
        try:
            code = process.wait(timeout=DEADLINE_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
    assert code == 0, "the server leaves at exit, its early index stopped"
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log
    assert "in-process" not in log, "the closed engine's jobs are not done in the server's process instead"

"""The real server starts a cold build's workers while it imports its LSP libraries (worker_pool.py), and lets them go
once its folder is open without needing them: a small folder is analysed in the server's own process."""

from __future__ import annotations

import time
from pathlib import Path

import psutil

from tests.e2e.jsonrpc_wire import initialize_params, wait_indexed, wire_server

# Deadlines for real conditions on a loaded machine (processes starting, ending), not speed figures.
DEADLINE_SECONDS = 60.0


def _workers(server: psutil.Process) -> list[psutil.Process]:
    found = []
    for child in server.children():
        try:
            if "spawn_main" in " ".join(child.cmdline()):  # not the spawn context's resource tracker
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def test_workers_start_before_the_folder_is_known_and_leave_when_unneeded(workspace: Path, tmp_path: Path) -> None:
    with wire_server(tmp_path / "server.log") as client:
        server = psutil.Process(client._process.pid)
        reply = client.call(1, "initialize", initialize_params(workspace, tmp_path / "index"))
        assert "result" in reply
        deadline = time.monotonic() + DEADLINE_SECONDS
        while len(_workers(server)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = _workers(server)
        assert len(started) == 2, "the workers start before the client says which folder to index"
        client.notify("initialized", {})
        next_id = wait_indexed(client, 2)
        _, alive = psutil.wait_procs(started, timeout=DEADLINE_SECONDS)
        assert not alive, "a folder opened without the pool lets the prestarted workers go"
        assert not _workers(server)
        found = client.call(next_id, "maguyva/search", {"query": "def parse_config", "limit": 5})["result"]
        assert found["results"], "the folder was indexed in the server's process"
        client.call(next_id + 1, "shutdown")
        client.notify("exit")

"""A bare JSON-RPC client over the real server's stdio: raw messages in, raw replies out, nothing checked on the way
(pytest-lsp's client would refuse to send the malformed requests these tests need)."""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from tests.e2e.lsp_session import SERVER_COMMAND

REPLY_TIMEOUT_SECONDS = 60.0


class WireClient:
    """Writes framed messages to the server's stdin; a thread reads framed messages from its stdout."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self._replies: dict[Any, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        assert process.stdout is not None
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            headers: dict[str, str] = {}
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            if not headers:
                return
            body = stream.read(int(headers["content-length"]))
            self._messages.put(json.loads(body))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self._process.stdin is not None
        self._process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self._process.stdin.flush()

    def request(self, msg_id: Any, method: str, params: Any = None, *, omit_params: bool = False) -> None:
        self.send({"id": msg_id, "method": method, **({} if omit_params else {"params": params})})

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def reply(self, msg_id: Any, timeout: float = REPLY_TIMEOUT_SECONDS) -> dict[str, Any]:
        """The reply to one request (waiting for it); replies to others and notifications are kept."""
        deadline = time.monotonic() + timeout
        while msg_id not in self._replies:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no reply to request {msg_id!r} within {timeout} s")
            try:
                message = self._messages.get(timeout=remaining)
            except queue.Empty:
                continue
            if "method" in message and "id" in message:  # a request of the server's: answer it
                self.send({"id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)
            else:
                assert message["id"] not in self._replies, f"two replies to request {message['id']!r}"
                self._replies[message["id"]] = message
        return self._replies[msg_id]

    def call(self, msg_id: Any, method: str, params: Any = None) -> dict[str, Any]:
        self.request(msg_id, method, params)
        return self.reply(msg_id)

    def drain(self, seconds: float) -> dict[Any, dict[str, Any]]:
        """Every reply that arrives within `seconds` (to check nothing arrives twice)."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            with contextlib.suppress(queue.Empty):
                message = self._messages.get(timeout=remaining)
                if "id" in message and "method" not in message:
                    assert message["id"] not in self._replies, f"two replies to request {message['id']!r}"
                    self._replies[message["id"]] = message
        return self._replies


@contextlib.contextmanager
def wire_server(stderr_path: Path) -> Iterator[WireClient]:
    """The real server as a subprocess, its log in a file; killed at the end if `exit` did not stop it."""
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(SERVER_COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        try:
            yield WireClient(process)
        finally:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def initialize_params(root: Path, index_dir: Path) -> dict[str, Any]:
    return {
        "processId": None,
        "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "capabilities": {},
        "initializationOptions": {"indexDir": str(index_dir)},
    }


def wait_indexed(client: WireClient, first_id: int) -> int:
    """Ask maguyva/status until the first index is done; returns the next free request id."""
    msg_id = first_id
    deadline = time.monotonic() + REPLY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        status = client.call(msg_id, "maguyva/status", {})["result"]
        msg_id += 1
        if not status["indexing"] and status["files"]:
            return msg_id
        time.sleep(0.1)
    raise AssertionError("the first index did not finish")

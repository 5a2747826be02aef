"""A minimal JSON-RPC client for the language server over stdio: requests with ids, notifications, and polite
answers to the server's own requests (progress tokens, registrations), so that the benchmark needs no LSP library.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

REQUEST_TIMEOUT_SECONDS = 120.0
SHUTDOWN_TIMEOUT_SECONDS = 10.0


class LspError(RuntimeError):
    pass


class StdioClient:
    """Starts `python -m maguyva_lsp --stdio` and talks to it."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None, python: str | None = None) -> None:
        self.process = subprocess.Popen(
            [python or sys.executable, "-m", "maguyva_lsp", "--stdio"],
            cwd=cwd,
            env={**os.environ, **(env or {})},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._out: IO[bytes] = self.process.stdin
        self._write_lock = threading.Lock()
        self._pending: dict[int, Future[Any]] = {}
        self._next_id = 0
        self._reader = threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True)
        self._reader.start()

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        with self._write_lock:
            self._out.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self._out.flush()

    def request(self, method: str, params: Any, timeout: float = REQUEST_TIMEOUT_SECONDS) -> Any:
        with self._write_lock:
            self._next_id += 1
            ident = self._next_id
            future: Future[Any] = Future()
            self._pending[ident] = future
        self._send({"id": ident, "method": method, "params": params})
        return future.result(timeout=timeout)

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def _read(self, stream: IO[bytes]) -> None:
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    self._fail_pending("the server closed its output")
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            message = json.loads(stream.read(length))
            self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message:
            if "id" in message:  # the server asks something (progress token, registration): accept it
                self._send({"id": message["id"], "result": None})
            return
        future = self._pending.pop(int(message.get("id", -1)), None)
        if future is None:
            return
        if "error" in message:
            future.set_exception(LspError(str(message["error"])))
        else:
            future.set_result(message.get("result"))

    def _fail_pending(self, reason: str) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(LspError(reason))
        self._pending.clear()

    def initialize(self, root: Path, options: dict[str, Any]) -> Any:
        uri = root.as_uri()
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": uri,
                "workspaceFolders": [{"uri": uri, "name": root.name}],
                "capabilities": {"window": {"workDoneProgress": True}},
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return result

    def close(self) -> None:
        """shutdown + exit; the process is killed if it does not leave in time."""
        try:
            self.request("shutdown", None, timeout=SHUTDOWN_TIMEOUT_SECONDS)
            self.notify("exit", None)
            self.process.wait(timeout=SHUTDOWN_TIMEOUT_SECONDS)
        except Exception:
            self.process.kill()
            self.process.wait()

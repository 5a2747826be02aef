"""A minimal MCP client over stdio (newline-delimited JSON-RPC), as benchmarks/lsp_client.py is for LSP: the same
kind of bare client on both sides, so that a comparison of the doors times the servers, not the client libraries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

PROTOCOL_VERSION = "2025-06-18"


class McpStdioClient:
    """Starts `maguyva mcp PATH ...` and calls its tools one at a time."""

    def __init__(self, root: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "maguyva_lsp.cli", "mcp", str(root), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in: IO[bytes] = self.process.stdin
        self._out: IO[bytes] = self.process.stdout
        self._next_id = 0
        self.request(
            "initialize",
            {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        self._in.write(json.dumps(message).encode() + b"\n")
        self._in.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        while True:
            line = self._out.readline()
            if not line:
                raise RuntimeError("the MCP server closed its output")
            message = json.loads(line)
            if message.get("id") == self._next_id and "method" not in message:
                if "error" in message:
                    raise RuntimeError(str(message["error"]))
                return message["result"]

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = self.request("tools/call", {"name": name, "arguments": arguments})
        return result

    def close(self) -> None:
        self._in.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

"""Every JSON-RPC request gets exactly one reply from the real server: malformed params (missing, wrong-typed, bad
positions, bad URIs), unknown methods, a request before `initialize` and one after `shutdown`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.e2e.jsonrpc_wire import initialize_params, wait_indexed, wire_server

pytestmark = pytest.mark.e2e

INVALID_PARAMS, METHOD_NOT_FOUND, NOT_INITIALIZED, INVALID_REQUEST = -32602, -32601, -32002, -32600


def _malformed(workspace: Path) -> list[tuple[str, Any, int, str | None]]:
    """(method, params, expected error code, the field the error must name) — `...` as params: none sent."""
    config = (workspace / "app" / "config.py").as_uri()
    at = {"textDocument": {"uri": config}}
    return [
        ("maguyva/search", ..., INVALID_PARAMS, "query"),
        ("maguyva/search", None, INVALID_PARAMS, "query"),
        ("maguyva/search", [1, 2], INVALID_PARAMS, "params"),
        ("maguyva/search", {"query": ""}, INVALID_PARAMS, "query"),
        ("maguyva/search", {"query": 5}, INVALID_PARAMS, "query"),
        ("maguyva/search", {"query": "x", "limit": 0}, INVALID_PARAMS, "limit"),
        ("maguyva/search", {"query": "x", "limit": "3"}, INVALID_PARAMS, "limit"),
        ("maguyva/search", {"query": "x", "limit": True}, INVALID_PARAMS, "limit"),
        ("maguyva/search", {"query": "x", "preset": "turbo"}, INVALID_PARAMS, "preset"),
        ("maguyva/search", {"query": "x", "explain": "yes"}, INVALID_PARAMS, "explain"),
        ("maguyva/search", {"query": "x", "case_sensitive": True}, INVALID_PARAMS, "case_sensitive"),
        ("maguyva/search", {"query": "def (", "regex": True}, INVALID_PARAMS, "query"),
        ("maguyva/impact", {}, INVALID_PARAMS, "symbol"),
        ("maguyva/impact", {"symbol": "  "}, INVALID_PARAMS, "symbol"),
        ("maguyva/impact", {"symbol": "parse_config", "maxDepth": 99}, INVALID_PARAMS, "maxDepth"),
        ("maguyva/impact", {**at}, INVALID_PARAMS, "position"),
        ("maguyva/impact", {"textDocument": {"uri": "untitled:1"}, "position": {"line": 0, "character": 0}},
         INVALID_PARAMS, "textDocument.uri"),
        ("maguyva/impact", {"textDocument": {"uri": "file:///nowhere/x.py"}, "position": {"line": 0, "character": 0}},
         INVALID_PARAMS, "textDocument.uri"),
        ("textDocument/definition", {}, INVALID_PARAMS, "symbol"),
        ("textDocument/definition", {**at}, INVALID_PARAMS, "position"),
        ("textDocument/definition", {**at, "position": {"line": -1, "character": 0}}, INVALID_PARAMS, "position.line"),
        ("textDocument/definition", {**at, "position": {"line": "a", "character": 0}}, INVALID_PARAMS,
         "position.line"),
        ("textDocument/definition", {**at, "position": {"line": 0}}, INVALID_PARAMS, "position.character"),
        ("textDocument/definition", {"textDocument": {}, "position": {"line": 0, "character": 0}}, INVALID_PARAMS,
         "textDocument.uri"),
        ("textDocument/references", {**at, "position": {"line": 3, "character": -2}}, INVALID_PARAMS,
         "position.character"),
        ("textDocument/references", {**at, "position": {"line": 3, "character": 0}, "context": []}, INVALID_PARAMS,
         "context"),
        ("workspace/symbol", {}, INVALID_PARAMS, "query"),
        ("workspace/symbol", {"query": 3}, INVALID_PARAMS, "query"),
        ("maguyva/status", {"verbose": True}, INVALID_PARAMS, "verbose"),
        ("workspace/executeCommand", {"command": 5}, INVALID_PARAMS, None),
        ("workspace/executeCommand", {"command": "maguyva.nonexistent"}, INVALID_PARAMS, None),
        ("maguyva/nonexistent", {}, METHOD_NOT_FOUND, None),
        ("textDocument/hover", {**at, "position": {"line": 0, "character": 0}}, METHOD_NOT_FOUND, None),
    ]  # fmt: skip


def test_every_request_gets_one_reply(workspace: Path, tmp_path: Path) -> None:
    with wire_server(tmp_path / "server.log") as client:
        # Before initialize: refused, but answered.
        early = client.call("early", "maguyva/search", {"query": "parse_config"})
        assert early["error"]["code"] == NOT_INITIALIZED and "initialize" in early["error"]["message"]

        assert "capabilities" in client.call(0, "initialize", initialize_params(workspace, tmp_path / "idx"))["result"]
        client.notify("initialized", {})
        next_id = wait_indexed(client, 1)

        cases = _malformed(workspace)
        ids = list(range(next_id, next_id + len(cases)))
        for msg_id, (method, params, _code, _field) in zip(ids, cases, strict=True):
            client.request(msg_id, method, params, omit_params=params is ...)
        for msg_id, (method, params, code, field) in zip(ids, cases, strict=True):
            reply = client.reply(msg_id)
            assert "error" in reply, f"{method} {params!r} got a result: {reply}"
            error = reply["error"]
            assert error["code"] == code, f"{method} {params!r}: {error}"
            assert error["message"], f"{method} {params!r}: an empty message"
            if field is not None:
                assert (error.get("data") or {}).get("field") == field, f"{method} {params!r}: {error}"
                assert f"'{field}'" in error["message"]

        # Still serving: a good request after all of them.
        good = client.call("good", "maguyva/search", {"query": "where is parse_config defined"})
        assert good["result"]["results"][0]["symbol"] == "parse_config"

        # After shutdown: refused, but answered; then exit ends the process.
        assert client.call("bye", "shutdown")["result"] is None
        late = client.call("late", "maguyva/status", {})
        assert late["error"]["code"] == INVALID_REQUEST
        client.notify("exit")
        replies = client.drain(1.0)
    expected = {"early", 0, *range(1, next_id), *ids, "good", "bye", "late"}
    assert set(replies) == expected  # one reply each (WireClient refuses a second reply to any id)

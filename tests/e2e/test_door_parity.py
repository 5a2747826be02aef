"""One contract behind every door: the same good and bad requests through the language server, `maguyva batch`, the
CLI and the MCP server give the same answers and the same errors (message and field)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.jsonrpc_wire import WireClient, initialize_params, wait_indexed, wire_server
from tests.e2e.lsp_session import write_workspace
from tests.e2e.test_mcp import mcp_session, server_params, text_of

pytestmark = pytest.mark.e2e

# (method, params in the contract's wire form). Positions use the path form, which every door takes.
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "where is parse_config defined"}),
    ("search", {"query": "how is the configuration loaded", "limit": 2, "preset": "thorough", "explain": True}),
    ("search", {"query": '"ECONNREFUSED while"', "caseSensitive": True}),
    ("search", {"query": "x", "limit": 0}),
    ("search", {"query": "x", "preset": "turbo"}),
    ("search", {"query": "   "}),
    ("search", {"query": "def (", "regex": True}),
    ("impact", {"symbol": "parse_config", "maxDepth": 2}),
    ("impact", {"symbol": "no_such_symbol_anywhere"}),
    ("impact", {"symbol": "parse_config", "maxDepth": 11}),
    ("impact", {"file": "app/config.py", "line": 19}),
    ("definition", {"file": "app/server.py", "line": 6, "column": 25}),
    ("definition", {"symbol": "load_config"}),
    ("definition", {"file": "nope/missing.py", "line": 1}),
    ("references", {"symbol": "load_config"}),
    ("references", {"file": "app/config.py", "line": 19, "includeDeclaration": True}),
    ("references", {"file": "app/server.py", "line": 0}),
    ("status", {}),
    ("search", {"query": '"config"', "limit": 1}),  # a broad literal: its counts cut short, the same everywhere
]

LSP_METHODS = {
    "search": "maguyva/search",
    "impact": "maguyva/impact",
    "definition": "textDocument/definition",
    "references": "textDocument/references",
    "status": "maguyva/status",
}


def normalized(method: str, outcome: dict[str, Any]) -> dict[str, Any]:
    """What must agree: an error's message and field; an answer without its timing (and a status's counts only)."""
    if "error" in outcome:
        return {"error": outcome["error"], "field": outcome.get("field")}
    answer = dict(outcome)
    answer.pop("elapsed_ms", None)
    if method == "status":
        return {k: answer[k] for k in ("indexing", "files", "chunks", "symbols", "edges", "nodes", "embedder")}
    return answer


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    base = tmp_path_factory.mktemp("parity")
    yield write_workspace(base / "ws"), base / "idx"


def via_lsp(root: Path, index_dir: Path, log: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    with wire_server(log) as client:
        client.call(0, "initialize", initialize_params(root, index_dir))
        client.notify("initialized", {})
        next_id = wait_indexed(client, 1)
        for offset, (method, params) in enumerate(REQUESTS):
            out.append(_lsp_outcome(client, next_id + offset, method, params))
        client.call("bye", "shutdown")
        client.notify("exit")
    return out


def _lsp_outcome(client: WireClient, msg_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = client.call(msg_id, LSP_METHODS[method], params)
    if "error" in reply:
        return {"error": reply["error"]["message"], "field": (reply["error"].get("data") or {}).get("field")}
    result = reply["result"]
    # LSP's definition and references answer Location[]; the contract's object holds them under "locations" (and a
    # note when there are none, which Location[] cannot carry).
    return {"locations": result} if method in ("definition", "references") else result


MCP_TOOLS = {
    "search": "search",
    "impact": "impact",
    "definition": "find_definition",
    "references": "find_references",
    "status": "index_status",
}


def via_mcp(root: Path, index_dir: Path) -> list[dict[str, Any]]:
    async def ask_all() -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        async with mcp_session(server_params(str(root), "--index-dir", str(index_dir))) as session:
            for method, params in REQUESTS:
                result = await session.call_tool(MCP_TOOLS[method], params)
                if result.is_error:
                    out.append({"error": text_of(result), "field": result.structured_content["field"]})
                else:
                    out.append(result.structured_content)
        return out

    return asyncio.run(ask_all())


def via_batch(root: Path, index_dir: Path) -> list[dict[str, Any]]:
    lines = "".join(json.dumps({"method": m, **p}) + "\n" for m, p in REQUESTS)
    done = subprocess.run(
        [sys.executable, "-m", "maguyva_lsp.cli", "batch", str(root), "--index-dir", str(index_dir)],
        input=lines,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(REQUESTS), done.stderr
    return answers


def cli_argv(method: str, params: dict[str, Any]) -> list[str]:
    """The command line a user would type for a request (flags map one-to-one onto the contract's fields)."""
    p = dict(params)
    argv = [method]
    if method == "search":
        argv.append(p.pop("query"))
    elif "symbol" in p:
        argv.append(p.pop("symbol"))
    if "file" in p:
        at = f"{p.pop('file')}:{p.pop('line')}" + (f":{p.pop('column')}" if "column" in p else "")
        argv += ["--at", at]
    flags: dict[str, Callable[[Any], list[str]]] = {
        "limit": lambda v: ["--limit", str(v)],
        "preset": lambda v: ["--preset", v],
        "maxDepth": lambda v: ["--depth", str(v)],
        "explain": lambda v: ["--explain"] if v else [],
        "regex": lambda v: ["--regex"] if v else [],
        "caseSensitive": lambda v: ["--case-sensitive"] if v else [],
        "includeDeclaration": lambda v: ["--include-declaration"] if v else [],
    }
    for name, value in p.items():
        argv += flags[name](value)
    return argv + ([] if method == "status" else ["--json"])


def via_cli(root: Path, index_dir: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for method, params in REQUESTS:
        argv = cli_argv(method, params)
        done = subprocess.run(
            [sys.executable, "-m", "maguyva_lsp.cli", argv[0], str(root), *argv[1:], "--index-dir", str(index_dir)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode == 2:
            out.append({"error": done.stderr.strip().removeprefix("maguyva: ")})
        else:
            out.append(json.loads(done.stdout))
    return out


def test_the_same_requests_get_the_same_answers_through_every_door(project: tuple[Path, Path], tmp_path: Path) -> None:
    root, index_dir = project
    lsp = via_lsp(root, index_dir, tmp_path / "server.log")
    batch = via_batch(root, index_dir)
    cli = via_cli(root, index_dir)
    mcp = via_mcp(root, index_dir)
    for (method, params), from_lsp, from_batch, from_cli, from_mcp in zip(REQUESTS, lsp, batch, cli, mcp, strict=True):
        expected = normalized(method, from_batch)
        assert normalized(method, from_lsp) == expected, f"LSP differs on {method} {params}"
        assert normalized(method, from_mcp) == expected, f"MCP differs on {method} {params}"
        cli_answer = normalized(method, from_cli)
        if "error" in expected:
            assert cli_answer["error"] == expected["error"], f"CLI differs on {method} {params}"  # stderr: no field
        else:
            assert cli_answer == expected, f"CLI differs on {method} {params}"
    # The table holds both kinds, and each answer is a real one.
    errors = [normalized(m, b) for (m, _p), b in zip(REQUESTS, batch, strict=True) if "error" in b]
    assert {e["field"] for e in errors} == {"limit", "preset", "query", "maxDepth", "file", "line"}
    assert batch[0]["results"][0]["symbol"] == "parse_config"
    assert batch[8] == {
        "symbol": None,
        "note": "no symbol named 'no_such_symbol_anywhere' in the index",
        "impacted": [],
    }
    assert [loc["range"]["start"]["line"] for loc in batch[11]["locations"]] == [18]
    assert batch[-1]["text_matches"]["truncated"] and batch[-1]["text_matches"]["files_not_shown"] >= 1

"""`maguyva mcp` end to end: the SDK's own client spawns the real server over stdio, lists the tools, calls each on a
small real workspace, sends bad arguments, edits a file and sees it in the next call; without PATH the workspace
comes from the client's roots, and the first call gets progress notifications while the index is built."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.e2e.lsp_session import CHANGE_TIMEOUT_SECONDS, INDEX_TIMEOUT_SECONDS

pytestmark = pytest.mark.e2e


def server_params(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "maguyva_lsp.cli", "mcp", *args])


@contextlib.asynccontextmanager
async def mcp_session(params: StdioServerParameters, **client: Any) -> AsyncIterator[ClientSession]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the SDK marks the roots capability deprecated; clients still send it
        async with stdio_client(params) as (read, write), ClientSession(read, write, **client) as session:
            await session.initialize()
            yield session


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))


async def test_tools_answer_through_the_contract_and_see_edits(workspace: Path, tmp_path: Path) -> None:
    async with mcp_session(server_params(str(workspace), "--index-dir", str(tmp_path / "idx"))) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert list(tools) == ["search", "find_definition", "find_references", "impact", "index_status"]
        for tool in tools.values():
            assert tool.description and len(tool.description) > 60
            assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
        assert tools["search"].input_schema["required"] == ["query"]
        assert set(tools["impact"].input_schema["properties"]) == {"symbol", "file", "line", "column", "maxDepth"}

        found = await session.call_tool("search", {"query": "where is parse_config defined"})
        assert not found.is_error
        assert found.structured_content["intent"] == "find_definition"
        assert found.structured_content["fusion_strategy"] == "direct"
        assert found.structured_content["results"][0]["symbol"] == "parse_config"
        text = text_of(found)
        assert text.startswith("find_definition (0.90)") and "strategy=direct" in text
        assert "app/config.py:11-16 parse_config [function]" in text and "def parse_config(text: str)" in text

        definition = await session.call_tool("find_definition", {"file": "app/server.py", "line": 6, "column": 25})
        assert text_of(definition) == "app/config.py:19:5"
        assert definition.structured_content["locations"][0]["range"]["start"] == {"line": 18, "character": 4}

        refs = await session.call_tool("find_references", {"symbol": "load_config"})
        assert set(text_of(refs).splitlines()) == {"app/server.py:1:38", "app/server.py:6:23"}

        impact = await session.call_tool("impact", {"symbol": "parse_config", "maxDepth": 2})
        assert text_of(impact).splitlines()[0] == "impact of parse_config: 3 dependents"
        assert {i["symbol"]: i["depth"] for i in impact.structured_content["impacted"]}["Server.__init__"] == 2
        by_line = await session.call_tool("impact", {"file": "app/config.py", "line": 19})
        assert by_line.structured_content["symbol"] == "load_config"

        status = await indexed_status(session)
        assert status.structured_content["files"] == 5 and not status.structured_content["indexing"]
        assert text_of(status).startswith("indexed: 5 files")

        # Bad arguments: the contract's message, as a tool error; the session goes on.
        for name, arguments, message in [
            ("search", {"query": "x", "limit": 0}, "'limit' must be a whole number from 1 to 1000, got 0"),
            ("search", {}, "'query' is required"),
            ("search", {"query": "x", "preset": "turbo"}, "'preset' must be one of quick, standard, thorough"),
            ("impact", {"symbol": "parse_config", "maxDepth": "deep"}, "'maxDepth' must be a whole number"),
            ("find_definition", {}, "'symbol' is required"),
            ("find_references", {"file": "nope.py", "line": 1}, "'file' names no file of an open workspace folder"),
            ("index_status", {"verbose": True}, "'verbose' is not a field of this request"),
            ("grep", {"pattern": "x"}, "unknown tool 'grep'"),
        ]:
            refused = await session.call_tool(name, arguments)
            assert refused.is_error, (name, arguments)
            assert text_of(refused).startswith(message), text_of(refused)
        unknown = await session.call_tool("impact", {"symbol": "no_such_symbol_anywhere"})
        assert not unknown.is_error and text_of(unknown) == "no symbol named 'no_such_symbol_anywhere' in the index"

        # An edit on disk is seen: the OS's event reaches the watcher on its own threads, so the test asks until the
        # answer has it (that a change the watcher has received is applied before the next answer, without the
        # debounce, is tests/unit/server/test_mcp_session.py's).
        (workspace / "app" / "cache.py").write_text("def expire_entries(cache):\n    cache.clear()\n")
        fresh = await answer_until(session, "find_definition", {"symbol": "expire_entries"}, "app/cache.py:1:5")
        assert not fresh.is_error


async def indexed_status(session: ClientSession) -> types.CallToolResult:
    """index_status once nothing is indexing. The questions above were answered after the first index (text,
    structural, graph), which the door waits for; the embedding of the chunks goes on after it (its answers say
    partial meanwhile), and may outlast those questions on a loaded machine: until it is done, the status must say
    that only the semantic modality is behind."""
    deadline = time.monotonic() + INDEX_TIMEOUT_SECONDS
    while True:
        status = await session.call_tool("index_status", {})
        content = status.structured_content
        if not content["indexing"]:
            return status
        (folder,) = content["folders"]
        behind = {name for name, modality in folder["modalities"].items() if modality["partial"]}
        assert behind <= {"semantic"} and not folder["references_pending"], content
        assert text_of(status).startswith("indexing: 5 files"), text_of(status)
        assert time.monotonic() < deadline, f"still indexing after {INDEX_TIMEOUT_SECONDS} s: {content}"
        await asyncio.sleep(0.1)


async def answer_until(session: ClientSession, tool: str, arguments: dict[str, Any], text: str) -> types.CallToolResult:
    """Call `tool` until its text is `text` (a change on disk the server has not heard of yet)."""
    deadline = time.monotonic() + CHANGE_TIMEOUT_SECONDS
    while True:
        answer = await session.call_tool(tool, arguments)
        if text_of(answer) == text:
            return answer
        assert time.monotonic() < deadline, f"{tool} {arguments} still answers {text_of(answer)!r}"
        await asyncio.sleep(0.1)


def _many_files(root: Path, count: int) -> Path:
    for i in range(count):
        folder = root / f"pkg{i // 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(
            f'"""Module {i}."""\n\n\ndef handler_{i}(request):\n    return helper_{i}(request) + {i}\n\n\n'
            f"def helper_{i}(value):\n    return len(str(value))\n"
        )
    return root


async def test_workspace_from_client_roots_with_progress_while_indexing(tmp_path: Path) -> None:
    root = _many_files(tmp_path / "big", 600)

    async def list_roots(_context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=root.as_uri(), name="big")])  # type: ignore[arg-type]

    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    params = server_params("--index-dir", str(tmp_path / "idx"))
    async with mcp_session(params, list_roots_callback=list_roots) as session:
        found = await session.call_tool("find_definition", {"symbol": "handler_599"}, progress_callback=on_progress)
        assert text_of(found) == "pkg11/mod599.py:4:5"
        status = await session.call_tool("index_status", {})
        assert status.structured_content["files"] == 600
        assert status.structured_content["folders"][0]["root"] == str(root.resolve())
    assert progress, "no progress notification while the first index was built"
    assert all(message and message.startswith("indexing") for _done, _total, message in progress)

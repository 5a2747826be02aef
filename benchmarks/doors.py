"""What a door costs: the same request as an LSP request (the real server over stdio) and as an MCP tool call (the
real `maguyva mcp`), both warm on one index, timed at the client, median of N each, interleaved so that load affects
both alike. Both sides use a bare client (benchmarks/lsp_client.py, benchmarks/mcp_client.py), so the comparison
times the servers; the MCP calls are then timed once more through the Python SDK's own client, which adds its own
cost (an agent's client is its own). The issue's bar: MCP within 2 ms of LSP.

    .venv/bin/python benchmarks/doors.py [--corpus PATH] [--rounds 30]      (also a phase of benchmarks/run.py)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from benchmarks.corpus import Corpus, prepare_corpus, stdlib_root
from benchmarks.lsp_client import StdioClient
from benchmarks.mcp_client import McpStdioClient

ROUNDS = 30
READY_TIMEOUT_SECONDS = 900.0
# The bar of issue 14: an MCP tool call answers within this many ms of the same LSP request (medians).
MCP_OVER_LSP_BUDGET_MS = 2.0
# (label, LSP method, MCP tool, the contract's params): the same request through both doors.
REQUESTS: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("definition question", "maguyva/search", "search", {"query": "where is OrderedDict defined", "limit": 10}),
    ("callers question", "maguyva/search", "search", {"query": "who calls urlsplit", "limit": 10}),
    ("find_definition by name", "textDocument/definition", "find_definition", {"symbol": "urlsplit"}),
    ("impact by name", "maguyva/impact", "impact", {"symbol": "urlsplit", "maxDepth": 2}),
)


def _wait_ready(client: StdioClient) -> None:
    """Until the language server's index is complete, embeddings included."""
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        if not client.request("maguyva/status", {})["indexing"]:
            return
        time.sleep(0.2)
    raise TimeoutError("the language server did not finish indexing")


def _wait_ready_mcp(status: Callable[[], dict[str, Any]]) -> None:
    """Until the MCP server's index is complete, embeddings included (its first answer waits for the text,
    structural and graph indexes only; the semantic one catches up on a thread that would share the CPU)."""
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while status()["structuredContent"]["indexing"]:
        if time.monotonic() > deadline:
            raise TimeoutError("the MCP server did not finish indexing")
        time.sleep(0.2)


def _ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000


def _row(label: str, lsp_ms: list[float], mcp_ms: list[float], sdk_ms: list[float]) -> dict[str, Any]:
    lsp, mcp, sdk = statistics.median(lsp_ms), statistics.median(mcp_ms), statistics.median(sdk_ms)
    return {
        "request": label,
        "lsp_median_ms": round(lsp, 3),
        "mcp_median_ms": round(mcp, 3),
        "mcp_minus_lsp_ms": round(mcp - lsp, 3),
        "within_budget": mcp - lsp <= MCP_OVER_LSP_BUDGET_MS,
        "mcp_sdk_client_median_ms": round(sdk, 3),
    }


async def _sdk_client_times(corpus: Corpus, index_dir: Path, rounds: int) -> dict[str, list[float]]:
    """The same tool calls through the Python SDK's own client (what a Python agent would pay on top)."""
    args = ["-m", "maguyva_lsp.cli", "mcp", str(corpus.root), *_mcp_options(corpus, index_dir)]
    params = StdioServerParameters(command=sys.executable, args=args)
    times: dict[str, list[float]] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while (await session.call_tool("index_status", {})).structured_content["indexing"]:
            if time.monotonic() > deadline:
                raise TimeoutError("the MCP server did not finish indexing")
            await asyncio.sleep(0.2)
        for label, _method, tool, request in REQUESTS:
            await session.call_tool(tool, request)
            times[label] = []
            for _ in range(rounds):
                began = time.perf_counter()
                await session.call_tool(tool, request)
                times[label].append(_ms(began))
    return times


def _mcp_options(corpus: Corpus, index_dir: Path) -> list[str]:
    return ["--index-dir", str(index_dir), *(a for p in corpus.excludes for a in ("--exclude", p))]


def door_latency(corpus: Corpus, index_dir: Path, rounds: int = ROUNDS) -> dict[str, Any]:
    """LSP request versus MCP tool call, warm, on the corpus indexed in `index_dir`: bare clients on both sides
    (interleaved, median of `rounds` each), then the SDK's client for the MCP calls."""
    lsp = StdioClient(corpus.root)
    mcp: McpStdioClient | None = None
    lsp_ms: dict[str, list[float]] = {label: [] for label, *_ in REQUESTS}
    mcp_ms: dict[str, list[float]] = {label: [] for label, *_ in REQUESTS}
    try:
        lsp.initialize(corpus.root, {"indexDir": str(index_dir), "exclude": list(corpus.excludes)})
        _wait_ready(lsp)
        mcp = client = McpStdioClient(corpus.root, *_mcp_options(corpus, index_dir))
        _wait_ready_mcp(lambda: client.call_tool("index_status", {}))
        for label, method, tool, request in REQUESTS:
            for _ in range(2):  # first-call caches of both paths
                lsp.request(method, request)
                mcp.call_tool(tool, request)
            for _ in range(rounds):
                began = time.perf_counter()
                lsp.request(method, request)
                lsp_ms[label].append(_ms(began))
                began = time.perf_counter()
                result = mcp.call_tool(tool, request)
                mcp_ms[label].append(_ms(began))
                assert not result.get("isError"), result
    finally:
        lsp.close()
        if mcp is not None:
            mcp.close()
    sdk_ms = asyncio.run(_sdk_client_times(corpus, index_dir, rounds))
    rows = [_row(label, lsp_ms[label], mcp_ms[label], sdk_ms[label]) for label, *_ in REQUESTS]
    return {"rounds": rounds, "budget_ms": MCP_OVER_LSP_BUDGET_MS, "requests": rows}


def render(figures: dict[str, Any]) -> str:
    lines = [f"MCP tool call vs LSP request (median of {figures['rounds']}, warm; budget +{figures['budget_ms']} ms)"]
    for row in figures["requests"]:
        verdict = "ok" if row["within_budget"] else "OVER"
        lines.append(
            f"  {row['request']:<26} LSP {row['lsp_median_ms']:7.2f} ms   MCP {row['mcp_median_ms']:7.2f} ms   "
            f"MCP−LSP {row['mcp_minus_lsp_ms']:+6.2f} ms  {verdict}   (MCP via the SDK client: "
            f"{row['mcp_sdk_client_median_ms']:.2f} ms)"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="folder to benchmark (default: this Python's stdlib)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="maguyva-doors-") as scratch:
        corpus = prepare_corpus((args.corpus or stdlib_root()).resolve(), Path(scratch) / "corpus")
        figures = door_latency(corpus, Path(scratch) / "index", args.rounds)
    print(render(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`maguyva mcp [PATH]`: the Model Context Protocol door for agents, over stdio, on the official `mcp` SDK.

Tools: search, find_definition, find_references, impact, index_status. Each tool call is parse → call → print like
every other door: its arguments are the contract's request fields (`api/schemas.py` describes them; `api/requests.py`
is the one validator, so a bad argument is the contract's message as a tool error), `WorkspaceSet.handle` answers,
and the answer goes back as structured content (the same JSON as the language server's) plus compact text
(`api/render.py`). One process keeps the index open: the workspace (PATH, else the client's roots, else the current
folder) is indexed once, watched for changes, and a question waits for the first index with progress notifications.
The SDK's low-level server is used so that the contract, not the SDK's own argument models, checks the arguments.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types

from maguyva_lsp import __version__, worker_pool
from maguyva_lsp.api import (
    DefinitionRequest,
    ImpactRequest,
    InvalidRequestError,
    ReferencesRequest,
    Request,
    SearchRequest,
    StatusRequest,
    UnavailableError,
)
from maguyva_lsp.api.render import render
from maguyva_lsp.api.requests import path_of_uri
from maguyva_lsp.api.schemas import (
    DEFINITION_SCHEMA,
    IMPACT_SCHEMA,
    REFERENCES_SCHEMA,
    SEARCH_SCHEMA,
    STATUS_SCHEMA,
    Schema,
)
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine, IndexProgress
from maguyva_lsp.watch.watcher import FolderWatcher
from maguyva_lsp.workspace import WorkspaceSet

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.lowlevel import Server

log = logging.getLogger(__name__)

# A question waits at most this long for the first index, then answers from what is indexed (said: partial).
FIRST_INDEX_WAIT_SECONDS = 600.0
PROGRESS_INTERVAL_SECONDS = 0.25
# Changes the watcher has seen are applied before a question is answered, waiting at most this long for them.
FRESHNESS_WAIT_SECONDS = 10.0
INSTRUCTIONS = (
    "Code search over one workspace that decides what kind of question you asked. Ask `search` in plain words "
    "first (definitions, callers, impact, exact strings, how something works); use find_definition, "
    "find_references and impact when you know the symbol or the place (file + 1-based line). Results give "
    "workspace-relative paths and 1-based lines in text; structured content has LSP ranges (0-based)."
)


@dataclass(frozen=True, slots=True)
class Tool:
    """One MCP tool: the contract's request it stands for, its schema and what an agent is told about it."""

    name: str
    request: type[Request]
    schema: Schema
    description: str


TOOLS: tuple[Tool, ...] = (
    Tool(
        "search",
        SearchRequest,
        SEARCH_SCHEMA,
        "Search the code with a question in plain words. The question is classified (find_definition, "
        "find_references, impact_analysis, exact_match, understand_code, find_similar) and routed to the right "
        "retrievers (syntax tree, call graph, trigram text index, embeddings), fused when ambiguous. Returns ranked "
        "locations with symbol, kind and snippet, and says which intent and strategy answered.",
    ),
    Tool(
        "find_definition",
        DefinitionRequest,
        DEFINITION_SCHEMA,
        "Where a symbol is defined: give `symbol` (a name such as parse_config or Config.parse), or `file` + "
        "`line` (+ `column`) of a use. Returns the definitions' locations.",
    ),
    Tool(
        "find_references",
        ReferencesRequest,
        REFERENCES_SCHEMA,
        "Every use of a symbol (calls, imports, base classes, mentions) resolved through the code graph: give "
        "`symbol`, or `file` + `line` (+ `column`) of the symbol. Returns the uses' locations.",
    ),
    Tool(
        "impact",
        ImpactRequest,
        IMPACT_SCHEMA,
        "What breaks if a symbol changes: its transitive dependents (callers, importers, subclasses) up to "
        "`maxDepth` steps, each with its depth and the chain that reaches it. Give `symbol`, or `file` + `line`.",
    ),
    Tool(
        "index_status",
        StatusRequest,
        STATUS_SCHEMA,
        "Whether the workspace index is ready: files, chunks, symbols, graph edges, which retrievers are "
        "available, what was skipped and why.",
    ),
)
TOOLS_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}


class McpSession:
    """The workspace of one MCP process: opened once, indexed on a thread, watched, updated on one writer thread."""

    def __init__(self, path: Path | None, settings: Settings) -> None:
        self.path = path
        self.workspaces = WorkspaceSet(settings)
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="maguyva-mcp-writer")
        self.watchers: list[FolderWatcher] = []
        self.indexed = threading.Event()
        self.progress = IndexProgress("scanning", 0, 0)
        self._opened = False
        self._lock = threading.Lock()
        # The writer runs its jobs in the order they were submitted: waiting for the last one waits for them all.
        # Submitting and noting it are one step (the watcher's thread and a question's thread both submit), so the
        # job noted is never an earlier one than the queue's last.
        self._submit_lock = threading.Lock()
        self._last_write: Future[Any] | None = None

    def open(self, roots: list[Path]) -> None:
        """Start indexing the roots (once per process)."""
        with self._lock:
            if self._opened:
                return
            self._opened = True
        self._submit(self._index_all, roots)

    def _index_all(self, roots: list[Path]) -> None:
        try:
            for root in roots:
                engine = self.workspaces.add(root)
                if engine is None:
                    continue
                for message in engine.messages:
                    log.info("%s", message)
                engine.index(self._on_progress, wait_for_embeddings=False)
                worker_pool.discard()  # the workers started ahead of need, if this index did not take them
                watcher = FolderWatcher(engine.root, self._watch_callback(engine))
                if watcher.start():
                    self.watchers.append(watcher)
        finally:
            worker_pool.discard()
            self.indexed.set()

    def _watch_callback(self, engine: Engine) -> Callable[[list[str]], None]:
        def on_batch(paths: list[str]) -> None:
            self._submit(self._update, engine, paths)

        return on_batch

    def _on_progress(self, progress: IndexProgress) -> None:
        self.progress = progress

    def _update(self, engine: Engine, paths: list[str]) -> None:
        engine.update(paths, wait_for_embeddings=False)

    def _submit(self, fn: Callable[..., None], *args: Any) -> Future[Any]:
        with self._submit_lock:
            future = self.writer.submit(fn, *args)
            self._last_write = future
        return future

    def catch_up(self) -> None:
        """Apply what the watchers saw and wait for every queued change: the answer reflects the disk as it is."""
        for watcher in self.watchers:
            paths = watcher.take_pending()
            engine = next((e for e in self.workspaces.engines() if e.root == watcher.root), None)
            if paths and engine is not None:
                self._submit(self._update, engine, paths)
        last = self._last_write
        if last is not None and self.indexed.is_set():
            try:
                last.result(timeout=FRESHNESS_WAIT_SECONDS)
            except Exception:  # a failed update is logged by the engine; answer from what is indexed
                log.warning("a change could not be applied before answering", exc_info=True)

    def answer(self, request: Request) -> Any:
        self.catch_up()
        return self.workspaces.handle(request)

    def close(self) -> None:
        for watcher in self.watchers:
            watcher.stop()
        self.writer.shutdown(wait=False, cancel_futures=True)
        self.workspaces.close()


def build_server(session: McpSession) -> Server[Any]:
    """The MCP server over one session: tools listed from TOOLS, each call answered through the contract."""
    # The SDK's server package imports its stdio module, which imports fcntl under a platform check that the
    # package's Windows import test (POSIX modules hidden on Linux) cannot see: imported when a server is built.
    from mcp.server.lowlevel import Server

    async def list_tools(_ctx: ServerRequestContext[Any], _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t.name,
                    description=t.description,
                    input_schema=t.schema,
                    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
                )
                for t in TOOLS
            ]
        )

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = TOOLS_BY_NAME.get(params.name)
        if tool is None:
            return _tool_error(f"unknown tool {params.name!r} (tools: {', '.join(TOOLS_BY_NAME)})", None)
        try:
            request = tool.request.parse(params.arguments or {})
        except InvalidRequestError as exc:
            return _tool_error(str(exc), exc.field)
        await _open(session, ctx)
        await _wait_for_first_index(session, ctx)
        try:
            answer = await anyio.to_thread.run_sync(session.answer, request)
        except InvalidRequestError as exc:
            return _tool_error(str(exc), exc.field)
        except UnavailableError as exc:
            return _tool_error(str(exc), None)
        roots = [e.root for e in session.workspaces.engines()]
        return types.CallToolResult(
            content=[types.TextContent(text=render(answer, roots, explain=getattr(request, "explain", False)))],
            structured_content=answer.to_json(),
        )

    return Server(
        "maguyva",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _tool_error(message: str, field: str | None) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(text=message)],
        structured_content={"error": message, "field": field},
        is_error=True,
    )


async def _open(session: McpSession, ctx: ServerRequestContext[Any]) -> None:
    """Open the workspace on the first call: PATH, else the client's roots (when it offers them), else here."""
    if session.indexed.is_set() or session._opened:
        return
    roots = [session.path] if session.path is not None else await _client_roots(ctx) or [Path.cwd()]
    session.open([r.resolve() for r in roots])


async def _client_roots(ctx: ServerRequestContext[Any]) -> list[Path]:
    params = ctx.session.client_params
    if params is None or params.capabilities.roots is None:
        return []
    try:
        with anyio.fail_after(10):
            listed = await ctx.session.list_roots()
    except Exception as exc:  # a client that cannot list its roots: the current folder answers
        log.warning("could not list the client's roots: %s", exc)
        return []
    roots: list[Path] = []
    for root in listed.roots:
        try:
            path = Path(path_of_uri(str(root.uri), "roots"))
        except InvalidRequestError:
            continue
        if path.is_dir():
            roots.append(path)
    return roots


async def _wait_for_first_index(session: McpSession, ctx: ServerRequestContext[Any]) -> None:
    """Until the first index is done: progress notifications to the caller (when it asked for them)."""
    token = (ctx.meta or {}).get("progress_token")
    deadline = time.monotonic() + FIRST_INDEX_WAIT_SECONDS
    while not session.indexed.is_set() and time.monotonic() < deadline:
        if token is not None:
            p = session.progress
            await ctx.session.send_progress_notification(
                token,
                float(p.done),
                float(p.total) if p.total else None,
                f"indexing: {p.describe()}",
                related_request_id=str(ctx.request_id) if ctx.request_id is not None else None,
            )
        # On a thread, so that the question goes on as soon as the index is done, not at the next interval.
        await anyio.to_thread.run_sync(session.indexed.wait, PROGRESS_INTERVAL_SECONDS)


def run_mcp(path: Path | None, settings: Settings) -> int:
    """Serve MCP over stdio until the client closes the connection; 2 when PATH is not a folder."""
    if path is not None and not path.is_dir():
        log.error("%s is not a folder", path)
        return 2
    session = McpSession(path, settings)
    if path is not None:
        session.open([path.resolve()])  # start indexing before the first question arrives
    server = build_server(session)

    from mcp.server.stdio import stdio_server  # as in build_server

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(serve)
    finally:
        session.close()
    return 0

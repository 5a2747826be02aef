"""LSP handlers: each reads its params, calls the engine off the event loop, converts, returns. Nothing more."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from maguyva_lsp.config import MAX_QUERY_CHARS
from maguyva_lsp.engine import Engine
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH, MAX_IMPACT_DEPTH
from maguyva_lsp.server.app import MaguyvaServer
from maguyva_lsp.server.convert import (
    ColumnCodec,
    client_range_json,
    lsp_location,
    lsp_workspace_symbol,
    param,
    path_of_uri,
    plain,
)

log = logging.getLogger(__name__)

WORKSPACE_SYMBOL_LIMIT = 100
BUFFER_DEBOUNCE_SECONDS = 0.3
REINDEX_COMMAND = "maguyva.reindex"


def register(server: MaguyvaServer) -> None:
    """Attach every handler to the server."""
    buffer_timers: dict[str, asyncio.TimerHandle] = {}

    @server.feature(types.INITIALIZE)
    def initialize(ls: MaguyvaServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()  # handlers run on the loop; messages below need it
        ls.codec = ColumnCodec(ls.workspace.position_encoding)
        window = params.capabilities.window
        ls.supports_progress = bool(window and window.work_done_progress)
        problems = ls.apply_settings(plain(params.initialization_options))
        for problem in problems:
            ls.show(f"bad setting: {problem}")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MaguyvaServer, _params: types.InitializedParams) -> None:
        roots = [Path(path_of_uri(f.uri)) for f in ls.workspace.folders.values()]
        if not roots and ls.workspace.root_uri:
            roots = [Path(path_of_uri(ls.workspace.root_uri))]
        for root in roots:
            ls.schedule_open(root)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: MaguyvaServer, _params: Any) -> None:
        ls.stop_watchers()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: MaguyvaServer, params: types.DidChangeConfigurationParams) -> None:
        for problem in ls.apply_settings(plain(params.settings)):
            ls.show(f"bad setting: {problem}")

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: MaguyvaServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        for folder in params.event.removed:
            ls.on_writer(ls.close_folder, Path(path_of_uri(folder.uri)))
        for folder in params.event.added:
            ls.schedule_open(Path(path_of_uri(folder.uri)))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(ls: MaguyvaServer, params: types.DidChangeWatchedFilesParams) -> None:
        by_engine: dict[Engine, list[str]] = {}
        for change in params.changes:
            located = ls.locate(change.uri)
            if located is not None:
                by_engine.setdefault(located[0], []).append(located[1])
        for engine, paths in by_engine.items():
            ls.on_writer(ls.update_files, engine, paths)

    # -- open buffers

    def schedule_buffer(ls: MaguyvaServer, uri: str, delay: float) -> None:
        if (timer := buffer_timers.pop(uri, None)) is not None:
            timer.cancel()

        def push() -> None:
            buffer_timers.pop(uri, None)
            located = ls.locate(uri)
            if located is None:
                return
            text = ls.workspace.get_text_document(uri).source
            ls.on_writer(located[0].set_buffer, located[1], text)

        buffer_timers[uri] = asyncio.get_running_loop().call_later(delay, push)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MaguyvaServer, params: types.DidOpenTextDocumentParams) -> None:
        schedule_buffer(ls, params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MaguyvaServer, params: types.DidChangeTextDocumentParams) -> None:
        schedule_buffer(ls, params.text_document.uri, BUFFER_DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MaguyvaServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        if (timer := buffer_timers.pop(uri, None)) is not None:
            timer.cancel()
        located = ls.locate(uri)
        if located is not None:
            ls.on_writer(located[0].close_buffer, located[1])

    # -- navigation

    @server.feature(types.WORKSPACE_SYMBOL)
    async def workspace_symbol(ls: MaguyvaServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        query = params.query[:MAX_QUERY_CHARS]

        def run() -> list[types.WorkspaceSymbol]:
            out: list[tuple[float, types.WorkspaceSymbol]] = []
            for engine in ls.workspaces.engines():
                for score, definition in engine.workspace_symbols(query, WORKSPACE_SYMBOL_LIMIT):
                    line_text = _line_reader(engine, definition.path)
                    out.append(
                        (score, lsp_workspace_symbol(definition, engine.uri(definition.path), line_text, ls.codec))
                    )
            out.sort(key=lambda pair: -pair[0])
            return [symbol for _score, symbol in out[:WORKSPACE_SYMBOL_LIMIT]]

        return await ls.in_query_thread(run)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: MaguyvaServer, params: types.DefinitionParams) -> list[types.Location]:
        return await _locations(ls, params.text_document.uri, params.position, "definition")

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: MaguyvaServer, params: types.ReferenceParams) -> list[types.Location]:
        include = bool(params.context and params.context.include_declaration)
        return await _locations(ls, params.text_document.uri, params.position, "references", include)

    # -- custom methods

    @server.feature("maguyva/search")
    async def search(ls: MaguyvaServer, params: Any) -> dict[str, Any]:
        query = param(params, "query")
        if not isinstance(query, str) or not query.strip():
            raise JsonRpcInvalidParams("maguyva/search needs a non-empty string 'query'")
        preset = param(params, "preset")
        limit = param(params, "limit")
        explain = bool(param(params, "explain", False))
        regex = bool(param(params, "regex", False))
        case_sensitive = bool(param(params, "caseSensitive", False))
        if preset is not None and not isinstance(preset, str):
            raise JsonRpcInvalidParams("'preset' must be one of quick, standard, thorough")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise JsonRpcInvalidParams("'limit' must be a positive integer")

        def run() -> dict[str, Any]:
            try:
                payload = ls.workspaces.search(
                    query[:MAX_QUERY_CHARS], preset, limit, explain, regex=regex, case_sensitive=case_sensitive
                )
            except ValueError as exc:
                raise JsonRpcInvalidParams(str(exc)) from exc
            return _client_columns(ls, payload, "results")

        return await ls.in_query_thread(run)

    @server.feature("maguyva/impact")
    async def impact(ls: MaguyvaServer, params: Any) -> dict[str, Any]:
        symbol = param(params, "symbol")
        document = param(params, "textDocument")
        position = param(params, "position")
        max_depth = param(params, "maxDepth", DEFAULT_IMPACT_DEPTH)
        if not isinstance(max_depth, int) or isinstance(max_depth, bool) or not 1 <= max_depth <= MAX_IMPACT_DEPTH:
            raise JsonRpcInvalidParams(f"'maxDepth' must be an integer from 1 to {MAX_IMPACT_DEPTH}")

        def run() -> dict[str, Any]:
            if isinstance(symbol, str) and symbol.strip():
                for engine in ls.workspaces.engines():
                    result = engine.impact(symbol=symbol.strip(), max_depth=max_depth)
                    if result is not None:
                        return _client_columns(ls, result.to_json(engine.uri), "impacted")
                return {"symbol": symbol, "impacted": []}
            uri = param(document, "uri")
            if not isinstance(uri, str) or position is None:
                raise JsonRpcInvalidParams("maguyva/impact needs {symbol} or {textDocument: {uri}, position}")
            located = ls.locate(uri)
            if located is None:
                raise JsonRpcInvalidParams(f"{uri} is not inside an open workspace folder")
            engine, rel = located
            line, column = _engine_position(ls, engine, rel, position)
            result = engine.impact(path=rel, line=line, column=column, max_depth=max_depth)
            if result is None:
                return {"symbol": None, "impacted": []}
            return _client_columns(ls, result.to_json(engine.uri), "impacted")

        return await ls.in_query_thread(run)

    @server.feature("maguyva/status")
    async def status(ls: MaguyvaServer, _params: Any) -> dict[str, Any]:
        return await ls.in_query_thread(ls.status)

    @server.command(REINDEX_COMMAND)
    def reindex(ls: MaguyvaServer, *_args: Any) -> dict[str, Any]:
        ls.on_writer(ls.reindex_all)
        return {"scheduled": len(ls.workspaces)}


def _line_reader(engine: Engine, path: str) -> Any:
    return lambda line: engine.line_text(path, line)


def _engine_position(ls: MaguyvaServer, engine: Engine, rel: str, position: Any) -> tuple[int, int]:
    line = param(position, "line")
    character = param(position, "character")
    if not isinstance(line, int) or not isinstance(character, int) or line < 0 or character < 0:
        raise JsonRpcInvalidParams("'position' must be {line, character} with non-negative integers")
    return line, ls.codec.from_client(engine.line_text(rel, line), character)


async def _locations(
    ls: MaguyvaServer, uri: str, position: types.Position, what: str, include_declaration: bool = False
) -> list[types.Location]:
    located = ls.locate(uri)
    if located is None:
        return []
    engine, rel = located

    def run() -> list[types.Location]:
        line, column = _engine_position(ls, engine, rel, position)
        if what == "definition":
            found = engine.definition(rel, line, column)
        else:
            found = engine.references(rel, line, column, include_declaration=include_declaration)
        return [lsp_location(engine.uri(path), span, _line_reader(engine, path), ls.codec) for path, span in found]

    return await ls.in_query_thread(run)


def _client_columns(ls: MaguyvaServer, payload: dict[str, Any], key: str) -> dict[str, Any]:
    """Convert the code-point columns of a JSON answer's ranges to the client's position encoding."""
    if ls.codec.encoding == "utf-32":
        return payload
    for item in payload.get(key, []):
        located = ls.locate(item["uri"])
        if located is not None:
            item["range"] = client_range_json(item["range"], _line_reader(*located), ls.codec)
    return payload

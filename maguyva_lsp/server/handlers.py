"""LSP handlers: each parses its params into the contract's request, has it answered off the event loop, and prints
the answer in LSP's shape. Nothing more: no checks and no reshaping of their own."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types

from maguyva_lsp.api import (
    ColumnCodec,
    DefinitionRequest,
    ImpactRequest,
    ReferencesRequest,
    ReindexRequest,
    SearchRequest,
    StatusRequest,
    SymbolsRequest,
)
from maguyva_lsp.api.requests import path_of_uri
from maguyva_lsp.engine import Engine
from maguyva_lsp.server.app import MaguyvaServer
from maguyva_lsp.server.convert import lsp_symbol_kind, plain

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
        ls.tell_earlier_failure()

    @server.feature(types.INITIALIZED)
    def initialized(ls: MaguyvaServer, _params: types.InitializedParams) -> None:
        # Run as the notification is read (not as a task): a request read after it, answered on a query thread at
        # once, must see the folders as scheduled (status says indexing until they are open).
        roots = [Path(path_of_uri(f.uri)) for f in ls.workspace.folders.values()]
        if not roots and ls.workspace.root_uri:
            roots = [Path(path_of_uri(ls.workspace.root_uri))]
        if ls.early is not None:
            ls.early.keep_only(roots)
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

    # -- the contract's requests: answered on a query thread, whose reply leaves from it (`@server.thread()`)

    @server.feature(types.WORKSPACE_SYMBOL)
    @server.thread()
    def workspace_symbol(ls: MaguyvaServer, params: Any) -> list[dict[str, Any]]:
        answer = ls.answer(SymbolsRequest, params)
        return [{**s, "kind": lsp_symbol_kind(s["kind"]).value} for s in answer["symbols"]]

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @server.thread()
    def definition(ls: MaguyvaServer, params: Any) -> list[dict[str, Any]]:
        locations: list[dict[str, Any]] = ls.answer(DefinitionRequest, params)["locations"]
        return locations

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @server.thread()
    def references(ls: MaguyvaServer, params: Any) -> list[dict[str, Any]]:
        locations: list[dict[str, Any]] = ls.answer(ReferencesRequest, params)["locations"]
        return locations

    @server.feature("maguyva/search")
    @server.thread()
    def search(ls: MaguyvaServer, params: Any) -> dict[str, Any]:
        return ls.answer(SearchRequest, params)

    @server.feature("maguyva/impact")
    @server.thread()
    def impact(ls: MaguyvaServer, params: Any) -> dict[str, Any]:
        return ls.answer(ImpactRequest, params)

    @server.feature("maguyva/status")
    @server.thread()
    def status(ls: MaguyvaServer, params: Any) -> dict[str, Any]:
        return ls.answer(StatusRequest, params)

    @server.command(REINDEX_COMMAND)
    def reindex(ls: MaguyvaServer, *_args: Any) -> dict[str, Any]:
        ReindexRequest.parse(None)
        return ls.reindex_all().to_json()

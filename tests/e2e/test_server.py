"""The language server end to end over stdio: every method, file events, open buffers, bad requests."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from maguyva_lsp.store.manifest import MANIFEST_NAME
from tests.e2e.lsp_session import (
    CHANGE_TIMEOUT_SECONDS,
    lsp_session,
    options,
    request,
    result_paths,
    search,
    wait_indexed,
    wait_until,
)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("capabilities", ["visual-studio-code", "neovim"])
async def test_every_method_answers(workspace: Path, tmp_path: Path, capabilities: str) -> None:
    async with lsp_session(workspace, options(tmp_path / "idx"), capabilities) as client:
        status = await wait_indexed(client)
        assert status.files == 5  # the ignored folder is not indexed
        assert status.symbols >= 8 and status.edges > 0 and status.chunks >= 5
        assert status.embedder.startswith("wordllama")

        # maguyva/search: a confident definition query goes straight to the structural index.
        found = await search(client, "where is parse_config defined", explain=True)
        assert (found.intent, found.fusion_strategy, list(found.modalities)) == (
            "find_definition",
            "direct",
            ["structural"],
        )
        assert found.target == "parse_config"
        first = found.results[0]
        assert first.uri == (workspace / "app" / "config.py").as_uri()
        assert first.symbol == "parse_config" and first.kind == "function"
        assert first.range.start.line == 10
        assert first.modalities.structural.rank == 0

        # A fused question runs three modalities and explains each result.
        fused = await search(client, "how is the configuration loaded from a file", preset="standard")
        assert fused.fusion_strategy == "rrf" and len(fused.modalities) == 3
        assert "app/config.py" in result_paths(fused)[:2]

        # exact_match never runs the semantic model.
        literal = await search(client, '"ECONNREFUSED while reading"')
        assert literal.intent == "exact_match" and "semantic" not in literal.modalities
        assert result_paths(literal) == ["app/config.py"]
        assert literal.results[0].range.start.line == 15

        # workspace/symbol, ranked by the engine.
        symbols = await request(client, types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query="load_conf"))
        assert symbols[0].name == "load_config"
        assert symbols[0].location.uri == (workspace / "app" / "config.py").as_uri()

        # textDocument/definition from the call site in server.py to config.py.
        server_uri = (workspace / "app" / "server.py").as_uri()
        definition = await request(
            client,
            types.TEXT_DOCUMENT_DEFINITION,
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(server_uri), position=types.Position(5, 24)
            ),
        )
        assert [(d.uri, d.range.start.line) for d in definition] == [((workspace / "app/config.py").as_uri(), 18)]

        # textDocument/references honours includeDeclaration.
        config_uri = (workspace / "app" / "config.py").as_uri()
        refs = await request(
            client,
            types.TEXT_DOCUMENT_REFERENCES,
            types.ReferenceParams(
                text_document=types.TextDocumentIdentifier(config_uri),
                position=types.Position(18, 6),
                context=types.ReferenceContext(include_declaration=False),
            ),
        )
        assert {(r.uri.rsplit("/", 1)[-1], r.range.start.line) for r in refs} == {("server.py", 5), ("server.py", 0)}
        with_decl = await request(
            client,
            types.TEXT_DOCUMENT_REFERENCES,
            types.ReferenceParams(
                text_document=types.TextDocumentIdentifier(config_uri),
                position=types.Position(18, 6),
                context=types.ReferenceContext(include_declaration=True),
            ),
        )
        assert ("config.py", 18) in {(r.uri.rsplit("/", 1)[-1], r.range.start.line) for r in with_decl}

        # maguyva/impact by name and by position: load_config is called from Server.__init__.
        impact = await request(client, "maguyva/impact", {"symbol": "parse_config"})
        by_symbol = {i.symbol: i.depth for i in impact.impacted}
        assert by_symbol["load_config"] == 1 and by_symbol["Server.__init__"] == 2
        at_position = await request(
            client, "maguyva/impact", {"textDocument": {"uri": config_uri}, "position": {"line": 18, "character": 6}}
        )
        assert at_position.symbol == "load_config"
        assert {i.symbol for i in at_position.impacted if i.depth == 1} == {"Server.__init__", "app.server"}

        # The re-index command.
        answer = await request(
            client, types.WORKSPACE_EXECUTE_COMMAND, types.ExecuteCommandParams(command="maguyva.reindex")
        )
        assert answer["scheduled"] == 1


async def test_bad_requests_get_errors_and_the_server_keeps_serving(workspace: Path, tmp_path: Path) -> None:
    async with lsp_session(workspace, options(tmp_path / "idx")) as client:
        await wait_indexed(client)
        for params in ({}, {"query": ""}, {"query": "x", "preset": "turbo"}, {"query": "x", "limit": -3}):
            with pytest.raises(JsonRpcException) as error:
                await search(client, **params) if "query" in params else await request(client, "maguyva/search", params)
            assert error.value.message
        with pytest.raises(JsonRpcException, match="'preset' must be one of quick, standard, thorough"):
            await search(client, "parse", preset="turbo")
        with pytest.raises(JsonRpcException, match="textDocument"):
            await request(client, "maguyva/impact", {})
        with pytest.raises(JsonRpcException):
            await request(client, "maguyva/nonexistent", {})
        # A bad regex-like literal and a huge query: answers, not crashes.
        huge = await search(client, "parse " * 20_000)
        assert huge.intent
        assert (await search(client, "where is parse_config defined")).results


async def test_disk_changes_are_searchable(workspace: Path, tmp_path: Path) -> None:
    async with lsp_session(workspace, options(tmp_path / "idx")) as client:
        await wait_indexed(client)

        async def definition_paths(name: str) -> list[str]:
            """Files whose results are the definition of `name` (a search that misses falls back to fused results
            about other things, which do not count)."""
            return defined_in(await search(client, f"def {name}"), name)

        # create
        (workspace / "app" / "metrics.py").write_text("def record_latency(ms):\n    return ms\n")
        await wait_until(
            lambda: _contains(definition_paths("record_latency"), "app/metrics.py"), CHANGE_TIMEOUT_SECONDS, "create"
        )
        # modify
        (workspace / "app" / "metrics.py").write_text("def record_throughput(n):\n    return n\n")
        await wait_until(
            lambda: _contains(definition_paths("record_throughput"), "app/metrics.py"), CHANGE_TIMEOUT_SECONDS, "edit"
        )
        assert "app/metrics.py" not in await definition_paths("record_latency")
        # rename
        (workspace / "app" / "metrics.py").rename(workspace / "app" / "telemetry.py")
        await wait_until(
            lambda: _contains(definition_paths("record_throughput"), "app/telemetry.py"), CHANGE_TIMEOUT_SECONDS, "move"
        )
        assert "app/metrics.py" not in await definition_paths("record_throughput")
        # delete (a whole folder)
        shutil.rmtree(workspace / "web")
        await wait_until(
            lambda: _lacks(definition_paths("handleRequest"), "web/routes.ts"), CHANGE_TIMEOUT_SECONDS, "folder delete"
        )
        assert (await request(client, "maguyva/status", {})).files == 5
        # an ignored path is never indexed: a file written after it is searchable, so its event has been handled
        # (the watcher hands events over in order), and the ignored one is still not
        (workspace / "ignored" / "more.py").write_text("def also_hidden():\n    pass\n")
        (workspace / "app" / "after.py").write_text("def written_after():\n    pass\n")
        await wait_until(
            lambda: _contains(definition_paths("written_after"), "app/after.py"), CHANGE_TIMEOUT_SECONDS, "after"
        )
        assert await definition_paths("also_hidden") == []


def defined_in(response: Any, name: str) -> list[str]:
    return [path for path, r in zip(result_paths(response), response.results, strict=True) if r.symbol == name]


async def _contains(paths: object, wanted: str) -> bool:
    return wanted in await paths  # type: ignore[operator]


async def _lacks(paths: object, unwanted: str) -> bool:
    return unwanted not in await paths  # type: ignore[operator]


async def test_unsaved_buffer_is_searchable_until_closed(workspace: Path, tmp_path: Path) -> None:
    async with lsp_session(workspace, options(tmp_path / "idx")) as client:
        await wait_indexed(client)
        uri = (workspace / "app" / "server.py").as_uri()
        text = (workspace / "app" / "server.py").read_text()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
            )
        )
        edited = text + "\n\ndef graceful_shutdown(server):\n    return server.listen(0)\n"
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=edited)],
            )
        )

        async def symbol_found() -> bool:
            found = await request(
                client, types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query="graceful_shutdown")
            )
            return bool(found) and found[0].name == "graceful_shutdown"

        await wait_until(symbol_found, CHANGE_TIMEOUT_SECONDS, "the unsaved edit")
        assert (workspace / "app" / "server.py").read_text() == text  # nothing was written to disk
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )

        async def symbol_gone() -> bool:
            return not await request(
                client, types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query="graceful_shutdown")
            )

        await wait_until(symbol_gone, CHANGE_TIMEOUT_SECONDS, "the buffer to close")


def _counters(status: object) -> tuple[int, int]:
    folder = status.folders[0]  # type: ignore[attr-defined]
    return folder.counters.analyzed, folder.counters.reused


async def test_restart_is_warm_and_a_corrupt_store_is_rebuilt(workspace: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    async with lsp_session(workspace, options(index_dir)) as client:
        assert _counters(await wait_indexed(client)) == (5, 0)
    async with lsp_session(workspace, options(index_dir), "neovim") as client:
        status = await wait_indexed(client)
        assert _counters(status) == (0, 5)  # nothing re-parsed
        assert (await search(client, "where is parse_config defined")).results
    manifests = list(index_dir.rglob(MANIFEST_NAME))
    assert len(manifests) == 1
    manifests[0].write_bytes(b"\x00not a manifest" * 500)
    async with lsp_session(workspace, options(index_dir)) as client:
        status = await wait_indexed(client)
        assert _counters(status) == (5, 0)
        assert any("rebuilt the index store" in m.message for m in client.messages)
        assert (await search(client, "where is parse_config defined")).results


async def test_settings_problems_are_shown_and_the_key_is_never_logged(
    workspace: Path, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    secret = "pa-e2e-secret-0123456789abcdef"
    init = options(tmp_path / "idx", voyageApiKey=secret, preset="turbo", limit="many")
    async with lsp_session(workspace, init) as client:
        await wait_indexed(client)
        assert any("unknown preset 'turbo'" in m.message for m in client.messages)
        assert any("'limit'" in m.message for m in client.messages)
        # Live settings: a bad value is reported, a good one applies.
        client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"maguyva": {"preset": "thorough", "maxFileSize": -1}})
        )
        await wait_until(
            lambda: _any_message(client, "'maxFileSize'"), CHANGE_TIMEOUT_SECONDS, "the bad setting message"
        )
        assert (await search(client, "where is parse_config defined")).fusion_strategy == "rrf"  # thorough: no direct
        logged = " ".join(m.message for m in client.log_messages)
        assert "indexed" in logged and secret not in logged
        assert secret not in " ".join(m.message for m in client.messages)
    captured = capfd.readouterr()
    assert secret not in captured.out + captured.err
    for path in (tmp_path / "idx").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes()


async def _any_message(client: object, text: str) -> bool:
    return any(text in m.message for m in client.messages)  # type: ignore[attr-defined]


async def test_workspace_folders_are_added_and_dropped(workspace: Path, tmp_path: Path) -> None:
    second = tmp_path / "second"
    (second / "lib").mkdir(parents=True)
    (second / "lib" / "geometry.go").write_text(
        "package lib\n\ntype Point struct{ X, Y int }\n\nfunc Distance(a, b Point) int {\n\treturn a.X - b.X\n}\n"
    )
    async with lsp_session(workspace, options(tmp_path / "idx")) as client:
        await wait_indexed(client)
        assert defined_in(await search(client, "func Distance"), "Distance") == []
        client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[types.WorkspaceFolder(uri=second.as_uri(), name="second")], removed=[]
                )
            )
        )

        async def found_in_second() -> bool:
            return defined_in(await search(client, "func Distance"), "Distance") == ["lib/geometry.go"]

        await wait_until(found_in_second, CHANGE_TIMEOUT_SECONDS, "the added folder")
        status = await request(client, "maguyva/status", {})
        assert len(status.folders) == 2 and status.files == 6
        client.workspace_did_change_workspace_folders(
            types.DidChangeWorkspaceFoldersParams(
                event=types.WorkspaceFoldersChangeEvent(
                    added=[], removed=[types.WorkspaceFolder(uri=second.as_uri(), name="second")]
                )
            )
        )

        async def dropped() -> bool:
            return defined_in(await search(client, "func Distance"), "Distance") == []

        await wait_until(dropped, CHANGE_TIMEOUT_SECONDS, "the dropped folder")

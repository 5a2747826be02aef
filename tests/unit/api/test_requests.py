"""The contract's requests: what each parses to, and the one message for each mistake (the field named first)."""

from __future__ import annotations

from typing import Any

import pytest

from maguyva_lsp.api import (
    DefinitionRequest,
    ImpactRequest,
    InvalidRequestError,
    Place,
    ReferencesRequest,
    SearchRequest,
    StatusRequest,
    SymbolsRequest,
    parse_request,
)

URI = "file:///ws/app/config.py"


@pytest.mark.parametrize(
    ("method", "params", "request_"),
    [
        ("search", {"query": "x"}, SearchRequest("x")),
        (
            "search",
            {"query": "a+", "preset": "quick", "limit": 5, "explain": True, "regex": True, "caseSensitive": True},
            SearchRequest("a+", "quick", 5, True, True, True),
        ),
        ("search", {"query": "x", "limit": 5.0}, SearchRequest("x", limit=5)),
        ("search", {"query": "x", "workDoneToken": "t"}, SearchRequest("x")),  # LSP's own fields are allowed
        ("impact", {"symbol": " Config.parse "}, ImpactRequest("Config.parse")),
        ("impact", {"symbol": "f", "maxDepth": 10}, ImpactRequest("f", max_depth=10)),
        (
            "impact",
            {"textDocument": {"uri": URI}, "position": {"line": 3, "character": 4}},
            ImpactRequest(place=Place("/ws/app/config.py", 3, 4, "textDocument.uri")),
        ),
        ("definition", {"file": "app/config.py", "line": 4}, DefinitionRequest(place=Place("app/config.py", 3, None))),
        ("definition", {"file": "a.py", "line": 1, "column": 7}, DefinitionRequest(place=Place("a.py", 0, 6))),
        (
            "references",
            {
                "textDocument": {"uri": URI},
                "position": {"line": 0, "character": 0},
                "context": {"includeDeclaration": True},
            },
            ReferencesRequest(place=Place("/ws/app/config.py", 0, 0, "textDocument.uri"), include_declaration=True),
        ),
        ("references", {"symbol": "f", "includeDeclaration": True}, ReferencesRequest("f", include_declaration=True)),
        ("symbols", {"query": ""}, SymbolsRequest("")),
        ("status", None, StatusRequest()),
        ("status", {}, StatusRequest()),
        # Neovim's Lua encodes an empty table as an empty array: no params, not a mistake.
        ("status", [], StatusRequest()),
    ],
)
def test_parses(method: str, params: Any, request_: object) -> None:
    assert parse_request(method, params) == request_


@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        ("search", None, "'query' is required"),
        ("search", [1], "'params' must be an object, got array"),
        ("search", [], "'query' is required"),
        ("search", {"query": " "}, "'query' must not be empty"),
        ("search", {"query": 1}, "'query' must be a string, got number"),
        ("search", {"query": "x", "limit": 0}, "'limit' must be a whole number from 1 to 1000, got 0"),
        ("search", {"query": "x", "limit": True}, "'limit' must be a whole number, got boolean True"),
        ("search", {"query": "x", "limit": 2.5}, "'limit' must be a whole number, got number 2.5"),
        ("search", {"query": "x", "preset": "turbo"}, "'preset' must be one of quick, standard, thorough, got 'turbo'"),
        ("search", {"query": "x", "explain": 1}, "'explain' must be true or false, got number"),
        (
            "search",
            {"query": "x", "case_sensitive": True},
            "'case_sensitive' is not a field of this request (fields: query, preset, limit, explain, regex, "
            "caseSensitive)",
        ),
        ("search", {"query": "a(", "regex": True}, "'query' is not a usable regular expression: invalid regular"),
        ("impact", {}, "'symbol' is required: impact needs a symbol, textDocument + position, or file + line"),
        ("impact", {"symbol": "f", "maxDepth": 0}, "'maxDepth' must be a whole number from 1 to 10, got 0"),
        ("impact", {"symbol": "f", "file": "a.py", "line": 1}, "'symbol' cannot be combined with a position"),
        ("definition", {"textDocument": {"uri": URI}}, "'position' is required with textDocument"),
        ("definition", {"textDocument": {"uri": "untitled:1"}, "position": {"line": 0, "character": 0}},
         "'textDocument.uri' must be a file: URI, got 'untitled:1'"),
        ("definition", {"textDocument": {"uri": URI}, "position": {"line": -1, "character": 0}},
         "'position.line' must be a whole number of at least 0, got -1"),
        ("definition", {"file": "a.py"}, "'line' is required with file (1-based)"),
        ("definition", {"file": "a.py", "line": 0}, "'line' must be a whole number of at least 1, got 0"),
        ("definition", {"file": "a.py", "line": 1, "textDocument": {"uri": URI}}, "'file' cannot be combined"),
        ("references", {"symbol": "f", "context": {"x": 1}}, "'x' is not a field of this request"),
        ("symbols", {}, "'query' is required"),
        ("status", {"x": 1}, "'x' is not a field of this request (fields: none)"),
        ("frobnicate", {}, "'method' must be one of search, impact, definition, references, symbols, status, reindex"),
    ],
)  # fmt: skip
def test_refuses_with_one_message(method: str, params: Any, message: str) -> None:
    with pytest.raises(InvalidRequestError) as error:
        parse_request(method, params)
    assert str(error.value).startswith(message)
    assert str(error.value).startswith(f"'{error.value.field}' ")

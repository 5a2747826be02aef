"""`maguyva batch` request lines: plain text, JSON objects with their id and method, and what is refused unread."""

from __future__ import annotations

import pytest

from maguyva_lsp.api import InvalidRequestError
from maguyva_lsp.batch import MAX_REQUEST_CHARS, BatchLine, RequestError, parse_line


def test_plain_text_is_a_search_and_a_json_object_carries_its_method_and_id() -> None:
    assert parse_line("who calls load_config") == BatchLine(None, "search", {"query": "who calls load_config"})
    assert parse_line('{"id": 7, "method": "impact", "symbol": "Config.parse", "maxDepth": 2}') == BatchLine(
        7, "impact", {"symbol": "Config.parse", "maxDepth": 2}
    )
    assert parse_line('{"query": "x"}') == BatchLine(None, "search", {"query": "x"})


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not a JSON object"),
        ('{"query": 1', "not a JSON object"),
        ("x" * (MAX_REQUEST_CHARS + 1), "refused"),
    ],
)
def test_lines_that_are_no_request(line: str, message: str) -> None:
    with pytest.raises(RequestError, match=message):
        parse_line(line)


def test_text_that_merely_starts_like_json_is_a_search() -> None:
    assert parse_line("[1, 2]") == BatchLine(None, "search", {"query": "[1, 2]"})


def test_a_method_must_be_a_string() -> None:
    with pytest.raises(InvalidRequestError, match="'method' must be a string"):
        parse_line('{"method": 3}')

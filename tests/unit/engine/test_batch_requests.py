"""`maguyva batch` request lines: plain text, JSON objects, and what is refused before the engine is asked."""

from __future__ import annotations

import pytest

from maguyva_lsp.batch import MAX_REQUEST_CHARS, RequestError, parse_request


def test_plain_text_is_a_query_and_a_json_object_is_taken_as_given() -> None:
    assert parse_request("who calls load_config") == {"query": "who calls load_config"}
    assert parse_request('{"impact": "Config.parse", "depth": 2}') == {"impact": "Config.parse", "depth": 2}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "not a JSON object"),
        ("[1, 2]", None),  # not starting with "{": searched as text
        ('{"query": 1', "not a JSON object"),
        ("x" * (MAX_REQUEST_CHARS + 1), "refused"),
    ],
)
def test_bad_lines(line: str, message: str | None) -> None:
    if message is None:
        assert parse_request(line) == {"query": line}
        return
    with pytest.raises(RequestError, match=message):
        parse_request(line)

"""Receivers split into the parts a resolver walks: plain dotted names, calls, brackets and `::`/`->` separators."""

from __future__ import annotations

import pytest

from maguyva_lsp.parse.ref_query import split_receiver


@pytest.mark.parametrize(
    ("receiver", "parts"),
    [
        ("self", ["self"]),
        ("os.path", ["os", "path"]),
        ("self._sock.settimeout", ["self", "_sock", "settimeout"]),
        ("$scope.élan", ["$scope", "élan"]),
        ("", []),
        ("a..b", ["a", "b"]),
        ("a.b(c.d).e", ["a", "b()", "e"]),
        ("get_config().loader", ["get_config()", "loader"]),
        ("items[0].name", ["items[0]", "name"]),
        ("std::vector", ["std", "vector"]),
        ("node->next->value", ["node", "next", "value"]),
        ("a.b-c", ["a", "b-c"]),
        ("{x}.y", ["{x}", "y"]),
    ],
)
def test_split_receiver(receiver: str, parts: list[str]) -> None:
    assert split_receiver(receiver) == parts

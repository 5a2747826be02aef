"""The identifiers a natural-language question names."""

from __future__ import annotations

import pytest

from maguyva_lsp.query.question import MAX_NAMED, named_identifiers


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("Added originalIndex to parseQuality to sort long lists", ["originalIndex", "parseQuality"]),
        ("Fixed a bug, view_args not values", ["view_args"]),
        ("Fix `attrs.field(converter=...)` type annotations", ["field"]),
        ("Renamed `app.flashFormatters` to `app.formatters`", ["flashFormatters", "formatters"]),
        ("how does std::fs::read_to_string fail", ["read_to_string"]),
        ("make exception contents conditional on DEBUG", ["DEBUG"]),
        ("how does the cache expire entries", []),
        ("Make the default better", []),
    ],
)
def test_named_identifiers(question: str, names: list[str]) -> None:
    assert named_identifiers(question) == names


def test_a_long_text_names_at_most_a_few() -> None:
    assert len(named_identifiers(" ".join(f"name_{i}" for i in range(40)))) == MAX_NAMED

"""Names defined by pasted snippets, across languages."""

from __future__ import annotations

import pytest

from maguyva_lsp.query.snippet import defined_names


@pytest.mark.parametrize(
    ("snippet", "names"),
    [
        ("def normalize(self):\n    for child in self.childNodes:\n        pass\n", ["normalize"]),
        ("    async def fetch(url):\n        return await get(url)\n", ["fetch"]),
        ("@dataclass\nclass Point:\n    x: int\n    def norm(self): ...\n", ["Point", "norm"]),
        ("export function formatPrice(cents: number) {\n  return cents / 100;\n}\n", ["formatPrice"]),
        ("func (s *Server) Start() error {\n\treturn nil\n}\n", ["Start"]),
        ("pub fn parse(input: &str) -> Config {\n    todo!()\n}\n", ["parse"]),
        ("export const handler = async (req) => {\n  return 1;\n};\n", ["handler"]),
        ("type Options struct {\n\tDepth int\n}\n", ["Options"]),
        ("total = sum(x for x in items)\nreturn total * rate\n", []),
        ("self.define(name)  # not a header\nclassify(x)\n", []),
    ],
)
def test_defined_names(snippet: str, names: list[str]) -> None:
    assert defined_names(snippet) == names

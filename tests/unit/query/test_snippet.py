"""Names defined by pasted snippets, across languages."""

from __future__ import annotations

import pytest

from maguyva_lsp.query.snippet import FUNCTION_KINDS, TYPE_KINDS, defined_names, snippet_code, snippet_kinds


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


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("find code similar to:\ndef f(x):\n    return x\n", "def f(x):\n    return x\n"),
        ("Here is the function, where else is it:\nfunc F() {}\n", "func F() {}\n"),
        ("else:\n    pass\n", "else:\n    pass\n"),  # code ending in a colon stays
        ("class Config:\n    x = 1\n", "class Config:\n    x = 1\n"),
        ("try:\n    run()\n", "try:\n    run()\n"),
        ("find code similar to:", "find code similar to:"),  # nothing after it: nothing to drop
        ("def f(x): return x", "def f(x): return x"),
    ],
)
def test_snippet_code_drops_a_prose_lead_in(text: str, code: str) -> None:
    assert snippet_code(text) == code


@pytest.mark.parametrize(
    ("snippet", "kinds"),
    [
        ("def normalize(self):\n    return 1\n", FUNCTION_KINDS),
        ("@app.route('/')\n# the index\nasync def index():\n    ...\n", FUNCTION_KINDS),
        ("func (s *Server) Start() error {\n\treturn nil\n}\n", FUNCTION_KINDS),
        ("export async function load(url) {\n  return fetch(url);\n}\n", FUNCTION_KINDS),
        ("const total = (items) => items.length;\n", FUNCTION_KINDS),
        ("module.exports = function (req, res) {\n  res.end();\n};\n", FUNCTION_KINDS),
        ("Foo.prototype.bar = function bar() {\n};\n", FUNCTION_KINDS),
        ("  render() {\n    return null;\n  }\n", FUNCTION_KINDS),
        ("#[inline]\npub fn parse(input: &str) -> Config {\n    todo!()\n}\n", FUNCTION_KINDS),
        ("public static int parse(String s) throws IOException {\n  return 0;\n}\n", FUNCTION_KINDS),
        ("static int\ncount(char *s)\n{\n", None),  # the return type alone on the first line says nothing
        ("int count(const char *s)\n{\n  return 0;\n}\n", FUNCTION_KINDS),
        ("fun main(args: Array<String>) {\n}\n", FUNCTION_KINDS),
        ("@dataclass\nclass Point:\n    x: int\n", TYPE_KINDS),
        ("type Options struct {\n\tDepth int\n}\n", TYPE_KINDS),
        ("pub struct Config {\n    depth: u32,\n}\n", TYPE_KINDS),
        ("impl Display for Config {\n}\n", TYPE_KINDS),
        ("total = sum(x for x in items)\nreturn total * rate\n", None),
        ("print(total)\n", None),
        ("raise ValueError(message)\n", None),
        ("if (ready) {\n  start();\n}\n", None),
        ("return compute(x) {\n", None),
        ("\n\n# only a comment\n", None),
    ],
)
def test_snippet_kinds_says_what_unit_a_snippet_is(snippet: str, kinds: frozenset[str] | None) -> None:
    assert snippet_kinds(snippet) == kinds


def test_the_units_are_chunk_kinds() -> None:
    assert {"function", "method"} == FUNCTION_KINDS
    assert {"class", "struct", "interface", "enum", "trait", "impl"} <= TYPE_KINDS
    assert not FUNCTION_KINDS & TYPE_KINDS

"""Whole-identifier search: word boundaries like `grep -w`, definition-looking lines first."""

from __future__ import annotations

from pathlib import Path

import pytest
from text_corpus import ALL, build, grep_lines, hit_lines, write_tree

from maguyva_lsp.index.text_match import looks_like_definition
from maguyva_lsp.retrieve.text import TextRetriever


@pytest.mark.parametrize("name", ["parse_config", "parseConfig", "retry_count", "Config", "ECONNREFUSED", "a", "fn"])
def test_identifier_equals_grep_w(workspace: Path, retriever: TextRetriever, name: str) -> None:
    result = retriever.find_identifier(name, limit=ALL)
    assert hit_lines(result) == grep_lines(workspace, ["-w", "-F"], name)


def test_identifier_does_not_match_a_longer_name(retriever: TextRetriever) -> None:
    paths_lines = hit_lines(retriever.find_identifier("parseConfig", limit=ALL))
    assert ("src/config.py", 21) not in paths_lines  # def parseConfigs(paths)
    assert ("src/app.js", 3) in paths_lines
    assert not hit_lines(retriever.find_identifier("parseConfi", limit=ALL))


def test_definition_lines_come_first(retriever: TextRetriever) -> None:
    hits = retriever.find_identifier("parse_config", limit=ALL).hits
    top = {(h.path, h.span.start_line) for h in hits[:2]}
    assert top == {("src/config.py", 6), ("src/lib.rs", 1)}
    assert hits[0].span.start_col == hits[0].snippet.index("parse_config")


def test_keyword_binding_ranks_first(retriever: TextRetriever) -> None:
    hits = retriever.find_identifier("retry_count", limit=ALL).hits
    assert (hits[0].path, hits[0].span.start_line) == ("src/lib.rs", 2)  # `let retry_count = 3;`
    assert {h.path for h in hits} == {"src/lib.rs", "src/util.c", "src/server.go"}


@pytest.mark.parametrize(
    ("line", "name", "expected"),
    [
        ("def parse_config(path):", "parse_config", True),
        ("    class Foo(Base):", "Foo", True),
        ("func (s *Server) Listen() error {", "Listen", True),
        ("pub fn parse_config(input: &str)", "parse_config", True),
        ("export function parseConfig(text) {", "parseConfig", True),
        ("#define MAX_RETRY 5", "MAX_RETRY", True),
        ("CRLF_CONSTANT = 42", "CRLF_CONSTANT", True),
        ("    timeout: float = 1.0", "timeout", True),
        ("    config = parse_config(path)", "parse_config", False),
        ("if retry_count == 3:", "retry_count", False),
        ("    retry_count == 3", "retry_count", False),
        ("undefined_name", "undefined_name", False),
    ],
)
def test_looks_like_definition(line: str, name: str, expected: bool) -> None:
    text = f"x = 1\n{line}\n"
    start = text.index(name, len("x = 1\n"))
    assert looks_like_definition(text, start, start + len(name)) is expected


def test_dotted_name_and_overlapping_occurrences(tmp_path: Path) -> None:
    write_tree(tmp_path, {"m.py": "xa.a.a\nimport os.path\nos.path.join(a)\nos.pathx\n"})
    retriever = build(tmp_path)
    assert hit_lines(retriever.find_identifier("a.a", limit=ALL)) == {("m.py", 0)}
    hits = retriever.find_identifier("a.a", limit=ALL).hits
    assert [h.span.start_col for h in hits] == [3]  # `xa.a` is glued to x; the second `a.a` stands alone
    assert hit_lines(retriever.find_identifier("os.path", limit=ALL)) == {("m.py", 1), ("m.py", 2)}


def test_unicode_word_boundaries(tmp_path: Path) -> None:
    write_tree(tmp_path, {"u.py": "café = 1\ncafé_x = 2\nxcafé = 3\n(café)\n"})
    assert hit_lines(build(tmp_path).find_identifier("café", limit=ALL)) == {("u.py", 0), ("u.py", 3)}

"""Literal search: recall equals `grep -rF` (and `grep -rFi`) on the same files, positions are line-precise."""

from __future__ import annotations

from pathlib import Path

import pytest
from text_corpus import ALL, LONG_LINE, analyze_path, build, grep_lines, hit_lines, write_tree

from maguyva_lsp.index.trigram import all_of, string_trigrams
from maguyva_lsp.model import ChangeBatch
from maguyva_lsp.retrieve import text as text_module
from maguyva_lsp.retrieve.text import TextRetriever

LITERALS = [
    "parse_config",
    "ECONNREFUSED",
    "config",
    "Config",
    "retry_count",
    "(path)",
    "->",
    "==",
    "!=",
    "a",
    "ab",
    "=",
    "{",
    "\t",
    "  ",
    "é",
    "日本",
    "🙂",
    "Ωmega",
    "café",
    "e.g.",
    "x = ",
    "parseConfig(",
    "self",
    "needle_in_long_line",
    "CRLF line",
    "return value",
    '"ECONNREFUSED"',
    "zzz_not_anywhere",
    "b=2;b=2;b=2;",
]
CASE_INSENSITIVE = ["config", "econnrefused", "CAFÉ", "École", "ωMEGA", "ParseConfig", "crlf", "a", "ĖÉ", "Tabs\t"]


@pytest.mark.parametrize("literal", LITERALS)
def test_literal_recall_equals_grep(workspace: Path, retriever: TextRetriever, literal: str) -> None:
    result = retriever.find_literal(literal, case_sensitive=True, limit=ALL)
    assert hit_lines(result) == grep_lines(workspace, ["-F"], literal)


@pytest.mark.parametrize("literal", CASE_INSENSITIVE)
def test_case_insensitive_recall_equals_grep(workspace: Path, retriever: TextRetriever, literal: str) -> None:
    result = retriever.find_literal(literal, case_sensitive=False, limit=ALL)
    assert hit_lines(result) == grep_lines(workspace, ["-F", "-i"], literal)


def test_hit_is_line_precise_with_code_point_columns(retriever: TextRetriever) -> None:
    hits = retriever.find_literal("🙂 of", case_sensitive=True, limit=ALL).hits
    assert len(hits) == 1
    hit = hits[0]
    line = "日本語のテキスト and an emoji 🙂 in the middle 🙂 of a line."
    column = line.index("🙂 of")  # code points, not bytes
    assert (hit.path, hit.span.start_line, hit.span.start_col, hit.span.end_col) == (
        "docs/notes.md",
        3,
        column,
        column + 4,
    )
    assert hit.snippet == line


def test_crlf_snippet_drops_the_carriage_return(retriever: TextRetriever) -> None:
    (hit,) = retriever.find_literal("CRLF line", case_sensitive=True, limit=ALL).hits
    assert hit.span.start_line == 1
    assert hit.snippet == "    value = 'CRLF line'"


def test_long_line_snippet_is_a_window_around_the_match(retriever: TextRetriever) -> None:
    (hit,) = retriever.find_literal("needle_in_long_line", case_sensitive=True, limit=ALL).hits
    assert hit.span.start_col == LONG_LINE.index("needle_in_long_line")
    assert "needle_in_long_line" in hit.snippet
    assert len(hit.snippet) < 300


def test_literal_across_lines_spans_them(retriever: TextRetriever) -> None:
    (hit,) = retriever.find_literal("handle:\n        return", case_sensitive=True, limit=ALL).hits
    assert (hit.path, hit.span.start_line, hit.span.end_line) == ("src/config.py", 8, 9)
    assert hit.span.end_col == len("        return")


def test_enclosing_definition_is_reported(retriever: TextRetriever) -> None:
    hits = retriever.find_literal("line.split", case_sensitive=True, limit=ALL).hits
    assert [(h.symbol, h.kind) for h in hits] == [("parse_config", "function")]


def test_short_literal_scans_and_says_so(retriever: TextRetriever) -> None:
    result = retriever.find_literal("==", case_sensitive=True, limit=ALL)
    assert result.complete
    assert result.note is not None and "no trigram" in result.note
    assert result.candidates == retriever.document_count


def test_scan_cap_stops_and_says_so(retriever: TextRetriever, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_module, "LITERAL_SCAN_MAX_CHARS", 10)
    result = retriever.find_literal("=", case_sensitive=True, limit=ALL)
    assert not result.complete
    assert result.note is not None and "cap" in result.note


def test_ranking_source_before_tests_whole_words_first(retriever: TextRetriever) -> None:
    hits = retriever.find_literal("parse_config", case_sensitive=True, limit=ALL).hits
    paths = [h.path for h in hits]
    assert paths.index("tests/test_config.py") > paths.index("src/config.py")
    first_round = list(dict.fromkeys(paths))
    assert first_round[-1] == "tests/test_config.py"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # each file's best match before any file's second one
    seen: set[str] = set()
    for i, path in enumerate(paths):
        if path in seen:
            assert set(paths[i:]) <= seen
            break
        seen.add(path)


def test_partial_word_match_ranks_after_whole_word(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.c": "int WSAECONNREFUSED = 1;\n", "b.c": "x = ECONNREFUSED;\nECONNREFUSED;\n"})
    hits = build(tmp_path).find_literal("ECONNREFUSED", case_sensitive=True, limit=ALL).hits
    assert [h.path for h in hits] == ["b.c", "a.c", "b.c"]  # whole-word file first, then round robin


def test_limit_is_respected(retriever: TextRetriever) -> None:
    result = retriever.find_literal("e", case_sensitive=True, limit=3)
    assert len(result.hits) == 3
    assert result.total_matches > 3


def test_empty_literal_finds_nothing(retriever: TextRetriever) -> None:
    assert retriever.find_literal("", case_sensitive=True).hits == ()


def test_case_insensitive_candidates_are_the_exact_ones_plus_the_folding_files(tmp_path: Path) -> None:
    files = {
        "a.py": "urlsplit(x)\nKelvin = 1\n",
        "b.py": "URLSPLIT(y)\n",
        "fold1.py": "# \u017fplit and urlsplit(\n",  # long s folds onto s
        "fold2.py": "\u212a = 'kelvin sign'\n",
        "plain.txt": "nothing here\n",
    }
    write_tree(tmp_path, files)
    retriever = build(tmp_path)
    # A second segment: one folding file removed (dead in the first), one edited (its new version in the second).
    (tmp_path / "fold1.py").unlink()
    (tmp_path / "fold2.py").write_text("\u0130 = 'dotted I' # urlsplit(\n", encoding="utf-8")
    retriever.apply(ChangeBatch(updated=(analyze_path(tmp_path, "fold2.py"),), removed=("fold1.py",)))
    index = retriever._state.trigrams
    assert len(index.segments) == 2
    for literal in ("urlsplit(", "kelvin", "split", "nothing", "absent!"):
        query = all_of(string_trigrams(literal, ignore_case=False))
        exact = index.candidates(query, ignore_case=False)
        assert exact is not None
        loose = index.candidates(query, ignore_case=True)
        assert loose is not None and index.with_folding(exact).tolist() == loose.tolist(), literal
    # and the answers of a quoted literal (both passes on the shared candidates) keep finding every casing
    found = retriever.find_literal("urlsplit(", case_sensitive=False, limit=ALL)
    assert sorted({hit.path for hit in found.hits}) == ["a.py", "b.py", "fold2.py"]

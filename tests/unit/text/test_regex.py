"""Regex search: results equal Python `re` run on each line (and `grep -rP` for ASCII patterns); the trigram
narrowing never loses a match; invalid and exponential patterns are refused with a clear message."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from text_corpus import ALL, build, grep_lines, hit_lines, python_lines, write_tree

from maguyva_lsp.index.text_regex import plan_regex
from maguyva_lsp.index.trigram import string_trigrams
from maguyva_lsp.retrieve.base import RetrieverError
from maguyva_lsp.retrieve.text import TextRetriever

PATTERNS = [
    r"parse_config",
    r"def \w+\(",
    r"parse_?[cC]onfig",
    r"ECONN(REFUSED|RESET)",
    r"retry_count\s*[<=+]",
    r"^def ",
    r"^\s+return",
    r"value'?$",
    r"\bConfig\b",
    r"[A-Z]{2,}_[A-Z]+",
    r"\d+",
    r"fn\(\)",
    r"(?i)econnrefused",
    r"(?:café|école)",
    r"caf.",
    r"Ω|ω",
    r"日本\w+",
    r"🙂.*🙂",
    r"needle_in_long_line\(\)",
    r"^x?y?z?",
    r"(?<=\.)\w+\(",
    r"e\.g\.|i\.e\.",
    r"\bparse\w*",
    r"a.c",
    r"config(?!s)",
    r"\Aimport",
    r"$",
    r"b=2;(b=2;)+ECONN",
    r"handle:\n",
    r"\s+$",
]
ASCII_PATTERNS = [
    r"def \w+\(",
    r"ECONN(REFUSED|RESET)",
    r"^\s+return",
    r"[A-Z]{2,}_[A-Z]+",
    r"\bConfig\b",
    r"retry_count\s*[<=+]",
    r"a.c",
    r"config(?!s)",
]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_regex_equals_python_re_per_line(workspace: Path, retriever: TextRetriever, pattern: str) -> None:
    result = retriever.find_regex(pattern, case_sensitive=True, limit=ALL)
    assert hit_lines(result) == python_lines(workspace, pattern, re.MULTILINE)


@pytest.mark.parametrize("pattern", PATTERNS[:12])
def test_case_insensitive_regex_equals_python_re(workspace: Path, retriever: TextRetriever, pattern: str) -> None:
    result = retriever.find_regex(pattern, case_sensitive=False, limit=ALL)
    assert hit_lines(result) == python_lines(workspace, pattern, re.MULTILINE | re.IGNORECASE)


@pytest.mark.parametrize("pattern", ASCII_PATTERNS)
def test_regex_equals_grep_p(workspace: Path, retriever: TextRetriever, pattern: str) -> None:
    result = retriever.find_regex(pattern, case_sensitive=True, limit=ALL)
    assert hit_lines(result) == grep_lines(workspace, ["-P"], pattern)


def test_matches_never_span_lines(retriever: TextRetriever) -> None:
    hits = retriever.find_regex(r"handle:\s+return", case_sensitive=True, limit=ALL).hits
    assert hits == ()
    for hit in retriever.find_regex(r"\s+", case_sensitive=True, limit=ALL).hits:
        assert hit.span.start_line == hit.span.end_line


def test_regex_hit_columns(retriever: TextRetriever) -> None:
    (hit,) = retriever.find_regex(r"def parse_\w+", case_sensitive=True, limit=ALL).hits
    assert (hit.path, hit.span.start_line, hit.span.start_col, hit.span.end_col) == ("src/config.py", 6, 0, 16)


@pytest.mark.parametrize(
    ("pattern", "position"),
    [("foo(", 3), ("a)b", 1), ("[z-a]", 1), ("x{3,1}", 2), ("(?P<n>a)(?P<n>b)", 12), ("\\", 0)],
)
def test_invalid_regex_names_the_position(retriever: TextRetriever, pattern: str, position: int) -> None:
    with pytest.raises(RetrieverError, match=f"invalid regular expression at position {position}"):
        retriever.find_regex(pattern, case_sensitive=True)


@pytest.mark.parametrize("pattern", [r"(a+)+b", r"(\w+\s*)*$", r"(a|aa)*c", r"(?:x+x+)+y", r"(\d+)*\.", r"(a{1,3})+!"])
def test_exponential_patterns_are_refused(retriever: TextRetriever, pattern: str) -> None:
    with pytest.raises(RetrieverError, match="exponential"):
        retriever.find_regex(pattern, case_sensitive=True)


@pytest.mark.parametrize("pattern", [r"(\.\w+)+", r"(?:foo|bar)+", r"(?>(a+)+)b", r"(?:a++)+b", r"(\w+,)*", r"a+b+c*"])
def test_safe_repetitions_are_accepted(workspace: Path, retriever: TextRetriever, pattern: str) -> None:
    result = retriever.find_regex(pattern, case_sensitive=True, limit=ALL)
    assert hit_lines(result) == python_lines(workspace, pattern, re.MULTILINE)


def test_regex_without_trigram_scans_and_says_so(retriever: TextRetriever) -> None:
    result = retriever.find_regex(r"\d+", case_sensitive=True, limit=ALL)
    assert result.note is not None and "scanned all" in result.note
    assert result.candidates == retriever.document_count


def test_literal_regex_is_narrowed(retriever: TextRetriever) -> None:
    result = retriever.find_regex(r"parse_config\(", case_sensitive=True, limit=ALL)
    assert result.note is None
    assert result.candidates < retriever.document_count


def _random_pattern(rng: random.Random, alphabet: str, depth: int = 0) -> str:
    pieces: list[str] = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.45 or depth > 2:
            pieces.append(re.escape("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))))
        elif roll < 0.55:
            pieces.append(rng.choice([".", r"\w", r"\s", r"\d", "[ab]", "[a-c]", "[^a]", r"\b", "^", "$"]))
        elif roll < 0.75:
            options = [_random_pattern(rng, alphabet, depth + 1) for _ in range(rng.randint(2, 3))]
            pieces.append("(?:" + "|".join(options) + ")")
        else:
            body = (
                re.escape(rng.choice(alphabet))
                if rng.random() < 0.5
                else "(?:" + _random_pattern(rng, alphabet, 3) + ")"
            )
            pieces.append(body + rng.choice(["*", "+", "?", "{2}", "{1,3}", "*?", "++"]))
    return "".join(pieces)


def test_random_patterns_never_lose_a_match(tmp_path: Path) -> None:
    """Property: on random documents, every random pattern finds exactly what Python `re` finds line by line."""
    rng = random.Random(20240531)
    alphabet = "abcAB é_.\n"
    files = {f"f{i}.txt": "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for i in range(25)}
    write_tree(tmp_path, files)
    retriever = build(tmp_path)
    checked = 0
    for _ in range(250):
        pattern = _random_pattern(rng, "abcAB é_.")
        case_sensitive = rng.random() < 0.6
        try:
            result = retriever.find_regex(pattern, case_sensitive=case_sensitive, limit=ALL)
        except RetrieverError as exc:
            assert "exponential" in str(exc)
            continue
        flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
        assert hit_lines(result) == python_lines(tmp_path, pattern, flags), (pattern, case_sensitive)
        checked += 1
    assert checked > 150


def _tri(text: str) -> set[int]:
    return set(string_trigrams(text, ignore_case=True))


def test_extracted_trigrams_follow_alternation_structure() -> None:
    plan = plan_regex(r"(abc|xyz)123", case_sensitive=True)
    assert plan.query.op == "or"
    branches = [set(sub.trigrams) for sub in plan.query.subs]
    assert _tri("abc123") in branches and _tri("xyz123") in branches


def test_pattern_without_literal_has_no_constraint() -> None:
    assert plan_regex(r"\w+\s*=\s*\d+", case_sensitive=True).query.is_all


def test_case_insensitive_ignores_non_ascii_windows() -> None:
    plan = plan_regex("héllo", case_sensitive=False)
    assert set(plan.query.trigrams) == _tri("llo")

"""Bounded exact search: the top `limit` hits are exactly the first `limit` of a full verification (every match of
every file, `limit` = all), whatever the limit, and the totals are honest — exact when nothing was cut short, lower
bounds flagged `truncated` otherwise, the number of matching files exact whenever every candidate was read."""

from __future__ import annotations

import os
import random
import re
import subprocess
from pathlib import Path

import pytest
from text_corpus import ALL, analyze_path, build, grep_lines, hit_lines, python_lines, write_tree

from maguyva_lsp.index import text_match
from maguyva_lsp.index.text_results import TextMatches
from maguyva_lsp.index.text_views import FileView
from maguyva_lsp.model import ChangeBatch, Classification, Intent, PathClass, RankedHits, RetrievalQuery
from maguyva_lsp.retrieve.text import TextRetriever
from maguyva_lsp.scan.classify import classify_path

LIMITS = (1, 2, 3, 5, 8, 13)
WORDS = ("token", "tokens", "Token", "TOKEN", "_token", "tok", "self.", "x", "def", "ſelf.", "token_x", "é")
# Source, test, vendored and archived paths (four path classes), files from one line to many.
PATHS = (
    [f"src/m{i}.py" for i in range(14)]
    + [f"tests/test_m{i}.py" for i in range(6)]
    + [f"vendor/lib{i}.py" for i in range(4)]
    + ["dist/bundle.js", "src/notes.md"]
)


def _corpus(rng: random.Random) -> dict[str, str]:
    """Files with a skewed number of occurrences (some once, some hundreds of times), whole and partial words,
    definition lines, non-ASCII text and characters that fold onto ASCII."""
    files: dict[str, str] = {}
    for path in PATHS:
        lines = []
        for _ in range(rng.choice((1, 3, 10, 40, 150))):
            words = [rng.choice(WORDS) for _ in range(rng.randint(0, 5))]
            lead = rng.choice(("", "def ", "    ", "class ", "x = ", "\t"))
            lines.append(lead + " ".join(words) + rng.choice(("", " = 1", "(self)", ".")))
        files[path] = "\n".join(lines) + rng.choice(("", "\n"))
    return files


def _key(result: TextMatches) -> list[tuple[object, ...]]:
    return [(h.path, h.span, h.snippet, h.symbol, h.kind, h.score, h.detail) for h in result.hits]


def _check(full: TextMatches, bounded: TextMatches, limit: int, label: object) -> None:
    assert full.complete and not full.truncated, label
    assert _key(bounded) == _key(full)[:limit], label
    assert bounded.files_matched == full.files_matched, label  # every candidate is read to its first match
    if bounded.truncated:
        assert bounded.total_matches <= full.total_matches, label
    else:
        assert bounded.total_matches == full.total_matches, label


@pytest.fixture(scope="module")
def random_retriever(tmp_path_factory: pytest.TempPathFactory) -> TextRetriever:
    """The random corpus over several segments (three batches, one file replaced): tombstones and segment order."""
    root = tmp_path_factory.mktemp("bounded")
    rng = random.Random(20261201)
    files = _corpus(rng)
    write_tree(root, files)
    retriever = TextRetriever()
    paths = sorted(files)
    for part in (paths[::3], paths[1::3], paths[2::3]):
        retriever.apply(ChangeBatch(updated=tuple(analyze_path(root, p) for p in part)))
    (root / paths[0]).write_text(files[paths[0]] + "\ntoken token Token self.\n", encoding="utf-8")
    retriever.apply(ChangeBatch(updated=(analyze_path(root, paths[0]),)))
    return retriever


@pytest.mark.parametrize("needle", ["token", "Token", "self.", "tok", "x", "def token", "é", "ſelf", "_token"])
@pytest.mark.parametrize("case_sensitive", [True, False])
def test_bounded_literal_equals_the_top_of_full_verification(
    random_retriever: TextRetriever, needle: str, case_sensitive: bool
) -> None:
    full = random_retriever.find_literal(needle, case_sensitive=case_sensitive, limit=ALL)
    for limit in LIMITS:
        bounded = random_retriever.find_literal(needle, case_sensitive=case_sensitive, limit=limit)
        _check(full, bounded, limit, (needle, case_sensitive, limit))


@pytest.mark.parametrize(("name", "scope"), [("token", ""), ("Token", ""), ("x", ""), ("token", "self"), ("def", "")])
def test_bounded_identifier_equals_the_top_of_full_verification(
    random_retriever: TextRetriever, name: str, scope: str
) -> None:
    full = random_retriever.find_identifier(name, limit=ALL, scope=scope)
    for limit in LIMITS:
        _check(full, random_retriever.find_identifier(name, limit=limit, scope=scope), limit, (name, scope, limit))


@pytest.mark.parametrize(
    "pattern",
    [r"tok\w*", r"^def \w+", r"token\s+x", r"(?:self|ſelf)\.", r"\w+ = 1$", r"é+", r"self\.\w*", r"(?=x)x = 1"],
)
@pytest.mark.parametrize("case_sensitive", [True, False])
def test_bounded_regex_equals_the_top_of_full_verification(
    random_retriever: TextRetriever, pattern: str, case_sensitive: bool
) -> None:
    full = random_retriever.find_regex(pattern, case_sensitive=case_sensitive, limit=ALL)
    for limit in LIMITS:
        bounded = random_retriever.find_regex(pattern, case_sensitive=case_sensitive, limit=limit)
        _check(full, bounded, limit, (pattern, case_sensitive, limit))


def test_a_broad_literal_is_read_only_as_far_as_its_top_needs(random_retriever: TextRetriever) -> None:
    full = random_retriever.find_literal("token", case_sensitive=True, limit=ALL)
    bounded = random_retriever.find_literal("token", case_sensitive=True, limit=3)
    assert bounded.truncated and bounded.total_matches < full.total_matches
    assert bounded.counts.truncated and bounded.counts.files == full.files_matched


def test_totals_equal_grep_when_complete(tmp_path: Path) -> None:
    rng = random.Random(7)
    files = _corpus(rng)
    write_tree(tmp_path, files)
    retriever = build(tmp_path)
    for needle in ("token", "self.", "def tok"):
        result = retriever.find_literal(needle, case_sensitive=True, limit=ALL)
        grep_files = {path for path, _ in grep_lines(tmp_path, ["-F"], needle)}
        expected = sum(len(re.findall(re.escape(needle), text)) for text in files.values())
        assert (result.files_matched, result.total_matches, result.truncated) == (len(grep_files), expected, False)


def test_a_rare_literal_is_exact_and_complete(tmp_path: Path) -> None:
    write_tree(tmp_path, {f"m{i}.py": "x = 1\n" * i for i in range(30)} | {"a.py": "RARE_NAME\n", "b.py": "RARE_NAME"})
    result = build(tmp_path).find_literal("RARE_NAME", case_sensitive=True, limit=20)
    assert (len(result.hits), result.files_matched, result.total_matches, result.truncated) == (2, 2, 2, False)


def _exact(target: str) -> RetrievalQuery:
    return RetrievalQuery(Classification(f'"{target}"', Intent.EXACT_MATCH, 0.9, "quoted", target, literal=True))


def test_search_reports_counts_with_its_hits(random_retriever: TextRetriever) -> None:
    hits = random_retriever.search(_exact("token"), 4)
    assert isinstance(hits, RankedHits) and len(hits) == 4
    full = random_retriever.find_literal("token", case_sensitive=False, limit=ALL)
    assert hits.counts is not None and hits.counts.truncated
    assert hits.counts.files == full.files_matched  # every casing's files, read to a first match
    assert hits.counts.matches <= full.total_matches


def test_search_of_a_literal_without_letters_counts_once(random_retriever: TextRetriever) -> None:
    hits = random_retriever.search(_exact("1\n"), ALL)
    full = random_retriever.find_literal("1\n", case_sensitive=True, limit=ALL)
    assert isinstance(hits, RankedHits) and hits.counts is not None
    assert (hits.counts.files, hits.counts.matches, hits.counts.truncated) == (
        full.files_matched,
        full.total_matches,
        False,
    )


def test_ties_on_the_count_are_broken_by_path_not_by_reading_order(tmp_path: Path) -> None:
    """Files are read smallest first; ten files with one match each, the larger ones first by path: the top three
    are still the first three paths."""
    write_tree(tmp_path, {f"a{i}.py": "pad\n" * (40 - 3 * i) + "needle\n" for i in range(10)})
    retriever = build(tmp_path)
    full = retriever.find_literal("needle", case_sensitive=True, limit=ALL)
    assert [h.path for h in full.hits[:3]] == ["a0.py", "a1.py", "a2.py"]
    _check(full, retriever.find_literal("needle", case_sensitive=True, limit=3), 3, "ties")


def _grep_matches(root: Path, flags: list[str], pattern: str) -> dict[str, list[int]]:
    """Per file, the 0-based line of each match GNU grep prints with -o (one line per match, non-overlapping)."""
    done = subprocess.run(
        ["grep", "-r", "-o", "-n", "-Z", "-a", *flags, "-e", pattern, "."],
        cwd=root,
        capture_output=True,
        env={**os.environ, "LC_ALL": "C.UTF-8"},
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out: dict[str, list[int]] = {}
    for raw in done.stdout.split(b"\n"):
        if raw:
            name, rest = raw.split(b"\0", 1)
            out.setdefault(name.decode().removeprefix("./"), []).append(int(rest.split(b":", 1)[0]) - 1)
    return out


def _grep_top(root: Path, flags: list[str], pattern: str, limit: int, words: bool) -> list[tuple[str, int]]:
    """The top `limit` files and the line each shows first, ranked from grep's output alone by the documented rule
    (text_results.py): path class, a whole-word match (grep -w) before none, fewer matches, path; a file shows its
    first whole-word match, else its first match."""
    every = _grep_matches(root, flags, pattern)
    whole = _grep_matches(root, [*flags, "-w"], pattern) if words else {}
    order = {PathClass.SOURCE: 0, PathClass.TEST: 1, PathClass.BUILD: 2, PathClass.VENDOR: 2, PathClass.ARCHIVE: 3}

    def key(path: str) -> tuple[int, int, int, str]:
        return (order[classify_path(path)], 0 if path in whole or not words else 1, len(every[path]), path)

    ranked = sorted(every, key=key)[:limit]
    return [(path, whole[path][0] if path in whole else every[path][0]) for path in ranked]


@pytest.fixture(scope="module")
def broad_folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, TextRetriever]:
    """A real folder where a token is in most files, from once to hundreds of times, in sources, tests and vendored
    code, as a whole word and inside longer words."""
    root = tmp_path_factory.mktemp("broad")
    rng = random.Random(4242)
    files: dict[str, str] = {}
    for i in range(120):
        folder = rng.choice(("src", "src/pkg", "tests", "vendor"))
        prefix = "test_" if folder == "tests" else ""
        lines = []
        for _ in range(rng.choice((2, 5, 20, 80, 300))):
            word = rng.choice(("token", "tokens", "retoken", "value", "other", "token_x", "tok"))
            lines.append(f"{rng.choice(('', '    ', 'def '))}{word} = {rng.choice(('token', 'x', 'tokenize()'))}")
        files[f"{folder}/{prefix}m{i:03}.py"] = "\n".join(lines) + "\n"
    write_tree(root, files)
    return root, build(root)


@pytest.mark.parametrize("limit", [1, 5, 20])
@pytest.mark.parametrize("needle", ["token", "tokens", "retoken"])
def test_bounded_literal_top_equals_grep(broad_folder: tuple[Path, TextRetriever], needle: str, limit: int) -> None:
    root, retriever = broad_folder
    result = retriever.find_literal(needle, case_sensitive=True, limit=limit)
    expected = _grep_top(root, ["-F"], needle, limit, words=True)
    assert [(h.path, h.span.start_line) for h in result.hits[: len(expected)]] == expected
    assert result.files_matched == len(_grep_matches(root, ["-F"], needle))
    assert result.truncated == (result.total_matches < sum(map(len, _grep_matches(root, ["-F"], needle).values())))


@pytest.mark.parametrize("limit", [1, 5, 20])
def test_bounded_regex_top_equals_grep(broad_folder: tuple[Path, TextRetriever], limit: int) -> None:
    root, retriever = broad_folder
    result = retriever.find_regex(r"tok[a-z]+", case_sensitive=True, limit=limit)
    expected = _grep_top(root, ["-E"], r"tok[a-z]+", limit, words=False)
    assert [(h.path, h.span.start_line) for h in result.hits[: len(expected)]] == expected
    assert result.truncated and result.files_matched == len(_grep_matches(root, ["-E"], r"tok[a-z]+"))


def test_a_rare_literal_in_a_broad_folder_is_every_grep_line(broad_folder: tuple[Path, TextRetriever]) -> None:
    root, retriever = broad_folder
    (root / "src" / "rare.py").write_text("x = 'RARE_MARKER'\n\ny = RARE_MARKER + RARE_MARKER\n", encoding="utf-8")
    retriever.apply(ChangeBatch(updated=(analyze_path(root, "src/rare.py"),)))
    result = retriever.find_literal("RARE_MARKER", case_sensitive=True, limit=20)
    assert hit_lines(result) == grep_lines(root, ["-F"], "RARE_MARKER") == {("src/rare.py", 0), ("src/rare.py", 2)}
    assert (result.total_matches, result.files_matched, result.truncated, result.complete) == (3, 1, False, True)


@pytest.mark.parametrize("pattern", [r"self\.\w*", r"tok\w* = 1", r"(?=x)x = 1", r"def tok"])
@pytest.mark.parametrize("case_sensitive", [True, False])
def test_regex_on_the_lines_holding_its_rarest_trigram_equals_python_line_by_line(
    tmp_path: Path, pattern: str, case_sensitive: bool
) -> None:
    """Only the lines holding the pattern's rarest trigram are matched: the same lines as Python's re on every line,
    in files with characters that fold onto ASCII letters too (`ſelf.` is a case-insensitive match of `self.` that
    does not hold the bytes `sel`)."""
    write_tree(tmp_path, _corpus(random.Random(11)) | {"src/long_s.py": "ſelf.x = 1\nSELF.y\n"})
    result = build(tmp_path).find_regex(pattern, case_sensitive=case_sensitive, limit=ALL)
    expected = python_lines(tmp_path, pattern, 0 if case_sensitive else re.IGNORECASE)
    assert result.complete and hit_lines(result) == expected


def test_a_file_sure_to_enter_the_top_is_listed_once_not_counted_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the top is not full, a matching file enters it and ranking lists its matches anyway: the count is that
    list's length (one read of the file), the same totals and hits; a file holding a character that folds onto an
    ASCII letter is still counted in its folded copy when ignoring case (listing it runs the regex on its text)."""
    files = {f"m{i}.py": "urlsplit(a)\nx = urlsplit(b)  # URLSPLIT(\n" * (i + 1) for i in range(4)}
    files["k.py"] = "\u212a = 1\nurlsplit(k)\n"  # KELVIN SIGN folds onto k
    write_tree(tmp_path, files)
    retriever = build(tmp_path)
    counted: list[tuple[str, bool]] = []
    count = text_match.LiteralMatcher.count

    def spy(self: text_match.LiteralMatcher, view: FileView, cap: int | None, deadline: text_match.Deadline) -> int:
        counted.append((view.path, self.case_sensitive))
        return count(self, view, cap, deadline)

    monkeypatch.setattr(text_match.LiteralMatcher, "count", spy)
    exact = retriever.find_literal("urlsplit(", case_sensitive=True, limit=20)
    assert (exact.files_matched, exact.total_matches, exact.truncated, len(exact.hits)) == (5, 21, False, 20)
    assert counted == []
    loose = retriever.find_literal("urlsplit(", case_sensitive=False, limit=50)
    assert (loose.files_matched, loose.total_matches, loose.truncated, len(loose.hits)) == (5, 31, False, 31)
    assert counted == [("k.py", False)]

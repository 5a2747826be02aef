"""A quoted literal ignoring case, its exact case first (TextRetriever._literal_exact_case_first): the second,
case-insensitive pass is left out when it can add nothing (found by counting each candidate ignoring case, the files
that fold onto ASCII letters only when their folded copy holds the literal's trigrams). Every answer must stay as it
was: the same hits, in the same order, with the same counts."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from text_corpus import build, write_tree

from maguyva_lsp.index import text_match
from maguyva_lsp.index.text_views import FileView, with_folding_holding
from maguyva_lsp.index.trigram import all_of, string_trigrams
from maguyva_lsp.model import Classification, Hit, Intent, MatchCounts, RankedHits, RetrievalQuery, Span
from maguyva_lsp.retrieve import text as text_retriever
from maguyva_lsp.retrieve.text import TextRetriever

# Characters that ignoring case equates with an ASCII letter: KELVIN SIGN (k), LONG S (s), dotted and dotless I (i).
FOLDING = "\u212a\u017f\u0130\u0131"


def _exact(target: str) -> RetrievalQuery:
    return RetrievalQuery(Classification(f'"{target}"', Intent.EXACT_MATCH, 0.9, "quoted", target, literal=True))


_Key = tuple[str, Span, float, str | None, str | None, str, list[tuple[str, object]]]


def _answer(retriever: TextRetriever, needle: str, limit: int) -> tuple[tuple[_Key, ...], MatchCounts]:
    hits = retriever.search(_exact(needle), limit)
    assert isinstance(hits, RankedHits) and hits.counts is not None
    return tuple(_key(h) for h in hits), hits.counts


def _key(hit: Hit) -> _Key:
    return (hit.path, hit.span, hit.score, hit.symbol, hit.kind, hit.snippet, sorted(hit.detail.items()))


def _always_both_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The search as it was: the case-insensitive pass always run."""
    monkeypatch.setattr(text_retriever, "_other_casings_absent", lambda *args: False)


def _random_tree(rng: random.Random) -> dict[str, str]:
    words = ["urlsplit(", "URLSPLIT(", "UrlSplit(", "url\u017fplit(", "aa", "Aa", "aAa", "abab", "ABab", "kin"]
    words += ["\u212ain", "x = 1", "def f():", "    return None", "\u0130stanbul", "ist", "IST"]
    files = {}
    for i in range(12):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 12))]
        files[f"{rng.choice(['src', 'tests'])}/m{i}.py"] = "\n".join(lines) + "\n"
    return files


@pytest.mark.parametrize("seed", range(6))
def test_answers_are_those_of_both_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Random trees mixing casings, self-overlapping needles (`aa`, `abab`) and folding characters: every needle at
    several limits answers exactly as when both passes run over every folding file."""
    rng = random.Random(seed)
    write_tree(tmp_path, _random_tree(rng))
    retriever = build(tmp_path)
    needles = ["urlsplit(", "UrlSplit(", "aa", "Aa", "abab", "kin", "ist", "istanbul", "return None", "nowhere"]
    limits = (1, 3, 20, 200)
    now = {(n, limit): _answer(retriever, n, limit) for n in needles for limit in limits}
    _always_both_passes(monkeypatch)
    before = {(n, limit): _answer(build(tmp_path), n, limit) for n in needles for limit in limits}
    assert now == before


def test_a_literal_only_in_its_exact_case_is_not_read_again_ignoring_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every match is in the typed case and all are shown: the answer is the exact pass's, and no file is read
    ignoring case but to count (once, in its lower-cased copy; a file that folds onto ASCII letters without the
    literal's trigrams not at all)."""
    write_tree(
        tmp_path,
        {"a.py": "urlsplit(x)\nurlsplit(y)\n", "b.py": "y = urlsplit(z)\n", "k.py": f"{FOLDING} = 1\nsplit = 2\n"},
    )
    retriever = build(tmp_path)
    read: list[str] = []
    matches, count = text_match.LiteralMatcher.matches, text_match.LiteralMatcher.count

    def spy_matches(
        self: text_match.LiteralMatcher, view: FileView, deadline: text_match.Deadline
    ) -> Iterator[text_match.Span]:
        if not self.case_sensitive:
            read.append(view.path)
        return matches(self, view, deadline)

    def spy_count(
        self: text_match.LiteralMatcher, view: FileView, cap: int | None, deadline: text_match.Deadline
    ) -> int:
        if not self.case_sensitive:
            read.append(view.path)
        return count(self, view, cap, deadline)

    monkeypatch.setattr(text_match.LiteralMatcher, "matches", spy_matches)
    monkeypatch.setattr(text_match.LiteralMatcher, "count", spy_count)
    hits, counts = _answer(retriever, "urlsplit(", 20)
    assert read == []
    assert [(h[0], h[1].start_line) for h in hits] == [("b.py", 0), ("a.py", 0), ("a.py", 1)]
    assert (counts.matches, counts.files, counts.truncated) == (3, 2, False)


def test_another_casing_or_a_folded_one_still_runs_the_second_pass(tmp_path: Path) -> None:
    """`URLSPLIT(` and `urlſplit(` (LONG S folds onto s) match ignoring case: they are found, after the typed case."""
    write_tree(tmp_path, {"a.py": "urlsplit(x)\n", "b.py": "URLSPLIT(y)\n", "c.py": "url\u017fplit(z)\n"})
    hits, counts = _answer(build(tmp_path), "urlsplit(", 20)
    assert [h[0] for h in hits] == ["a.py", "b.py", "c.py"]
    assert (counts.matches, counts.files) == (3, 3)


def test_folding_files_are_candidates_only_when_their_folded_copy_holds_the_trigrams(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"a.py": "urlsplit(x)\n", "s.py": "url\u017fplit(z)\n", "k.py": "\u212a = 1\n", "i.py": "\u0131 = URL\n"},
    )
    retriever = build(tmp_path)
    index = retriever._state.trigrams
    ids = index.candidates(all_of(string_trigrams("urlsplit(", ignore_case=False)), ignore_case=False)
    assert ids is not None
    grams = all_of(string_trigrams("urlsplit(", ignore_case=True)).trigrams
    kept = with_folding_holding(index, ids, grams)
    paths = {index.docs[int(i)].path for i in kept}
    assert paths == {"a.py", "s.py"}
    assert set(index.with_folding(ids).tolist()) >= set(kept.tolist()) and kept.dtype == np.uint32


@pytest.mark.parametrize(("needle", "overlaps"), [("urlsplit(", False), ("aa", True), ("abab", True), ("Aba", True)])
def test_a_needle_overlaps_itself_when_it_begins_as_it_ends_ignoring_case(needle: str, overlaps: bool) -> None:
    assert text_match.LiteralMatcher(needle, case_sensitive=False).overlaps_itself is overlaps

"""The classification corpus and its gate: every rule that routes confidently (≥ 0.85) is right at least 98 % of the
time on queries from sources we do not write. The gate's sample (benchmarks/intent_fixed.py) reads only what is fixed
for a checkout and interpreter — the stdlib, the pip and setuptools wheels it bundles, IDLE's NEWS, and questions in
the dev set's forms about the names these define — so it is the same on every machine whatever is installed beside
it. The broader corpus (the dev set, git history, Debian's changelogs, site-packages, npm, a JDK) and its report:
benchmarks/bench_intents.py.
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from bench_intents import CONFIDENT_RULE_PRECISION, evaluate
from intent_corpus import changelog_subjects, clean_subject, render_message
from intent_fixed import build_fixed_corpus, bundled_wheels, news_subjects

# Rules that fire fewer times than this in the sample are not judged on it (too few to estimate a precision).
MIN_FIRINGS = 10


@pytest.fixture(scope="module")
def figures() -> dict[str, object]:
    corpus = build_fixed_corpus(13)
    wheel_packages = {"pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth"}
    # Nothing from the machine beyond the interpreter's own tree: no site-packages, changelogs, npm, JDK, dev set.
    assert {item.repo for item in corpus if not item.repo.startswith("stdlib/")} <= wheel_packages
    assert bundled_wheels(), "the interpreter bundles pip and setuptools wheels (ensurepip)"
    return evaluate(corpus)


def test_confident_rules_are_precise_on_the_corpus(figures: dict[str, object]) -> None:
    rules = figures["confident_rules"]
    assert isinstance(rules, dict)
    judged = {rule: row for rule, row in rules.items() if row["right"] + row["wrong"] >= MIN_FIRINGS}
    assert {"pasted_error", "definition_keyword", "references_phrase", "impact_phrase"} <= judged.keys()
    low = {rule: row["precision"] for rule, row in judged.items() if row["precision"] < CONFIDENT_RULE_PRECISION}
    assert low == {}


def test_every_family_and_the_held_out_repositories(figures: dict[str, object]) -> None:
    assert figures["queries"] >= 2000  # type: ignore[operator]
    assert set(figures["per_family"]) == {  # type: ignore[call-overload]
        "find_definition",
        "find_references",
        "impact_analysis",
        "exact_match",
        "understand_code",
        "find_similar",
    }
    for family, row in figures["per_family"].items():  # type: ignore[attr-defined]
        assert row["accuracy"] >= 0.95, family
    assert figures["held_out"]["accuracy"] >= 0.95  # type: ignore[index]


def test_subjects_are_cleaned_as_the_dev_set_cleans_them() -> None:
    assert clean_subject("fix(testclient): exclude query sting from `raw_path` (#2716)") == (
        "exclude query sting from `raw_path`"
    )
    assert clean_subject("Support optional values through a new validator.") == (
        "Support optional values through a new validator"
    )
    assert clean_subject("Merge pull request #12 from a/b") is None
    assert clean_subject("Bump version to 1.2") is None
    assert clean_subject("typo") is None


def test_changelog_shapes() -> None:
    shortlog = (
        "Jeff King (2):\n      send-email: drop FakeTerm hack\n      ci: drop mention of a variable\n\n"
        "Jo (1):\n      add x to y and z\n"
    )
    assert list(changelog_subjects(shortlog)) == [
        "send-email: drop FakeTerm hack",
        "ci: drop mention of a variable",
        "add x to y and z",
    ]
    dashed = "Daniel (20 Feb 2023)\n\n- socketpair: allow EWOULDBLOCK when reading\n\n  Reported-by: someone\n"
    assert list(changelog_subjects(dashed)) == ["socketpair: allow EWOULDBLOCK when reading"]


def test_news_entries() -> None:
    news = (
        "gh-95191: Include prompts when saving Shell (interactive input/output).\n\n"
        "bpo-32989: Add tests for editor newline_and_indent_event method.\nRemove unneeded arguments.\n\n"
        "- Issue #4455: IDLE failed to display the windows list when two windows have\n  the same title.\n\n"
        "- help() was not paging to the shell.  Issue1650.\n"
    )
    assert list(news_subjects(news)) == [
        "Include prompts when saving Shell (interactive input/output)",
        "Add tests for editor newline_and_indent_event method",
        "IDLE failed to display the windows list when two windows have the same title",
        "help() was not paging to the shell",
    ]


def test_messages_are_rendered_as_printed() -> None:
    import ast

    rng = random.Random(1)
    node = ast.parse('f"StaticFiles directory {d!r} does not exist."', mode="eval").body
    text = render_message(node, rng)
    assert text is not None and text.startswith("StaticFiles directory '") and text.endswith("' does not exist.")
    assert render_message(ast.parse('"a %s b" % x', mode="eval").body, rng) not in (None, "a %s b")
    assert render_message(ast.parse("x", mode="eval").body, rng) is None
    assert Counter(render_message(ast.parse('"{} and {}".format(a, b)', mode="eval").body, rng).split())["and"] == 1  # type: ignore[union-attr]

"""The classification corpus and its gate: every rule that routes confidently (≥ 0.85) is right at least 98 % of the
time on queries from sources we do not write (a sample of the corpus: the dev set, this repository's history, the
machine's changelogs, a few hundred stdlib/site-packages files). The full corpus and report:
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
from intent_corpus import build_corpus, changelog_subjects, clean_subject, render_message

# Rules that fire fewer times than this in the sample are not judged on it (too few to estimate a precision).
MIN_FIRINGS = 10


@pytest.fixture(scope="module")
def figures() -> dict[str, object]:
    return evaluate(build_corpus(13, max_python_files=300))


def test_confident_rules_are_precise_on_the_corpus(figures: dict[str, object]) -> None:
    rules = figures["confident_rules"]
    assert isinstance(rules, dict)
    judged = {rule: row for rule, row in rules.items() if row["right"] + row["wrong"] >= MIN_FIRINGS}
    assert {"pasted_error", "definition_keyword", "references_phrase", "impact_phrase"} <= judged.keys()
    low = {rule: row["precision"] for rule, row in judged.items() if row["precision"] < CONFIDENT_RULE_PRECISION}
    assert low == {}


def test_every_family_and_the_held_out_repositories(figures: dict[str, object]) -> None:
    assert figures["queries"] >= 2000  # type: ignore[operator]
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


def test_messages_are_rendered_as_printed() -> None:
    import ast

    rng = random.Random(1)
    node = ast.parse('f"StaticFiles directory {d!r} does not exist."', mode="eval").body
    text = render_message(node, rng)
    assert text is not None and text.startswith("StaticFiles directory '") and text.endswith("' does not exist.")
    assert render_message(ast.parse('"a %s b" % x', mode="eval").body, rng) not in (None, "a %s b")
    assert render_message(ast.parse("x", mode="eval").body, rng) is None
    assert Counter(render_message(ast.parse('"{} and {}".format(a, b)', mode="eval").body, rng).split())["and"] == 1  # type: ignore[union-attr]

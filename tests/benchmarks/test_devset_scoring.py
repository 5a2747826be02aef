"""The dev set's metrics on hand-computed examples (README of the dev set, "Metrics")."""

from __future__ import annotations

import pytest

from benchmarks.devset_alternatives import definition_line
from benchmarks.devset_scoring import (
    Cell,
    QueryScore,
    aggregate,
    confusion,
    file_recall,
    file_rr,
    hits_line,
    intent_accuracy,
    line_recall,
    line_rr,
    lsp_result,
    macro,
    score_query,
)


def _range(a: int, ac: int, b: int, bc: int) -> dict[str, dict[str, int]]:
    return {"start": {"line": a, "character": ac}, "end": {"line": b, "character": bc}}


def test_lsp_ranges_become_one_based_inclusive_lines() -> None:
    assert lsp_result("a.py", _range(9, 4, 9, 12)) == ("a.py", 10, 10)
    assert lsp_result("a.py", _range(9, 0, 20, 5)) == ("a.py", 10, 21)
    # an end at character 0 ends on the line before
    assert lsp_result("a.py", _range(9, 0, 21, 0)) == ("a.py", 10, 21)
    # ... unless that would end before the start (an empty range at a line's start)
    assert lsp_result("a.py", _range(9, 0, 9, 0)) == ("a.py", 10, 10)


def test_a_gold_line_is_hit_inside_the_range_or_within_three_lines_of_its_start() -> None:
    result = ("a.py", 10, 20)
    assert hits_line(result, ("a.py", 15))  # inside
    assert hits_line(result, ("a.py", 20))  # last line
    assert hits_line(result, ("a.py", 7))  # 3 before the first line
    assert not hits_line(result, ("a.py", 6))  # 4 before
    assert not hits_line(result, ("a.py", 21))  # after the end, 11 from the start
    assert hits_line(("a.py", 10, 10), ("a.py", 13))  # a one-line result: ±3
    assert not hits_line(("a.py", 10, 10), ("a.py", 14))
    assert not hits_line(result, ("b.py", 15))  # another file


def test_line_mrr_is_the_first_hit_in_the_top_ten() -> None:
    gold = [("a.py", 50), ("b.py", 5)]
    miss = ("c.py", 1, 1)
    assert line_rr([("a.py", 50, 50)], gold) == 1.0
    assert line_rr([miss, miss, ("b.py", 3, 3)], gold) == pytest.approx(1 / 3)
    assert line_rr([miss] * 9 + [("b.py", 5, 5)], gold) == pytest.approx(0.1)
    assert line_rr([miss] * 10 + [("b.py", 5, 5)], gold) == 0.0  # rank 11 is outside MRR@10
    assert line_rr([], gold) == 0.0


def test_line_recall_is_the_share_of_gold_lines_covered_by_the_top_twenty() -> None:
    gold = [("a.py", 10), ("a.py", 12), ("a.py", 40), ("b.py", 1)]
    # one result covers two gold lines (10 inside, 12 inside); 40 is found at rank 20; b.py:1 only at rank 21
    results = [("a.py", 10, 12)] + [("c.py", 1, 1)] * 18 + [("a.py", 38, 38), ("b.py", 1, 1)]
    assert line_recall(results, gold) == pytest.approx(3 / 4)
    assert line_recall(results, [*gold, ("a.py", 10)]) == pytest.approx(3 / 4)  # a repeated gold line counts once
    assert line_recall([], gold) == 0.0


def test_file_metrics_look_at_the_top_ten_results() -> None:
    gold = ["a.py", "b.py"]
    results = [("c.py", 1, 1), ("a.py", 5, 9)] + [("c.py", 1, 1)] * 8 + [("b.py", 1, 1)]
    assert file_rr(results, gold) == 0.5
    assert file_recall(results, gold) == 0.5  # b.py is the 11th result
    assert file_recall([*results[:2], ("b.py", 3, 3)], gold) == 1.0
    assert file_rr([("c.py", 1, 1)] * 10 + [("a.py", 1, 1)], gold) == 0.0


def test_understand_code_is_scored_at_file_level_only() -> None:
    score = score_query("understand_code", [("x.py", 1, 5), ("a.py", 1, 1)], [{"path": "a.py"}, {"path": "b.py"}])
    assert score == QueryScore(None, None, 0.5, 0.5)
    line = score_query("find_definition", [("a.py", 8, 30)], [{"path": "a.py", "line": 10}])
    assert line == QueryScore(1.0, 1.0, 1.0, 1.0)


def test_family_means_and_macro_averages() -> None:
    scores = [QueryScore(1.0, 1.0, 1.0, 1.0), QueryScore(0.5, 0.0, 1.0, 0.5), QueryScore(0.0, 0.5, 0.0, 0.0)]
    cell = aggregate(scores)
    assert cell.n == 3
    assert cell.lmrr == pytest.approx(0.5) and cell.lr20 == pytest.approx(0.5)
    assert cell.fmrr == pytest.approx(2 / 3) and cell.fr10 == pytest.approx(0.5)
    files_only = aggregate([QueryScore(None, None, 0.25, 1.0)])
    assert files_only.lmrr is None and files_only.fmrr == 0.25
    # macro: unweighted over families (3 questions and 1 question weigh the same); line means skip file-only ones
    both = macro([cell, files_only])
    assert both.n == 4
    assert both.lmrr == pytest.approx(0.5)
    assert both.fmrr == pytest.approx((2 / 3 + 0.25) / 2)
    assert macro([Cell(0, None, None, None, None)]).lmrr is None


def test_intent_accuracy_and_confusion_matrix() -> None:
    pairs = [
        ("exact_match", "exact_match"),
        ("exact_match", "understand_code"),
        ("exact_match", "exact_match"),
        ("find_definition", None),
    ]
    assert intent_accuracy(pairs) == 0.5
    assert intent_accuracy([]) is None
    assert confusion(pairs) == {
        "exact_match": {"exact_match": 2, "understand_code": 1},
        "find_definition": {"none": 1},
    }


@pytest.mark.parametrize(
    ("line", "defines"),
    [
        ("def parse_config(text):", True),
        ("    async def parse_config(self):", True),
        ("class parse_config(Base):", True),
        ("parse_config = make_parser()", True),
        ("    parse_config: Callable[[str], dict] = load", True),
        ("func (c *Command) parse_config(args []string) error {", True),
        ("type parse_config struct {", True),
        ("function parse_config(req, res) {", True),
        ("exports.parse_config = function (x) {", True),
        ("  parse_config: function parse_config(obj) {", True),
        ("const parse_config = (text) => JSON.parse(text)", True),
        ("    return parse_config(handle.read())", False),
        ("if parse_config == other:", False),
        ("from app.config import parse_config", False),
        ("my_parse_config = 3", False),
    ],
)
def test_ripgrep_baseline_puts_definition_looking_lines_first(line: str, defines: bool) -> None:
    assert bool(definition_line("parse_config").search(line)) is defines

"""Evaluation cases (a query, its intended intent, what a right answer points at, how a grep user would search for it)
and the per-query metrics: Hit@1, reciprocal rank and recall in the top 10, zero results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TOP_K = 10
# A definition result is right when the definition's name line lies within this many lines of the result's first
# line (decorators and multi-line signatures come first) and inside the result.
DEFINITION_HEAD_LINES = 5

Unit = Literal["definition", "span", "file"]
Result = tuple[str, int, int]  # (root-relative path, first line, last line), 0-based


@dataclass(frozen=True, slots=True)
class Target:
    """Something a right answer points at: a line (definition), a line range (span) or a whole file."""

    path: str
    first: int = 0
    last: int = 0


@dataclass(frozen=True, slots=True)
class GrepSpec:
    """How someone would put the question to ripgrep: the patterns and flags, and whether files are then ranked by
    their number of matching lines (a bag of words) instead of taken in path order."""

    patterns: tuple[str, ...]
    words: bool = False
    ignore_case: bool = False
    rank_by_count: bool = False


@dataclass(frozen=True, slots=True)
class Case:
    """One query with its ground truth (from an independent tool) and its intended intent."""

    intent: str
    query: str
    unit: Unit
    relevant: tuple[Target, ...]
    grep: GrepSpec
    label: str
    position: tuple[str, int, int] | None = None  # where the symbol is defined (references, impact)


@dataclass(frozen=True, slots=True)
class CaseScore:
    hit1: float
    rr: float
    recall: float
    zero: bool
    file_hit1: float  # the first result is in a right file (equals hit1 for file-level cases)


def matches(unit: Unit, target: Target, result: Result) -> bool:
    """Does one result point at one target?"""
    path, first, last = result
    if path != target.path:
        return False
    if unit == "file":
        return True
    if unit == "definition":
        return first <= target.first <= min(last, first + DEFINITION_HEAD_LINES)
    return first <= target.last and target.first <= last


def top_results(unit: Unit, ranked: list[Result], k: int = TOP_K) -> list[Result]:
    """The first k results; for file-level cases the first k distinct files."""
    if unit != "file":
        return ranked[:k]
    seen: dict[str, Result] = {}
    for result in ranked:
        if result[0] not in seen:
            seen[result[0]] = result
            if len(seen) == k:
                break
    return list(seen.values())


def score_case(case: Case, ranked: list[Result]) -> CaseScore:
    """Hit@1, reciprocal rank of the first right result in the top 10, recall of the targets in the top 10."""
    top = top_results(case.unit, ranked)
    first_right = next(
        (i for i, result in enumerate(top) if any(matches(case.unit, t, result) for t in case.relevant)), None
    )
    found = sum(1 for t in case.relevant if any(matches(case.unit, t, result) for result in top))
    wanted = min(len(case.relevant), TOP_K)
    return CaseScore(
        hit1=1.0 if first_right == 0 else 0.0,
        rr=0.0 if first_right is None else 1.0 / (first_right + 1),
        recall=min(found, wanted) / wanted if wanted else 0.0,
        zero=not ranked,
        file_hit1=1.0 if top and any(t.path == top[0][0] for t in case.relevant) else 0.0,
    )

"""The development set's metrics, exactly as its README defines them (top 20 results), as small pure functions.

A result is (path, first line, last line), 1-based and inclusive like the gold lines; `lsp_result` turns an LSP range
(0-based, an end at character 0 ending the line before) into one. Line level: a result hits a gold line when the line
lies inside the result, or within ±3 lines of its first line; lMRR is MRR@10 of the first hit, lR@20 the share of gold
lines covered by the top 20. File level: a result in a gold file; fMRR is MRR@10, fR@10 the share of gold files in the
top 10. understand_code is scored at file level only. Family figures are means over that family's queries; macro
figures are unweighted means over families.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Result = tuple[str, int, int]  # (repo-relative path, first line, last line), 1-based, inclusive
GoldLine = tuple[str, int]  # (repo-relative path, line), 1-based

LINE_WINDOW = 3  # a gold line within this many lines of a result's first line is a hit
MRR_DEPTH = 10
LINE_RECALL_DEPTH = 20
FILE_RECALL_DEPTH = 10
FILE_ONLY_FAMILIES = frozenset({"understand_code"})
FAMILIES = (
    "find_definition",
    "find_references",
    "impact_analysis",
    "exact_match",
    "understand_code",
    "find_similar",
)


def lsp_result(path: str, lsp_range: Mapping[str, Any]) -> Result:
    """An LSP range (0-based lines; an end at character 0 ends on the line before) as a 1-based inclusive result."""
    start, end = lsp_range["start"], lsp_range["end"]
    first = int(start["line"]) + 1
    last = int(end["line"]) + 1
    if int(end["character"]) == 0 and int(end["line"]) > int(start["line"]):
        last -= 1
    return (path, first, max(first, last))


def hits_line(result: Result, gold: GoldLine) -> bool:
    """The gold line lies inside the result's range, or within ±LINE_WINDOW lines of its first line."""
    path, first, last = result
    if path != gold[0]:
        return False
    line = gold[1]
    return first <= line <= last or abs(line - first) <= LINE_WINDOW


def reciprocal_rank(flags: Iterable[bool], depth: int = MRR_DEPTH) -> float:
    """1 / (1 + index of the first true flag among the first `depth`), 0 when there is none."""
    for index, flag in enumerate(flags):
        if index >= depth:
            break
        if flag:
            return 1.0 / (index + 1)
    return 0.0


def line_rr(results: Sequence[Result], gold: Sequence[GoldLine]) -> float:
    """Reciprocal rank (MRR@10) of the first result hitting any gold line."""
    return reciprocal_rank(any(hits_line(r, g) for g in gold) for r in results)


def line_recall(results: Sequence[Result], gold: Sequence[GoldLine], depth: int = LINE_RECALL_DEPTH) -> float:
    """Share of the (distinct) gold lines hit by at least one of the top `depth` results."""
    wanted = set(gold)
    if not wanted:
        return 0.0
    top = results[:depth]
    return sum(1 for g in wanted if any(hits_line(r, g) for r in top)) / len(wanted)


def file_rr(results: Sequence[Result], gold_files: Iterable[str]) -> float:
    """Reciprocal rank (MRR@10) of the first result in a gold file."""
    files = set(gold_files)
    return reciprocal_rank(r[0] in files for r in results)


def file_recall(results: Sequence[Result], gold_files: Iterable[str], depth: int = FILE_RECALL_DEPTH) -> float:
    """Share of the gold files holding at least one of the top `depth` results."""
    files = set(gold_files)
    if not files:
        return 0.0
    return len(files & {r[0] for r in results[:depth]}) / len(files)


@dataclass(frozen=True, slots=True)
class QueryScore:
    """One system's answer to one question; the line metrics are None for file-level families."""

    lrr: float | None
    lrecall: float | None
    frr: float
    frecall: float

    def to_json(self) -> dict[str, float | None]:
        return {"lrr": _round(self.lrr), "lr20": _round(self.lrecall), "frr": _round(self.frr), "fr10": self.frecall}


def gold_lines(gold: Sequence[Mapping[str, Any]]) -> list[GoldLine]:
    return [(str(g["path"]), int(g["line"])) for g in gold if "line" in g]


def gold_files(gold: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(str(g["path"]) for g in gold))


def score_query(family: str, results: Sequence[Result], gold: Sequence[Mapping[str, Any]]) -> QueryScore:
    """Every metric of one answer, as the README defines them for the question's family."""
    files = gold_files(gold)
    if family in FILE_ONLY_FAMILIES:
        return QueryScore(None, None, file_rr(results, files), file_recall(results, files))
    lines = gold_lines(gold)
    return QueryScore(line_rr(results, lines), line_recall(results, lines), file_rr(results, files),
                      file_recall(results, files))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Cell:
    """Means of the metrics over a group of questions (None where the group has no line-level question)."""

    n: int
    lmrr: float | None
    lr20: float | None
    fmrr: float | None
    fr10: float | None

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "lMRR": _round(self.lmrr), "lR@20": _round(self.lr20), "fMRR": _round(self.fmrr),
                "fR@10": _round(self.fr10)}  # fmt: skip


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def aggregate(scores: Sequence[QueryScore]) -> Cell:
    """Means over the questions (each question counts once)."""
    return Cell(
        n=len(scores),
        lmrr=_mean(s.lrr for s in scores),
        lr20=_mean(s.lrecall for s in scores),
        fmrr=_mean(s.frr for s in scores) if scores else None,
        fr10=_mean(s.frecall for s in scores) if scores else None,
    )


def macro(cells: Iterable[Cell]) -> Cell:
    """Unweighted means over families (a family without line metrics does not enter the line means)."""
    items = [c for c in cells if c.n]
    return Cell(
        n=sum(c.n for c in items),
        lmrr=_mean(c.lmrr for c in items),
        lr20=_mean(c.lr20 for c in items),
        fmrr=_mean(c.fmrr for c in items),
        fr10=_mean(c.fr10 for c in items),
    )


def intent_accuracy(pairs: Iterable[tuple[str, str | None]]) -> float | None:
    """Share of (family, reported intent) pairs where the intent is the family."""
    items = list(pairs)
    if not items:
        return None
    return sum(1 for family, intent in items if intent == family) / len(items)


def confusion(pairs: Iterable[tuple[str, str | None]]) -> dict[str, dict[str, int]]:
    """family → reported intent → count (a missing intent counts as "none")."""
    out: dict[str, Counter[str]] = {}
    for family, intent in pairs:
        out.setdefault(family, Counter())[intent or "none"] += 1
    return {family: dict(counts.most_common()) for family, counts in out.items()}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)

"""Run every system on every case, score it against the ground truth, and aggregate per intent: Hit@1, MRR@10,
Recall@10, zero-result rate and latency; plus Maguyva's intent-classification accuracy and how each query was routed.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.cases import Case, CaseScore, score_case
from benchmarks.systems import MaguyvaSearch, System
from maguyva_lsp.query.intent import classify

WARMUP_QUERIES = 3  # searches run untimed first: lazy loads (query embedder, caches) are not a query's cost


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


@dataclass(frozen=True, slots=True)
class Row:
    """One system on one intent."""

    system: str
    cases: int
    hit1: float
    mrr: float
    recall: float
    zero: float
    p50_ms: float
    p95_ms: float
    file_hit1: float

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "cases": self.cases,
            "hit@1": round(self.hit1, 3),
            "mrr@10": round(self.mrr, 3),
            "recall@10": round(self.recall, 3),
            "zero_rate": round(self.zero, 3),
            "file_hit@1": round(self.file_hit1, 3),
            "p50_ms": round(self.p50_ms, 2),
            "p95_ms": round(self.p95_ms, 2),
        }


@dataclass(slots=True)
class IntentReport:
    intent: str
    unit: str  # how a right answer is judged: definition line, overlapping span, or file
    cases: int
    accuracy: float  # share of its queries the classifier put in this intent
    confusions: dict[str, int]  # what the others were classified as
    direct_share: float  # share of standard-preset searches that took the direct path
    rows: list[Row]
    failures: list[str]  # first few standard-preset misses, for the diagnosis

    def to_json(self) -> dict[str, Any]:
        return {
            "intent": self.intent,
            "unit": self.unit,
            "cases": self.cases,
            "classification_accuracy": round(self.accuracy, 3),
            "misclassified_as": self.confusions,
            "direct_share": round(self.direct_share, 3),
            "rows": [r.to_json() for r in self.rows],
            "standard_misses": self.failures,
        }


def _row(name: str, scores: list[CaseScore], times: list[float]) -> Row:
    n = len(scores)
    return Row(
        system=name,
        cases=n,
        hit1=statistics.fmean(s.hit1 for s in scores) if n else 0.0,
        mrr=statistics.fmean(s.rr for s in scores) if n else 0.0,
        recall=statistics.fmean(s.recall for s in scores) if n else 0.0,
        zero=statistics.fmean(1.0 if s.zero else 0.0 for s in scores) if n else 0.0,
        p50_ms=percentile(times, 0.5) * 1e3,
        p95_ms=percentile(times, 0.95) * 1e3,
        file_hit1=statistics.fmean(s.file_hit1 for s in scores) if n else 0.0,
    )


MISSES_SHOWN = 5


def evaluate_intent(
    intent: str, cases: list[Case], systems: Sequence[System], log: Callable[[str], None] = print
) -> IntentReport:
    """Every applicable system on every case of one intent, timed one call at a time."""
    rows: list[Row] = []
    failures: list[str] = []
    standard: MaguyvaSearch | None = None
    for system in systems:
        applicable = [c for c in cases if system.applies(c)]
        if not applicable:
            continue
        scores: list[CaseScore] = []
        times: list[float] = []
        for case in applicable:
            started = time.perf_counter()
            ranked = system.rank(case)
            times.append(time.perf_counter() - started)
            score = score_case(case, ranked)
            scores.append(score)
            if isinstance(system, MaguyvaSearch) and system.preset == "standard":
                standard = system
                if score.rr == 0.0 and len(failures) < MISSES_SHOWN:
                    top = ", ".join(f"{p}:{a + 1}" for p, a, _ in ranked[:3]) or "nothing"
                    failures.append(f"{case.query[:80]!r} → {top}")
        rows.append(_row(system.name, scores, times))
        log(f"  {intent:<16} {system.name:<32} {len(applicable):>4} cases, MRR@10 {rows[-1].mrr:.3f}")
    intents = Counter(classify(c.query).intent.value for c in cases)
    right = intents.pop(intent, 0)
    strategies = [standard.strategies.get(c.query) for c in cases] if standard else []
    return IntentReport(
        intent=intent,
        unit=cases[0].unit if cases else "file",
        cases=len(cases),
        accuracy=right / len(cases) if cases else 0.0,
        confusions=dict(intents.most_common()),
        direct_share=sum(1 for s in strategies if s == "direct") / len(cases) if cases else 0.0,
        rows=rows,
        failures=failures,
    )


def warm_up(systems: Sequence[System], cases: Sequence[Case]) -> None:
    """A few untimed calls of every system."""
    for system in systems:
        for case in [c for c in cases if system.applies(c)][:WARMUP_QUERIES]:
            system.rank(case)


def overall(reports: Sequence[IntentReport]) -> list[Row]:
    """Case-weighted means over every intent a system was run on (latencies: means of the per-intent figures)."""
    totals: dict[str, list[Row]] = {}
    for report in reports:
        for row in report.rows:
            totals.setdefault(row.system, []).append(row)
    out = []
    for name, rows in totals.items():
        n = sum(r.cases for r in rows)
        out.append(
            Row(
                system=name,
                cases=n,
                hit1=sum(r.hit1 * r.cases for r in rows) / n,
                mrr=sum(r.mrr * r.cases for r in rows) / n,
                recall=sum(r.recall * r.cases for r in rows) / n,
                zero=sum(r.zero * r.cases for r in rows) / n,
                p50_ms=statistics.fmean(r.p50_ms for r in rows),
                p95_ms=statistics.fmean(r.p95_ms for r in rows),
                file_hit1=sum(r.file_hit1 * r.cases for r in rows) / n,
            )
        )
    return out

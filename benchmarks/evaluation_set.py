"""The whole evaluation set of one corpus: every intent's cases from its independent ground truth, deterministic for a
seed, with jedi asked (within a time budget) only for the answers its cache lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.cases import Case
from benchmarks.cases_symbols import (
    definition_cases,
    depth_one_scopes,
    impact_cases,
    reference_cases,
    symbol_candidates,
)
from benchmarks.cases_text import exact_cases, question_cases, similar_cases
from benchmarks.corpus import Corpus
from benchmarks.truth_ctags import Tag, python_tags
from benchmarks.truth_jedi import JediTruth

DEFAULT_SEED = 20250607
QUESTIONS_FILE = Path(__file__).resolve().parent / "data" / "stdlib_questions.json"
INTENT_ORDER = (
    "find_definition",
    "find_references",
    "impact_analysis",
    "exact_match",
    "find_similar",
    "understand_code",
)


@dataclass(frozen=True, slots=True)
class Sizes:
    """Cases per intent. `symbol_candidates` is the jedi sample (some have no references): keep it fixed so that the
    cache answers every run, quick or full."""

    definitions: int = 100
    references: int = 40
    impact: int = 20
    exact: int = 60
    similar: int = 40
    symbol_candidates: int = 64
    edits: int = 30
    server_edits: int = 30  # as many as in process: a p95 over fewer is just the slowest one


FULL = Sizes()
QUICK = Sizes(definitions=30, references=12, impact=8, exact=20, similar=12, edits=8, server_edits=3)


@dataclass(slots=True)
class EvaluationSet:
    cases: list[Case]
    tags: list[Tag]
    notes: dict[str, Any] = field(default_factory=dict)

    def by_intent(self) -> dict[str, list[Case]]:
        out: dict[str, list[Case]] = {intent: [] for intent in INTENT_ORDER}
        for case in self.cases:
            out[case.intent].append(case)
        return {k: v for k, v in out.items() if v}


def build_evaluation_set(
    corpus: Corpus,
    sizes: Sizes,
    *,
    seed: int = DEFAULT_SEED,
    jedi_cache: Path,
    jedi_budget_s: float,
    questions: Path | None = QUESTIONS_FILE,
    log: Callable[[str], None] = print,
) -> EvaluationSet:
    """Sample every intent's cases; jedi answers come from the cache, or from jedi within `jedi_budget_s`."""
    files = list(corpus.files)
    file_set = frozenset(files)
    tags = python_tags(corpus.root, list(corpus.python_files))
    notes: dict[str, Any] = {"seed": seed, "ctags_definitions": len(tags)}
    cases = definition_cases(tags, sizes.definitions, seed)

    truth = JediTruth(jedi_cache, corpus.fingerprint, f"{corpus.source} ({len(files)} files)")
    picks = symbol_candidates(corpus.root, tags, sizes.symbol_candidates, seed)
    python = list(corpus.python_files)
    truth.ask(corpus.root, python, [p.position for p in picks], jedi_budget_s, log)
    scopes = depth_one_scopes(picks, truth, sizes.impact)
    truth.ask(corpus.root, python, scopes, jedi_budget_s - truth.ask_seconds, log)
    references, ref_skips = reference_cases(picks, truth, file_set, sizes.references)
    impact, impact_skips = impact_cases(picks, truth, file_set, sizes.impact)
    cases += references + impact
    notes["jedi"] = {
        "cache": str(jedi_cache),
        "fingerprint": corpus.fingerprint,
        "asked_this_run": truth.asked,
        "seconds_this_run": round(truth.ask_seconds, 1),
        "references_left_out": ref_skips,
        "impact_left_out": impact_skips,
        "missing_after_run": len(truth.missing([p.position for p in picks] + scopes)),
    }

    cases += exact_cases(corpus.root, files, sizes.exact, seed)
    cases += similar_cases(corpus.root, tags, sizes.similar, seed)
    if questions is not None and questions.exists():
        cases += question_cases(questions, file_set)
    return EvaluationSet(cases, tags, notes)

"""Routing: each (intent, confidence, preset) gets one plan — direct, fused or semantic-only — and a failed
single-retriever plan gets the fused fallback over the others."""

from __future__ import annotations

import pytest

from maguyva_lsp.model import Classification, Intent, Modality
from maguyva_lsp.query.profiles import PRESET_SPECS
from maguyva_lsp.query.routing import (
    DIRECT_CONFIDENCE,
    FALLBACK_PRESET,
    IDENTIFIER_INTENTS,
    Plan,
    fallback_plan,
    plan_search,
)


def _classified(
    intent: Intent, confidence: float, target: str = "parse_config", literal: bool = False
) -> Classification:
    return Classification(f"query about {target}", intent, confidence, "rule", target, literal)


@pytest.mark.parametrize(
    ("intent", "confidence", "target", "preset", "plan"),
    [
        # Confident and ordinary: straight to the intent's dominant modality.
        (Intent.FIND_DEFINITION, 0.95, "parse_config", "standard", Plan("direct", ("structural",), 40)),
        (Intent.FIND_REFERENCES, 0.90, "load", "standard", Plan("direct", ("graph",), 40)),
        (Intent.IMPACT_ANALYSIS, 0.90, "Config.parse", "standard", Plan("direct", ("graph",), 40)),
        (Intent.EXACT_MATCH, 0.85, "ECONNREFUSED", "standard", Plan("direct", ("text",), 40)),
        # Below the threshold, or a target that is not one symbol: fused over the three highest weights.
        (Intent.FIND_DEFINITION, 0.80, "parseConfig", "standard", Plan("rrf", ("structural", "semantic", "text"), 40)),
        (Intent.FIND_DEFINITION, 0.95, "two words", "standard", Plan("rrf", ("structural", "semantic", "text"), 40)),
        # A pasted snippet is never direct, however confident.
        (Intent.FIND_SIMILAR, 0.90, "x = f(y)", "standard", Plan("rrf", ("semantic", "text", "structural"), 40)),
        # thorough never takes the direct path and runs every weighted modality at k = 60.
        (Intent.EXACT_MATCH, 0.90, "ECONNREFUSED", "thorough", Plan("rrf", ("text", "structural"), 60)),
        # quick: semantic alone, or the dominant modality where semantic has weight 0.
        (Intent.UNDERSTAND_CODE, 0.75, "how", "quick", Plan("semantic_only", ("semantic",), 40)),
        (Intent.EXACT_MATCH, 0.90, "ECONNREFUSED", "quick", Plan("direct", ("text",), 40)),
    ],
)
def test_plans(intent: Intent, confidence: float, target: str, preset: str, plan: Plan) -> None:
    assert plan_search(_classified(intent, confidence, target), PRESET_SPECS[preset]) == plan  # type: ignore[index]


def test_the_threshold_is_inclusive() -> None:
    at = _classified(Intent.FIND_DEFINITION, DIRECT_CONFIDENCE)
    below = _classified(Intent.FIND_DEFINITION, DIRECT_CONFIDENCE - 0.01)
    assert plan_search(at, PRESET_SPECS["standard"]).strategy == "direct"
    assert plan_search(below, PRESET_SPECS["standard"]).strategy == "rrf"


def test_fallback_drops_the_failed_and_the_unavailable_modalities() -> None:
    classified = _classified(Intent.FIND_DEFINITION, 0.95)
    failed = plan_search(classified, PRESET_SPECS["standard"])
    assert failed.single and failed.modalities == ("structural",)
    skipped: set[Modality] = {"semantic"}
    assert fallback_plan(classified, failed, skipped) == Plan("rrf", ("text",), PRESET_SPECS[FALLBACK_PRESET].rrf_k)
    assert fallback_plan(classified, failed, ()) == Plan("rrf", ("semantic", "text"), 40)


def test_identifier_intents_are_those_whose_target_names_a_symbol() -> None:
    assert {Intent.FIND_DEFINITION, Intent.FIND_REFERENCES, Intent.IMPACT_ANALYSIS} == IDENTIFIER_INTENTS

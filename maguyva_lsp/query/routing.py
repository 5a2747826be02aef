"""Routing (SPEC §5): from a classified query and a preset to a plan — direct, fused, semantic-only — and the fused
fallback when a single-retriever plan finds nothing. The one place that decides which retrievers a search asks.

The tables it reads (weights, presets) live in `query/profiles.py`; the pipeline (`search.py`) only runs plans.
Modalities are ordered by weight, highest first; equal weights keep MODALITIES order (semantic, text, structural,
graph), which is also the documented tie-break when `standard` keeps only three of them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from maguyva_lsp.config import Preset
from maguyva_lsp.model import MODALITIES, Classification, Intent, Modality
from maguyva_lsp.query.intent import has_specific_target
from maguyva_lsp.query.profiles import PRESET_SPECS, STANDARD_MODALITY_COUNT, WEIGHTS, PresetSpec, preset_spec

# At or above this confidence an ordinary query skips fusion and asks only its intent's dominant modality (SPEC §5).
DIRECT_CONFIDENCE = 0.85
# When a single-modality plan cannot run or finds nothing, the fused fallback uses this preset's modalities and k.
FALLBACK_PRESET: Preset = "standard"
# Intents whose target names a symbol: an identifier target is looked up as a name (the symbol table, a whole-word
# text match) rather than as words of a question.
IDENTIFIER_INTENTS: frozenset[Intent] = frozenset(
    {Intent.FIND_DEFINITION, Intent.FIND_REFERENCES, Intent.IMPACT_ANALYSIS}
)

FusionStrategy = Literal["direct", "rrf", "semantic_only"]


@dataclass(frozen=True, slots=True)
class Plan:
    """What a search runs: its strategy, the modalities asked (in weight order) and the RRF k that scores them."""

    strategy: FusionStrategy
    modalities: tuple[Modality, ...]
    rrf_k: int

    @property
    def single(self) -> bool:
        """A single-retriever route (direct or semantic-only): no fusion, and a fused fallback when it finds nothing."""
        return self.strategy != "rrf"


def ranked_modalities(intent: Intent) -> tuple[Modality, ...]:
    """The intent's modalities with a non-zero weight, highest weight first, ties in MODALITIES order."""
    weights = WEIGHTS[intent]
    weighted = [m for m in MODALITIES if weights[m] > 0]
    return tuple(sorted(weighted, key=lambda m: -weights[m]))  # sorted() is stable: ties keep MODALITIES order


def dominant_modality(intent: Intent) -> Modality:
    """The single modality the direct path asks: the intent's highest weight."""
    return ranked_modalities(intent)[0]


def modalities_for(intent: Intent, preset: str) -> tuple[Modality, ...]:
    """The modalities a fused (or quick) search runs; a weight-0 modality never runs.

    quick: semantic alone; where the intent gives semantic no weight (exact_match), its dominant modality instead,
    because a weight of 0 means the embedding model is switched off. standard: the three highest weights.
    thorough: every modality with a non-zero weight.
    """
    spec = preset_spec(preset)
    ranked = ranked_modalities(intent)
    if spec.modality_rule == "semantic_only":
        return ("semantic",) if WEIGHTS[intent]["semantic"] > 0 else ranked[:1]
    if spec.modality_rule == "top_three":
        return ranked[:STANDARD_MODALITY_COUNT]
    return ranked


def is_ordinary(classification: Classification) -> bool:
    """A query fit for the direct path: not a pasted snippet, and with a specific target (a symbol or a literal)."""
    return classification.intent is not Intent.FIND_SIMILAR and has_specific_target(classification)


def plan_search(classification: Classification, spec: PresetSpec) -> Plan:
    """Which strategy and modalities a query gets under a preset (SPEC §5)."""
    intent = classification.intent
    if spec.modality_rule == "semantic_only":
        chosen = modalities_for(intent, spec.name)
        return Plan("semantic_only" if chosen == ("semantic",) else "direct", chosen, spec.rrf_k)
    if spec.allows_direct and classification.confidence >= DIRECT_CONFIDENCE and is_ordinary(classification):
        return Plan("direct", (dominant_modality(intent),), spec.rrf_k)
    return Plan("rrf", modalities_for(intent, spec.name), spec.rrf_k)


def fallback_plan(classification: Classification, failed: Plan, skipped: Collection[Modality]) -> Plan:
    """The fused plan that answers when a single-retriever plan could not: the fallback preset's modalities for the
    intent, less the one that failed and those that cannot run (an honest fused answer from the others beats none)."""
    remaining = tuple(
        m
        for m in modalities_for(classification.intent, FALLBACK_PRESET)
        if m not in skipped and m not in failed.modalities
    )
    return Plan("rrf", remaining, PRESET_SPECS[FALLBACK_PRESET].rrf_k)

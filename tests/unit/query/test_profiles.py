"""The SPEC §4 weight table, the §5 presets, and which modalities each (intent, preset) runs."""

from __future__ import annotations

import math

import pytest

from maguyva_lsp.model import MODALITIES, Intent
from maguyva_lsp.query.profiles import PRESET_SPECS, WEIGHTS, preset_spec
from maguyva_lsp.query.routing import DIRECT_CONFIDENCE, dominant_modality, modalities_for

SPEC_WEIGHTS = {
    Intent.FIND_DEFINITION: (0.2, 0.1, 0.6, 0.1),
    Intent.FIND_REFERENCES: (0.1, 0.2, 0.2, 0.5),
    Intent.UNDERSTAND_CODE: (0.5, 0.2, 0.2, 0.1),
    Intent.FIND_SIMILAR: (0.4, 0.3, 0.2, 0.1),
    Intent.IMPACT_ANALYSIS: (0.1, 0.1, 0.1, 0.7),
    Intent.EXACT_MATCH: (0.0, 0.9, 0.1, 0.0),
}


def test_weights_are_the_spec_table() -> None:
    assert set(WEIGHTS) == set(Intent)
    for intent, row in SPEC_WEIGHTS.items():
        assert tuple(WEIGHTS[intent][m] for m in MODALITIES) == row
        assert math.isclose(sum(row), 1.0)


def test_the_tables_are_read_only() -> None:
    with pytest.raises(TypeError):
        WEIGHTS[Intent.FIND_DEFINITION]["semantic"] = 1.0  # type: ignore[index]


def test_presets_are_the_spec_table() -> None:
    assert DIRECT_CONFIDENCE == 0.85
    assert PRESET_SPECS["standard"].rrf_k == 40
    assert PRESET_SPECS["thorough"].rrf_k == 60
    assert [name for name, spec in PRESET_SPECS.items() if spec.allows_direct] == ["standard"]


@pytest.mark.parametrize(
    ("intent", "dominant"),
    [
        (Intent.FIND_DEFINITION, "structural"),
        (Intent.FIND_REFERENCES, "graph"),
        (Intent.UNDERSTAND_CODE, "semantic"),
        (Intent.FIND_SIMILAR, "semantic"),
        (Intent.IMPACT_ANALYSIS, "graph"),
        (Intent.EXACT_MATCH, "text"),
    ],
)
def test_dominant_modality(intent: Intent, dominant: str) -> None:
    assert dominant_modality(intent) == dominant


@pytest.mark.parametrize(
    ("intent", "standard"),
    [
        # ties break in MODALITIES order: semantic, text, structural, graph
        (Intent.FIND_DEFINITION, ("structural", "semantic", "text")),
        (Intent.FIND_REFERENCES, ("graph", "text", "structural")),
        (Intent.UNDERSTAND_CODE, ("semantic", "text", "structural")),
        (Intent.FIND_SIMILAR, ("semantic", "text", "structural")),
        (Intent.IMPACT_ANALYSIS, ("graph", "semantic", "text")),
        (Intent.EXACT_MATCH, ("text", "structural")),
    ],
)
def test_standard_runs_the_three_highest_non_zero_weights(intent: Intent, standard: tuple[str, ...]) -> None:
    assert modalities_for(intent, "standard") == standard


def test_thorough_runs_every_weighted_modality_and_never_a_zero_weight() -> None:
    assert modalities_for(Intent.FIND_DEFINITION, "thorough") == ("structural", "semantic", "text", "graph")
    assert modalities_for(Intent.EXACT_MATCH, "thorough") == ("text", "structural")
    for intent in Intent:
        for preset in PRESET_SPECS:
            assert all(WEIGHTS[intent][m] > 0 for m in modalities_for(intent, preset))


def test_quick_is_semantic_only_unless_semantic_has_no_weight() -> None:
    for intent in Intent:
        expected = ("text",) if intent is Intent.EXACT_MATCH else ("semantic",)
        assert modalities_for(intent, "quick") == expected


@pytest.mark.parametrize("name", ["fast", "", "Standard", None, 3])
def test_an_unknown_preset_is_a_clear_error(name: object) -> None:
    with pytest.raises(ValueError, match=r"unknown preset .* \(choose one of quick, standard, thorough\)"):
        preset_spec(name)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown preset"):
        modalities_for(Intent.FIND_DEFINITION, name)  # type: ignore[arg-type]

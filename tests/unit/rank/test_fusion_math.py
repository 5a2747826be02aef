"""Weighted RRF, the centrality boost, demotion and per-file dedup, pinned with exact numbers."""

from __future__ import annotations

import math

import pytest

from maguyva_lsp.model import Hit, Intent, PathClass, Span
from maguyva_lsp.query.profiles import WEIGHTS
from maguyva_lsp.rank.fusion import (
    BOOST_CAP,
    DEMOTION_FACTOR,
    ModalityRank,
    centrality_boost,
    default_key,
    demotion,
    fuse,
    rrf_contribution,
)

FIND_DEFINITION = WEIGHTS[Intent.FIND_DEFINITION]


def hit(path: str, line: int, symbol: str | None = None, *, kind: str | None = None, snippet: str = "") -> Hit:
    return Hit(path, Span(line, 0, line, 10), 1.0, symbol, kind, snippet)


def test_rrf_contribution_is_weight_over_k_plus_rank_plus_one() -> None:
    assert rrf_contribution(0.6, 40, 0) == 0.6 / 41
    assert rrf_contribution(0.1, 40, 2) == 0.1 / 43
    assert rrf_contribution(1.0, 60, 0) == 1 / 61


def test_centrality_boost() -> None:
    assert centrality_boost(0.0) == 1.0
    assert centrality_boost(1.0) == 1 + 0.3 * math.log(2)
    assert centrality_boost(2.0) == pytest.approx(1 + 0.3 * math.log(3), abs=0, rel=1e-15)
    assert centrality_boost(1e6) == BOOST_CAP == 1.5
    assert centrality_boost(math.inf) == 1.5
    assert centrality_boost(-3.0) == 1.0
    assert centrality_boost(math.nan) == 1.0


def test_boost_reaches_the_cap_exactly_where_the_formula_says() -> None:
    at_cap = math.expm1(0.5 / 0.3)  # 1 + 0.3 ln(1 + c) = 1.5
    assert centrality_boost(at_cap * 0.99) < 1.5
    assert centrality_boost(at_cap * 1.01) == 1.5


def test_demotion_of_vendor_build_and_archive_paths() -> None:
    assert DEMOTION_FACTOR == 0.5
    for cls in (PathClass.VENDOR, PathClass.BUILD, PathClass.ARCHIVE):
        assert demotion(cls) == 0.5
    for cls in (PathClass.SOURCE, PathClass.TEST):
        assert demotion(cls) == 1.0


def test_agreement_of_two_modalities_sums_their_contributions_times_the_boost() -> None:
    # rank 0 in structural, rank 2 in text, find_definition under standard (k = 40), centrality 1
    structural = [hit("a.py", 10, "parse_config")]
    text = [hit("x.py", 1), hit("y.py", 1), hit("a.py", 10)]
    fused = fuse(
        {"structural": structural, "text": text},
        FIND_DEFINITION,
        40,
        centrality_of=lambda h: 1.0 if h.path == "a.py" else 0.0,
    )
    top = fused[0]
    assert top.hit.path == "a.py"
    assert top.score == (0.6 / 41 + 0.1 / 43) * (1 + 0.3 * math.log(2))
    assert top.modalities == {"structural": ModalityRank(0, 0.6 / 41), "text": ModalityRank(2, 0.1 / 43)}
    assert top.boost == 1 + 0.3 * math.log(2)
    assert top.demotion == 1.0
    assert [r.hit.path for r in fused] == ["a.py", "x.py", "y.py"]
    assert fused[1].score == 0.1 / 41 and fused[2].score == 0.1 / 42


def test_the_boost_cap_holds_inside_fusion() -> None:
    fused = fuse({"structural": [hit("hub.py", 0, "hub")]}, FIND_DEFINITION, 40, centrality_of=lambda h: 1e6)
    assert fused[0].boost == 1.5
    assert fused[0].score == 0.6 / 41 * 1.5


def test_vendor_results_are_demoted_below_an_equal_source_result() -> None:
    lists = {"text": [hit("node_modules/lib/index.js", 3), hit("src/app.js", 3)]}
    fused = fuse(
        lists,
        FIND_DEFINITION,
        40,
        path_class_of=lambda p: PathClass.VENDOR if p.startswith("node_modules/") else PathClass.SOURCE,
    )
    assert [r.hit.path for r in fused] == ["src/app.js", "node_modules/lib/index.js"]
    assert fused[0].score == 0.1 / 42
    assert fused[1].score == 0.1 / 41 * 0.5
    assert (fused[1].demotion, fused[1].path_class) == (0.5, PathClass.VENDOR)


def test_dedup_keeps_the_best_chunk_per_file() -> None:
    # two chunks of a.py: lines 0-9 and 10-19; the text hit on line 12 agrees with structural's chunk at line 10
    def chunk_of(h: Hit) -> str:
        return f"{h.path}#{h.span.start_line // 10}"

    lists = {
        "structural": [hit("a.py", 10, "load"), hit("a.py", 0, "parse"), hit("b.py", 4, "other")],
        "text": [hit("a.py", 12), hit("a.py", 3)],
    }
    fused = fuse(lists, FIND_DEFINITION, 40, key_of=chunk_of)
    assert [(r.hit.path, r.hit.symbol) for r in fused] == [("a.py", "load"), ("b.py", "other")]
    assert fused[0].key == "a.py#1"
    assert fused[0].score == 0.6 / 41 + 0.1 / 41


def test_a_repeated_key_within_one_list_counts_once_at_its_best_rank() -> None:
    fused = fuse({"text": [hit("a.py", 5), hit("a.py", 5), hit("b.py", 1)]}, FIND_DEFINITION, 40)
    assert fused[0].modalities == {"text": ModalityRank(0, 0.1 / 41)}
    assert fused[1].modalities == {"text": ModalityRank(2, 0.1 / 43)}


def test_a_zero_weight_list_adds_nothing() -> None:
    exact = WEIGHTS[Intent.EXACT_MATCH]
    fused = fuse({"semantic": [hit("s.py", 0)], "text": [hit("t.py", 0)]}, exact, 40)
    assert [r.hit.path for r in fused] == ["t.py"]


def test_the_representative_hit_is_the_strongest_modality_with_details_borrowed_from_the_others() -> None:
    structural = [hit("a.py", 10, "parse_config", kind="function")]
    text = [hit("a.py", 10, snippet="def parse_config(path):")]
    exact = WEIGHTS[Intent.EXACT_MATCH]  # text 0.9 beats structural 0.1
    top = fuse({"structural": structural, "text": text}, exact, 40)[0]
    assert top.hit.snippet == "def parse_config(path):"
    assert (top.hit.symbol, top.hit.kind) == ("parse_config", "function")
    assert text[0].symbol is None  # the retriever's own hit is untouched


def test_ties_are_ordered_deterministically() -> None:
    lists = {"semantic": [hit("b.py", 0)], "text": [hit("a.py", 0)]}
    weights = {"semantic": 0.5, "text": 0.5}
    assert [r.hit.path for r in fuse(lists, weights, 40)] == ["a.py", "b.py"]


def test_ties_in_one_file_go_to_the_first_line_then_the_key() -> None:
    weights = {"semantic": 0.5, "text": 0.5}
    # a.py:9 and a.py:2 score the same (ranks 0 + 1 and 1 + 0): the earlier line is the file's result.
    lists = {"semantic": [hit("a.py", 9), hit("a.py", 2)], "text": [hit("a.py", 2), hit("a.py", 9)]}
    assert [(r.hit.path, r.hit.span.start_line) for r in fuse(lists, weights, 40)] == [("a.py", 2)]
    # Same score, path and line: the key decides.
    same = {"semantic": [hit("a.py", 5, "x"), hit("a.py", 5, "y")], "text": [hit("a.py", 5, "y"), hit("a.py", 5, "x")]}
    fused = fuse(same, weights, 40, key_of=lambda h: f"{h.symbol}")
    assert [r.key for r in fused] == ["x"]


def test_default_key_is_path_and_line() -> None:
    assert default_key(hit("a.py", 7)) == "a.py:7"


def test_nothing_in_nothing_out() -> None:
    assert fuse({}, FIND_DEFINITION, 40) == []
    assert fuse({"structural": []}, FIND_DEFINITION, 40) == []


def test_single_route_keeps_the_retrievers_order_and_every_hit() -> None:
    from maguyva_lsp.model import Hit, PathClass, Span
    from maguyva_lsp.rank.fusion import rank_single

    def hit(path: str, line: int) -> Hit:
        return Hit(path, Span(line, 0, line, 5), 1.0, symbol="f")

    hits = [hit("src/a.py", 3), hit("src/a.py", 9), hit("vendor/x.py", 1), hit("src/b.py", 4), hit("src/a.py", 3)]
    ranked = rank_single(
        hits,
        0.6,
        40,
        modality="structural",
        centrality_of=lambda h: 1e6,  # a hub: a fused route would boost it 1.5x, the direct route does not
        path_class_of=lambda p: PathClass.VENDOR if p.startswith("vendor/") else PathClass.SOURCE,
    )
    assert [(r.hit.path, r.hit.span.start_line) for r in ranked] == [
        ("src/a.py", 3),
        ("src/a.py", 9),  # the same file twice: nothing is deduplicated per file on a single route
        ("src/b.py", 4),  # the vendored hit at rank 2 falls below it: 0.6/43 × 0.5 < 0.6/44
        ("vendor/x.py", 1),
    ]
    assert [r.score for r in ranked] == [0.6 / 41, 0.6 / 42, 0.6 / 44, 0.6 / 43 * 0.5]
    assert all(r.boost == 1.0 for r in ranked)
    assert ranked[0].centrality == 1e6  # still shown by explain


def test_single_route_looks_up_the_centrality_of_the_shown_results_only() -> None:
    from maguyva_lsp.model import Hit, PathClass, Span
    from maguyva_lsp.rank.fusion import rank_single

    hits = [Hit(f"src/m{i}.py", Span(i, 0, i, 5), 1.0, symbol="f") for i in range(6)]
    hits.insert(0, Hit("vendor/v.py", Span(0, 0, 0, 5), 1.0, symbol="g"))  # demoted below the rest
    asked: list[str] = []

    def centrality(hit: Hit) -> float:
        asked.append(hit.path)
        return 2.0

    ranked = rank_single(
        hits,
        1.0,
        40,
        modality="text",
        centrality_of=centrality,
        path_class_of=lambda p: PathClass.VENDOR if p.startswith("vendor/") else PathClass.SOURCE,
        limit=3,
    )
    everything = rank_single(hits, 1.0, 40, modality="text", path_class_of=lambda p: PathClass.SOURCE)
    assert asked == ["src/m0.py", "src/m1.py", "src/m2.py"]  # the first three after the demotion, once each
    assert [r.centrality for r in ranked] == [2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0]
    assert len(everything) == len(ranked) == 7

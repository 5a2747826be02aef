"""The exact JSON of a search response: SPEC §8's `maguyva/search` shape, plus rule, skipped modalities and partial."""

from __future__ import annotations

import dataclasses
import json

from maguyva_lsp.model import Classification, Intent, MatchCounts, PathClass, Span
from maguyva_lsp.rank.fusion import ModalityRank
from maguyva_lsp.rank.response import SearchResponse, SearchResult, lsp_range


def response(*, explain: bool) -> SearchResponse:
    result = SearchResult(
        path="src/config.py",
        uri="file:///ws/src/config.py",
        span=Span(11, 4, 11, 15),
        symbol="parseConfig",
        kind="function",
        score=0.0123,
        snippet="def parseConfig(path):",
        modalities={"structural": ModalityRank(0, 0.0146), "text": ModalityRank(2, 0.0023)},
        centrality=1.0,
        boost=1.2079,
        demotion=1.0,
        path_class=PathClass.SOURCE,
    )
    return SearchResponse(
        classification=Classification(
            "parseConfig", Intent.FIND_DEFINITION, 0.75, "identifier", "parseConfig", literal=False
        ),
        fusion_strategy="rrf",
        modalities=("structural", "text"),
        results=(result,),
        elapsed_ms=3.14159,
        preset="standard",
        modalities_skipped={"semantic": "embeddings are still being built"},
        partial=True,
        weights={"structural": 0.6, "semantic": 0.2, "text": 0.1},
        rrf_k=40,
        explain=explain,
    )


def test_the_json_shape() -> None:
    assert response(explain=False).to_json() == {
        "intent": "find_definition",
        "confidence": 0.75,
        "target": "parseConfig",
        "rule": "identifier",
        "fusion_strategy": "rrf",
        "modalities": ["structural", "text"],
        "modalities_skipped": [{"modality": "semantic", "reason": "embeddings are still being built"}],
        "partial": True,
        "notes": [],
        "results": [
            {
                "uri": "file:///ws/src/config.py",
                "range": {"start": {"line": 11, "character": 4}, "end": {"line": 11, "character": 15}},
                "symbol": "parseConfig",
                "kind": "function",
                "score": 0.0123,
                "snippet": "def parseConfig(path):",
                "modalities": {
                    "structural": {"rank": 0, "contribution": 0.0146},
                    "text": {"rank": 2, "contribution": 0.0023},
                },
            }
        ],
        "text_matches": None,
        "elapsed_ms": 3.142,
    }


def test_text_matches_say_how_many_files_hold_more() -> None:
    """Counts of an exact search cut short: lower bounds flagged, and the files no result shows (here 7 of 8: the one
    result found by the text retriever is in one of them)."""
    counted = dataclasses.replace(
        response(explain=False), text_matches=MatchCounts(matches=40, files=8, truncated=True, files_unread=0)
    )
    assert counted.to_json()["text_matches"] == {
        "matches": 40,
        "files": 8,
        "truncated": True,
        "files_not_shown": 7,
        "files_unread": 0,
    }
    merged = MatchCounts(3, 2).plus(MatchCounts(5, 1, truncated=True, files_unread=4))
    assert merged == MatchCounts(8, 3, truncated=True, files_unread=4)


def test_explain_adds_the_scoring_detail() -> None:
    payload = response(explain=True).to_json()
    assert payload["results"][0]["path"] == "src/config.py"
    assert payload["results"][0]["explain"] == {
        "centrality": 1.0,
        "boost": 1.2079,
        "demotion": 1.0,
        "path_class": "source",
    }
    assert payload["explain"] == {
        "query": "parseConfig",
        "literal": False,
        "preset": "standard",
        "weights": {"structural": 0.6, "semantic": 0.2, "text": 0.1},
        "rrf_k": 40,
    }
    without = response(explain=False).to_json()
    assert set(payload) - set(without) == {"explain"}


def test_the_json_serialises() -> None:
    text = json.dumps(response(explain=True).to_json())
    assert json.loads(text)["results"][0]["range"]["end"] == {"line": 11, "character": 15}


def test_lsp_range_is_zero_based_lines_and_characters() -> None:
    assert lsp_range(Span(0, 0, 2, 7)) == {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 7}}


def test_a_result_without_symbol_or_kind_has_nulls() -> None:
    bare = SearchResult("a.txt", "file:///ws/a.txt", Span(1, 0, 1, 3), None, None, 0.5, "abc", {})
    payload = bare.to_json()
    assert (payload["symbol"], payload["kind"], payload["modalities"]) == (None, None, {})

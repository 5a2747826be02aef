"""Golden ranking snapshots: one JSON file per scenario holding the query, its classification and the ranked hits.

`Golden.check(name, response)` compares a response's snapshot with `snapshots/<name>.json`, or rewrites the file when
pytest runs with --update-golden (review the diff before committing). The `golden` fixture (conftest.py) gives one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from maguyva_lsp.rank.response import SearchResponse

SNAPSHOT_DIR = Path(__file__).parent / "snapshots"
# Scores are compared to this many decimals: enough to pin the fusion math, not float noise.
SCORE_DECIMALS = 6


def ranking_snapshot(response: SearchResponse, preset: str) -> dict[str, Any]:
    """What a golden file holds: the query, its classification, the strategy, and each ranked hit's path, symbol,
    score and per-modality ranks."""
    c = response.classification
    return {
        "query": c.query,
        "preset": preset,
        "classification": {
            "intent": c.intent.value,
            "confidence": c.confidence,
            "rule": c.rule,
            "target": c.target,
            "literal": c.literal,
        },
        "fusion_strategy": response.fusion_strategy,
        "modalities": list(response.modalities),
        "modalities_skipped": dict(response.modalities_skipped),
        "results": [
            {
                "path": r.path,
                "line": r.span.start_line,
                "symbol": r.symbol,
                "score": round(r.score, SCORE_DECIMALS),
                "modalities": {m: rank.rank for m, rank in r.modalities.items()},
            }
            for r in response.results
        ],
    }


@dataclass(frozen=True, slots=True)
class Golden:
    """Compares ranking snapshots with their golden files, or rewrites them."""

    update: bool

    def check(self, name: str, response: SearchResponse, preset: str = "standard") -> None:
        actual = ranking_snapshot(response, preset)
        path = SNAPSHOT_DIR / f"{name}.json"
        if self.update:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"no golden file {path}: run `pytest tests/golden --update-golden` to create it")
        expected = json.loads(path.read_text(encoding="utf-8"))
        assert actual == expected, f"ranking differs from {path.name} (rewrite with --update-golden if intended)"

"""Golden rankings of the real engine over a small committed project (tests/golden/project): one per intent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ranking_snapshot import Golden

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine

PROJECT = Path(__file__).parent / "project"

CASES: list[tuple[str, str, str]] = [
    ("engine_definition_phrase", "where is parse_config defined", "standard"),
    ("engine_definition_keyword", "class Cart", "standard"),
    ("engine_identifier_fused", "formatPrice", "standard"),
    ("engine_references", "who calls load_config", "standard"),
    ("engine_impact", "what breaks if I change parse_config", "standard"),
    ("engine_exact_match", '"ECONNREFUSED"', "standard"),
    ("engine_understand", "how are taxes added to the cart total", "standard"),
    ("engine_understand_thorough", "how does checkout retry a refused payment", "thorough"),
    (
        "engine_similar_snippet",
        "net = sum(item.subtotal() for item in self.items)\nreturn net + self.tax(net)",
        "standard",
    ),
    ("engine_quick", "price formatting for the web pages", "quick"),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    index_dir = tmp_path_factory.mktemp("golden-index")
    engine = Engine(PROJECT, Settings(index_dir=str(index_dir)), persist=False)
    engine.index()
    yield engine
    engine.close()


@pytest.mark.parametrize(("name", "query", "preset"), CASES, ids=[c[0] for c in CASES])
def test_engine_ranking(engine: Engine, golden: Golden, name: str, query: str, preset: str) -> None:
    golden.check(name, engine.search(query, preset=preset, limit=8), preset)

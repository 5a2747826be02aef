"""Golden rankings of the real classifier, routing and fusion over fixed ranked lists (one per modality).

The lists stand in for the retrievers so that these snapshots pin the fusion alone; golden cases over a real folder
pin the retrievers too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from ranking_snapshot import Golden

from maguyva_lsp.model import ChangeBatch, Hit, Modality, PathClass, RetrievalQuery, RetrieverStatus, Span
from maguyva_lsp.retrieve.base import Retriever, RetrieverError
from maguyva_lsp.search import SearchPipeline

# One chunk per this many lines, so that hits of different modalities on nearby lines agree.
CHUNK_LINES = 20
CENTRALITY = {"src/config.py": 4.0, "src/core/engine.py": 40.0, "src/util.py": 0.5}


class ListRetriever:
    """A modality that answers every query with the same ranked list, or is unavailable."""

    def __init__(self, name: Modality, ranked: list[tuple[str, int, str | None]], reason: str | None = None) -> None:
        self._name = name
        self._hits = [Hit(path, Span(line, 0, line, 10), 1.0, symbol) for path, line, symbol in ranked]
        self._reason = reason

    @property
    def name(self) -> Modality:
        return self._name

    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        if self._reason is not None:
            raise RetrieverError(self._reason)
        return self._hits[:limit]

    def apply(self, batch: ChangeBatch) -> None:
        raise AssertionError("not used")

    def status(self) -> RetrieverStatus:
        return RetrieverStatus(self._reason is None, self._reason)


class FixedContext:
    indexing = False

    def centrality(self, path: str, symbol: str | None) -> float:
        return CENTRALITY.get(path, 0.0)

    def path_class(self, path: str) -> PathClass:
        if path.startswith(("vendor/", "node_modules/")):
            return PathClass.VENDOR
        if path.startswith(("build/", "dist/")) or path.endswith(".min.js"):
            return PathClass.BUILD
        return PathClass.TEST if path.startswith("tests/") else PathClass.SOURCE

    def chunk_key(self, path: str, line: int) -> str:
        return f"{path}#{line // CHUNK_LINES}"

    def uri(self, path: str) -> str:
        return f"file:///ws/{path}"

    def line_text(self, path: str, line: int) -> str:
        return f"line {line} of {path}"


# What each modality returns for every query of these scenarios.
LISTS: dict[Modality, list[tuple[str, int, str | None]]] = {
    "structural": [
        ("src/config.py", 12, "parse_config"),
        ("vendor/yaml/loader.py", 40, "parse_config"),
        ("tests/test_config.py", 3, "test_parse_config"),
        ("src/config.py", 60, "ConfigError"),
    ],
    "text": [
        ("src/cli.py", 8, None),
        ("src/config.py", 14, None),
        ("tests/test_config.py", 5, None),
        ("dist/bundle.min.js", 1, None),
        ("src/core/engine.py", 30, None),
    ],
    "semantic": [
        ("src/core/engine.py", 25, "Engine.load"),
        ("src/config.py", 90, "load_defaults"),
        ("docs/config.md", 0, None),
        ("src/util.py", 2, "read_text"),
    ],
    "graph": [
        ("src/cli.py", 8, "main"),
        ("src/core/engine.py", 30, "Engine.open"),
        ("tests/test_config.py", 3, "test_parse_config"),
    ],
}


@dataclass(frozen=True)
class Scenario:
    name: str
    query: str
    preset: str = "standard"
    unavailable: dict[Modality, str] = field(default_factory=dict)


SCENARIOS = [
    Scenario("definition_direct", "where is parse_config defined"),
    Scenario("definition_identifier_fused", "parse_config"),
    Scenario("definition_thorough", "def parse_config", preset="thorough"),
    Scenario("references_direct", "who calls parse_config"),
    Scenario(
        "impact_without_graph_falls_back", "what breaks if I change parse_config", unavailable={"graph": "no graph"}
    ),
    Scenario("understand_fused", "how does the config loader work"),
    Scenario("understand_quick", "how does the config loader work", preset="quick"),
    Scenario("exact_match_thorough", '"invalid config"', preset="thorough"),
    Scenario("similar_snippet", "cfg = parse_config(path)\nif cfg.debug:\n    log(cfg)"),
]


@pytest.fixture
def pipelines() -> Iterator[list[SearchPipeline]]:
    made: list[SearchPipeline] = []
    yield made
    for pipeline in made:
        pipeline.close()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_golden_ranking(scenario: Scenario, golden: Golden, pipelines: list[SearchPipeline]) -> None:
    retrievers: dict[Modality, Retriever] = {
        m: ListRetriever(m, ranked, scenario.unavailable.get(m)) for m, ranked in LISTS.items()
    }
    pipeline = SearchPipeline(retrievers, FixedContext())
    pipelines.append(pipeline)
    response = pipeline.search(scenario.query, preset=scenario.preset, limit=10)
    golden.check(f"fusion_{scenario.name}", response, scenario.preset)

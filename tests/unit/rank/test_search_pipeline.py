"""The search pipeline over recording fake retrievers (the issue asks for fakes here, to pin the routing exactly):
direct path conditions, weight-0 modalities never invoked, parallel runs, skipped modalities and fallbacks."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator

import pytest

from maguyva_lsp.model import ChangeBatch, Hit, Modality, PathClass, RetrievalQuery, RetrieverStatus, Span
from maguyva_lsp.retrieve.base import Retriever, RetrieverError
from maguyva_lsp.search import (
    CANDIDATES_PER_RESULT,
    MAX_SEARCH_LIMIT,
    QUESTION_CANDIDATES_PER_RESULT,
    SearchPipeline,
    question_depth,
)


class RecordingRetriever:
    """Returns a fixed ranked list; records every call. Optional hold (an event it waits for), failure, barrier and
    status."""

    def __init__(
        self,
        name: Modality,
        hits: list[Hit] | None = None,
        *,
        hold: threading.Event | None = None,
        error: Exception | None = None,
        status: RetrieverStatus | None = None,
        barrier: threading.Barrier | None = None,
    ) -> None:
        self._name = name
        self.hits = hits if hits is not None else [Hit(f"{name}.py", Span(0, 0, 0, 4), 1.0, f"{name}_hit")]
        self.hold = hold
        self.error = error
        self._status = status or RetrieverStatus(available=True)
        self.barrier = barrier
        self.calls: list[tuple[RetrievalQuery, int, str]] = []
        self.status_calls = 0

    @property
    def name(self) -> Modality:
        return self._name

    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        self.calls.append((query, limit, threading.current_thread().name))
        if self.barrier is not None:
            self.barrier.wait()  # only returns when the other retriever is running at the same time
        if self.hold is not None:
            self.hold.wait(60)  # hangs until the test lets it go
        if self.error is not None:
            raise self.error
        return self.hits[:limit]

    def apply(self, batch: ChangeBatch) -> None:
        raise AssertionError("the pipeline never applies changes")

    def status(self) -> RetrieverStatus:
        self.status_calls += 1
        return self._status


class Context:
    """A workspace context: every path is source unless listed, chunks are (path, line)."""

    def __init__(self, *, indexing: bool = False, centralities: dict[str, float] | None = None) -> None:
        self._indexing = indexing
        self.centralities = centralities or {}
        self.classes: dict[str, PathClass] = {}

    def centrality(self, path: str, symbol: str | None) -> float:
        return self.centralities.get(path, 0.0)

    def path_class(self, path: str) -> PathClass:
        return self.classes.get(path, PathClass.SOURCE)

    def chunk_key(self, path: str, line: int) -> str:
        return f"{path}#{line}"

    def uri(self, path: str) -> str:
        return f"file:///ws/{path}"

    def line_text(self, path: str, line: int) -> str:
        return f"line {line} of {path}"

    @property
    def indexing(self) -> bool:
        return self._indexing


def make(**overrides: RecordingRetriever) -> dict[Modality, RecordingRetriever]:
    retrievers: dict[Modality, RecordingRetriever] = {
        "semantic": RecordingRetriever("semantic"),
        "text": RecordingRetriever("text"),
        "structural": RecordingRetriever("structural"),
        "graph": RecordingRetriever("graph"),
    }
    retrievers.update(overrides)  # type: ignore[arg-type]
    return retrievers


@pytest.fixture
def context() -> Context:
    return Context()


@pytest.fixture
def pipeline_of(context: Context) -> Iterator[type[SearchPipeline]]:
    made: list[SearchPipeline] = []

    class Tracked(SearchPipeline):
        def __init__(self, retrievers: dict[Modality, RecordingRetriever], ctx: Context | None = None) -> None:
            typed: dict[Modality, Retriever] = dict(retrievers)
            super().__init__(typed, ctx or context)
            made.append(self)

    yield Tracked
    for p in made:
        p.close()


def called(retrievers: dict[Modality, RecordingRetriever]) -> list[Modality]:
    return [m for m, r in retrievers.items() if r.calls]


def test_the_fakes_satisfy_the_retriever_protocol() -> None:
    assert isinstance(RecordingRetriever("text"), Retriever)


def test_a_confident_definition_query_takes_the_direct_path(pipeline_of: type[SearchPipeline]) -> None:
    rs = make(structural=RecordingRetriever("structural", [Hit("a.py", Span(3, 4, 3, 15), 9.0, "parseConfig")]))
    response = pipeline_of(rs).search("where is parseConfig defined")
    assert response.fusion_strategy == "direct"
    assert response.modalities == ("structural",)
    assert called(rs) == ["structural"]
    assert response.results[0].score == 0.6 / 41
    query, limit, _ = rs["structural"].calls[0]
    assert (query.target, query.intent.value, limit) == ("parseConfig", "find_definition", 20 * CANDIDATES_PER_RESULT)


@pytest.mark.parametrize(
    ("query", "modality"),
    [
        ("class Engine", "structural"),
        ("who calls parseConfig", "graph"),
        ("impact of changing parse_config", "graph"),
        ('"connection refused"', "text"),
        ("ECONNREFUSED", "text"),
        ("KeyError", "text"),
    ],
)
def test_the_direct_path_asks_only_the_dominant_modality(
    pipeline_of: type[SearchPipeline], query: str, modality: Modality
) -> None:
    rs = make()
    response = pipeline_of(rs).search(query)
    assert (response.fusion_strategy, called(rs)) == ("direct", [modality])


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("parseConfig", "confidence 0.75 is below 0.85"),
        ("how does the indexer work", "confidence 0.75"),
        ("x = foo(bar)", "a pasted snippet is not an ordinary query"),
        ("def foo(x):\n    return x", "a pasted snippet even at 0.90"),
        ("impact of the new caching layer", "0.90 but no specific target"),
    ],
)
def test_queries_that_are_not_confident_and_ordinary_are_fused(
    pipeline_of: type[SearchPipeline], query: str, why: str
) -> None:
    rs = make()
    response = pipeline_of(rs).search(query)
    assert response.fusion_strategy == "rrf", why
    assert len(called(rs)) == 3, why


def test_thorough_never_takes_the_direct_path(pipeline_of: type[SearchPipeline]) -> None:
    rs = make()
    response = pipeline_of(rs).search("where is parseConfig defined", preset="thorough")
    assert response.fusion_strategy == "rrf"
    assert response.modalities == ("structural", "semantic", "text", "graph")
    assert response.rrf_k == 60


def test_quick_is_semantic_only(pipeline_of: type[SearchPipeline]) -> None:
    rs = make()
    response = pipeline_of(rs).search("where is parseConfig defined", preset="quick")
    assert (response.fusion_strategy, response.modalities, called(rs)) == ("semantic_only", ("semantic",), ["semantic"])


def test_quick_on_an_exact_match_asks_text_because_semantic_has_no_weight(pipeline_of: type[SearchPipeline]) -> None:
    rs = make()
    response = pipeline_of(rs).search('"connection refused"', preset="quick")
    assert (response.fusion_strategy, response.modalities, called(rs)) == ("direct", ("text",), ["text"])


@pytest.mark.parametrize("preset", ["quick", "standard", "thorough"])
@pytest.mark.parametrize("query", ['"ECONNREFUSED"', "grep foo", "segfault in the parser"])
def test_zero_weight_modalities_are_never_invoked(pipeline_of: type[SearchPipeline], preset: str, query: str) -> None:
    rs = make()
    response = pipeline_of(rs).search(query, preset=preset)
    assert response.classification.intent.value == "exact_match"
    for modality in ("semantic", "graph"):  # weight 0 for exact_match
        assert rs[modality].calls == [] and rs[modality].status_calls == 0
    assert "semantic" not in response.modalities_skipped


def test_fused_modalities_run_in_parallel(pipeline_of: type[SearchPipeline]) -> None:
    # With a barrier of two, each search returns only if the other is running at the same time: run one after the
    # other, the first would time out at the barrier and its modality be skipped as failed. (No clock is read: how
    # long the search took says nothing on a loaded machine.)
    barrier = threading.Barrier(2, timeout=20)
    rs = make(
        semantic=RecordingRetriever("semantic", barrier=barrier),
        text=RecordingRetriever("text", barrier=barrier),
    )
    response = pipeline_of(rs).search("how does authentication work")
    assert response.modalities_skipped == {}
    assert response.modalities == ("semantic", "text", "structural")
    assert rs["semantic"].calls[0][2] != rs["text"].calls[0][2]


def test_unavailable_and_failing_modalities_are_skipped_with_their_reason(pipeline_of: type[SearchPipeline]) -> None:
    rs = make(
        semantic=RecordingRetriever("semantic", status=RetrieverStatus(False, "embeddings are still being built")),
        text=RecordingRetriever("text", error=RetrieverError("bad regular expression: missing )")),
        graph=RecordingRetriever("graph", error=RuntimeError("boom")),
    )
    response = pipeline_of(rs).search("where is parseConfig defined", preset="thorough")
    assert response.modalities_skipped == {
        "semantic": "embeddings are still being built",
        "text": "bad regular expression: missing )",
        "graph": "failed: RuntimeError: boom",
    }
    assert response.modalities == ("structural",)
    assert rs["semantic"].calls == []
    assert [r.path for r in response.results] == ["structural.py"]


def test_a_missing_retriever_is_skipped(pipeline_of: type[SearchPipeline]) -> None:
    rs = make()
    del rs["graph"]
    response = pipeline_of(rs).search("how does it work", preset="thorough")
    assert response.modalities_skipped == {"graph": "no retriever for this modality"}
    assert response.modalities == ("semantic", "text", "structural")


def test_an_unavailable_direct_modality_falls_back_to_fusion_and_says_so(pipeline_of: type[SearchPipeline]) -> None:
    rs = make(structural=RecordingRetriever("structural", status=RetrieverStatus(False, "not built yet")))
    response = pipeline_of(rs).search("class Engine")
    assert response.fusion_strategy == "rrf"
    assert response.modalities == ("semantic", "text")
    assert response.modalities_skipped == {"structural": "not built yet"}
    assert response.notes == ("structural could not answer; fell back to fused search over semantic, text",)
    assert response.to_json()["notes"] == list(response.notes)


def test_a_failing_direct_modality_falls_back_too(pipeline_of: type[SearchPipeline]) -> None:
    rs = make(graph=RecordingRetriever("graph", error=RetrieverError("graph not built")))
    response = pipeline_of(rs).search("who calls parseConfig")
    assert response.fusion_strategy == "rrf"
    assert response.modalities == ("text", "structural")
    assert response.modalities_skipped == {"graph": "graph not built"}


def test_quick_without_semantic_falls_back(pipeline_of: type[SearchPipeline]) -> None:
    rs = make(semantic=RecordingRetriever("semantic", status=RetrieverStatus(False, "no embedder")))
    response = pipeline_of(rs).search("how does authentication work", preset="quick")
    assert response.fusion_strategy == "rrf"
    assert response.modalities == ("text", "structural")


def test_a_direct_modality_that_finds_nothing_falls_back_to_fusion(pipeline_of: type[SearchPipeline]) -> None:
    rs = make(structural=RecordingRetriever("structural", []))
    response = pipeline_of(rs).search("class Engine")
    assert response.fusion_strategy == "rrf"
    assert response.modalities == ("semantic", "text")  # standard's other modalities for find_definition
    assert response.notes == ("structural found nothing; fell back to fused search over semantic, text",)
    assert response.results


def test_the_results_are_fused_scored_and_cut_to_the_limit(pipeline_of: type[SearchPipeline], context: Context) -> None:
    def h(path: str, line: int, symbol: str | None = None) -> Hit:
        return Hit(path, Span(line, 0, line, 5), 1.0, symbol)

    context.centralities["core.py"] = 1e6
    context.classes["vendor/lib.py"] = PathClass.VENDOR
    rs = make(
        structural=RecordingRetriever("structural", [h("core.py", 1, "parse_config"), h("vendor/lib.py", 4, "p")]),
        semantic=RecordingRetriever("semantic", [h("vendor/lib.py", 4), h("other.py", 9)]),
        text=RecordingRetriever("text", [h("x.py", 0), h("core.py", 1)]),
    )
    response = pipeline_of(rs).search("parse_config", limit=2)
    assert response.fusion_strategy == "rrf"
    assert [(r.path, r.symbol) for r in response.results] == [("core.py", "parse_config"), ("vendor/lib.py", "p")]
    top, second = response.results
    assert top.score == (0.6 / 41 + 0.1 / 42) * 1.5
    assert second.score == (0.6 / 42 + 0.2 / 41) * 0.5
    assert math.isclose(second.demotion, 0.5)
    assert [c[1] for c in rs["structural"].calls] == [2 * CANDIDATES_PER_RESULT]


def test_partial_while_indexing_or_when_a_retriever_says_so(pipeline_of: type[SearchPipeline]) -> None:
    assert pipeline_of(make(), Context(indexing=True)).search("class Engine").partial
    rs = make(structural=RecordingRetriever("structural", status=RetrieverStatus(True, partial=True)))
    assert pipeline_of(rs).search("class Engine").partial
    assert not pipeline_of(make()).search("class Engine").partial


def test_bad_input_is_a_clear_error(pipeline_of: type[SearchPipeline]) -> None:
    pipeline = pipeline_of(make())
    with pytest.raises(ValueError, match="unknown preset 'fast'"):
        pipeline.search("class Engine", preset="fast")
    with pytest.raises(ValueError, match="the query is empty"):
        pipeline.search("   ")
    with pytest.raises(ValueError, match="limit must be a whole number"):
        pipeline.search("class Engine", limit="ten")  # type: ignore[arg-type]


def test_the_limit_is_clamped(pipeline_of: type[SearchPipeline]) -> None:
    rs = make()
    pipeline = pipeline_of(rs)
    pipeline.search("class Engine", limit=0)
    pipeline.search("class Engine", limit=10**9)
    assert [c[1] for c in rs["structural"].calls] == [CANDIDATES_PER_RESULT, MAX_SEARCH_LIMIT * CANDIDATES_PER_RESULT]


def test_a_retriever_that_hangs_is_skipped_after_the_timeout(context: Context) -> None:
    # The timeout is the time the others have to answer (at once, but a loaded machine may not run their threads
    # for a while): long enough for them, while the hanging one waits for an event that comes after the search.
    hang = threading.Event()
    rs: dict[Modality, Retriever] = dict(make(semantic=RecordingRetriever("semantic", hold=hang)))
    with SearchPipeline(rs, context, timeout_s=1.0) as pipeline:
        try:
            response = pipeline.search("how does authentication work")
        finally:
            hang.set()  # before the pipeline closes: closing waits for its threads
    assert response.modalities_skipped == {"semantic": "timed out after 1 s"}
    assert response.modalities == ("text", "structural")


def test_a_closed_pipeline_refuses_to_search(context: Context) -> None:
    pipeline = SearchPipeline(dict(make()), context)
    pipeline.close()
    with pytest.raises(RuntimeError, match="closed"):
        pipeline.search("class Engine")


def test_questions_put_test_hits_after_the_others_in_each_list_before_fusion(
    pipeline_of: type[SearchPipeline], context: Context
) -> None:
    def h(path: str) -> Hit:
        return Hit(path, Span(0, 0, 0, 1), 1.0, "f")

    # The source hit comes 12 test hits down the list: still first after the policy, the tests in their order.
    tests = [f"tests/test_cache_{i}.py" for i in range(12)]
    context.classes.update(dict.fromkeys(tests, PathClass.TEST))
    many = pipeline_of(make(semantic=RecordingRetriever("semantic", [*map(h, tests), h("src/cache.py")])))
    response = many.search("how does the cache expire entries", limit=5)  # 15 candidates asked: all 13 come
    assert [r.path for r in response.results] == ["src/cache.py", *tests[:4]]

    tests_first = [h("tests/test_cache.py"), h("src/cache.py")]
    context.classes["tests/test_cache.py"] = PathClass.TEST
    rs = make(
        semantic=RecordingRetriever("semantic", list(tests_first)),
        text=RecordingRetriever("text", list(tests_first)),
        structural=RecordingRetriever("structural", list(tests_first)),
    )
    response = pipeline_of(rs).search("how does the cache expire entries")
    assert [r.path for r in response.results] == ["src/cache.py", "tests/test_cache.py"]
    assert response.results[0].modalities["semantic"].rank == 0  # the source hit moved up to rank 0
    # Another intent keeps each retriever's order.
    same = pipeline_of(rs).search("find_cached_entry")
    assert same.results[0].path == "tests/test_cache.py"


def test_questions_put_document_hits_after_code_and_before_tests(
    pipeline_of: type[SearchPipeline], context: Context
) -> None:
    def h(path: str) -> Hit:
        return Hit(path, Span(0, 0, 0, 1), 1.0, "f")

    context.classes["tests/test_cache.py"] = PathClass.TEST
    order = ["CHANGES.rst", "tests/test_cache.py", "examples/cache_demo.py", "docs/cache.md", "src/cache.py"]
    order += ["setup.cfg", "LICENSE", "web/x.ts"]
    rs = make(semantic=RecordingRetriever("semantic", [h(p) for p in order]))
    response = pipeline_of(rs).search("how does the cache expire entries", limit=20)
    ranks = {r.path: r.modalities["semantic"].rank for r in response.results if "semantic" in r.modalities}
    assert sorted(ranks, key=ranks.__getitem__) == [
        "src/cache.py", "web/x.ts", "CHANGES.rst", "examples/cache_demo.py", "docs/cache.md", "setup.cfg", "LICENSE",
        "tests/test_cache.py"
    ]  # fmt: skip


def test_questions_ask_deeper_lists_and_keep_their_first_hits(pipeline_of: type[SearchPipeline]) -> None:
    hits = [Hit(f"src/m{i}.py", Span(0, 0, 0, 1), 1.0, "f") for i in range(100)]
    rs = make(semantic=RecordingRetriever("semantic", hits))
    response = pipeline_of(rs).search("how does the cache expire entries", limit=5)
    assert rs["semantic"].calls[0][1] == 5 * QUESTION_CANDIDATES_PER_RESULT
    assert [r.path for r in response.results] == [f"src/m{i}.py" for i in range(5)]
    assert max(r.modalities["semantic"].rank for r in response.results) == 4


def test_question_depth_goes_deeper_only_for_enough_files() -> None:
    def hits(*paths: str) -> list[Hit]:
        return [Hit(p, Span(i, 0, i, 1), 1.0, "f") for i, p in enumerate(paths)]

    spread = [hits("a", "b", "c", "d"), hits("e", "f")]
    assert question_depth(spread, 2) == 2
    crowded = [hits("a", "a", "a", "b", "c"), hits("a", "a", "a", "a")]  # 2 first hits hold 1 file: go to 4
    assert question_depth(crowded, 2) == 4
    assert question_depth([hits("a", "a")], 5) == 5  # shorter lists are kept whole
    assert question_depth([], 5) == 5

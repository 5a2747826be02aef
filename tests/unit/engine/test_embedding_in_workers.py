"""A cold build's embedding done by the pool's workers from the stored segments gives the semantic retriever the very
rows (references, codes, int8 vectors and scales, tags) that embedding the stored analyses on the lane gives, and the
engine answers the same; a failing worker job falls back to embedding in this process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from maguyva_lsp import indexer, indexing
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.graph import build as graph_build
from maguyva_lsp.index.graph_inputs import stored_graph_files
from maguyva_lsp.index.vector_part import FileRows, RowVectors
from maguyva_lsp.indexer import Analyzer
from maguyva_lsp.retrieve import semantic_workers
from maguyva_lsp.retrieve.semantic import SemanticRetriever
from maguyva_lsp.retrieve.semantic_workers import embed_jobs, embed_stored, joined_rows
from tests.unit.engine.test_engine import snapshot, write_tree
from tests.unit.engine.test_segments_in_workers import corpus


@pytest.fixture(autouse=True)
def small_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(indexer, "PARALLEL_MIN_FILES", 10)
    monkeypatch.setattr(indexing, "FIRST_SEGMENT_FILES", 8)
    monkeypatch.setattr(indexing, "WORKER_GRAPH_FILES", 10)
    # several jobs, so that their rows are joined before they are applied
    monkeypatch.setattr(semantic_workers, "EMBED_JOB_FILES", 8)
    monkeypatch.setattr(semantic_workers, "EMBED_TAIL_JOB_FILES", 4)


def _rows(engine: Engine) -> dict[str, Any]:
    """Every file's rows in the vector store: tag, content, references and their vectors."""
    store = engine.semantic.store
    out: dict[str, Any] = {}
    for path in sorted(engine.segments.stored_files()):
        held = list(store.rows_of(path))
        vectors = store.vectors_of([location for location, _ in held]) if held else None
        out[path] = (
            store.path_tag(path),
            [ref for _, ref in held],
            None if vectors is None else vectors.codes.tobytes(),
            None if vectors is None or vectors.quantized is None else vectors.quantized.tobytes(),
            None if vectors is None or vectors.scales is None else vectors.scales.tobytes(),
        )
    return out


def _built(root: Path, index_dir: Path, monkeypatch: pytest.MonkeyPatch, embed_files: int) -> tuple[Any, Any, int]:
    """A cold build in workers (embedding in the pool's workers past `embed_files` files): its answers, its rows,
    and how many texts the workers embedded."""
    monkeypatch.setattr(indexing, "WORKER_EMBED_FILES", embed_files)
    applied: list[int] = []
    original = SemanticRetriever.apply_rows

    def spy(self: Any, files: Any, vectors: Any, embedded: int) -> None:
        applied.append(embedded)
        original(self, files, vectors, embedded)

    monkeypatch.setattr(SemanticRetriever, "apply_rows", spy)
    engine = Engine(root, Settings(index_dir=str(index_dir), workers=2))
    try:
        engine.index()
        engine.wait_for_merges()
        engine.wait_for_embeddings()
        assert not engine._analyzer.pool_running, "the pool is shut down once the workers' embedding is applied"
        return snapshot(engine), _rows(engine), sum(applied)
    finally:
        engine.close()


def test_rows_embedded_in_workers_equal_the_lanes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    write_tree(root, corpus())
    in_workers, rows, embedded = _built(root, tmp_path / "a", monkeypatch, 10)
    assert embedded > 0, "the workers embedded the chunks"
    on_lane, lane_rows, none = _built(root, tmp_path / "b", monkeypatch, 10**9)
    assert none == 0, "the lane embedded them"
    assert rows == lane_rows
    assert any(refs for _, refs, *_ in rows.values())
    assert in_workers == on_lane
    # A warm start finds every file's vectors current: nothing is embedded again.
    warm = Engine(root, Settings(index_dir=str(tmp_path / "a"), workers=2))
    try:
        warm.index()
        warm.wait_for_embeddings()
        assert warm.semantic.embedded_texts == 0
        assert _rows(warm) == rows
    finally:
        warm.close()


def test_a_failed_worker_job_is_embedded_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    write_tree(root, corpus())
    reference, reference_rows, _ = _built(root, tmp_path / "a", monkeypatch, 10**9)
    original = Analyzer.map

    def failing(self: Analyzer, function: Any, jobs: Any) -> Any:
        if function is embed_stored:
            raise RuntimeError("a worker died")
        return original(self, function, jobs)

    monkeypatch.setattr(Analyzer, "map", failing)
    answers, rows, embedded = _built(root, tmp_path / "b", monkeypatch, 10)
    assert embedded == 0
    assert rows == reference_rows
    assert answers == reference


def test_apply_rows_keeps_rows_of_the_same_tag(tmp_path: Path) -> None:
    """Rows for a file already built from the same analysis are not replaced; the others are."""
    root = tmp_path / "ws"
    write_tree(root, corpus())
    engine = Engine(root, Settings(workers=1), persist=False)
    try:
        engine.index()
        semantic = engine.semantic
        store = semantic.store
        paths = sorted(engine.files.paths())[:3]
        held = {p: list(store.rows_of(p)) for p in paths}
        files = [
            FileRows(p, store.path_tag(p) or "", "", [ref for _, ref in held[p]]) if i else FileRows(p, "other", "", [])
            for i, p in enumerate(paths)
        ]
        count = sum(len(f.refs) for f in files)
        vectors = store.vectors_of([loc for p in paths[1:] for loc, _ in held[p]])
        zeros = RowVectors(
            np.zeros_like(vectors.codes[:count]),
            None if vectors.quantized is None else np.zeros_like(vectors.quantized[:count]),
            None if vectors.scales is None else np.zeros_like(vectors.scales[:count]),
        )
        semantic.apply_rows(files, zeros, 0)
        assert list(store.rows_of(paths[0])) == [] and store.path_tag(paths[0]) == "other"
        for p in paths[1:]:  # same tag: the old rows (and vectors) stay
            assert [ref for _, ref in store.rows_of(p)] == [ref for _, ref in held[p]]
            assert np.array_equal(
                store.vectors_of([loc for loc, _ in store.rows_of(p)]).codes,
                store.vectors_of([loc for loc, _ in held[p]]).codes,
            )
    finally:
        engine.close()


def test_jobs_applied_at_once_give_the_rows_job_by_job_gives(tmp_path: Path) -> None:
    """`joined_rows`: the jobs' rows applied as one batch are the rows the jobs applied one by one give."""
    root = tmp_path / "ws"
    write_tree(root, corpus())
    engine = Engine(root, Settings(index_dir=str(tmp_path / "a"), workers=1))
    try:
        engine.index()
        paths = sorted(engine.segments.stored_files())
        stored = stored_graph_files(engine.segments, paths)
        factory = engine.semantic.worker_embedder
        assert stored is not None and factory is not None
        results = [embed_stored(job) for job in embed_jobs(stored, paths, factory)]
        assert len(results) > 2
        one, each = SemanticRetriever(engine.semantic.embedder), SemanticRetriever(engine.semantic.embedder)
        rows = joined_rows(results, engine.semantic.embedder.dimension)
        one.apply_rows(rows.files, rows.vectors, rows.embedded)
        for result in results:
            each.apply_rows(result.files, result.vectors, result.embedded)
        assert one.embedded_texts == each.embedded_texts > 0
        assert one.store.live_count == each.store.live_count == len(rows.vectors) > 0
        for path in paths:
            held = [list(s.store.rows_of(path)) for s in (one, each)]
            assert [ref for _, ref in held[0]] == [ref for _, ref in held[1]]
            assert one.store.path_tag(path) == each.store.path_tag(path)
            if held[0]:
                got = [s.store.vectors_of([loc for loc, _ in h]) for s, h in zip((one, each), held, strict=True)]
                assert got[0].codes.tobytes() == got[1].codes.tobytes()
                assert got[0].quantized is not None and got[1].quantized is not None
                assert got[0].quantized.tobytes() == got[1].quantized.tobytes()
    finally:
        engine.close()


def test_the_merge_and_the_embedding_start_in_a_fresh_pool_as_the_graphs_shares_return(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the graph's shares are back, the pool is shut down (the share workers' heaps are large) and the run's merge
    and the embedding are queued in a fresh one (started while the shares ran: the next test), before this process
    joins the shares and ranks the graph."""
    root = tmp_path / "ws"
    write_tree(root, corpus())
    monkeypatch.setattr(indexing, "WORKER_EMBED_FILES", 10)
    events: list[str] = []
    original_map = Analyzer.map
    original_merge = indexing.IndexWriter.merge_in_background
    original_embed = indexing.IndexWriter._embed_in_workers
    original_advance = Analyzer.advance
    original_join = graph_build.join

    def map_spy(self: Analyzer, function: Any, jobs: Any) -> Any:
        events.append(f"map {function.__name__}")
        try:
            return original_map(self, function, jobs)
        finally:
            events.append(f"mapped {function.__name__}")

    def merge_spy(self: Any, **kwargs: Any) -> Any:
        events.append("merge queued")
        return original_merge(self, **kwargs)

    def embed_spy(self: Any, paths: list[str]) -> bool:
        events.append("embedding queued")
        return original_embed(self, paths)

    def advance_spy(self: Analyzer) -> bool:
        released = original_advance(self)
        if released:
            events.append("pool released")
        return released

    def join_spy(parts: Any) -> Any:
        events.append("graph joined")
        return original_join(parts)

    monkeypatch.setattr(Analyzer, "map", map_spy)
    monkeypatch.setattr(indexing.IndexWriter, "merge_in_background", merge_spy)
    monkeypatch.setattr(indexing.IndexWriter, "_embed_in_workers", embed_spy)
    monkeypatch.setattr(Analyzer, "advance", advance_spy)
    monkeypatch.setattr(graph_build, "join", join_spy)
    engine = Engine(root, Settings(index_dir=str(tmp_path / "idx"), workers=2))
    try:
        engine.index()
        engine.wait_for_merges()
        engine.wait_for_embeddings()
        order = [events.index(e) for e in ("map resolve_share", "mapped resolve_share", "pool released",
                                           "merge queued", "embedding queued", "graph joined")]  # fmt: skip
        assert order == sorted(order), events
        assert engine.status()["counters"]["analyzed"] == len(corpus())
    finally:
        engine.close()


def test_the_merge_and_embedding_run_in_the_pool_started_during_the_graph_shares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follow-up's fresh pool is spawned while the graph's shares run (`Analyzer.start_next`), not after they
    return: the run's merge and the workers' embedding run in it, and the shares' pool is not reused for them."""
    monkeypatch.setattr(indexing, "WORKER_EMBED_FILES", 10)
    served: list[tuple[str, object]] = []  # (job, the pool that ran it)
    started: list[object] = []
    original_map, original_merge, original_start = Analyzer.map, Analyzer.merge, Analyzer.start_next

    def map_spy(self: Analyzer, function: Any, jobs: Any) -> Any:
        result = original_map(self, function, jobs)
        served.append((function.__name__, self._pool))
        return result

    def merge_spy(self: Analyzer, *args: Any, **kwargs: Any) -> Any:
        built = original_merge(self, *args, **kwargs)
        served.append(("merge", self._pool))
        return built

    def start_spy(self: Analyzer) -> None:
        original_start(self)
        started.append(self._next)

    monkeypatch.setattr(Analyzer, "map", map_spy)
    monkeypatch.setattr(Analyzer, "merge", merge_spy)
    monkeypatch.setattr(Analyzer, "start_next", start_spy)
    root = tmp_path / "ws"
    write_tree(root, corpus())
    engine = Engine(root, Settings(index_dir=str(tmp_path / "idx"), workers=2))
    try:
        engine.index()
        engine.wait_for_merges()
        engine.wait_for_embeddings()
        answers = snapshot(engine)
        assert not engine._analyzer.pool_running
    finally:
        engine.close()
    pools = dict(served)
    assert set(pools) == {"resolve_share", "merge", "embed_stored"}
    assert len(started) == 1 and started[0] is not None
    assert pools["merge"] is started[0] and pools["embed_stored"] is started[0]
    assert pools["resolve_share"] is not started[0]
    assert answers == _built(root, tmp_path / "lane", monkeypatch, 10**9)[0]

"""Component costs measured by the single-purpose scripts, called from the one command: the classifier per query
(bench_classifier), graph build and PageRank (bench_graph), Hamming top-k search (bench_semantic), and a definition
lookup in a universal-ctags tags file next to Maguyva's.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.cases import Case
from benchmarks.quality import percentile
from benchmarks.truth_ctags import TagsFile, build_tags_file
from maguyva_lsp.engine import Engine

# The single-purpose scripts import their siblings as top-level modules (`from corpus import ...`).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchmarks import bench_classifier, bench_graph, bench_semantic

CLASSIFIER_ROUNDS = 20
HAMMING_SIZES_FULL = (100_000, 1_000_000)
HAMMING_SIZES_QUICK = (100_000,)
HAMMING_BITS = (256, 1024)  # the local model's width, and Voyage's default
LOOKUP_REPEATS = 5  # each tags-file lookup is timed this many times; its median is its cost


def classifier_cost(queries: Sequence[str], rounds: int = CLASSIFIER_ROUNDS) -> dict[str, Any]:
    """bench_classifier's measurement over the evaluation's own queries."""
    return bench_classifier.measure(list(dict.fromkeys(queries)), rounds)


def graph_costs(engine: Engine, files: Sequence[str], rebuild: bool) -> dict[str, Any]:
    """PageRank on the engine's own graph (ours and networkx's, bench_graph.time_pagerank); with `rebuild`, also a
    fresh build of the whole graph from the engine's analyses in one batch (bench_graph.build: CPU time, RSS)."""
    figures: dict[str, Any] = {"stats": engine.graph.stats()}
    figures["pagerank"] = {k: round(float(v), 4) for k, v in bench_graph.time_pagerank(engine.graph.graph).items()}
    if rebuild:
        analyses = [a for p in files if (a := engine.analysis(p)) is not None]
        graph, build = bench_graph.build(analyses, use_tracemalloc=False)
        figures["build"] = {k: round(v, 2) for k, v in build.items()}
        del graph, analyses
        gc.collect()
    return figures


def hamming_costs(quick: bool) -> list[dict[str, Any]]:
    """bench_semantic's top-50 Hamming search over random codes (numpy, and faiss when installed)."""
    sizes = HAMMING_SIZES_QUICK if quick else HAMMING_SIZES_FULL
    rows = bench_semantic.search_speed(sizes, HAMMING_BITS)
    return [{k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()} for row in rows]


def definition_lookup(
    engine: Engine, root: Path, files: Sequence[str], cases: Sequence[Case], tags_path: Path
) -> dict[str, Any]:
    """A universal-ctags tags file (built once, loaded once, binary search per name) next to Maguyva's definition
    search and its symbol table (workspace/symbol), on the names of the definition cases."""
    python = [p for p in files if p.endswith(".py")]
    build_s = build_tags_file(root, python, tags_path)
    started = time.perf_counter()
    tags = TagsFile(tags_path)
    load_s = time.perf_counter() - started
    names = [c.label.rsplit(".", 1)[-1] for c in cases]
    tag_times: list[float] = []
    found = 0
    for name in names:
        samples = []
        for _ in range(LOOKUP_REPEATS):
            began = time.perf_counter()
            hits = tags.lookup(name)
            samples.append(time.perf_counter() - began)
        found += bool(hits)
        tag_times.append(sorted(samples)[LOOKUP_REPEATS // 2])
    symbol_times: list[float] = []
    for case in cases:
        began = time.perf_counter()
        engine.workspace_symbols(case.label, 20)
        symbol_times.append(time.perf_counter() - began)
    return {
        "tags": len(tags),
        "tags_file_build_s": round(build_s, 2),
        "tags_file_load_s": round(load_s, 3),
        "names": len(names),
        "names_found": found,
        "ctags_lookup_p50_us": round(percentile(tag_times, 0.5) * 1e6, 2),
        "ctags_lookup_p95_us": round(percentile(tag_times, 0.95) * 1e6, 2),
        "workspace_symbols_p50_ms": round(percentile(symbol_times, 0.5) * 1e3, 3),
        "workspace_symbols_p95_ms": round(percentile(symbol_times, 0.95) * 1e3, 3),
    }

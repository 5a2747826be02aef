"""Benchmark the code graph on a source tree (the CPython stdlib by default) and check its references against jedi.

    .venv/bin/python benchmarks/bench_graph.py [--root DIR] [--quality] [--sample N] [--refresh-truth]

Figures: analysis and graph build time (CPU seconds, one core), the graph's memory (RSS growth while building, and
tracemalloc with --tracemalloc), PageRank time (our power iteration on the maintained sparse matrix, and networkx's
pagerank on the same graph for comparison), single-file incremental updates.

--quality: for a seeded sample of functions and methods (outside test folders; dunder methods excluded, the language
calls them), the recall and precision of `references` against jedi's `get_references(scope="project")` with
`jedi.Project(root)`, and of `impact` depth 1 against the definitions enclosing jedi's references. jedi caps a project
search at 30 parsed files; the cap is lifted here so that its answer is complete. jedi's answers are cached in
benchmarks/data/graph_jedi_truth.json (seconds to minutes per function; --refresh-truth asks again); jedi failures
and timeouts are reported and skipped.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import signal
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import networkx as nx
import psutil
from corpus import stdlib_python_files, stdlib_root

from maguyva_lsp.graph import queries
from maguyva_lsp.graph.build import CodeGraph
from maguyva_lsp.graph.centrality import DAMPING, compute_centrality, live_uses, pagerank
from maguyva_lsp.graph.model import GUESS_WEIGHT, RESOLVED_WEIGHT, symbol_id
from maguyva_lsp.graph.modules import python_components
from maguyva_lsp.model import ChangeBatch, FileAnalysis, PathClass, SourceFile
from maguyva_lsp.parse.analyze import analyze_file

SEED = 20240531
SAMPLE_SIZE = 50
JEDI_TIMEOUT_SECONDS = 300
JEDI_CHECK_TIMEOUT_SECONDS = 60
TRUTH_PATH = Path(__file__).parent / "data" / "graph_jedi_truth.json"
TEST_FOLDER_MARKERS = ("test", "tests", "idle_test")
PAGERANK_REPEATS = 5
INCREMENTAL_FILES = 20
# Edge weights the quality check reports at: only sure uses; also unique guesses and two-way splits of sure ones
# (impact's default); also two-way guesses and splits up to four ways; everything (up to MAX_CANDIDATES ways).
THRESHOLDS = {">=1 (sure)": RESOLVED_WEIGHT, ">=0.5": GUESS_WEIGHT, ">=0.25": GUESS_WEIGHT / 2, "all": 0.0}

Location = tuple[str, int, int]
Scope = tuple[str, int]  # (path, 0-based line of the enclosing definition's name; -1 for module level)


def analyze(root: Path, files: list[Path]) -> tuple[list[FileAnalysis], float]:
    analyses: list[FileAnalysis] = []
    start = time.process_time()
    for path in files:
        data = path.read_bytes()
        rel = path.relative_to(root).as_posix()
        analyses.append(analyze_file(SourceFile(rel, str(path), "python", PathClass.SOURCE, len(data), 0), data))
    return analyses, time.process_time() - start


def build(analyses: list[FileAnalysis], use_tracemalloc: bool) -> tuple[CodeGraph, dict[str, float]]:
    gc.collect()
    rss_before = psutil.Process().memory_info().rss
    if use_tracemalloc:
        tracemalloc.start()
    start = time.process_time()
    graph = CodeGraph()
    graph.apply(ChangeBatch(updated=tuple(analyses)))
    seconds = time.process_time() - start
    figures = {"build_cpu_s": seconds, "rss_growth_mb": (psutil.Process().memory_info().rss - rss_before) / 1e6}
    if use_tracemalloc:
        figures["tracemalloc_mb"] = tracemalloc.get_traced_memory()[0] / 1e6
        tracemalloc.stop()
    return graph, figures


def time_pagerank(graph: CodeGraph) -> dict[str, float]:
    """Our PageRank of the snapshot (matrix assembly from the use columns included, and the power iteration alone)
    against networkx's on the same weighted graph."""
    import numpy as np
    import scipy.sparse as sp

    state = graph.state
    start = time.perf_counter()
    compute_centrality(state)
    snapshot_s = time.perf_counter() - start
    uses = live_uses(state)
    size = state.slot_count
    voting = uses.voting
    matrix = sp.csr_array((uses.weight[voting], (uses.source[voting], uses.target[voting])), shape=(size, size))
    matrix.sum_duplicates()
    live = state.live_nodes()
    iteration = []
    for _ in range(PAGERANK_REPEATS):
        start = time.perf_counter()
        ours = pagerank(matrix, live)
        iteration.append(time.perf_counter() - start)
    reference_graph = nx.DiGraph()
    slots = np.flatnonzero(live).tolist()
    reference_graph.add_nodes_from(slots)
    rows, cols = matrix.nonzero()
    reference_graph.add_weighted_edges_from(zip(rows.tolist(), cols.tolist(), matrix.data.tolist(), strict=True))
    start = time.perf_counter()
    reference = nx.pagerank(reference_graph, alpha=DAMPING, weight="weight")
    networkx_s = time.perf_counter() - start
    worst = max(abs(reference[n] - float(ours[n])) for n in reference) if reference else 0.0
    return {
        "snapshot_s": snapshot_s,
        "power_iteration_s": min(iteration),
        "networkx_pagerank_s": networkx_s,
        "max_abs_diff_vs_networkx": worst,
        "mean_normalised": float(np.mean(graph.scores.values[live])) if slots else 0.0,
    }


def time_incremental(graph: CodeGraph, analyses: list[FileAnalysis]) -> dict[str, float]:
    """Re-apply single files unchanged, then remove and restore them: the per-batch cost of editing one file."""
    rng = random.Random(SEED)
    picked = rng.sample(analyses, INCREMENTAL_FILES)
    start = time.perf_counter()
    for analysis in picked:
        graph.apply(ChangeBatch(updated=(analysis,)))
    same = (time.perf_counter() - start) / len(picked)
    start = time.perf_counter()
    for analysis in picked:
        graph.apply(ChangeBatch(removed=(analysis.path,)))
        graph.apply(ChangeBatch(updated=(analysis,)))
    remove_restore = (time.perf_counter() - start) / (2 * len(picked))
    return {"update_one_file_s": same, "remove_or_restore_one_file_s": remove_restore}


# ---- quality against jedi -------------------------------------------------------------------------------------------
def draw_sample(graph: CodeGraph, size: int) -> list[dict[str, Any]]:
    """A seeded sample of functions and methods outside test folders (dunder methods excluded)."""
    candidates = []
    for node in (n for node_id in graph.node_ids() if (n := graph.state.node(node_id)) is not None):
        if node.kind not in ("function", "method"):
            continue
        if node.name.startswith("__") and node.name.endswith("__"):
            continue  # dunder methods are called by the language itself; jedi searches every file for `__init__`
        if any(part.startswith(TEST_FOLDER_MARKERS) for part in node.path.split("/")):
            continue
        candidates.append(node)
    candidates.sort(key=lambda n: n.node_id)
    picked = random.Random(SEED).sample(candidates, size)
    return [
        {
            "path": n.path,
            "qualified_name": n.qualified_name,
            "line": n.name_span.start_line,
            "column": n.name_span.start_col,
        }
        for n in picked
    ]


class _JediTimeoutError(BaseException):  # jedi catches Exception in places; a timeout must get through
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _JediTimeoutError


def ask_jedi(root: Path, sample: list[dict[str, Any]], truth: dict[str, Any]) -> None:
    """Fill `truth` with jedi's references for every sampled function it lacks (saved after each answer)."""
    import jedi
    import jedi.inference.references as jedi_references
    import parso.cache

    jedi_references._PARSED_FILE_LIMIT = 1_000_000  # a complete answer, not the first 30 files mentioning the name
    jedi_references._OPENED_FILE_LIMIT = 1_000_000
    # parso evicts parsed files past 600 while jedi still holds their nodes (KeyError deep in jedi): keep them all.
    parso.cache._CACHED_SIZE_TRIGGER = 1_000_000_000
    project = jedi.Project(str(root))
    signal.signal(signal.SIGALRM, _alarm)
    for item in sample:
        key = f"{item['path']}::{item['qualified_name']}"
        if key in truth["answers"]:
            continue  # answered, or jedi failed (--refresh-truth asks again)
        start = time.perf_counter()
        answer: dict[str, Any] = {}
        signal.alarm(JEDI_TIMEOUT_SECONDS)
        try:
            script = jedi.Script(path=str(root / item["path"]), project=project)
            names = script.get_references(item["line"] + 1, item["column"], scope="project", include_builtins=False)
            refs, scopes = [], []
            for name in names:
                if name.module_path is None:
                    continue
                path = Path(name.module_path)
                if not path.is_relative_to(root):
                    continue
                rel = path.relative_to(root).as_posix()
                location = [rel, name.line - 1, name.column]
                if (rel, name.line - 1, name.column) == (item["path"], item["line"], item["column"]):
                    continue
                parent = name.parent()
                scope = -1 if parent is None or parent.type == "module" else parent.line - 1
                refs.append(location)
                scopes.append([rel, scope])
            answer = {"refs": refs, "scopes": scopes}
        except _JediTimeoutError:
            answer = {"error": f"timeout after {JEDI_TIMEOUT_SECONDS}s"}
        except Exception as exc:  # jedi's own failures (recursion, cache misses): reported, sample skipped
            answer = {"error": f"{type(exc).__name__}: {exc}"[:200]}
        finally:
            signal.alarm(0)
        answer["seconds"] = round(time.perf_counter() - start, 1)
        truth["answers"][key] = answer
        print(f"  jedi {key}: {len(answer.get('refs', []))} refs, {answer['seconds']}s {answer.get('error', '')}")
        TRUTH_PATH.write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _in_corpus(path: str, graph: CodeGraph) -> bool:
    return graph.state.has_file(path)


def quality(graph: CodeGraph, root: Path, size: int, refresh: bool) -> dict[str, Any]:
    truth: dict[str, Any] = {"answers": {}}
    if TRUTH_PATH.exists() and not refresh:
        truth = json.loads(TRUTH_PATH.read_text(encoding="utf-8"))
    sample = draw_sample(graph, size)
    if truth.get("sample") != sample:  # answers are kept by function: a redrawn sample reuses those it shares
        keys = {f"{s['path']}::{s['qualified_name']}" for s in sample}
        truth = {
            "seed": SEED,
            "sample": sample,
            "answers": {k: v for k, v in truth.get("answers", {}).items() if k in keys},
        }
    ask_jedi(root, truth["sample"], truth)
    extras = _extras(graph, truth)
    check_extras(root, graph, extras, truth)
    counts = {
        name: {"tp": 0, "fp": 0, "fn": 0, "itp": 0, "ifp": 0, "ifn": 0, "agree": 0, "deny": 0} for name in THRESHOLDS
    }
    used = failed = missing = 0
    misses: list[str] = []
    for item in truth["sample"]:
        key = f"{item['path']}::{item['qualified_name']}"
        answer = truth["answers"].get(key, {})
        node_id = symbol_id(item["path"], item["qualified_name"])
        if "error" in answer:
            failed += 1
            continue
        if not graph.state.has_node(node_id):
            missing += 1
            continue
        used += 1
        expected = {tuple(r) for r in answer["refs"] if _in_corpus(r[0], graph)}
        expected_scopes = {tuple(s) for s in answer["scopes"] if _in_corpus(s[0], graph)}
        for name, threshold in THRESHOLDS.items():
            uses = queries.references(graph.state, [node_id], min_weight=threshold)
            found = {(u.path, u.site.span.start_line, u.site.span.start_col) for u in uses}
            c = counts[name]
            c["tp"] += len(found & expected)
            c["fp"] += len(found - expected)
            c["fn"] += len(expected - found)
            verdicts = [truth["site_checks"].get(_site_key(key, site)) for site in found - expected]
            c["agree"] += verdicts.count("agrees")
            c["deny"] += verdicts.count("disagrees")
            impacted = queries.impact(graph.state, graph.scores, [node_id], max_depth=1, min_weight=threshold)
            scopes = set()
            for i in impacted:
                node = graph.state.node(i.node_id)
                assert node is not None
                scopes.add((node.path, -1 if node.is_module else node.name_span.start_line))
            c["itp"] += len(scopes & expected_scopes)
            c["ifp"] += len(scopes - expected_scopes)
            c["ifn"] += len(expected_scopes - scopes)
            if name == ">=0.5":
                misses.extend(f"  missed {key} <- {r}" for r in sorted(expected - found))
                misses.extend(f"  extra  {key} <- {r}" for r in sorted(found - expected))
    report: dict[str, Any] = {"functions_checked": used, "jedi_failed": failed, "not_in_graph": missing}
    for name, c in counts.items():
        report[name] = {
            "references_recall": _ratio(c["tp"], c["tp"] + c["fn"]),
            "references_precision": _ratio(c["tp"], c["tp"] + c["fp"]),
            "impact1_recall": _ratio(c["itp"], c["itp"] + c["ifn"]),
            "impact1_precision": _ratio(c["itp"], c["itp"] + c["ifp"]),
            "jedi_references": c["tp"] + c["fn"],
            "our_references": c["tp"] + c["fp"],
            # Our extra uses checked one by one with jedi's goto at the use: it lands on the function (agrees), on
            # something else (disagrees), or cannot tell. Precision counting the agreements, over the decided uses:
            "extras_jedi_agrees": c["agree"],
            "extras_jedi_disagrees": c["deny"],
            "extras_undecided": c["fp"] - c["agree"] - c["deny"],
            "precision_where_jedi_decides": _ratio(c["tp"] + c["agree"], c["tp"] + c["agree"] + c["deny"]),
            # Conservative: a use counts as right only when get_references or goto confirms it.
            "precision_confirmed_by_jedi": _ratio(c["tp"] + c["agree"], c["tp"] + c["fp"]),
        }
    report["differences"] = misses
    return report


def _site_key(key: str, site: tuple[Any, ...]) -> str:
    return f"{key}|{site[0]}:{site[1]}:{site[2]}"


def _extras(graph: CodeGraph, truth: dict[str, Any]) -> dict[str, tuple[dict[str, Any], tuple[str, int, int]]]:
    """Every use we report (at any weight) that jedi's get_references did not, keyed for the cache."""
    out: dict[str, tuple[dict[str, Any], tuple[str, int, int]]] = {}
    for item in truth["sample"]:
        key = f"{item['path']}::{item['qualified_name']}"
        answer = truth["answers"].get(key, {})
        node_id = symbol_id(item["path"], item["qualified_name"])
        if "error" in answer or not graph.state.has_node(node_id):
            continue
        expected = {tuple(r) for r in answer["refs"]}
        for use in queries.references(graph.state, [node_id], min_weight=0.0):
            site = (use.path, use.site.span.start_line, use.site.span.start_col)
            if site not in expected:
                out[_site_key(key, site)] = (item, site)
    return out


def check_extras(
    root: Path, graph: CodeGraph, extras: dict[str, tuple[dict[str, Any], tuple[str, int, int]]], truth: dict[str, Any]
) -> None:
    """Ask jedi's goto at each extra use whether it leads to the sampled function (cached with the answers)."""
    import jedi

    checks = truth.setdefault("site_checks", {})
    project = jedi.Project(str(root))
    signal.signal(signal.SIGALRM, _alarm)
    for site_key, (item, (path, line, column)) in sorted(extras.items()):
        if site_key in checks:
            continue
        signal.alarm(JEDI_CHECK_TIMEOUT_SECONDS)
        try:
            names = jedi.Script(path=str(root / path), project=project).goto(line + 1, column, follow_imports=True)
            # By full name: jedi often lands on typeshed's stub of the very same function (`tkinter.Text.mark_set`).
            target = ".".join([*python_components(item["path"]), item["qualified_name"]])
            if any(n.full_name == target for n in names):
                checks[site_key] = "agrees"
            else:
                checks[site_key] = "disagrees" if names else "undecided"
        except _JediTimeoutError:
            checks[site_key] = "undecided"
        except Exception:  # jedi's own failures: the use stays undecided
            checks[site_key] = "undecided"
        finally:
            signal.alarm(0)
        TRUTH_PATH.write_text(json.dumps(truth, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=None, help="source tree (default: the stdlib)")
    parser.add_argument("--quality", action="store_true", help="compare references and impact with jedi")
    parser.add_argument("--sample", type=int, default=SAMPLE_SIZE)
    parser.add_argument("--refresh-truth", action="store_true", help="ask jedi again instead of the cached answers")
    parser.add_argument("--tracemalloc", action="store_true", help="also measure the graph with tracemalloc (slow)")
    parser.add_argument("--show-differences", action="store_true")
    args = parser.parse_args()
    root = (args.root or stdlib_root()).resolve()
    files = stdlib_python_files() if args.root is None else sorted(root.rglob("*.py"))
    analyses, analyze_s = analyze(root, files)
    graph, build_figures = build(analyses, args.tracemalloc)
    stats = graph.stats()
    print(f"corpus: {root} ({len(files)} Python files)")
    print(f"analysis (parse, tags, references, chunks): {analyze_s:.1f} CPU s")
    print(f"graph: {stats['nodes']} nodes, {stats['edges']} edges ({stats['sites']} uses) from {stats['files']} files")
    print("build: " + ", ".join(f"{k} {v:.2f}" for k, v in build_figures.items()))
    print("pagerank: " + ", ".join(f"{k} {v:.4g}" for k, v in time_pagerank(graph).items()))
    print("incremental: " + ", ".join(f"{k} {v:.3f}" for k, v in time_incremental(graph, analyses).items()))
    if args.quality:
        report = quality(graph, root, args.sample, args.refresh_truth)
        differences = report.pop("differences")
        print("quality vs jedi: " + json.dumps(report, indent=1))
        if args.show_differences:
            print("\n".join(differences))
    return 0


if __name__ == "__main__":
    sys.exit(main())

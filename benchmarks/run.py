"""The one benchmark command: speed and retrieval quality of Maguyva next to ripgrep, universal-ctags, BM25 and a plain
BM25+dense fusion, on the CPython standard library of this interpreter (or any folder), printed and saved as JSON.

    .venv/bin/python benchmarks/run.py [--corpus PATH] [--quick] [--json OUT] [--no-server] [--jedi-budget SECONDS]

Ground truth comes from independent tools only (universal-ctags, jedi, grep -F, the original of a renamed function,
hand-labelled files), sampled with a fixed seed. The corpus is copied to a scratch folder first: the edit benchmarks
write there, never into the original.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import components, doors, incremental, report
from benchmarks.corpus import Corpus, prepare_corpus, prune_to, stdlib_root
from benchmarks.evaluation_set import (
    DEFAULT_SEED,
    FULL,
    QUESTIONS_FILE,
    QUICK,
    EvaluationSet,
    Sizes,
    build_evaluation_set,
)
from benchmarks.index_speed import run_index_child
from benchmarks.quality import evaluate_intent, overall, warm_up
from benchmarks.systems import (
    Bm25Chunks,
    MaguyvaNavigation,
    MaguyvaSearch,
    PlainRrf,
    RetrieverAlone,
    Ripgrep,
    System,
    engine_chunks,
    indexed_files,
)
from benchmarks.truth_jedi import DEFAULT_CACHE
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.model import Modality

RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_JEDI_BUDGET_SECONDS = 300.0
MODALITIES: tuple[Modality, ...] = ("structural", "text", "graph", "semantic")


@dataclass(frozen=True, slots=True)
class Options:
    corpus: Path
    sizes: Sizes
    quick: bool = False
    seed: int = DEFAULT_SEED
    jedi_cache: Path = DEFAULT_CACHE
    jedi_budget_s: float = DEFAULT_JEDI_BUDGET_SECONDS
    questions: Path | None = QUESTIONS_FILE
    server: bool = True
    classifier_rounds: int = components.CLASSIFIER_ROUNDS
    graph_rebuild: bool = True


class Phases:
    """Wall time per phase of the run, and the machine's load average at each phase's end."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self.seconds: dict[str, float] = {}
        self.load: dict[str, float] = {}
        self._log = log

    def run(self, name: str, action: Callable[[], Any]) -> Any:
        self._log(f"[{name}] ...")
        started = time.perf_counter()
        value = action()
        self.seconds[name] = round(time.perf_counter() - started, 1)
        self.load[name] = round(os.getloadavg()[0], 2)
        self._log(f"[{name}] {self.seconds[name]} s (load average {self.load[name]})")
        return value


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(pages / 1e9, 1),
        "python": platform.python_version(),
        "load_start": round(os.getloadavg()[0], 2),
    }


def _systems(engine: Engine, corpus: Corpus, files: list[str]) -> tuple[list[System], Bm25Chunks]:
    bm25 = Bm25Chunks(engine_chunks(engine, files))
    systems: list[System] = [MaguyvaSearch(engine, "standard"), MaguyvaSearch(engine, "thorough")]
    systems += [RetrieverAlone(engine, m) for m in MODALITIES]
    systems += [MaguyvaNavigation(engine), Ripgrep(corpus.root), bm25, PlainRrf(bm25, engine)]
    return systems, bm25


def _row(intents: list[dict[str, Any]], intent: str, system: str) -> dict[str, Any] | None:
    for item in intents:
        if item["intent"] == intent:
            return next((r for r in item["rows"] if r["system"] == system), None)
    return None


def _speed(intents: list[dict[str, Any]], lookup: dict[str, Any], cold_seconds: float) -> dict[str, Any]:
    """Latency per intent and preset, and the head-to-head ratios, all from this run's own measurements."""
    latency = {}
    for item in intents:
        standard = _row(intents, item["intent"], "maguyva standard") or {}
        thorough = _row(intents, item["intent"], "maguyva thorough") or {}
        latency[item["intent"]] = [
            standard.get("p50_ms"),
            standard.get("p95_ms"),
            thorough.get("p50_ms"),
            thorough.get("p95_ms"),
        ]
    pairs = [
        ("exact string", "exact_match", "ripgrep", "ripgrep -F (process)"),
        ("natural language", "understand_code", "BM25 (bm25s)", "bm25s retrieve"),
    ]
    head: list[dict[str, Any]] = []
    for task, intent, system, label in pairs:
        ours, theirs = _row(intents, intent, "maguyva standard"), _row(intents, intent, system)
        if ours and theirs:
            head.append(_pair(task, ours["p50_ms"], label, theirs["p50_ms"]))
    definition = _row(intents, "find_definition", "maguyva standard")
    if definition and lookup:
        ctags_ms = lookup["ctags_lookup_p50_us"] / 1e3
        head.append(_pair("definition (search)", definition["p50_ms"], "ctags tags-file lookup", ctags_ms))
        head.append(
            _pair(
                "definition (workspace/symbol)", lookup["workspace_symbols_p50_ms"], "ctags tags-file lookup", ctags_ms
            )
        )
    if lookup:
        ctags_build_ms = lookup["tags_file_build_s"] * 1e3
        head.append(_pair("index build", cold_seconds * 1e3, "ctags tags file (definitions only)", ctags_build_ms))
    return {"latency_by_intent": latency, "head_to_head": head}


def _pair(task: str, ours_ms: float, label: str, theirs_ms: float) -> dict[str, Any]:
    ratio = round(theirs_ms / ours_ms, 3) if ours_ms else None
    return {
        "task": task,
        "ours": round(ours_ms, 3),
        "alternative": label,
        "theirs": round(theirs_ms, 3),
        "ratio": ratio,
    }


def run_benchmark(options: Options, workdir: Path, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Everything, in order; returns the report (also what is saved as JSON)."""
    phases = Phases(log)
    out: dict[str, Any] = {"machine": machine(), "options": {"quick": options.quick, "seed": options.seed}}
    corpus: Corpus = phases.run("copy corpus", lambda: prepare_corpus(options.corpus, workdir / "corpus"))
    out["corpus"] = {
        "source": str(corpus.source),
        "files": len(corpus.files),
        "mb": round(corpus.total_bytes / 1e6, 1),
        "fingerprint": corpus.fingerprint,
    }
    evaluation: EvaluationSet = phases.run(
        "ground truth",
        lambda: build_evaluation_set(
            corpus,
            options.sizes,
            seed=options.seed,
            jedi_cache=options.jedi_cache,
            jedi_budget_s=options.jedi_budget_s,
            questions=options.questions,
            log=log,
        ),
    )
    out["evaluation"] = {**evaluation.notes, "cases": {k: len(v) for k, v in evaluation.by_intent().items()}}
    index_dir = workdir / "index"
    cold = phases.run("cold index", lambda: run_index_child("cold", corpus, index_dir))
    warm = phases.run("warm index", lambda: run_index_child("warm", corpus, index_dir))
    engine = Engine(corpus.root, Settings(exclude=corpus.excludes, index_dir=str(index_dir)), persist=True)
    phases.run("open engine", engine.index)
    out["index"] = {
        "cold": cold.to_json(),
        "warm": warm.to_json(),
        "in_process_warm_seconds": phases.seconds["open engine"],
    }
    try:
        files = indexed_files(engine, corpus.files)
        out["corpus"]["not_indexed_removed_from_copy"] = len(prune_to(corpus, set(files)))
        systems, _ = phases.run("baselines", lambda: _systems(engine, corpus, files))
        by_intent = evaluation.by_intent()
        phases.run("warm up", lambda: warm_up(systems, [c for cs in by_intent.values() for c in cs[:1]]))
        reports = phases.run("quality", lambda: [evaluate_intent(i, cs, systems, log) for i, cs in by_intent.items()])
        intents = [r.to_json() for r in reports]
        out["quality"] = {
            "intents": intents,
            "overall": [r.to_json() for r in overall(reports)],
            "verdicts": report.verdicts(intents),
        }
        definitions = by_intent.get("find_definition", [])
        lookup = phases.run(
            "ctags lookup",
            lambda: components.definition_lookup(engine, corpus.root, files, definitions, workdir / "tags"),
        )
        out["speed"] = _speed(intents, lookup, cold.figures["index_seconds"])
        queries = [c.query for c in evaluation.cases]
        out["components"] = {
            "definition_lookup": lookup,
            "classifier": phases.run(
                "classifier", lambda: components.classifier_cost(queries, options.classifier_rounds)
            ),
            "graph": phases.run("graph", lambda: components.graph_costs(engine, files, options.graph_rebuild)),
            "hamming": phases.run("hamming", lambda: components.hamming_costs(options.quick)),
        }
        out["incremental"] = {
            "engine.update + search": phases.run(
                "edits", lambda: incremental.engine_edits(engine, corpus, options.sizes.edits, options.seed)
            )
        }
    finally:
        engine.close()
    if options.server:
        try:
            out["incremental"]["server watcher + maguyva/search"] = phases.run(
                "server edits",
                lambda: incremental.server_edits(corpus, index_dir, options.sizes.server_edits, options.seed),
            )
        except Exception as exc:  # the other figures of a long run are kept; the failure is reported with them
            log(f"server edits failed: {type(exc).__name__}: {exc}")
            out["incremental"]["server watcher + maguyva/search"] = {"error": f"{type(exc).__name__}: {exc}"}
    if options.server:
        try:
            out["doors"] = phases.run("doors", lambda: doors.door_latency(corpus, index_dir))
        except Exception as exc:
            log(f"door latency failed: {type(exc).__name__}: {exc}")
            out["doors"] = {"error": f"{type(exc).__name__}: {exc}"}
    out["machine"]["load_end"] = round(os.getloadavg()[0], 2)
    out["phases"] = phases.seconds
    out["load_by_phase"] = phases.load
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="folder to benchmark (default: this Python's stdlib)")
    parser.add_argument("--quick", action="store_true", help="fewer queries and edits, smaller Hamming sizes")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--jedi-budget", type=float, default=DEFAULT_JEDI_BUDGET_SECONDS, help="seconds for jedi")
    parser.add_argument(
        "--no-server", action="store_true", help="skip the real servers (edits through LSP, MCP vs LSP latency)"
    )
    args = parser.parse_args(argv)
    options = Options(
        corpus=(args.corpus or stdlib_root()).resolve(),
        sizes=QUICK if args.quick else FULL,
        quick=args.quick,
        seed=args.seed,
        jedi_budget_s=args.jedi_budget,
        server=not args.no_server,
    )
    if args.corpus is not None and options.corpus != stdlib_root():
        options = replace(options, questions=None)  # the hand-labelled questions are about the stdlib
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="maguyva-bench-") as scratch:
        result = run_benchmark(options, Path(scratch))
    result["total_seconds"] = round(time.perf_counter() - started, 1)
    print()
    print(report.render(result))
    if "requests" in result.get("doors", {}):
        print(doors.render(result["doors"]))
    print(f"\ntotal: {result['total_seconds']} s")
    RESULTS_DIR.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    targets = [RESULTS_DIR / f"run-{stamp}.json", RESULTS_DIR / "latest.json"] + ([args.json] if args.json else [])
    for target in targets:
        target.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"saved {', '.join(str(t) for t in targets)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

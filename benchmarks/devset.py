"""The development set in the benchmark: every question of `../shared/devset/` asked of the real language server, scored
as the set's README defines, with ripgrep, BM25 (bm25s), the dense retriever alone and BM25+dense RRF in the same run.

    .venv/bin/python benchmarks/devset.py [--corpus NAME ...] [--preset P ...] [--json OUT] [--devset DIR]

Each corpus is unpacked to a scratch folder; `python -m maguyva_lsp --stdio` is started on it (its index in the
scratch folder too), and once it has indexed, every question goes through `maguyva/search` (limit 20), the
find_definition questions also through `workspace/symbol`. The server is then shut down and the same index is opened
in process for the alternatives (the same chunks, the same dense model). Printed: per family, per query form, per
corpus and language, intent accuracy and its confusion matrix, latency; saved as JSON under benchmarks/results/.
Latency figures are only comparable under the team's benchmark lock (`flock /work/team/bench.lock ...`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import devset_report
from benchmarks.devset_alternatives import (
    Alternative,
    Bm25Alternative,
    DenseAlternative,
    PlainRrfAlternative,
    RipgrepAlternative,
    timed,
)
from benchmarks.devset_questions import Observation, Question, load_questions
from benchmarks.devset_scoring import lsp_result
from benchmarks.lsp_client import StdioClient
from benchmarks.run import machine
from benchmarks.systems import engine_chunks, indexed_files
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine

RESULTS_DIR = Path(__file__).resolve().parent / "results"
CORPORA = ("flask", "starlette", "attrs", "express", "cobra")
PRESETS = ("quick", "standard", "thorough")
SEARCH_LIMIT = 20
READY_TIMEOUT_SECONDS = 900.0
READY_POLL_SECONDS = 0.25
WARMUP_QUERIES = 3  # untimed searches first: lazy loads (the query embedder) are not a question's cost
WORKSPACE_SYMBOL = "workspace/symbol"
DEVSET_ENV = "MAGUYVA_DEVSET"


def default_devset() -> Path | None:
    """$MAGUYVA_DEVSET, else a `shared/devset` folder beside the repository or one of its parents."""
    if os.environ.get(DEVSET_ENV):
        return Path(os.environ[DEVSET_ENV])
    here = Path(__file__).resolve().parent.parent
    for folder in (here, *here.parents):
        candidate = folder / "shared" / "devset"
        if (candidate / "queries").is_dir():
            return candidate
    return None


def product_name(preset: str) -> str:
    return f"maguyva {preset}"


@dataclass(slots=True)
class CorpusRun:
    name: str
    language: str
    observations: list[Observation] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)


def unpack(archive: Path, scratch: Path, name: str) -> Path:
    """The corpus archive unpacked under scratch; its one top-level folder (named after the corpus) is the root."""
    with tarfile.open(archive) as tar:
        tar.extractall(scratch, filter="data")
    root = scratch / name
    if not root.is_dir():
        raise RuntimeError(f"{archive} holds no top-level folder {name}/")
    return root.resolve()


def uri_path(uri: str, root: Path) -> str:
    """A file URI as a root-relative POSIX path (a URI outside the root is returned as its absolute path)."""
    path = Path(unquote(urlparse(uri).path))
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)


def wait_until_indexed(client: StdioClient, timeout: float) -> dict[str, Any]:
    """Poll maguyva/status until nothing is indexing or waiting to be embedded; the last status."""
    deadline = time.monotonic() + timeout
    while True:
        status: dict[str, Any] = client.request("maguyva/status", {})
        pending = sum(int(f.get("embedding_batches_pending", 0) or 0) for f in status.get("folders", []))
        if not status.get("indexing") and not pending:
            return status
        if time.monotonic() > deadline:
            raise TimeoutError(f"the server was still indexing after {timeout:.0f} s")
        time.sleep(READY_POLL_SECONDS)


def ask_server(
    root: Path,
    index_dir: Path,
    questions: Sequence[Question],
    presets: Sequence[str],
    log: Callable[[str], None],
) -> tuple[list[Observation], dict[str, Any]]:
    """Start the real server on root, wait for its index, ask every question; the answers and what the server said."""
    client = StdioClient(root)
    facts: dict[str, Any] = {}
    observations: list[Observation] = []
    try:
        started = time.perf_counter()
        client.initialize(root, {"indexDir": str(index_dir)})
        status = wait_until_indexed(client, READY_TIMEOUT_SECONDS)
        facts["ready_seconds"] = round(time.perf_counter() - started, 2)
        facts.update({k: status.get(k) for k in ("files", "chunks", "symbols", "edges", "embedder")})
        log(f"  server ready in {facts['ready_seconds']} s: {facts['files']} files, {facts['chunks']} chunks")
        for question in questions[:WARMUP_QUERIES]:
            for preset in presets:
                client.request("maguyva/search", {"query": question.query, "preset": preset, "limit": SEARCH_LIMIT})
        for preset in presets:
            for question in questions:
                observations.append(_search(client, root, question, preset))
        for question in questions:
            if question.family == "find_definition":
                observations.append(_workspace_symbol(client, root, question))
    finally:
        client.close()
    return observations, facts


def _search(client: StdioClient, root: Path, question: Question, preset: str) -> Observation:
    params = {"query": question.query, "preset": preset, "limit": SEARCH_LIMIT}
    started = time.perf_counter()
    try:
        answer = client.request("maguyva/search", params)
    except Exception as exc:  # an error reply is a miss, reported with the figures
        elapsed = (time.perf_counter() - started) * 1e3
        return Observation(question, product_name(preset), [], elapsed, error=f"{type(exc).__name__}: {exc}")
    elapsed = (time.perf_counter() - started) * 1e3
    results = [lsp_result(uri_path(r["uri"], root), r["range"]) for r in answer.get("results", [])]
    return Observation(
        question,
        product_name(preset),
        results,
        elapsed,
        intent=answer.get("intent"),
        confidence=answer.get("confidence"),
        strategy=answer.get("fusion_strategy"),
        rule=answer.get("rule"),
        target=answer.get("target"),
        server_ms=answer.get("elapsed_ms"),
        skipped=tuple(f"{m.get('modality')}: {m.get('reason')}" for m in answer.get("modalities_skipped", [])),
        partial=bool(answer.get("partial")),
    )


def _workspace_symbol(client: StdioClient, root: Path, question: Question) -> Observation:
    started = time.perf_counter()
    try:
        symbols = client.request(WORKSPACE_SYMBOL, {"query": question.name}) or []
    except Exception as exc:
        elapsed = (time.perf_counter() - started) * 1e3
        return Observation(question, WORKSPACE_SYMBOL, [], elapsed, error=f"{type(exc).__name__}: {exc}")
    elapsed = (time.perf_counter() - started) * 1e3
    results = []
    for symbol in symbols[:SEARCH_LIMIT]:
        location = symbol.get("location") or {}
        if "uri" in location and "range" in location:
            results.append(lsp_result(uri_path(location["uri"], root), location["range"]))
    return Observation(question, WORKSPACE_SYMBOL, results, elapsed)


def ask_alternatives(
    root: Path, index_dir: Path, questions: Sequence[Question], log: Callable[[str], None]
) -> tuple[list[Observation], dict[str, Any]]:
    """The alternatives over the index the server built (opened warm in process: the same chunks)."""
    engine = Engine(root, Settings(index_dir=str(index_dir)), persist=True)
    try:
        engine.index()
        files = indexed_files(engine, sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()))
        chunks = engine_chunks(engine, files)
        bm25 = Bm25Alternative(chunks)
        alternatives: list[Alternative] = [
            RipgrepAlternative(root),
            bm25,
            DenseAlternative(engine),
            PlainRrfAlternative(bm25, engine),
        ]
        for alternative in alternatives:  # untimed first calls
            for question in questions[:WARMUP_QUERIES]:
                alternative.answer(question)
        observations = []
        for alternative in alternatives:
            for question in questions:
                if alternative.applies(question):
                    results, elapsed = timed(alternative, question)
                    observations.append(Observation(question, alternative.name, results, elapsed))
        function_chunks = len(bm25.functions.chunks) if bm25.functions else 0
        log(f"  alternatives over {len(chunks)} chunks ({function_chunks} function chunks)")
        return observations, {"alternative_chunks": len(chunks), "function_chunks": function_chunks}
    finally:
        engine.close()


def run_corpus(
    devset: Path, corpus: str, language: str, presets: Sequence[str], scratch: Path, *, log: Callable[[str], None]
) -> CorpusRun:
    run = CorpusRun(corpus, language)
    questions = load_questions(devset, corpus, language)
    log(f"[{corpus}] {len(questions)} questions")
    root = unpack(devset / "corpora" / f"{corpus}.tar.gz", scratch / "corpora", corpus)
    index_dir = scratch / "index" / corpus
    served, facts = ask_server(root, index_dir, questions, presets, log)
    alternatives, alt_facts = ask_alternatives(root, index_dir, questions, log)
    run.observations = served + alternatives
    run.facts = {**facts, **alt_facts, "questions": len(questions)}
    return run


def run_devset(
    devset: Path,
    corpora: Sequence[str],
    presets: Sequence[str],
    scratch: Path,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Every chosen corpus, in order; the summary (what is printed and saved)."""
    manifest = json.loads((devset / "queries" / "manifest.json").read_text(encoding="utf-8"))
    out: dict[str, Any] = {"machine": machine(), "devset": str(devset), "presets": list(presets)}
    started = time.perf_counter()
    runs = []
    for corpus in corpora:
        language = manifest["repos"][corpus]["language"]
        runs.append(run_corpus(devset, corpus, language, presets, scratch, log=log))
    observations = [o for r in runs for o in r.observations]
    out["corpora"] = {r.name: {"language": r.language, **r.facts} for r in runs}
    out.update(devset_report.summarise(observations, [product_name(p) for p in presets]))
    out["machine"]["load_end"] = round(os.getloadavg()[0], 2)
    out["total_seconds"] = round(time.perf_counter() - started, 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devset", type=Path, default=None, help=f"the dev set folder (default: ${DEVSET_ENV} or "
                        "a shared/devset folder beside the repository)")  # fmt: skip
    parser.add_argument("--corpus", action="append", choices=CORPORA, help="a corpus to run (repeatable; default all)")
    parser.add_argument("--preset", action="append", choices=PRESETS, help="preset(s) to ask (default: standard)")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    parser.add_argument("--misses", type=int, default=0, help="print this many misses per family and system")
    parser.add_argument("--scratch", type=Path, default=None, help="unpack and index here (default: a temp folder)")
    args = parser.parse_args(argv)
    devset = args.devset or default_devset()
    if devset is None or not (devset / "queries").is_dir():
        parser.error(f"no dev set found: pass --devset DIR or set ${DEVSET_ENV}")
    corpora = args.corpus or list(CORPORA)
    presets = list(dict.fromkeys(args.preset or ["standard"]))
    if args.scratch is not None:
        args.scratch.mkdir(parents=True, exist_ok=True)
        result = run_devset(devset.resolve(), corpora, presets, Path(tempfile.mkdtemp(dir=args.scratch)))
    else:
        with tempfile.TemporaryDirectory(prefix="maguyva-devset-") as scratch:
            result = run_devset(devset.resolve(), corpora, presets, Path(scratch))
    print()
    print(devset_report.render(result, misses=args.misses))
    RESULTS_DIR.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    targets = [RESULTS_DIR / f"devset-{stamp}.json", RESULTS_DIR / "devset-latest.json"]
    targets += [args.json] if args.json else []
    for target in targets:
        target.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"saved {', '.join(str(t) for t in targets)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

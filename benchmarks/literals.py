"""Exact text search over LSP, broad and rare: `maguyva/search` for literals and regular expressions on the real server
(stdio, warm index), timed at the client beside ripgrep on the same files in the same run, interleaved so that the
machine's load touches both alike. Issue 12's bar: a common literal (one in at least 3 % of the files), top 20, at
most 25 ms p50 and no slower than `rg -F`; a rare literal at most 5 ms.

    .venv/bin/python benchmarks/literals.py [--corpus PATH] [--rounds 15] [--json OUT]
    .venv/bin/python benchmarks/literals.py --root FOLDER --index-dir DIR     (an indexed folder, read only)
    .venv/bin/python benchmarks/literals.py ... --server-code OLD_CHECKOUT   (the server of an older checkout)

Each row says how many files ripgrep finds (the query's share of the files) and what the answer's `text_matches` says
(files, matches, whether the counts were cut short). benchmarks/index_v2.py measures one common and one rare literal
the same way among issue 12's other figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import STDLIB_EXCLUDES, prepare_corpus, stdlib_root
from benchmarks.lsp_client import StdioClient
from benchmarks.systems import RG

ROUNDS = 15
LIMIT = 20
READY_TIMEOUT_SECONDS = 900.0
# A literal is "common" when at least this share of the files holds it (issue 12's definition).
COMMON_FILE_SHARE = 0.03
# Issue 12's targets, p50 over LSP.
COMMON_TARGET_MS = 25.0
RARE_TARGET_MS = 5.0


@dataclass(frozen=True, slots=True)
class Query:
    label: str
    text: str  # what the user sends as `query`
    rg: tuple[str, ...]  # ripgrep's flags and pattern for the same question
    kind: str  # "common", "rare" or "regex" (which target applies)
    regex: bool = False


# A literal is sent quoted (the exact_match route); regexes with `regex: true`. ripgrep is asked the same question as a
# grep user would (-F for literals: case-sensitive, as `rg -F` is by default).
QUERIES: tuple[Query, ...] = (
    Query("common literal self.", '"self."', ("-F", "-e", "self."), "common"),
    Query("common literal isinstance(", '"isinstance("', ("-F", "-e", "isinstance("), "common"),
    Query("common literal encoding=", '"encoding="', ("-F", "-e", "encoding="), "common"),
    Query("rare literal ECONNREFUSED", '"ECONNREFUSED"', ("-F", "-e", "ECONNREFUSED"), "rare"),
    Query("rare literal 2", '"_check_for_unavailable_sdk"', ("-F", "-e", "_check_for_unavailable_sdk"), "rare"),
    Query("broad regex", r"self\.\w+ = None", ("-e", r"self\.\w+ = None"), "regex", regex=True),
    Query("narrow regex", r"def \w+_proxy\(", ("-e", r"def \w+_proxy\("), "regex", regex=True),
)
RG_FLAGS = ("--no-messages", "--no-ignore", "--hidden", "--color", "never", "--line-number", "--no-heading")


def _wait_ready(client: StdioClient) -> None:
    """Until the index is complete, embeddings included: background embedding would compete for the cores."""
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        status = client.request("maguyva/status", {})
        pending = sum(int(f.get("embedding_batches_pending", 0) or 0) for f in status.get("folders", []))
        if not status["indexing"] and not pending:
            return
        time.sleep(0.2)
    raise TimeoutError("the language server did not finish indexing")


def _rg(root: Path, query: Query) -> tuple[float, int]:
    """One ripgrep run printing every matching line (as a grep user reads them): ms and the lines found."""
    began = time.perf_counter()
    done = subprocess.run([str(RG), *RG_FLAGS, *query.rg, "--", "."], cwd=root, capture_output=True, check=False)
    elapsed = (time.perf_counter() - began) * 1000
    return elapsed, done.stdout.count(b"\n")


def _rg_files(root: Path, query: Query) -> int:
    done = subprocess.run(
        [str(RG), "--no-messages", "--no-ignore", "--hidden", "--files-with-matches", *query.rg, "--", "."],
        cwd=root,
        capture_output=True,
        check=False,
    )
    return done.stdout.count(b"\n")


def _file_count(root: Path) -> int:
    done = subprocess.run(
        [str(RG), "--no-messages", "--no-ignore", "--hidden", "--files", "."],
        cwd=root,
        capture_output=True,
        check=False,
    )
    return done.stdout.count(b"\n")


def measure(
    root: Path, index_dir: Path, excludes: tuple[str, ...], rounds: int = ROUNDS, server_code: Path | None = None
) -> dict[str, Any]:
    """Every query of QUERIES over LSP and through ripgrep, `rounds` times each, interleaved; warm index.
    `server_code`: a checkout whose package the server runs instead of this one (put first on its PYTHONPATH)."""
    files = _file_count(root)
    env = None
    if server_code is not None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, (str(server_code), os.environ.get("PYTHONPATH")))),
        }
    client = StdioClient(root, env=env)
    rows: list[dict[str, Any]] = []
    try:
        client.initialize(root, {"indexDir": str(index_dir), "exclude": list(excludes)})
        _wait_ready(client)
        load_start = os.getloadavg()[0]
        for query in QUERIES:
            params: dict[str, Any] = {"query": query.text, "limit": LIMIT, "regex": query.regex}
            for _ in range(2):  # first-call caches of both sides
                answer = client.request("maguyva/search", params)
                _rg(root, query)
            ours: list[float] = []
            server: list[float] = []
            theirs: list[float] = []
            rg_lines = 0
            for _ in range(rounds):
                began = time.perf_counter()
                answer = client.request("maguyva/search", params)
                ours.append((time.perf_counter() - began) * 1000)
                server.append(float(answer["elapsed_ms"]))
                elapsed, rg_lines = _rg(root, query)
                theirs.append(elapsed)
            rg_files = _rg_files(root, query)
            ours_p50, theirs_p50 = statistics.median(ours), statistics.median(theirs)
            target = {"common": COMMON_TARGET_MS, "rare": RARE_TARGET_MS}.get(query.kind)
            rows.append(
                {
                    "query": query.label,
                    "kind": query.kind,
                    "file_share": round(rg_files / files, 4) if files else None,
                    "rg_files": rg_files,
                    "rg_lines": rg_lines,
                    "ours_p50_ms": round(ours_p50, 3),
                    "server_p50_ms": round(statistics.median(server), 3),
                    "rg_p50_ms": round(theirs_p50, 3),
                    "rg_over_ours": round(theirs_p50 / ours_p50, 3) if ours_p50 else None,
                    "target_ms": target,
                    "results": len(answer["results"]),
                    "strategy": answer["fusion_strategy"],
                    "text_matches": answer.get("text_matches"),
                }
            )
        load_end = os.getloadavg()[0]
    finally:
        client.close()
    return {
        "rounds": rounds,
        "limit": LIMIT,
        "files": files,
        "load_start": round(load_start, 2),
        "load_end": round(load_end, 2),
        "queries": rows,
    }


def render(figures: dict[str, Any]) -> str:
    lines = [
        f"exact text search over LSP, top {figures['limit']}, p50 of {figures['rounds']} (warm) beside ripgrep, "
        f"same run; {figures['files']:,} files, load {figures['load_start']} → {figures['load_end']}",
        f"  {'query':<28} {'files':>12} {'LSP':>9} {'rg':>9} {'rg/LSP':>7}  target  text_matches",
    ]
    for row in figures["queries"]:
        share = f"{row['rg_files']} ({row['file_share']:.0%})" if row["file_share"] is not None else "?"
        target = f"≤{row['target_ms']:g}" if row["target_ms"] else "—"
        verdict = ""
        if row["target_ms"]:
            verdict = "ok" if row["ours_p50_ms"] <= row["target_ms"] else "OVER"
        if row["kind"] == "common" and row["file_share"] is not None and row["file_share"] < COMMON_FILE_SHARE:
            verdict += " (not common)"
        totals = row["text_matches"]
        counted = "—"
        if totals:
            counted = f"{totals['files']} files, {totals['matches']} matches" + (
                " (at least: cut short)" if totals["truncated"] else ""
            )
        lines.append(
            f"  {row['query']:<28} {share:>12} {row['ours_p50_ms']:7.2f}ms {row['rg_p50_ms']:7.2f}ms "
            f"{row['rg_over_ours']:6.2f}x  {target:>5} {verdict:<4} {counted}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=None, help="folder to copy and index (default: the stdlib)")
    parser.add_argument("--root", type=Path, default=None, help="an already indexed folder, searched in place")
    parser.add_argument("--index-dir", type=Path, default=None, help="its index folder (with --root)")
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--server-code", type=Path, default=None, help="an older checkout whose server to measure")
    args = parser.parse_args(argv)
    if args.root is not None:
        if args.index_dir is None:
            parser.error("--root needs --index-dir")
        figures = measure(args.root.resolve(), args.index_dir.resolve(), STDLIB_EXCLUDES, args.rounds, args.server_code)
    else:
        with tempfile.TemporaryDirectory(prefix="maguyva-literals-") as scratch:
            corpus = prepare_corpus((args.corpus or stdlib_root()).resolve(), Path(scratch) / "corpus")
            figures = measure(corpus.root, Path(scratch) / "index", corpus.excludes, args.rounds, args.server_code)
    print(render(figures))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

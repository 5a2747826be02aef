"""Issue 12's figures in one command: what opening, building and keeping the index costs, beside ripgrep and ctags in
the same run, on the stdlib copied 1×, 2× and 5× into sibling folders (the curve), for this checkout and optionally
for an older one (`--before-python`: its venv's python), so that before and after come from one run.

    .venv/bin/python benchmarks/index_v2.py [--scales 1,2,5] [--before-python OLD/.venv/bin/python]
        [--before-scales 1] [--edits 20] [--server-cold-scales 1] [--json OUT] [--workdir DIR]

Per scale and version: cold `maguyva index` (wall, peak RSS of the process tree), a warm `maguyva search` on the
unchanged folder (wall, peak RSS; median of 3), the server's cold start and warm restart (spawn → ready, and when
text + structural answered), its steady RSS, the index on disk, save → searchable through the watcher (p50/p95), a
common and a rare literal over LSP (p50, top 20); ripgrep and ctags on the same folder. Run it under the bench lock.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil

from benchmarks import index_speed
from benchmarks.corpus import STDLIB_EXCLUDES, prepare_corpus, stdlib_root
from benchmarks.index_speed import tree_rss
from benchmarks.lsp_client import LspError, StdioClient
from benchmarks.quality import percentile

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
MB = 1e6
SAMPLE_SECONDS = 0.05
READY_TIMEOUT_S = 1800.0
DEFINITION_QUERY = "where is urlsplit defined"
DEFINITION_PATTERN = "def urlsplit"
# Literals tried in order: the first held by at least COMMON_SHARE of the files is the common one, the first held by
# at most RARE_FILES files the rare one (counted with ripgrep on the corpus).
LITERAL_CANDIDATES = ("ValueError", "isinstance(", "return None", "os.path.join", "ECONNREFUSED", "urlsplit(")
COMMON_SHARE = 0.03
RARE_FILES = 8
LITERAL_ROUNDS = 15


@dataclass(frozen=True, slots=True)
class Version:
    label: str
    python: str
    cwd: Path  # the checkout whose package the python imports


def package_checkout(python: str) -> Path:
    """The checkout whose `maguyva_lsp` an interpreter imports, asked of that interpreter: a venv's python is a
    symlink to the base interpreter, so the checkout cannot be read off the resolved path (its parents are the
    pyenv's, and a command run from the wrong folder could import another checkout's package through `-m`)."""
    where = subprocess.run(
        [python, "-c", "import maguyva_lsp, pathlib; print(pathlib.Path(maguyva_lsp.__file__).resolve().parents[1])"],
        cwd="/",  # not this folder: `-c` puts the working folder first on sys.path
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(where.stdout.strip())


def run_sampled(command: Sequence[str], cwd: Path) -> tuple[float, int, str]:
    """Wall seconds, peak RSS of the process tree (sampled) and stdout of a command."""
    run = index_speed.run_sampled(command, cwd, sample_seconds=SAMPLE_SECONDS)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({run.returncode}): {run.stderr[-1500:]}")
    return run.seconds, run.peak_rss, run.stdout


def timed(command: Sequence[str], cwd: Path, rounds: int = 3) -> float:
    """Median wall seconds of a command (its output discarded)."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def make_corpus(scale: int, base: Path, workdir: Path) -> Path:
    """`scale` copies of the prepared stdlib in sibling folders (the copy itself for scale 1)."""
    if scale == 1:
        return base
    root = workdir / f"stdlib-x{scale}"
    if not root.exists():
        for i in range(scale):
            shutil.copytree(base, root / f"copy{i}", symlinks=True)
    return root


def file_count(root: Path) -> int:
    return sum(1 for p in root.rglob("*") if p.is_file())


def pick_literals(root: Path, rg: str) -> tuple[str, str]:
    files = file_count(root)
    counts: dict[str, int] = {}
    for literal in LITERAL_CANDIDATES:
        out = subprocess.run([rg, "-l", "-F", literal, "."], cwd=root, capture_output=True, text=True, check=False)
        counts[literal] = len(out.stdout.splitlines())
    common = next((lit for lit in LITERAL_CANDIDATES if counts[lit] >= COMMON_SHARE * files), LITERAL_CANDIDATES[0])
    rare = next((lit for lit in reversed(LITERAL_CANDIDATES) if 0 < counts[lit] <= RARE_FILES), LITERAL_CANDIDATES[-1])
    return common, rare


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def wait_until(check: Callable[[], bool], timeout: float) -> float | None:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if check():
            return time.perf_counter() - started
        time.sleep(0.1)
    return None


def server_session(
    version: Version, root: Path, index_dir: Path, literals: tuple[str, str], edits: int
) -> dict[str, Any]:
    """Spawn the server, wait until it is ready, then measure RSS, literals and saves through the watcher."""
    started = time.perf_counter()
    client = StdioClient(version.cwd, python=version.python)
    out: dict[str, Any] = {}
    try:
        client.initialize(root, {"indexDir": str(index_dir), "exclude": list(STDLIB_EXCLUDES)})
        first_answer: list[float] = []

        def ready() -> bool:
            status = client.request("maguyva/status", {})
            if not status.get("folders") and "root" not in status:
                return False  # the workspace folder is not open yet
            if not first_answer:
                try:
                    found = client.request("maguyva/search", {"query": DEFINITION_QUERY, "limit": 5})
                except LspError:  # nothing indexed yet
                    return False
                folders = status.get("folders") or [status]
                complete = all(not f.get("modalities", {}).get(m, {}).get("partial", True) for f in folders
                               for m in ("text", "structural"))  # fmt: skip
                if found.get("results") and (complete or not status.get("indexing")):
                    first_answer.append(time.perf_counter() - started)
            return not status.get("indexing")

        if wait_until(ready, READY_TIMEOUT_S) is None:
            return {"error": "not ready in time"}
        out["ready_s"] = round(time.perf_counter() - started, 2)
        out["text_structural_s"] = round(first_answer[0], 2) if first_answer else None
        process = psutil.Process(client.process.pid)
        for _ in range(5):
            client.request("maguyva/search", {"query": DEFINITION_QUERY, "limit": 20})
        out["steady_rss_mb"] = round(tree_rss(process) / MB, 1)
        for name, literal in zip(("common", "rare"), literals, strict=True):
            times = []
            for _ in range(LITERAL_ROUNDS):
                began = time.perf_counter()
                client.request("maguyva/search", {"query": f'"{literal}"', "limit": 20})
                times.append(time.perf_counter() - began)
            out[f"{name}_literal_p50_ms"] = round(statistics.median(times) * 1e3, 1)
        out.update(save_to_searchable(client, root, edits))
        out["steady_rss_after_edits_mb"] = round(tree_rss(process) / MB, 1)
    finally:
        client.close()
    return out


def save_to_searchable(client: StdioClient, root: Path, edits: int) -> dict[str, Any]:
    """Append a function to a file, or write a new one, and poll maguyva/search until the watcher brought it in."""
    library = sorted(p for p in root.rglob("*.py") if "test" not in p.parts and 2_000 < p.stat().st_size < 40_000)
    picked = library[:: max(1, len(library) // max(edits, 1))][:edits]
    originals: dict[Path, bytes | None] = {}
    latencies: list[float] = []
    missed = 0
    try:
        for index, path in enumerate(picked):
            symbol = f"maguyva_v2_saved_{index}"
            target = path if index % 2 == 0 else path.with_name(f"{symbol}_module.py")
            originals.setdefault(target, target.read_bytes() if target.exists() else None)
            began = time.perf_counter()
            target.write_bytes((originals[target] or b"") + f"\n\ndef {symbol}(value):\n    return value\n".encode())

            def found(symbol: str = symbol) -> bool:
                answer = client.request("maguyva/search", {"query": f"def {symbol}", "limit": 5})
                return any(symbol in (r.get("symbol") or "") for r in answer["results"])

            seen = wait_until(found, 60.0)
            if seen is None:
                missed += 1
            else:
                latencies.append(time.perf_counter() - began)
    finally:
        for path, data in originals.items():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)
    return {
        "save_p50_ms": round(percentile(latencies, 0.5) * 1e3, 1),
        "save_p95_ms": round(percentile(latencies, 0.95) * 1e3, 1),
        "save_missed": missed,
    }


def measure(
    version: Version, root: Path, index_dir: Path, literals: tuple[str, str], edits: int, *, server_cold: bool = True
) -> dict[str, Any]:
    shutil.rmtree(index_dir, ignore_errors=True)
    cli = [version.python, "-m", "maguyva_lsp.cli"]
    figures: dict[str, Any] = {}
    wall, peak, _ = run_sampled([*cli, "index", str(root), "--index-dir", str(index_dir)], version.cwd)
    figures["cold_index_s"] = round(wall, 2)
    figures["cold_peak_rss_mb"] = round(peak / MB, 1)
    figures["disk_mb"] = round(folder_bytes(index_dir) / MB, 1)
    search = [*cli, "search", str(root), DEFINITION_QUERY, "--index-dir", str(index_dir), "--limit", "5"]
    searches = [run_sampled(search, version.cwd) for _ in range(3)]
    figures["warm_search_s"] = round(statistics.median(s[0] for s in searches), 2)
    figures["warm_search_rss_mb"] = round(max(s[1] for s in searches) / MB, 1)
    figures["server_warm"] = server_session(version, root, index_dir, literals, edits)
    if not server_cold:
        return figures
    cold_dir = index_dir.with_name(index_dir.name + "-server")
    shutil.rmtree(cold_dir, ignore_errors=True)
    figures["server_cold"] = server_session(version, root, cold_dir, literals, 0)
    shutil.rmtree(cold_dir, ignore_errors=True)
    return figures


def baselines(root: Path, rg: str, common: str, rare: str) -> dict[str, Any]:
    tags = Path(tempfile.mkdtemp()) / "tags"
    out = {
        "rg_definition_s": round(timed([rg, "-n", DEFINITION_PATTERN, "."], root), 3),
        "rg_common_s": round(timed([rg, "-n", "-F", common, "."], root), 3),
        "rg_rare_s": round(timed([rg, "-n", "-F", rare, "."], root), 3),
        "ctags_s": round(timed(["ctags", "-R", "-f", str(tags), "."], root, rounds=1), 2),
    }
    out["ctags_tags_mb"] = round(tags.stat().st_size / MB, 1) if tags.exists() else None
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="a folder to copy instead of the stdlib of this interpreter")
    parser.add_argument("--scales", default="1,2,5")
    parser.add_argument("--before-python", help="the python of an older checkout's venv, measured in the same run")
    parser.add_argument("--before-scales", default="1")
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument(
        "--server-cold-scales", default=None, help="scales that also time the server's cold start (default: all)"
    )
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=RESULTS / "index-v2-latest.json")
    args = parser.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="maguyva-v2-"))
    rg = shutil.which("rg", path=str(Path(sys.executable).parent)) or shutil.which("rg") or "rg"
    base = workdir / "stdlib-x1"
    if not base.exists():
        prepared = prepare_corpus(args.corpus or stdlib_root(), workdir / "prep")
        prepared.root.rename(base)
    versions = [Version("after", sys.executable, REPO)]
    if args.before_python:
        versions.append(Version("before", args.before_python, package_checkout(args.before_python)))
    report: dict[str, Any] = {"machine": {"cores": os.cpu_count(), "load_start": os.getloadavg()[0]}, "scales": {}}
    for scale in (int(s) for s in args.scales.split(",")):
        root = make_corpus(scale, base, workdir)
        common, rare = pick_literals(root, rg)
        row: dict[str, Any] = {"files": file_count(root), "common": common, "rare": rare}
        row["baselines"] = baselines(root, rg, common, rare)
        for version in versions:
            if version.label == "before" and str(scale) not in args.before_scales.split(","):
                continue
            print(f"[x{scale}] {version.label} ...", file=sys.stderr, flush=True)
            index_dir = workdir / f"idx-{version.label}-x{scale}"
            cold = args.server_cold_scales is None or str(scale) in args.server_cold_scales.split(",")
            row[version.label] = measure(version, root, index_dir, (common, rare), args.edits, server_cold=cold)
            row[version.label]["load"] = round(os.getloadavg()[0], 2)
        report["scales"][str(scale)] = row
        print(json.dumps({str(scale): row}, indent=1), flush=True)
    report["machine"]["load_end"] = os.getloadavg()[0]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1))
    print_tables(report)
    return 0


def print_tables(report: dict[str, Any]) -> None:
    keys = [
        ("cold index s", lambda f: f["cold_index_s"]),
        ("cold peak RSS MB", lambda f: f["cold_peak_rss_mb"]),
        ("warm `maguyva search` s", lambda f: f["warm_search_s"]),
        ("warm search RSS MB", lambda f: f["warm_search_rss_mb"]),
        ("server warm restart s", lambda f: f["server_warm"].get("ready_s")),
        ("server cold: text+structural s", lambda f: f["server_cold"].get("text_structural_s")),
        ("server cold ready s", lambda f: f["server_cold"].get("ready_s")),
        ("steady server RSS MB", lambda f: f["server_warm"].get("steady_rss_mb")),
        ("steady server RSS after a cold index MB", lambda f: f["server_cold"].get("steady_rss_mb")),
        ("index on disk MB", lambda f: f["disk_mb"]),
        ("save→searchable p50 ms", lambda f: f["server_warm"].get("save_p50_ms")),
        ("save→searchable p95 ms", lambda f: f["server_warm"].get("save_p95_ms")),
        ("common literal p50 ms (LSP)", lambda f: f["server_warm"].get("common_literal_p50_ms")),
        ("rare literal p50 ms (LSP)", lambda f: f["server_warm"].get("rare_literal_p50_ms")),
    ]  # fmt: skip
    for scale, row in report["scales"].items():
        labels = [v for v in ("before", "after") if v in row]
        print(f"\n### stdlib x{scale}: {row['files']} files (common {row['common']!r}, rare {row['rare']!r})")
        print("| what | " + " | ".join(labels) + " |")
        print("|---|" + "---|" * len(labels))
        for name, get in keys:
            cells = []
            for label in labels:
                try:
                    cells.append(str(get(row[label])))
                except (KeyError, TypeError):
                    cells.append("—")
            print(f"| {name} | " + " | ".join(cells) + " |")
        b = row["baselines"]
        rg = f"{b['rg_definition_s']} / {b['rg_common_s']} / {b['rg_rare_s']}"
        print(f"| ripgrep (definition / common / rare) s | {rg} |")
        print(f"| ctags -R s (tags MB) | {b['ctags_s']} ({b['ctags_tags_mb']}) |")
    print_curve(report)


def print_curve(report: dict[str, Any]) -> None:
    """The scale curve of this checkout: each scale's cold index against the 1× one (the brief: at most the scale's
    multiple), warm open and steady RSS."""
    rows = report["scales"]
    if "1" not in rows or len(rows) < 2 or "after" not in rows["1"]:
        return
    one = rows["1"]["after"]["cold_index_s"]
    print("\n### scale curve (after)")
    print("| scale | files | cold index s | × of 1× | warm search s | server warm restart s | steady RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for scale, row in rows.items():
        f = row.get("after")
        if f is None:
            continue
        ratio = round(f["cold_index_s"] / one, 2) if one else None
        warm = f["server_warm"]
        print(
            f"| {scale}× | {row['files']} | {f['cold_index_s']} | {ratio} | {f['warm_search_s']} | "
            f"{warm.get('ready_s')} | {warm.get('steady_rss_mb')} |"
        )


if __name__ == "__main__":
    sys.exit(main())

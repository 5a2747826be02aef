"""Cold and warm indexing, each in a child process of its own so that its peak memory is its own: time, files/s, MB/s,
peak RSS (the indexing process, and the whole process tree with its analysis workers, sampled), size on disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from benchmarks.corpus import Corpus

REPO = Path(__file__).resolve().parent.parent
RSS_SAMPLE_SECONDS = 0.1
MB = 1e6


@dataclass(frozen=True, slots=True)
class IndexRun:
    """One indexing run as its child process reported it, plus what the parent observed."""

    kind: str  # "cold" or "warm"
    figures: dict[str, Any]
    tree_peak_rss: int
    process_seconds: float  # the child's whole life: interpreter start, imports, index, save

    def to_json(self) -> dict[str, Any]:
        return {
            **self.figures,
            # sampled: a peak between two samples is missed, so never below the indexing process's own exact peak
            "tree_peak_rss_mb": round(max(self.tree_peak_rss / MB, self.figures.get("peak_rss_mb", 0.0)), 1),
            "process_seconds": round(self.process_seconds, 2),
        }


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def tree_rss(process: psutil.Process) -> int:
    """Resident memory of a process and all its descendants (members that end meanwhile count nothing)."""
    total = 0
    for member in [process, *process.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total


@dataclass(frozen=True, slots=True)
class SampledRun:
    seconds: float  # wall time
    peak_rss: int  # of the process tree, sampled
    returncode: int
    stdout: str
    stderr: str


def run_sampled(
    command: Sequence[str], cwd: Path, *, sample_seconds: float, env: Mapping[str, str] | None = None
) -> SampledRun:
    """Run a command to its end, sampling its process tree's resident memory every `sample_seconds`."""
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watched = psutil.Process(child.pid)
    peak = 0
    while child.poll() is None:
        with contextlib.suppress(psutil.Error):
            peak = max(peak, tree_rss(watched))
        time.sleep(sample_seconds)
    stdout, stderr = child.communicate()
    return SampledRun(time.perf_counter() - started, peak, child.returncode, stdout, stderr)


def run_index_child(kind: str, corpus: Corpus, index_dir: Path) -> IndexRun:
    """Index the corpus in a fresh interpreter (warm when `index_dir` already holds a store)."""
    command = [sys.executable, "-m", "benchmarks.index_speed", str(corpus.root), str(index_dir), *corpus.excludes]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = run_sampled(command, REPO, sample_seconds=RSS_SAMPLE_SECONDS, env=env)
    if run.returncode != 0:
        raise RuntimeError(f"{kind} index child failed ({run.returncode}): {run.stderr[-2000:]}")
    figures: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    figures["kind"] = kind
    figures["index_dir_mb"] = round(folder_bytes(index_dir) / MB, 1)
    return IndexRun(kind, figures, run.peak_rss, run.seconds)


def _peak_rss_bytes() -> int:
    """This process's peak resident memory (Linux VmHWM; a fresh exec starts its own mark)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _child(root: Path, index_dir: Path, excludes: tuple[str, ...]) -> None:
    """In the child: open the engine, index, close (the store is flushed), print the figures as one JSON line."""
    from maguyva_lsp.config import DEFAULT_MAX_FILE_SIZE, Settings
    from maguyva_lsp.engine import Engine
    from maguyva_lsp.scan.walker import WorkspaceScanner

    imported = _peak_rss_bytes()
    started = time.perf_counter()
    engine = Engine(root, Settings(exclude=excludes, index_dir=str(index_dir)), persist=True)
    opened = time.perf_counter()
    counters = engine.index()
    indexed = time.perf_counter()
    status = engine.status()
    scanned = WorkspaceScanner(root, max_file_size=DEFAULT_MAX_FILE_SIZE, exclude=excludes).scan().files
    sizes = [a.file.size for f in scanned if (a := engine.analysis(f.path)) is not None]  # bytes actually indexed
    engine.close()
    closed = time.perf_counter()
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_seconds = own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime
    total_bytes = sum(sizes)
    index_seconds = indexed - started
    print(
        json.dumps(
            {
                "files": status["files"],
                "chunks": status["chunks"],
                "symbols": status["symbols"],
                "edges": status["edges"],
                "bytes": total_bytes,
                "analyzed": counters.analyzed,
                "reused": counters.reused,
                "skipped": counters.skipped,
                "open_seconds": round(opened - started, 3),
                "index_seconds": round(index_seconds, 3),
                "close_seconds": round(closed - indexed, 3),
                "cpu_seconds": round(cpu_seconds, 1),
                "files_per_s": round(status["files"] / index_seconds, 1),
                "mb_per_s": round(total_bytes / MB / index_seconds, 2),
                "peak_rss_mb": round(_peak_rss_bytes() / MB, 1),
                "rss_after_imports_mb": round(imported / MB, 1),
            }
        )
    )


if __name__ == "__main__":
    _child(Path(sys.argv[1]), Path(sys.argv[2]), tuple(sys.argv[3:]))

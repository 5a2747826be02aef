"""Benchmark analyze_file (parse, tags, chunks) over a source tree, the CPython stdlib by default, on one core.

    .venv/bin/python benchmarks/bench_parse.py [--root DIR] [--limit N] [--profile] [--ctags]

`--ctags` also compares the Python functions, classes and methods found with universal-ctags' (an independent tool).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import shutil
import subprocess
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

from maguyva_lsp.model import FileAnalysis, PathClass, SourceFile
from maguyva_lsp.parse.analyze import analyze_file, is_binary
from maguyva_lsp.parse.languages import language_for_path, parser_for

BENCH_LANGUAGES = frozenset({"python", "c", "cpp"})
SKIP_DIRS = frozenset({"__pycache__", "site-packages", ".git"})
PROFILE_TOP = 25
CTAGS_KINDS = {"function": "function", "class": "class", "member": "method"}


def collect(root: Path, limit: int | None) -> list[tuple[str, str, str]]:
    """(relative path, absolute path, language) of every benchmarked file, in a stable order."""
    found: list[tuple[str, str, str]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            language = language_for_path(name)
            if language in BENCH_LANGUAGES:
                absolute = os.path.join(folder, name)
                found.append((os.path.relpath(absolute, root), absolute, language))
    return found[:limit] if limit else found


def run(files: list[tuple[str, str, str]]) -> tuple[list[FileAnalysis], int, float]:
    """Analyse every file; returns the analyses, the bytes read and the CPU seconds spent in analyze_file.

    CPU time (not wall time) so that other processes on a shared machine do not skew the figures.
    """
    analyses: list[FileAnalysis] = []
    total_bytes = 0
    elapsed = 0.0
    for rel, absolute, language in files:
        data = Path(absolute).read_bytes()
        if is_binary(data):
            continue
        total_bytes += len(data)
        source = SourceFile(rel, absolute, language, PathClass.SOURCE, len(data), 0)
        start = time.process_time()
        analyses.append(analyze_file(source, data))
        elapsed += time.process_time() - start
    return analyses, total_bytes, elapsed


def parse_only(files: list[tuple[str, str, str]]) -> float:
    """Seconds tree-sitter alone takes to parse the same files (the floor under analyze_file)."""
    elapsed = 0.0
    for _, absolute, language in files:
        data = Path(absolute).read_bytes()
        parser = parser_for(language)
        if parser is None or is_binary(data):
            continue
        start = time.process_time()
        parser.parse(data)
        elapsed += time.process_time() - start
    return elapsed


def check_partition(analyses: list[FileAnalysis]) -> int:
    """Files whose chunks overlap or miss a non-blank line (should be 0)."""
    bad = 0
    for analysis in analyses:
        lines = analysis.text.split("\n")
        covered: set[int] = set()
        last_end = -1
        ok = True
        for chunk in analysis.chunks:
            ok &= chunk.start_line > last_end
            last_end = chunk.end_line
            covered.update(range(chunk.start_line, chunk.end_line + 1))
        ok &= all(i in covered for i, line in enumerate(lines) if line.strip())
        bad += not ok
    return bad


def ctags_agreement(root: Path, analyses: list[FileAnalysis]) -> None:
    """Recall and precision of our Python (kind, qualified name, line) against universal-ctags."""
    ctags = shutil.which("ctags")
    if ctags is None:
        print("ctags: not installed")
        return
    python = {a.path for a in analyses if a.file.language == "python" and a.parse_error is None}
    ours = {
        (a.path, d.kind, d.qualified_name, d.name_span.start_line)
        for a in analyses
        if a.path in python
        for d in a.definitions
        if d.kind in ("function", "class", "method")
    }
    result = subprocess.run(
        [ctags, "-R", "--languages=Python", "--output-format=json", "--fields=+nKZ", "-f", "-", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    theirs = set()
    for line in result.stdout.splitlines():
        tag = json.loads(line)
        path = tag.get("path", "").removeprefix("./")
        if tag.get("_type") == "tag" and tag.get("kind") in CTAGS_KINDS and path in python:
            name = f"{tag['scope']}.{tag['name']}" if tag.get("scope") else tag["name"]
            theirs.add((path, CTAGS_KINDS[tag["kind"]], name, tag["line"] - 1))
    both = len(ours & theirs)
    print(f"ctags agreement (python function/class/method, name + scope + kind + line): {both} shared")
    print(f"  recall    {both / max(1, len(theirs)):.4f}  ({len(theirs)} ctags tags)")
    print(f"  precision {both / max(1, len(ours)):.4f}  ({len(ours)} ours)")
    for sample in sorted(theirs - ours)[:5]:
        print("  only ctags:", sample)
    for sample in sorted(ours - theirs)[:5]:
        print("  only ours: ", sample)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--profile", action="store_true", help="print the hottest functions (cProfile)")
    parser.add_argument("--ctags", action="store_true", help="compare Python definitions with universal-ctags")
    args = parser.parse_args()

    files = collect(args.root, args.limit)
    print(f"corpus: {args.root} ({len(files)} files: {dict(Counter(lang for _, _, lang in files))})")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, one thread")
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    analyses, total_bytes, elapsed = run(files)
    if profiler is not None:
        profiler.disable()

    definitions = sum(len(a.definitions) for a in analyses)
    chunks = sum(len(a.chunks) for a in analyses)
    errors = [a.path for a in analyses if a.parse_error]
    kinds = Counter(d.kind for a in analyses for d in a.definitions)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"files        {len(analyses)} ({total_bytes / 1e6:.1f} MB) in {elapsed:.2f} CPU s")
    print(f"files/s      {len(analyses) / elapsed:.0f}")
    print(f"MB/s         {total_bytes / 1e6 / elapsed:.2f}")
    print(f"definitions  {definitions} {dict(kinds.most_common())}")
    print(f"chunks       {chunks} ({sum(1 for a in analyses for c in a.chunks if c.symbol)} of definitions)")
    print(f"parse errors {len(errors)} {errors[:5]}")
    print(f"bad chunking {check_partition(analyses)} files")
    print(f"peak RSS     {peak_mb:.0f} MB")
    parse_seconds = parse_only(files)
    print(f"tree-sitter parse alone: {parse_seconds:.2f} s ({parse_seconds / elapsed:.0%} of analyze_file)")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(PROFILE_TOP)
    if args.ctags:
        ctags_agreement(args.root, analyses)


if __name__ == "__main__":
    main()

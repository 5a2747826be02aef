"""Definition lookup on the CPython stdlib against universal-ctags as ground truth, plus type-ahead latency.

    .venv/bin/python benchmarks/bench_definitions.py [--sample 500] [--seed 7] [--root PATH]

Hit rates (query = the sampled ctags function/class/method; a result's location is its file and the line of its
name, 1-based like ctags):
  name@1    the first result is one of ctags' function/class/method locations of that name (any of them: a name
            defined in several places has several right answers to the bare-name question)
  loc@1/@5  the sampled location itself is first / in the top 5 for the bare name
  unique@1  loc@1 over the sampled names that ctags defines exactly once (there the bare name has one answer)
  qual@1/@5 the sampled location is first / in the top 5 for its qualified name: `Class.method` from ctags' scope,
            `package.module.func` for a module-level definition
  qual_any@1 the first result for the qualified query is one of the ctags locations with that same qualified name
            (conditional definitions, `if ...: def f` / `else: def f`, share one qualified name)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections import defaultdict
from pathlib import Path

import psutil

from maguyva_lsp.index.symbol_query import module_of
from maguyva_lsp.index.symbols import SymbolTable
from maguyva_lsp.model import ChangeBatch, Classification, FileAnalysis, Intent, RetrievalQuery, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.retrieve.structural import StructuralRetriever
from maguyva_lsp.scan.classify import classify_path

sys.path.insert(0, str(Path(__file__).parent))
from corpus import stdlib_root

CTAGS = "/usr/bin/ctags"
EXCLUDED_DIRS = ("site-packages", "dist-packages", "__pycache__")
CTAGS_KINDS = ("class", "function", "member")  # member: ctags' name for a method
TOP_K = 5
TYPEAHEAD_NAMES = 300  # names whose every prefix is typed, keystroke by keystroke
TYPEAHEAD_MAX_CHARS = 14
TYPEAHEAD_LIMITS = (20, 100)  # results asked per keystroke
Location = tuple[str, int]  # (path, 1-based line of the name)


def python_files(root: Path) -> list[SourceFile]:
    out: list[SourceFile] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_DIRS)
        for name in sorted(files):
            if name.endswith(".py"):
                abs_path = os.path.join(folder, name)
                rel = os.path.relpath(abs_path, root).replace(os.sep, "/")
                st = os.stat(abs_path)
                out.append(SourceFile(rel, abs_path, "python", classify_path(rel), st.st_size, st.st_mtime_ns))
    return out


def ctags_definitions(root: Path) -> list[dict[str, object]]:
    """Universal-ctags' class/function/method tags of the same files."""
    command = [CTAGS, "-R", "--languages=Python", "--fields=+nKs", "--output-format=json", "-f", "-"]
    command += [f"--exclude={d}" for d in EXCLUDED_DIRS] + ["."]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
    tags = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [t for t in tags if t.get("_type") == "tag" and t.get("kind") in CTAGS_KINDS]


def qualified_query(tag: dict[str, object]) -> str:
    path, name, scope = str(tag["path"]).removeprefix("./"), str(tag["name"]), tag.get("scope")
    return f"{scope}.{name}" if scope else f"{module_of(path)}.{name}"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=stdlib_root())
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    root: Path = args.root.resolve()
    process = psutil.Process()

    files = python_files(root)
    t0 = time.perf_counter()
    analyses: list[FileAnalysis] = [analyze_file(f, Path(f.abs_path).read_bytes()) for f in files]
    t_analyze = time.perf_counter() - t0
    rss_before = process.memory_info().rss
    retriever = StructuralRetriever()
    t0 = time.perf_counter()
    retriever.apply(ChangeBatch(updated=tuple(analyses)))
    t_index = time.perf_counter() - t0
    rss_index = process.memory_info().rss - rss_before
    stats = retriever.table.stats()
    size_mb = sum(f.size for f in files) / 1e6
    print(f"corpus: {root} ({len(files)} .py files, {size_mb:.1f} MB)")
    print(f"analyze_file: {t_analyze:.1f} s ({len(files) / t_analyze:.0f} files/s); definitions {stats['definitions']}")
    print(f"index build (symbols + mentions): {t_index * 1000:.0f} ms; RSS growth {rss_index / 1e6:.0f} MB; {stats}")

    # The symbol table's own size, measured precisely: a second build of the same definitions under tracemalloc.
    table_input = [(a.path, a.definitions, a.file.path_class) for a in analyses]
    tracemalloc.start()
    second = SymbolTable()
    second.apply(table_input)
    table_bytes = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del second, table_input
    print(f"symbol table size (tracemalloc, definitions themselves excluded): {table_bytes / 1e6:.0f} MB")

    # Where each result is: a definition's name line, found from its (path, span); a mention's own line.
    name_line: dict[tuple[str, int, int], int] = {}
    for analysis in analyses:
        for d in analysis.definitions:
            name_line[(d.path, d.span.start_line, d.span.start_col)] = d.name_span.start_line + 1
    del analyses

    tags = ctags_definitions(root)
    by_name: dict[str, set[Location]] = defaultdict(set)
    by_qualified: dict[str, set[Location]] = defaultdict(set)
    for tag in tags:
        loc = (str(tag["path"]).removeprefix("./"), int(str(tag["line"])))
        by_name[str(tag["name"])].add(loc)
        by_qualified[qualified_query(tag)].add(loc)
    unique_tags = list({(str(t["path"]), int(str(t["line"]))): t for t in tags}.values())
    sample = random.Random(args.seed).sample(unique_tags, min(args.sample, len(unique_tags)))
    print(f"ctags: {len(tags)} class/function/method tags; sample {len(sample)} (seed {args.seed})")

    def ranked(target: str) -> list[Location]:
        classification = Classification(target, Intent.FIND_DEFINITION, 0.8, "bench", target)
        hits = retriever.search(RetrievalQuery(classification), TOP_K)
        return [
            (h.path, name_line.get((h.path, h.span.start_line, h.span.start_col), h.span.start_line + 1)) for h in hits
        ]

    counts: dict[str, int] = defaultdict(int)
    unique_total = 0
    misses: list[str] = []
    lookup_ms: list[float] = []
    for tag in sample:
        name = str(tag["name"])
        loc = (str(tag["path"]).removeprefix("./"), int(str(tag["line"])))
        t0 = time.perf_counter()
        bare = ranked(name)
        lookup_ms.append((time.perf_counter() - t0) * 1000)
        qualified = qualified_query(tag)
        qual = ranked(qualified)
        counts["name@1"] += bool(bare) and bare[0] in by_name[name]
        counts["loc@1"] += bool(bare) and bare[0] == loc
        counts["loc@5"] += loc in bare
        if len(by_name[name]) == 1:
            unique_total += 1
            counts["unique@1"] += bool(bare) and bare[0] == loc
        counts["qual@1"] += bool(qual) and qual[0] == loc
        counts["qual@5"] += loc in qual
        counts["qual_any@1"] += bool(qual) and qual[0] in by_qualified[qualified]
        if not (qual and qual[0] in by_qualified[qualified]):
            misses.append(f"  {qualified!r} at {loc[0]}:{loc[1]} → {qual[:2]}")
    n = len(sample)
    for key in ("name@1", "loc@1", "loc@5", "qual@1", "qual@5", "qual_any@1"):
        print(f"{key:>10}: {counts[key] / n:.3f} ({counts[key]}/{n})")
    print(f"{'unique@1':>10}: {counts['unique@1'] / max(unique_total, 1):.3f} ({counts['unique@1']}/{unique_total})")
    p50, p95 = percentile(lookup_ms, 0.5), percentile(lookup_ms, 0.95)
    print(f"retriever.search by bare name (limit {TOP_K}): wall p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    if misses:
        print(f"qualified misses ({len(misses)}), first 15:")
        print("\n".join(misses[:15]))

    # Type-ahead: every prefix of a sample of names, as typed, and each name with its vowels dropped (fuzzy path).
    rng = random.Random(args.seed + 1)
    names = rng.sample(sorted(by_name), min(TYPEAHEAD_NAMES, len(by_name)))
    table = retriever.table
    typed = [name[:i] for name in names for i in range(1, min(len(name), TYPEAHEAD_MAX_CHARS) + 1)]
    sloppy = [name[0] + "".join(c for c in name[1:] if c.lower() not in "aeiou_") for name in names]
    for label, queries in (("type-ahead prefixes", typed), ("vowel-dropped (fuzzy)", sloppy)):
        for limit in TYPEAHEAD_LIMITS:
            wall: list[float] = []
            cpu: list[float] = []
            for q in queries:
                t0, c0 = time.perf_counter(), time.thread_time()
                table.workspace_symbols(q, limit)
                cpu.append((time.thread_time() - c0) * 1000)
                wall.append((time.perf_counter() - t0) * 1000)
            print(
                f"workspace_symbols {label}, limit {limit}: {len(wall)} queries; wall p50 {statistics.median(wall):.2f}"
                f" p95 {percentile(wall, 0.95):.2f} max {max(wall):.1f} ms; CPU p50 {statistics.median(cpu):.2f}"
                f" p95 {percentile(cpu, 0.95):.2f} ms"
            )
    found = sum(
        1 for q, name in zip(sloppy, names, strict=True) if any(d.name == name for d in table.workspace_symbols(q, 20))
    )
    print(f"vowel-dropped queries whose name is in the top 20: {found}/{len(names)}")
    questions_path = Path(__file__).parent / "data" / "stdlib_questions.json"
    if questions_path.exists() and root == stdlib_root():
        natural_language(retriever, json.loads(questions_path.read_text())["questions"])


def natural_language(retriever: StructuralRetriever, questions: list[dict[str, object]]) -> None:
    """The hand-written stdlib questions by sub-word overlap alone; answered: a top-10 hit is in one of its files."""
    answered, times = 0, []
    for item in questions:
        text = str(item["q"])
        classification = Classification(text, Intent.UNDERSTAND_CODE, 0.75, "bench", text)
        t0 = time.perf_counter()
        hits = retriever.search(RetrievalQuery(classification), 10)
        times.append((time.perf_counter() - t0) * 1000)
        wanted = set(item["files"]) if isinstance(item["files"], list) else set()
        answered += any(h.path in wanted for h in hits)
    print(
        f"natural-language questions answered in the top 10 (structural alone): {answered}/{len(questions)}; "
        f"p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 0.95):.1f} ms"
    )


if __name__ == "__main__":
    main()

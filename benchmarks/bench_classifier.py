"""Cost of the intent classifier per query: mean and p95 over several hundred varied queries built from the CPython
stdlib (its function and class names in every phrasing the classifier knows, the hand-written questions of
data/stdlib_questions.json, and pasted lines and snippets of stdlib code).

    .venv/bin/python benchmarks/bench_classifier.py [--rounds 20] [--seed 7] [--json]
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import platform
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from maguyva_lsp.query.intent import classify

sys.path.insert(0, str(Path(__file__).parent))
from corpus import stdlib_python_files

SOURCE_FILES = 80  # stdlib files sampled for names and snippets
NAMES = 40  # names placed in each template
SNIPPETS = 60  # pasted multi-line snippets
CODE_LINES = 60  # pasted single lines
MAX_SNIPPET_LINES = 15
QUESTIONS_FILE = Path(__file__).parent / "data" / "stdlib_questions.json"

# Phrasings of each kind; `{}` is a stdlib name.
TEMPLATES = (
    "def {}",
    "class {}",
    "where is {} defined",
    "definition of {}",
    "who calls {}",
    "usages of {}",
    "where is {} used",
    "references to {}",
    "impact of changing {}",
    "what breaks if I change {}",
    "blast radius of {}",
    "what depends on {}",
    '"{}"',
    "{}",
    "{} function",
    "how does {} work",
)
FIXED_QUERIES = (
    "ECONNREFUSED",
    "ENOENT: no such file or directory",
    "KeyError: 'user_id'",
    "traceback",
    "segfault in the parser",
    "RuntimeError: dictionary changed size during iteration",
    "find the string connection reset",
    "grep TODO",
    "architecture of the import system",
    "why is the lock released twice",
    "authentication middleware",
    "Config",
)


def harvest(files: list[Path], rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    """Function/class names, multi-line snippets and single code lines from the sampled files."""
    names: set[str] = set()
    snippets: list[str] = []
    lines: list[str] = []
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        names.update(n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef))
        text_lines = source.splitlines()
        if len(text_lines) > MAX_SNIPPET_LINES:
            start = rng.randrange(len(text_lines) - MAX_SNIPPET_LINES)
            snippets.append("\n".join(text_lines[start : start + rng.randint(2, MAX_SNIPPET_LINES)]))
        code = [ln.strip() for ln in text_lines if len(ln.strip()) > 12 and not ln.strip().startswith("#")]
        if code:
            lines.append(rng.choice(code))
    return sorted(names), snippets, lines


def build_queries(seed: int) -> list[str]:
    rng = random.Random(seed)
    files = stdlib_python_files()
    names, snippets, lines = harvest(rng.sample(files, min(SOURCE_FILES, len(files))), rng)
    chosen = rng.sample(names, min(NAMES, len(names)))
    queries = [template.format(name) for template in TEMPLATES for name in chosen]
    questions = json.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))["questions"]
    queries.extend(q["q"] for q in questions)
    queries.extend(snippets[:SNIPPETS])
    queries.extend(lines[:CODE_LINES])
    queries.extend(FIXED_QUERIES)
    return queries


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(queries: list[str], rounds: int) -> dict[str, object]:
    """Classify every query `rounds` times; per-query cost is its median over the rounds (µs), summarised."""
    rules = {q: classify(q).rule for q in queries}  # also the warm-up pass
    samples: dict[str, list[float]] = defaultdict(list)
    clock = time.perf_counter_ns
    gc.disable()  # a collection landing in one call is not that query's cost
    try:
        for _ in range(rounds):
            for query in queries:
                started = clock()
                classify(query)
                samples[query].append((clock() - started) / 1000)
    finally:
        gc.enable()
    # A query's cost is its median over the rounds: other processes on the machine preempt single calls.
    cost = {q: statistics.median(values) for q, values in samples.items()}
    timings = list(cost.values())
    by_rule: dict[str, list[float]] = defaultdict(list)
    for query, us in cost.items():
        by_rule[rules[query]].append(us)
    return {
        "queries": len(cost),
        "rounds": rounds,
        "mean_us": round(statistics.fmean(timings), 2),
        "p50_us": round(percentile(timings, 0.50), 2),
        "p95_us": round(percentile(timings, 0.95), 2),
        "max_us": round(max(timings), 2),
        "by_rule": {
            rule: {
                "queries": len(values),
                "mean_us": round(statistics.fmean(values), 2),
                "p95_us": round(percentile(values, 0.95), 2),
            }
            for rule, values in sorted(by_rule.items())
        },
        "intents": dict(Counter(classify(q).intent.value for q in cost).most_common()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20, help="timed passes over all queries")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    queries = build_queries(args.seed)
    figures: dict[str, Any] = {
        "machine": f"{platform.processor() or platform.machine()}, Python {platform.python_version()}",
        **measure(queries, args.rounds),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{figures['queries']} queries × {args.rounds} rounds on {figures['machine']}")
    print(
        f"classify: mean {figures['mean_us']} µs, p50 {figures['p50_us']} µs, p95 {figures['p95_us']} µs, "
        f"max {figures['max_us']} µs per query (each query's median over the rounds)"
    )
    for rule, row in figures["by_rule"].items():
        print(f"  {rule:<20} {row['queries']:>4} queries  mean {row['mean_us']:>7} µs  p95 {row['p95_us']:>7} µs")
    print("intents:", ", ".join(f"{k} {v}" for k, v in figures["intents"].items()))


if __name__ == "__main__":
    main()

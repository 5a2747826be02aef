"""Pasted error lines on code we did not write and the dev set does not hold: installed packages' raise and logging
sites rendered as a terminal or a log prints them (values filled in for every dynamic part), asked of the engine.

Each package is copied to a scratch folder and indexed; every `raise Name("…")` / f-string / %-format / .format
message and every `log.error("…", …)` call becomes one question per form, gold = the line the message starts on
(±3 lines, as the dev set scores). Forms: `Name: message`, `module.Name: message`, a traceback naming the site's
file and function, `error: message`, and log lines (timestamp + level + logger, Python logging's `LEVEL:logger:msg`).

    .venv/bin/python benchmarks/bench_pasted.py [--package click --package httpx ...] [--per-package 60] [--json OUT]
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine

sys.path.insert(0, str(Path(__file__).parent))
from intent_corpus import _LOG_METHODS, _error_name, _good_message, logging_call, render_log_message, render_message

DEFAULT_PACKAGES = ("click", "httpx", "requests", "watchdog", "pygls", "jedi")
FORMS = ("name", "qualified", "traceback", "prefix", "log", "pylog")


def _site_packages() -> Path:
    return next(Path(p) for p in sys.path if p.endswith("site-packages"))


def questions(root: Path, package: str, per_package: int, rng: random.Random) -> list[dict[str, Any]]:
    """(query, form, gold) for the package's raise and logging sites."""
    out: list[dict[str, Any]] = []
    sites: dict[tuple[str, str], list[tuple[str, int]]] = {}
    files = sorted(root.rglob("*.py"))
    rng.shuffle(files)
    for path in files:
        rel = path.relative_to(root).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        module = rel.removesuffix(".py").replace("/", ".")
        functions = {n.lineno: n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                name = _error_name(node.exc.func)
                message = render_message(node.exc.args[0], rng)
                if not (name and message and _good_message(message)):
                    continue
                line = node.exc.args[0].lineno
                sites.setdefault((name, ast.unparse(node.exc.args[0])), []).append((rel, line))
                function = next((functions[k] for k in sorted(functions, reverse=True) if k <= node.lineno), "f")
                key = (name, ast.unparse(node.exc.args[0]))
                out.append({"form": "name", "query": f"{name}: {message}", "key": key})
                out.append({"form": "qualified", "query": f"{module}.{name}: {message}", "key": key})
                trace = (
                    "Traceback (most recent call last):\n"
                    '  File "/home/u/app/main.py", line 12, in <module>\n    main()\n'
                    f'  File "/usr/lib/python3/site-packages/{package}/{rel}", line {node.lineno}, in {function}\n'
                    f"    raise {name}(...)\n{name}: {message}"
                )
                out.append({"form": "traceback", "query": trace, "key": key})
                out.append({"form": "prefix", "query": f"error: {message}", "key": key})
            elif isinstance(node, ast.Call) and logging_call(node):
                assert isinstance(node.func, ast.Attribute)
                filled = render_log_message(node, rng)
                if not (filled and _good_message(filled)):
                    continue
                level = _LOG_METHODS[node.func.attr]
                key = ("log", ast.unparse(node.args[0]))
                sites.setdefault(key, []).append((rel, node.args[0].lineno))
                gold = key
                out.append(
                    {
                        "form": "log",
                        "query": f"2024-05-01 12:00:01,234 {level} {package}.{module}: {filled}",
                        "key": gold,
                    }
                )
                out.append({"form": "pylog", "query": f"{level}:{package}.{module}:{filled}", "key": gold})
    for q in out:  # the same message raised in several places: each of them answers
        q["gold"] = sites[q.pop("key")]
    by_form: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in out:
        by_form[q["form"]].append(q)
    picked: list[dict[str, Any]] = []
    for form in FORMS:
        items = by_form.get(form, [])
        rng.shuffle(items)
        picked.extend(items[:per_package])
    return picked


def reciprocal_rank(results: list[tuple[str, int, int]], gold: list[tuple[str, int]]) -> float:
    for rank, (path, first, last) in enumerate(results[:10]):
        if any(path == p and (first <= line <= last or abs(first - line) <= 3) for p, line in gold):
            return 1.0 / (rank + 1)
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", action="append", help="an installed package (repeatable)")
    parser.add_argument("--per-package", type=int, default=40, help="questions per form and package")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    site = _site_packages()
    scores: dict[str, list[float]] = defaultdict(list)
    latency: list[float] = []
    misses: list[dict[str, Any]] = []
    intents: dict[str, int] = defaultdict(int)
    with tempfile.TemporaryDirectory(prefix="maguyva-pasted-") as scratch:
        for package in args.package or DEFAULT_PACKAGES:
            source = site / package
            if not source.is_dir():
                print(f"[{package}] not installed, skipped")
                continue
            root = Path(scratch) / package
            shutil.copytree(source, root, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
            asked = questions(root, package, args.per_package, rng)
            engine = Engine(root, Settings(index_dir=str(Path(scratch) / f"{package}.index")))
            engine.index()
            for q in asked:
                started = time.perf_counter()
                response = engine.search(q["query"], "standard", 20)
                latency.append((time.perf_counter() - started) * 1000)
                intents[response.classification.intent.value] += 1
                results = [(r.path, r.span.start_line + 1, r.span.end_line + 1) for r in response.results]
                rr = reciprocal_rank(results, q["gold"])
                scores[q["form"]].append(rr)
                scores["all"].append(rr)
                if rr == 0 and len(misses) < 40:
                    misses.append(
                        {
                            "package": package,
                            "form": q["form"],
                            "query": q["query"][-160:],
                            "gold": q["gold"],
                            "top": results[:2],
                        }
                    )
            engine.close()
            print(f"[{package}] {len(asked)} questions")
    print(f"\n{'form':<10} {'n':>5}  lMRR")
    for form in (*FORMS, "all"):
        if scores.get(form):
            print(f"{form:<10} {len(scores[form]):>5}  {statistics.fmean(scores[form]):.3f}")
    latency.sort()
    if latency:
        print(f"latency p50 {latency[len(latency) // 2]:.1f} ms, p95 {latency[int(0.95 * len(latency))]:.1f} ms")
    print("intents:", dict(intents))
    for miss in misses[:15]:
        print("  miss", miss["package"], miss["form"], repr(miss["query"][-100:]), miss["gold"], miss["top"])
    if args.json:
        figures = {f: statistics.fmean(v) for f, v in scores.items()}
        args.json.write_text(json.dumps({"lmrr": figures, "misses": misses}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

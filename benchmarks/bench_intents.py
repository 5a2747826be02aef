"""The intent classifier on a labelled corpus from sources we do not write (benchmarks/intent_corpus.py): accuracy
overall, per family and per source (with its confusion matrix), on the repositories held out from tuning and on the
rest, the precision of every rule that routes confidently (≥ 0.85), and the cost per query.

    .venv/bin/python benchmarks/bench_intents.py [--seed 13] [--json OUT] [--misses N] [--fixed]

`--fixed` reports the test suite's sample instead (benchmarks/intent_fixed.py: only sources fixed for a checkout and
interpreter, the same on every machine), the figures tests/benchmarks/test_intent_corpus.py gates on.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from maguyva_lsp.model import Intent
from maguyva_lsp.query.intent import classify
from maguyva_lsp.query.routing import DIRECT_CONFIDENCE

sys.path.insert(0, str(Path(__file__).parent))
from intent_corpus import Labelled, build_corpus
from intent_fixed import build_fixed_corpus

# A rule that routes confidently must be right at least this often on the corpus (issue 13).
CONFIDENT_RULE_PRECISION = 0.98
INTENTS = [i.value for i in Intent]
SHORT = {
    "find_definition": "def",
    "find_references": "refs",
    "impact_analysis": "impact",
    "exact_match": "exact",
    "understand_code": "underst",
    "find_similar": "similar",
}


def evaluate(corpus: list[Labelled]) -> dict[str, Any]:
    rows = []
    for item in corpus:
        c = classify(item.query)
        rows.append((item, c.intent.value, c.confidence, c.rule))

    def accuracy(selected: list[tuple[Labelled, str, float, str]]) -> float:
        return round(sum(1 for it, got, _, _ in selected if got == it.intent) / len(selected), 4) if selected else 0.0

    by_source: dict[str, list[tuple[Labelled, str, float, str]]] = defaultdict(list)
    by_family: dict[str, list[tuple[Labelled, str, float, str]]] = defaultdict(list)
    rules: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        by_source[row[0].source].append(row)
        by_family[row[0].intent].append(row)
        if row[2] >= DIRECT_CONFIDENCE:
            rules[row[3]]["right" if row[1] == row[0].intent else "wrong"] += 1
    confident = [r for r in rows if r[2] >= DIRECT_CONFIDENCE]
    return {
        "queries": len(rows),
        "accuracy": accuracy(rows),
        "held_out": {
            "queries": sum(1 for r in rows if r[0].held_out),
            "accuracy": accuracy([r for r in rows if r[0].held_out]),
        },
        "train": {
            "queries": sum(1 for r in rows if not r[0].held_out),
            "accuracy": accuracy([r for r in rows if not r[0].held_out]),
        },
        "per_family": {f: {"queries": len(v), "accuracy": accuracy(v)} for f, v in sorted(by_family.items())},
        "per_source": {
            s: {
                "queries": len(v),
                "accuracy": accuracy(v),
                "held_out_accuracy": accuracy([r for r in v if r[0].held_out]),
                "confusion": {
                    want: dict(Counter(got for it, got, _, _ in v if it.intent == want))
                    for want in sorted({it.intent for it, *_ in v})
                },
            }
            for s, v in sorted(by_source.items())
        },
        "confident": {
            "routes": len(confident),
            "wrong": sum(1 for it, got, _, _ in confident if got != it.intent),
        },
        "confident_rules": {
            rule: {
                "right": n["right"],
                "wrong": n["wrong"],
                "precision": round(n["right"] / (n["right"] + n["wrong"]), 4),
            }
            for rule, n in sorted(rules.items())
        },
        "misses": [
            {
                "source": it.source,
                "repo": it.repo,
                "want": it.intent,
                "got": got,
                "confidence": conf,
                "rule": rule,
                "query": it.query[:160],
            }
            for it, got, conf, rule in rows
            if got != it.intent
        ],
    }


def timing(corpus: list[Labelled], rounds: int = 5) -> dict[str, float]:
    queries = [item.query for item in corpus]
    cost: list[float] = []
    for query in queries:
        samples = []
        for _ in range(rounds):
            started = time.perf_counter_ns()
            classify(query)
            samples.append((time.perf_counter_ns() - started) / 1000)
        cost.append(statistics.median(samples))
    cost.sort()
    return {
        "mean_us": round(statistics.fmean(cost), 1),
        "p95_us": round(cost[int(0.95 * len(cost))], 1),
        "max_us": round(cost[-1], 1),
    }


def print_report(figures: dict[str, Any], misses: int) -> None:
    print(
        f"{figures['queries']} queries: accuracy {figures['accuracy']:.3f}; held-out repositories "
        f"{figures['held_out']['accuracy']:.3f} ({figures['held_out']['queries']}), tuned-on "
        f"{figures['train']['accuracy']:.3f} ({figures['train']['queries']})"
    )
    print(
        "per family: "
        + ", ".join(f"{SHORT[f]} {v['accuracy']:.3f} ({v['queries']})" for f, v in figures["per_family"].items())
    )
    conf = figures["confident"]
    print(
        f"confident routes (≥ {DIRECT_CONFIDENCE}): {conf['routes']}, wrong {conf['wrong']} "
        f"({100 * conf['wrong'] / max(1, conf['routes']):.1f} %)"
    )
    for rule, row in figures["confident_rules"].items():
        flag = "  ← below " + str(CONFIDENT_RULE_PRECISION) if row["precision"] < CONFIDENT_RULE_PRECISION else ""
        print(f"  {rule:<22} right {row['right']:>5}  wrong {row['wrong']:>4}  precision {row['precision']:.3f}{flag}")
    print()
    header = "".join(f"{SHORT[i]:>8}" for i in INTENTS)
    for source, row in figures["per_source"].items():
        print(f"{source} ({row['queries']}): accuracy {row['accuracy']:.3f}, held-out {row['held_out_accuracy']:.3f}")
        print("  " + "want/got".ljust(10) + header)
        for want, got in row["confusion"].items():
            print(f"  {SHORT[want]:<10}" + "".join(f"{got.get(i, 0):>8}" for i in INTENTS))
    if "timing" in figures:
        t = figures["timing"]
        print(f"\nclassify: mean {t['mean_us']} µs, p95 {t['p95_us']} µs, max {t['max_us']} µs per query")
    if misses:
        print("\nmisses (tuned-on repositories only):")
        shown: Counter[str] = Counter()
        for miss in figures["misses"]:
            from intent_corpus import is_held_out

            if is_held_out(miss["repo"]) or shown[miss["source"]] >= misses:
                continue
            shown[miss["source"]] += 1
            q = miss["query"].replace("\n", "⏎")[:110]
            verdict = f"{SHORT[miss['want']]}→{SHORT[miss['got']]} {miss['confidence']} {miss['rule']}"
            print(f"  [{miss['source']}] {verdict}: {q}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--misses", type=int, default=0, help="show this many misses per source (tuned-on part)")
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--fixed", action="store_true", help="the test suite's machine-independent sample")
    args = parser.parse_args()
    corpus = build_fixed_corpus(args.seed) if args.fixed else build_corpus(args.seed)
    figures = evaluate(corpus)
    if not args.no_timing:
        figures["timing"] = timing(corpus)
    print_report(figures, args.misses)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()

"""The dev set's figures from the answers: per family, per query form, per corpus and language, intent accuracy and its
confusion matrix, latency; as a JSON-ready summary, and as the plain-text tables the harness prints."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from benchmarks.devset_questions import Observation
from benchmarks.devset_scoring import (
    FAMILIES,
    FILE_ONLY_FAMILIES,
    Cell,
    QueryScore,
    aggregate,
    confusion,
    intent_accuracy,
    macro,
    score_query,
)
from benchmarks.quality import percentile

WORKSPACE_SYMBOL = "workspace/symbol"
ALTERNATIVES = ("ripgrep", "BM25", "dense", "BM25+dense RRF")
DIRECT_CONFIDENCE = 0.85  # SPEC §5: a route this confident skips fusion; its precision is reported
TOP_SHOWN = 3  # results kept per question and system in the JSON, for diagnosis


def headline(family: str) -> str:
    """The metric a family is judged by: file MRR for understand_code, line MRR for the rest."""
    return "fMRR" if family in FILE_ONLY_FAMILIES else "lMRR"


def _cells(groups: dict[Any, list[QueryScore]]) -> dict[Any, dict[str, Any]]:
    return {key: aggregate(scores).to_json() for key, scores in groups.items()}


def _latency(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(values, 0.5), 2), "p95_ms": round(percentile(values, 0.95), 2)}


def summarise(observations: Sequence[Observation], products: Sequence[str]) -> dict[str, Any]:
    """Everything the tables show, and per-question rows for diagnosis."""
    scored = [(o, score_query(o.question.family, o.results, o.question.gold)) for o in observations]
    systems = list(dict.fromkeys(o.system for o in observations))
    families: dict[str, dict[str, Any]] = {}
    forms: dict[str, dict[str, dict[str, Any]]] = {}
    corpora: dict[str, dict[str, dict[str, Any]]] = {}
    languages: dict[str, dict[str, dict[str, Any]]] = {}
    macros: dict[str, dict[str, Any]] = {}
    for system in systems:
        mine = [(o, s) for o, s in scored if o.system == system]
        by_family: dict[str, list[QueryScore]] = defaultdict(list)
        times: dict[str, list[float]] = defaultdict(list)
        by_form: dict[str, dict[str, list[QueryScore]]] = defaultdict(lambda: defaultdict(list))
        by_corpus: dict[str, dict[str, list[QueryScore]]] = defaultdict(lambda: defaultdict(list))
        by_language: dict[str, dict[str, list[QueryScore]]] = defaultdict(lambda: defaultdict(list))
        for o, s in mine:
            q = o.question
            by_family[q.family].append(s)
            times[q.family].append(o.latency_ms)
            by_form[q.family][q.form].append(s)
            by_corpus[q.corpus][q.family].append(s)
            by_language[q.language][q.family].append(s)
        families[system] = {f: {**aggregate(v).to_json(), **_latency(times[f])} for f, v in _ordered(by_family)}
        forms[system] = {f: _cells(dict(v)) for f, v in _ordered(by_form)}
        corpora[system] = {c: {f: aggregate(v).to_json() for f, v in _ordered(fams)} for c, fams in by_corpus.items()}
        languages[system] = {
            lang: {f: aggregate(v).to_json() for f, v in _ordered(fams)} for lang, fams in by_language.items()
        }
        macros[system] = macro(aggregate(v) for _, v in _ordered(by_family)).to_json()
    return {
        "systems": systems,
        "products": list(products),
        "families": families,
        "forms": forms,
        "corpora_by_system": corpora,
        "languages": languages,
        "macro": macros,
        "intents": {p: _intents([o for o in observations if o.system == p]) for p in products},
        "errors": dict(Counter(o.system for o in observations if o.error)),
        "degraded": dict(Counter(o.system for o in observations if o.skipped or o.partial)),
        "queries": _query_rows(scored),
    }


def _ordered(groups: dict[str, Any]) -> list[tuple[str, Any]]:
    order = {f: i for i, f in enumerate(FAMILIES)}
    return sorted(groups.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


def _intents(observations: Sequence[Observation]) -> dict[str, Any]:
    """Accuracy overall, per family and per form; the confusion matrix; confident routes' precision; per rule."""
    pairs = [(o.question.family, o.intent) for o in observations]
    by_family: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    by_form: dict[str, dict[str, list[tuple[str, str | None]]]] = defaultdict(lambda: defaultdict(list))
    rules: dict[str, Counter[str]] = defaultdict(Counter)
    for o in observations:
        by_family[o.question.family].append((o.question.family, o.intent))
        by_form[o.question.family][o.question.form].append((o.question.family, o.intent))
        rules[o.rule or "none"]["right" if o.intent == o.question.family else "wrong"] += 1
    confident = [(o.question.family, o.intent) for o in observations if (o.confidence or 0.0) >= DIRECT_CONFIDENCE]
    strategies: dict[str, Counter[str]] = defaultdict(Counter)
    for o in observations:
        strategies[o.question.family][o.strategy or "none"] += 1
    return {
        "accuracy": intent_accuracy(pairs),
        "by_family": {f: intent_accuracy(v) for f, v in _ordered(by_family)},
        "by_form": {f: {form: intent_accuracy(p) for form, p in v.items()} for f, v in _ordered(by_form)},
        "confusion": confusion(pairs),
        "confident": {
            "queries": len(confident),
            "wrong": sum(1 for family, intent in confident if intent != family),
        },
        "rules": {rule: dict(c) for rule, c in sorted(rules.items())},
        "strategies": {f: dict(c) for f, c in _ordered(strategies)},
    }


def _query_rows(scored: Sequence[tuple[Observation, QueryScore]]) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for o, s in scored:
        q = o.question
        row = rows.setdefault(
            q.id,
            {"id": q.id, "corpus": q.corpus, "family": q.family, "form": q.form, "query": q.query[:200],
             "systems": {}},
        )  # fmt: skip
        entry: dict[str, Any] = {**s.to_json(), "ms": round(o.latency_ms, 2)}
        if o.intent is not None:
            entry.update(intent=o.intent, confidence=o.confidence, rule=o.rule, strategy=o.strategy)
        if o.error:
            entry["error"] = o.error
        if o.skipped:
            entry["skipped"] = list(o.skipped)
        if o.partial:
            entry["partial"] = True
        entry["top"] = [f"{p}:{a}-{b}" for p, a, b in o.results[:TOP_SHOWN]]
        row["systems"][o.system] = entry
    return list(rows.values())


# -- rendering


def _fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    rows = [list(header), *[list(r) for r in rows]]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in rows]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def best_alternative(summary: dict[str, Any], family: str, form: str | None = None) -> tuple[str, float] | None:
    """The alternative with the highest headline metric on the family (or on one of its forms)."""
    metric = headline(family)
    best: tuple[str, float] | None = None
    for name in ALTERNATIVES:
        cells = summary["forms" if form else "families"].get(name, {}).get(family)
        cell = cells.get(form) if (form and cells) else cells
        value = cell.get(metric) if cell else None
        if value is not None and (best is None or value > best[1]):
            best = (name, value)
    return best


def _alt_text(best: tuple[str, float] | None) -> str:
    return "—" if best is None else f"{best[0]} {best[1]:.3f}"


def render_families(summary: dict[str, Any], product: str) -> str:
    fams = summary["families"].get(product, {})
    intents = summary["intents"].get(product, {}).get("by_family", {})
    rows = []
    for family in FAMILIES:
        cell = fams.get(family)
        if not cell:
            continue
        alts = [summary["families"].get(a, {}).get(family, {}).get(headline(family)) for a in ALTERNATIVES]
        rows.append([family, str(cell["n"]), _fmt(cell["lMRR"]), _fmt(cell["lR@20"]), _fmt(cell["fMRR"]),
                     _fmt(cell["fR@10"]), _fmt(intents.get(family)), _fmt(cell["p50_ms"], 1),
                     _fmt(cell["p95_ms"], 1), *[_fmt(v) for v in alts],
                     _alt_text(best_alternative(summary, family))])  # fmt: skip
    m = summary["macro"].get(product, {})
    accuracy = summary["intents"].get(product, {}).get("accuracy")
    rows.append(["macro (families)", str(m.get("n", "")), _fmt(m.get("lMRR")), _fmt(m.get("lR@20")),
                 _fmt(m.get("fMRR")), _fmt(m.get("fR@10")), _fmt(accuracy), "", "",
                 *[""] * len(ALTERNATIVES), ""])  # fmt: skip
    header = ["family", "n", "lMRR", "lR@20", "fMRR", "fR@10", "intent", "p50 ms", "p95 ms", *ALTERNATIVES,
              "best alternative"]  # fmt: skip
    note = "alternatives: lMRR (understand_code: fMRR); BM25 on find_similar: over function chunks, the code alone"
    return f"Dev set, {product}, per family\n{_table(header, rows)}\n({note})"


def render_forms(summary: dict[str, Any], product: str) -> str:
    forms = summary["forms"].get(product, {})
    intents = summary["intents"].get(product, {}).get("by_form", {})
    rows = []
    for family in FAMILIES:
        for form, cell in sorted(forms.get(family, {}).items()):
            rows.append([f"{family} / {form}", str(cell["n"]), _fmt(cell["lMRR"]), _fmt(cell["lR@20"]),
                         _fmt(cell["fMRR"]), _fmt(cell["fR@10"]), _fmt(intents.get(family, {}).get(form)),
                         _alt_text(best_alternative(summary, family, form))])  # fmt: skip
    header = ["family / form", "n", "lMRR", "lR@20", "fMRR", "fR@10", "intent", "best alternative"]
    return f"Dev set, {product}, per query form\n{_table(header, rows)}"


def render_corpora(summary: dict[str, Any], product: str) -> str:
    by_corpus = summary["corpora_by_system"].get(product, {})
    symbols = summary["corpora_by_system"].get(WORKSPACE_SYMBOL, {})
    names = list(by_corpus)
    rows = []
    for family in FAMILIES:
        values = [by_corpus[c].get(family, {}).get(headline(family)) for c in names]
        if any(v is not None for v in values):
            rows.append([f"{family} ({headline(family)})", *[_fmt(v) for v in values]])
    if symbols:
        rows.append([f"{WORKSPACE_SYMBOL} (lMRR)",
                     *[_fmt(symbols.get(c, {}).get("find_definition", {}).get("lMRR")) for c in names]])  # fmt: skip
    return f"Dev set, {product}, per corpus\n{_table(['family', *names], rows)}"


def render_definitions(summary: dict[str, Any], product: str) -> str:
    rows = []
    for system in (product, WORKSPACE_SYMBOL, "ripgrep"):
        by_language = summary["languages"].get(system, {})
        for language in sorted(by_language):
            cell = by_language[language].get("find_definition")
            if cell:
                rows.append([f"{system} / {language}", str(cell["n"]), _fmt(cell["lMRR"]), _fmt(cell["lR@20"]),
                             _fmt(cell["fMRR"])])  # fmt: skip
    return f"find_definition per language\n{_table(['system / language', 'n', 'lMRR', 'lR@20', 'fMRR'], rows)}"


def render_confusion(summary: dict[str, Any], product: str) -> str:
    info = summary["intents"].get(product, {})
    matrix: dict[str, dict[str, int]] = info.get("confusion", {})
    columns = [f for f in FAMILIES if any(f in row for row in matrix.values())]
    columns += sorted({i for row in matrix.values() for i in row} - set(columns))
    rows = [[family, *[str(matrix[family].get(c, 0) or "·") for c in columns]] for family in FAMILIES
            if family in matrix]  # fmt: skip
    confident = info.get("confident", {})
    share = confident.get("wrong", 0) / confident["queries"] if confident.get("queries") else 0.0
    tail = (f"confident routes (confidence ≥ {DIRECT_CONFIDENCE}): {confident.get('queries', 0)}, "
            f"wrong {confident.get('wrong', 0)} ({share:.1%})")  # fmt: skip
    title = f"Intent confusion, {product} (rows: family, columns: reported intent)"
    return f"{title}\n{_table(['family', *columns], rows)}\n{tail}"


def render_latency(summary: dict[str, Any]) -> str:
    systems = [s for s in summary["systems"] if s in summary["families"]]
    rows = []
    for family in FAMILIES:
        values = [summary["families"][s].get(family) for s in systems]
        if any(values):
            rows.append([family, *[f"{v['p50_ms']:.1f} / {v['p95_ms']:.1f}" if v else "—" for v in values]])
    return f"Latency p50 / p95 ms, same run (client round trip for the server)\n{_table(['family', *systems], rows)}"


def render_misses(summary: dict[str, Any], system: str, count: int) -> str:
    out = [f"Misses of {system} (first {count} per family)"]
    for family in FAMILIES:
        key = "frr" if family in FILE_ONLY_FAMILIES else "lrr"
        shown = 0
        for row in summary["queries"]:
            entry = row["systems"].get(system)
            if row["family"] != family or entry is None or entry[key]:
                continue
            query = row["query"].replace("\n", "⏎")[:90]
            out.append(f"  {row['id']}: {query!r} [{entry.get('intent')}] → {', '.join(entry['top']) or 'nothing'}")
            shown += 1
            if shown == count:
                break
    return "\n".join(out)


def render(summary: dict[str, Any], misses: int = 0) -> str:
    parts: list[str] = []
    machine = summary.get("machine", {})
    if machine:
        parts.append(f"machine: {machine.get('cpu')}, {machine.get('cores')} cores; load average "
                     f"{machine.get('load_start')} → {machine.get('load_end')}")  # fmt: skip
    sections: list[Callable[[dict[str, Any], str], str]] = [
        render_families,
        render_forms,
        render_corpora,
        render_definitions,
        render_confusion,
    ]
    for product in summary["products"]:
        parts += [section(summary, product) for section in sections]
    parts.append(render_latency(summary))
    if summary.get("errors"):
        parts.append(f"errors: {summary['errors']}")
    if summary.get("degraded"):
        parts.append(f"answers with a modality skipped or partial: {summary['degraded']}")
    if misses:
        parts += [render_misses(summary, s, misses) for s in [*summary["products"], WORKSPACE_SYMBOL]]
    return "\n\n".join(parts)


def cell_of(summary: dict[str, Any], system: str, family: str) -> Cell | None:
    """A family's figures back as a Cell (for tests and comparisons between runs)."""
    item = summary["families"].get(system, {}).get(family)
    if not item:
        return None
    return Cell(item["n"], item["lMRR"], item["lR@20"], item["fMRR"], item["fR@10"])

"""Plain-text tables of a benchmark report (the dict that run.py also saves as JSON), and the verdict per intent:
where Maguyva does not yet beat the best alternative on the same queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ALTERNATIVES = ("ripgrep", "BM25 (bm25s)", "BM25+dense RRF")
OURS = ("maguyva standard", "maguyva thorough")
QUALITY_COLUMNS = ("hit@1", "mrr@10", "recall@10", "zero_rate", "p50_ms", "p95_ms")
LOCATION_COLUMNS = ("file_hit@1",)  # for intents scored by location: is at least the first file right?


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned first column, right-aligned others; floats as given (format them before)."""
    cells = [[str(h) for h in headers], *[[_cell(v) for v in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = []
    for index, row in enumerate(cells):
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join(parts).rstrip())
        if index == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"
    return "—" if value is None else str(value)


def verdicts(intents: Sequence[dict[str, Any]]) -> list[str]:
    """Per intent: Maguyva's best preset against the best alternative on MRR@10, then Recall@10 (a tie is no win)."""
    lines = []
    for report in intents:
        rows = {r["system"]: r for r in report["rows"]}
        ours = [rows[name] for name in OURS if name in rows]
        others = [rows[name] for name in ALTERNATIVES if name in rows]
        if not ours or not others:
            continue
        mine = max(ours, key=lambda r: (r["mrr@10"], r["recall@10"]))
        best = max(others, key=lambda r: (r["mrr@10"], r["recall@10"]))
        ours_key, theirs_key = (mine["mrr@10"], mine["recall@10"]), (best["mrr@10"], best["recall@10"])
        word = "beats" if ours_key > theirs_key else "only ties" if ours_key == theirs_key else "does NOT beat"
        lines.append(
            f"{report['intent']:<16} {mine['system']} {word} {best['system']}: MRR@10 {mine['mrr@10']:.3f} vs "
            f"{best['mrr@10']:.3f}, Recall@10 {mine['recall@10']:.3f} vs {best['recall@10']:.3f}"
        )
    return lines


def render(report: dict[str, Any]) -> str:
    """Every table of a report, in reading order."""
    out: list[str] = []
    machine, corpus = report["machine"], report["corpus"]
    out.append(
        f"machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB; Python {machine['python']}; "
        f"load average {machine['load_start']} at start, {machine['load_end']} at end"
    )
    out.append(
        f"corpus: {corpus['source']} — {corpus['files']} files, {corpus['mb']} MB (fingerprint {corpus['fingerprint']})"
    )
    index = report.get("index")
    if index:
        out.append("\nIndexing (each in its own process)")
        rows = []
        for kind in ("cold", "warm"):
            run = index[kind]
            rows.append(
                [kind, run["index_seconds"], run["cpu_seconds"], run["files_per_s"], run["mb_per_s"],
                 run["peak_rss_mb"], run["tree_peak_rss_mb"], run["index_dir_mb"], run["analyzed"], run["reused"]]
            )  # fmt: skip
        rows.append(["warm, in this process", index["in_process_warm_seconds"], "", "", "", "", "", "", "", ""])
        out.append(
            table(
                [
                    "run",
                    "seconds",
                    "CPU s",
                    "files/s",
                    "MB/s",
                    "peak RSS MB",
                    "tree peak MB",
                    "on disk MB",
                    "parsed",
                    "reused",
                ],
                rows,
            )
        )
    speed = report.get("speed")
    if speed:
        out.append("\nSearch latency per intent (ms, in process, limit 20)")
        out.append(
            table(
                ["intent", "standard p50", "standard p95", "thorough p50", "thorough p95"],
                [[i, *v] for i, v in speed["latency_by_intent"].items()],
            )
        )
        out.append("\nHead to head, same files, same run")
        out.append(
            table(
                ["task", "maguyva p50", "alternative", "alt p50", "alt/ours"],
                [[r["task"], r["ours"], r["alternative"], r["theirs"], r["ratio"]] for r in speed["head_to_head"]],
            )
        )
    quality = report.get("quality")
    if quality:
        out.append("\nRetrieval quality (ground truth: ctags, jedi, grep -F, renamed originals, hand-labelled files)")
        for intent in quality["intents"]:
            out.append(
                f"\n{intent['intent']} — {intent['cases']} queries; classified correctly "
                f"{intent['classification_accuracy']:.3f} (else {intent['misclassified_as'] or 'none'}); "
                f"direct path {intent['direct_share']:.3f}"
            )
            columns = QUALITY_COLUMNS + (LOCATION_COLUMNS if intent["unit"] != "file" else ())
            rows = [[r["system"], *[r[c] for c in columns]] for r in intent["rows"]]
            out.append(table(["system", *columns], rows))
        out.append("\nAll intents (case-weighted)")
        rows = [[r["system"], r["cases"], *[r[c] for c in QUALITY_COLUMNS[:4]]] for r in quality["overall"]]
        out.append(table(["system", "cases", *QUALITY_COLUMNS[:4]], rows))
        out.append("\nVerdict (best Maguyva preset vs best alternative):")
        out.extend(f"  {line}" for line in quality["verdicts"])
    incremental = report.get("incremental")
    if incremental:
        out.append("\nSave to searchable (ms)")
        rows = [
            [name, r.get("edits"), r.get("p50_ms"), r.get("p95_ms"), r.get("max_ms"), r.get("not_found_in_time")]
            for name, r in incremental.items()
        ]
        out.append(table(["path", "edits", "p50", "p95", "max", "missed"], rows))
    components = report.get("components")
    if components:
        out.append("\nComponents")
        out.append(_components(components))
    out.append(f"\nphases (s): {report['phases']}")
    return "\n".join(out)


def _components(components: dict[str, Any]) -> str:
    lines = []
    classifier = components.get("classifier")
    if classifier:
        lines.append(
            f"classifier: {classifier['queries']} queries x {classifier['rounds']} rounds: mean "
            f"{classifier['mean_us']} µs, p95 {classifier['p95_us']} µs per query"
        )
    graph = components.get("graph")
    if graph:
        pagerank = graph["pagerank"]
        lines.append(
            f"graph: {graph['stats'].get('nodes')} nodes, {graph['stats'].get('edges')} edges; PageRank "
            f"power iteration "
            f"{pagerank['power_iteration_s'] * 1e3:.1f} ms, snapshot {pagerank['snapshot_s'] * 1e3:.1f} ms, "
            f"networkx {pagerank['networkx_pagerank_s']:.2f} s"
            + (
                f"; build {graph['build']['build_cpu_s']} CPU s, +{graph['build']['rss_growth_mb']} MB RSS"
                if "build" in graph
                else ""
            )
        )
    for row in components.get("hamming", []):
        faiss = f", faiss {row['faiss_ms']} ms (1 thread {row['faiss_1thread_ms']} ms)" if "faiss_ms" in row else ""
        lines.append(
            f"Hamming top-50 over {row['codes']:,} x {row['bits']}-bit codes: numpy {row['numpy_search_ms']} ms "
            f"({row['gb_s']} GB/s){faiss}"
        )
    lookup = components.get("definition_lookup")
    if lookup:
        lines.append(
            f"ctags tags file: {lookup['tags']} tags, built in {lookup['tags_file_build_s']} s, loaded in "
            f"{lookup['tags_file_load_s']} s, lookup p50 {lookup['ctags_lookup_p50_us']} µs; Maguyva workspace/symbol "
            f"p50 {lookup['workspace_symbols_p50_ms']} ms"
        )
    return "\n".join(lines)

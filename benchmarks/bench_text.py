"""Benchmark the text retriever on the CPython stdlib: index build, memory, and literal/regex searches side by side
with ripgrep on the same files, plus numpy-CSR vs pyroaring posting intersection.

    .venv/bin/python benchmarks/bench_text.py [--root PATH] [--simple] [--repeat N]
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import stdlib_root

from maguyva_lsp.index.bm25 import Bm25Index, fallback_chunks
from maguyva_lsp.index.text_regex import plan_regex
from maguyva_lsp.index.text_results import TextMatches
from maguyva_lsp.index.trigram import TrigramIndex, all_of, string_trigrams
from maguyva_lsp.model import ChangeBatch, FileAnalysis, SourceFile
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.retrieve.text import TextRetriever
from maguyva_lsp.scan.classify import classify_path

T = TypeVar("T")
SKIP_DIRS = frozenset({"site-packages", "dist-packages", "__pycache__"})
TEXT_SUFFIXES = frozenset(
    {".py", ".pyi", ".txt", ".rst", ".toml", ".cfg", ".ini", ".json", ".xml", ".html", ".css", ".js", ".c", ".h",
     ".decTest", ".csv", ".sh", ".bat", ".ps1", ".md", ".tcl", ".pem", ".mak"}
)  # fmt: skip
MAX_FILE_BYTES = 1024 * 1024
BINARY_SNIFF_BYTES = 8192
RG = Path(__file__).resolve().parent.parent / ".venv" / "bin" / "rg"

# (label, kind, query): kind is literal, literal-i (ignore case), regex, identifier.
QUERIES: tuple[tuple[str, str, str], ...] = (
    ("rare literal", "literal", "ECONNREFUSED"),
    ("rare literal 2", "literal", "_check_for_unavailable_sdk"),
    ("common literal", "literal", "self."),
    ("case-insensitive", "literal-i", "content-type"),
    ("2-byte literal (scan)", "literal", "=="),
    ("regex", "regex", r"def \w+_proxy\("),
    ("regex, alternation", "regex", r"(ECONNRESET|ECONNABORTED)"),
    ("regex without trigram (scan)", "regex", r"\d{4}-\d{2}-\d{2}"),
)


def collect(root: Path) -> list[tuple[Path, str, bytes]]:
    out: list[tuple[Path, str, bytes]] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix not in TEXT_SUFFIXES or path.is_symlink():
                continue
            data = path.read_bytes()
            if len(data) > MAX_FILE_BYTES or b"\0" in data[:BINARY_SNIFF_BYTES]:
                continue
            out.append((path, path.relative_to(root).as_posix(), data))
    return out


def analyses(root: Path, files: list[tuple[Path, str, bytes]], simple: bool) -> list[FileAnalysis]:
    analyze_file: Callable[[SourceFile, bytes], FileAnalysis] | None = None
    if not simple:
        try:
            analyze_file = importlib.import_module("maguyva_lsp.parse.analyze").analyze_file
        except ImportError:
            print("maguyva_lsp.parse.analyze not available: window chunks")
    out: list[FileAnalysis] = []
    for path, rel, data in files:
        stat = path.stat()
        source = SourceFile(rel, str(path), language_for_path(rel), classify_path(rel), len(data), stat.st_mtime_ns)
        if analyze_file is not None:
            out.append(analyze_file(source, data))
            continue
        bare = FileAnalysis(source, data.decode("utf-8", "replace"), "", (), (), ())
        out.append(FileAnalysis(source, bare.text, "", (), (), fallback_chunks(bare)))
    return out


def timed(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def rg_args(kind: str, query: str) -> list[str]:
    flags = {"literal": ["-F"], "literal-i": ["-F", "-i"], "regex": [], "identifier": ["-w", "-F"]}[kind]
    return [str(RG), "--count-matches", "--no-messages", "--no-ignore", "--hidden", *flags, "-e", query]


def run_rg(args: list[str], paths: list[str]) -> tuple[int, int]:
    done = subprocess.run([*args, "--", *paths], capture_output=True, text=True, check=False)
    counts = [line.rsplit(":", 1) for line in done.stdout.splitlines() if line]
    return len(counts), sum(int(c[1]) for c in counts)


def search(retriever: TextRetriever, kind: str, query: str, limit: int) -> TextMatches:
    if kind == "literal":
        return retriever.find_literal(query, case_sensitive=True, limit=limit)
    if kind == "literal-i":
        return retriever.find_literal(query, case_sensitive=False, limit=limit)
    if kind == "regex":
        return retriever.find_regex(query, case_sensitive=True, limit=limit)
    return retriever.find_identifier(query, limit=limit)


def roaring_comparison(index: TrigramIndex, repeat: int) -> None:
    """Candidate lookup for the literal queries: the index's CSR arrays against pyroaring bitmaps of the same lists."""
    from pyroaring import BitMap

    base = index.postings.base
    start = time.perf_counter()
    bitmaps = {int(k): BitMap(base.ids[base.offsets[i] : base.offsets[i + 1]]) for i, k in enumerate(base.keys)}
    build = time.perf_counter() - start
    roaring_bytes = sum(len(b.serialize()) for b in bitmaps.values())
    print(f"\nposting lists: numpy CSR {base.nbytes / 1e6:.1f} MB (built with the index);")
    print(f"  pyroaring: {roaring_bytes / 1e6:.1f} MB serialized, {build:.2f} s to build {len(bitmaps):,} bitmaps")
    for label, kind, text in QUERIES:
        if not kind.startswith("literal"):
            continue
        grams = string_trigrams(text, ignore_case=kind == "literal-i")
        if not grams:
            continue
        query = all_of(grams)

        def roaring(grams: frozenset[int] = grams) -> int:
            return len(BitMap.intersection(*[bitmaps.get(g, BitMap()) for g in grams]))

        csr_time, found = timed(lambda q=query: index.candidates(q, ignore_case=False), repeat)
        roaring_time, n_roaring = timed(roaring, repeat)
        n_csr = 0 if found is None else len(found)
        print(
            f"  {label:<24} candidates {n_csr:>5} / {n_roaring:>5}: "
            f"CSR {csr_time * 1e3:7.3f} ms, roaring {roaring_time * 1e3:7.3f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=stdlib_root())
    parser.add_argument("--simple", action="store_true", help="window chunks instead of tree-sitter analysis")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--limit", type=int, default=20)
    args = parser.parse_args()

    files = collect(args.root)
    total_bytes = sum(len(d) for _, _, d in files)
    print(f"corpus: {args.root} — {len(files):,} files, {total_bytes / 1e6:.1f} MB")
    start = time.perf_counter()
    docs = analyses(args.root, files, args.simple)
    analysis_s = time.perf_counter() - start
    print(f"analysis (not part of the index): {analysis_s:.1f} s, {sum(len(d.chunks) for d in docs):,} chunks")

    start = time.perf_counter()
    trigrams = TrigramIndex().with_changes(docs, ())
    trigram_s = time.perf_counter() - start
    start = time.perf_counter()
    bm25 = Bm25Index().with_changes(docs, ())
    bm25_s = time.perf_counter() - start
    retriever = TextRetriever()
    start = time.perf_counter()
    retriever.apply(ChangeBatch(updated=tuple(docs)))
    total_s = time.perf_counter() - start
    mb = total_bytes / 1e6
    print(
        f"trigram index: {trigram_s:.2f} s ({len(files) / trigram_s:,.0f} files/s, {mb / trigram_s:.1f} MB/s), "
        f"{trigrams.nbytes / 1e6:.1f} MB, {trigrams.postings.base.keys.size:,} trigrams, "
        f"{trigrams.postings.base.size:,} postings"
    )
    print(
        f"BM25 index:    {bm25_s:.2f} s ({len(files) / bm25_s:,.0f} files/s), {bm25.nbytes / 1e6:.1f} MB, "
        f"{len(bm25.vocabulary):,} terms, {bm25.chunk_count:,} chunks"
    )
    print(
        f"both (apply):  {total_s:.2f} s, {retriever.memory_bytes / 1e6:.1f} MB of index structures "
        f"(texts are shared with the analyses: {sum(len(d.text) for d in docs) / 1e6:.1f} M characters)"
    )

    one = docs[len(docs) // 2]
    apply_s, _ = timed(lambda: retriever.apply(ChangeBatch(updated=(one,))), args.repeat)
    print(f"incremental update of one file ({one.path}, {len(one.text):,} chars): {apply_s * 1e3:.1f} ms")

    paths = [str(p) for p, _, _ in files]
    print(f"\n{'query':<30} {'ours':>9} {'rg':>9} {'rg/ours':>8}  files ours/rg   matches ours/rg  candidates")
    for label, kind, text in QUERIES:
        ours_s, result = timed(lambda k=kind, t=text: search(retriever, k, t, args.limit), args.repeat)
        rg_s, (rg_files, rg_matches) = timed(
            lambda k=kind, t=text: run_rg(rg_args(k, t), paths), max(3, args.repeat // 2)
        )
        r = result
        print(
            f"{label:<30} {ours_s * 1e3:7.2f}ms {rg_s * 1e3:7.2f}ms {rg_s / ours_s:7.1f}x  "
            f"{r.files_matched:>5}/{rg_files:<5}   {r.total_matches:>7}/{rg_matches:<7}  {r.candidates:>5}"
            + ("" if r.complete else "  (cut short)")
        )
    nl_query = "parse config file"
    nl_s, nl_hits = timed(lambda: retriever.find_text(nl_query, limit=args.limit), args.repeat)
    top = f"{nl_hits[0].path}:{nl_hits[0].span.start_line + 1} {nl_hits[0].symbol}" if nl_hits else None
    print(f"{'BM25 ' + repr(nl_query):<30} {nl_s * 1e3:7.2f}ms  top: {top}")
    plan_s, _ = timed(lambda: plan_regex(r"(ECONNRESET|ECONNABORTED)", case_sensitive=True), args.repeat)
    print(f"regex analysis alone: {plan_s * 1e3:.2f} ms")
    roaring_comparison(retriever._state.trigrams, args.repeat)


if __name__ == "__main__":
    main()

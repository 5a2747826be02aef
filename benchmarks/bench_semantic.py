"""Benchmark the semantic retriever on the CPython stdlib: embedding throughput and memory, Hamming search speed next to
numpy's memory bandwidth and faiss, memory per chunk, and Recall@10 on hand-written natural-language questions.

    .venv/bin/python benchmarks/bench_semantic.py [--limit N] [--no-wordllama] [--no-fused] [--json OUT]

Embedding runs in child processes so that each peak RSS is its own. The questions
(benchmarks/data/stdlib_questions.json) were written before any retrieval result was seen; a question counts as
answered when one of its files is in the top 10 distinct files.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import STDLIB_EXCLUDES, stdlib_python_files, stdlib_root
from maguyva_lsp.embed import text as input_text
from maguyva_lsp.embed.base import Embeddings
from maguyva_lsp.embed.local import LocalEmbedder
from maguyva_lsp.embed.text import document_text, query_text
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.vector_part import VECTORS_PART, RowRef
from maguyva_lsp.index.vectors import BinaryVectorStore, hamming_distances, nearest_rows
from maguyva_lsp.model import (
    ChangeBatch,
    Chunk,
    Classification,
    FileAnalysis,
    Intent,
    PathClass,
    RetrievalQuery,
    SourceFile,
)
from maguyva_lsp.parse.analyze import analyze_file, is_binary
from maguyva_lsp.retrieve.semantic import SemanticRetriever
from maguyva_lsp.store.embedding_cache import CACHE_FILE, EmbeddingCache
from maguyva_lsp.store.segment_store import DATA_DIR, SegmentStore

QUESTIONS = Path(__file__).resolve().parent / "data" / "stdlib_questions.json"
TOP_FILES = 10
CANDIDATE_HITS = 100  # chunks asked of each retriever before keeping the first 10 distinct files
APPLY_BATCH_FILES = 200
SEARCH_SIZES = (100_000, 1_000_000)
SEARCH_BITS = (256, 1024)
SEARCH_K = 50
SEARCH_REPEATS = 7
BANDWIDTH_BYTES = 512 * 1024 * 1024
MB = 1024 * 1024


def _analyse_one(item: tuple[str, str]) -> FileAnalysis | None:
    rel, absolute = item
    data = Path(absolute).read_bytes()
    if is_binary(data):
        return None
    return analyze_file(SourceFile(rel, absolute, "python", PathClass.SOURCE, len(data), 0), data)


def load_corpus(limit: int | None) -> list[FileAnalysis]:
    """Every stdlib .py file analysed by the engine's own parser and chunker (two processes)."""
    root = stdlib_root()
    files = [(p.relative_to(root).as_posix(), str(p)) for p in stdlib_python_files()]
    files = files[:limit] if limit else files
    with multiprocessing.Pool(2) as pool:
        return [a for a in pool.map(_analyse_one, files, chunksize=16) if a is not None]


# -- embedding throughput and memory, each in its own process ----------------------------------------------------------


def _status_kib(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> int:
    """Current RSS in bytes, after resetting the kernel's peak-RSS mark to it (Linux: /proc/self/clear_refs).

    Without the reset, a child's peak would include the parent's memory: ru_maxrss survives fork and exec.
    """
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return (_status_kib("VmRSS") or 0) * 1024


def _peak_rss() -> int:
    hwm = _status_kib("VmHWM")
    return hwm * 1024 if hwm is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def embed_worker(kind: str, texts_file: str) -> None:
    """Child process: embed the texts, print throughput and RSS figures as JSON."""
    texts = json.loads(Path(texts_file).read_text())
    if kind == "wordllama":
        from wordllama import WordLlama

        from maguyva_lsp.embed.local import TOKENIZER_FILE, wordllama_dir

        cache = Path(tempfile.mkdtemp())
        (cache / "tokenizers").mkdir()
        shutil.copy(wordllama_dir() / TOKENIZER_FILE, cache / "tokenizers")
        model = WordLlama.load(cache_dir=cache, disable_download=True)
        embed: Callable[[list[str]], object] = lambda batch: model.embed(batch, norm=True)  # noqa: E731
    else:
        local = LocalEmbedder()
        embed = local.embed_documents
    baseline = _reset_peak_rss()
    start = time.perf_counter()
    embed(texts)
    seconds = time.perf_counter() - start
    peak = _peak_rss()
    print(json.dumps({"chunks": len(texts), "seconds": seconds, "baseline_rss": baseline, "peak_rss": peak}))


def run_embed_child(kind: str, texts: list[str]) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(texts, handle)
    try:
        out = subprocess.run(
            [sys.executable, __file__, "--embed-worker", kind, handle.name], capture_output=True, text=True, check=True
        )
    finally:
        os.unlink(handle.name)
    figures: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    figures["chunks_per_s"] = figures["chunks"] / figures["seconds"]
    return figures


# -- the retriever end to end ------------------------------------------------------------------------------------------


def index_with_retriever(analyses: list[FileAnalysis], store_dir: Path) -> tuple[SemanticRetriever, dict[str, Any]]:
    """Cold index, warm restart (the vectors chain of a segment store, mapped), and rebuild from the embedding cache;
    times and sizes."""
    figures: dict[str, Any] = {}
    cache_path = store_dir / "semantic" / CACHE_FILE
    embedder = LocalEmbedder()  # loaded once: the warm figures time the vectors, not the model

    def apply_all(retriever: SemanticRetriever) -> float:
        start = time.perf_counter()
        for i in range(0, len(analyses), APPLY_BATCH_FILES):
            retriever.apply(ChangeBatch(updated=tuple(analyses[i : i + APPLY_BATCH_FILES])))
        return time.perf_counter() - start

    def attached() -> tuple[SemanticRetriever, Segments]:
        segments = Segments(SegmentStore(store_dir, "bench", "bench"))
        retriever = SemanticRetriever(embedder, cache=EmbeddingCache(cache_path))
        segments.attach_chain(retriever.chain)
        return retriever, segments

    retriever, segments = attached()
    figures["cold_seconds"] = apply_all(retriever)
    figures["embedded_texts"] = retriever.embedded_texts
    start = time.perf_counter()
    segments.commit_chains()
    figures["save_seconds"] = time.perf_counter() - start
    figures["vectors_file_bytes"] = sum(p.stat().st_size for p in (store_dir / DATA_DIR).glob(f"*-{VECTORS_PART}*"))
    figures["cache_file_bytes"] = sum(p.stat().st_size for p in cache_path.parent.glob(CACHE_FILE + "*"))
    retriever.close()
    segments.close()

    start = time.perf_counter()
    warm, segments = attached()
    figures["warm_load_seconds"] = time.perf_counter() - start
    start = time.perf_counter()
    changed, gone = warm.stale({a.path: a.content_hash for a in analyses})
    figures["warm_stale_seconds"] = time.perf_counter() - start  # includes the CRC-32 check of the chain
    figures["warm_stale_files"] = len(changed) + len(gone)
    figures["warm_reapply_seconds"] = apply_all(warm)
    figures["warm_embedded_texts"] = warm.embedded_texts
    warm.close()
    segments.close()

    rebuilt = SemanticRetriever(embedder, cache=EmbeddingCache(cache_path))
    figures["from_cache_seconds"] = apply_all(rebuilt)
    figures["from_cache_embedded_texts"] = rebuilt.embedded_texts
    figures["chunks"] = rebuilt.chunk_count
    return rebuilt, figures


# -- quality -----------------------------------------------------------------------------------------------------------


def _question_query(text: str) -> RetrievalQuery:
    return RetrievalQuery(Classification(text, Intent.UNDERSTAND_CODE, 0.75, "bench", text))


def score_rankings(questions: list[dict[str, Any]], rankings: list[list[str]]) -> dict[str, float]:
    """Recall@10 and MRR@10 over distinct files (the fusion keeps the best chunk per file too)."""
    recalls, reciprocal = [], []
    for question, paths in zip(questions, rankings, strict=True):
        files = list(dict.fromkeys(paths))[:TOP_FILES]
        wanted = set(question["files"])
        recalls.append(len(wanted & set(files)) / len(wanted))
        rank = next((i for i, f in enumerate(files) if f in wanted), None)
        reciprocal.append(0.0 if rank is None else 1.0 / (rank + 1))
    return {"recall@10": float(np.mean(recalls)), "mrr@10": float(np.mean(reciprocal))}


def _cosine_ranking(
    embedder: LocalEmbedder, doc_texts: list[str], query_texts: list[str], paths: list[str]
) -> list[list[str]]:
    docs = embedder.embed_documents(doc_texts).floats
    assert docs is not None
    rankings = []
    for text in query_texts:
        query = embedder.embed_query(text).floats
        assert query is not None
        rankings.append([paths[i] for i in np.argsort(-(docs @ query[0]))[:CANDIDATE_HITS]])
    return rankings


def semantic_variants(
    analyses: list[FileAnalysis], questions: list[dict[str, Any]], retriever: SemanticRetriever
) -> dict[str, dict[str, float]]:
    """The retriever as shipped, float-exact and Hamming-only rankings of the same vectors, and the input-text
    alternatives (raw chunk text; header words written 1, 2 or 3 times)."""
    results = {
        "semantic (Hamming + int8 rescoring)": score_rankings(
            questions,
            [[h.path for h in retriever.search(_question_query(q["q"]), CANDIDATE_HITS)] for q in questions],
        )
    }
    embedder = LocalEmbedder()
    chunks = [c for a in analyses for c in a.chunks]
    paths = [c.path for c in chunks]
    words_queries = [query_text(q["q"], "words") for q in questions]
    shipped = input_text.HEADER_REPEAT
    for repeat in (1, 2, 3):
        input_text.HEADER_REPEAT = repeat
        ranking = _cosine_ranking(embedder, [document_text(c, "words") for c in chunks], words_queries, paths)
        results[f"float cosine, exact, header x{repeat}" + (" (shipped)" if repeat == shipped else "")] = (
            score_rankings(questions, ranking)
        )
    input_text.HEADER_REPEAT = shipped
    docs = embedder.embed_documents([document_text(c, "words") for c in chunks])
    store = BinaryVectorStore(embedder.dimension, embedder.name)
    store.add([RowRef(p, i, i, bytes(16)) for i, p in enumerate(paths)], Embeddings(docs.codes))
    query_vectors = [embedder.embed_query(t) for t in words_queries]
    hamming = [[m.ref.path for m in store.search(Embeddings(v.codes), CANDIDATE_HITS)] for v in query_vectors]
    results["Hamming only (no rescoring)"] = score_rankings(questions, hamming)
    asymmetric = [[m.ref.path for m in store.search(v, CANDIDATE_HITS)] for v in query_vectors]
    results["Hamming + float query against bits (Voyage's path)"] = score_rankings(questions, asymmetric)
    results.update(candidate_overlap(docs, query_vectors))
    raw = _cosine_ranking(embedder, [c.text for c in chunks], [q["q"] for q in questions], paths)
    results["float cosine, raw chunk text and query"] = score_rankings(questions, raw)
    return results


def candidate_overlap(docs: Embeddings, queries: list[Embeddings]) -> dict[str, dict[str, float]]:
    """Share of the exact float top-10 chunks found among the Hamming top 10×m: the evidence for RESCORE_MULTIPLE."""
    assert docs.floats is not None
    words = np.ascontiguousarray(docs.codes.view(np.uint64).T)
    out: dict[str, dict[str, float]] = {}
    for multiple in (2, 5, 10, 20, 50):
        shares = []
        for query in queries:
            assert query.floats is not None
            exact = set(np.argsort(-(docs.floats @ query.floats[0]))[:TOP_FILES].tolist())
            distances = hamming_distances(words, len(docs), query.codes[0].view(np.uint64))
            found = set(nearest_rows(distances, TOP_FILES * multiple, docs.dimension).tolist())
            shares.append(len(exact & found) / TOP_FILES)
        out[f"float top-10 chunks within Hamming top-{TOP_FILES * multiple}"] = {"share": float(np.mean(shares))}
    return out


def bm25s_baseline(analyses: list[FileAnalysis], questions: list[dict[str, Any]]) -> dict[str, float]:
    """BM25 (bm25s, an independent implementation) over the raw text of the same chunks."""
    import bm25s

    chunks: list[Chunk] = [c for a in analyses for c in a.chunks]
    model = bm25s.BM25()
    model.index(bm25s.tokenize([c.text for c in chunks], show_progress=False), show_progress=False)
    tokens = bm25s.tokenize([q["q"] for q in questions], show_progress=False)
    rows, _ = model.retrieve(tokens, k=CANDIDATE_HITS, show_progress=False)
    return score_rankings(questions, [[chunks[int(i)].path for i in row] for row in rows])


def engine_paths(questions: list[dict[str, Any]]) -> dict[str, dict[str, float]] | str:
    """The project's own text retriever (BM25) alone and the fused understand_code path, via the engine."""
    try:
        from maguyva_lsp.config import Settings
        from maguyva_lsp.engine import Engine
    except ImportError as exc:
        return f"skipped: {exc}"
    with tempfile.TemporaryDirectory() as index_dir:
        engine = Engine(stdlib_root(), Settings(exclude=STDLIB_EXCLUDES, index_dir=index_dir), persist=False)
        try:
            engine.index()
            text_alone = [
                [h.path for h in engine.text.search(_question_query(q["q"]), CANDIDATE_HITS)] for q in questions
            ]
            fused = []
            for question in questions:
                response = engine.search(question["q"], preset="standard", limit=TOP_FILES)
                fused.append([r.path for r in response.results])
        finally:
            engine.close()
    return {
        "text retriever alone (project BM25)": score_rankings(questions, text_alone),
        "fused understand_code (standard preset)": score_rankings(questions, fused),
    }


# -- Hamming search speed ----------------------------------------------------------------------------------------------


def _median_seconds(fn: Callable[[], object], repeats: int = SEARCH_REPEATS) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def memory_bandwidth() -> dict[str, float]:
    """Plain numpy: read (sum of uint64) and copy (read + write) bandwidth in GB/s, same process, same run."""
    source = np.ones(BANDWIDTH_BYTES // 8, dtype=np.uint64)
    target = np.empty_like(source)
    read = _median_seconds(source.sum, 5)
    copy = _median_seconds(lambda: np.copyto(target, source), 5)
    return {"read_gb_s": source.nbytes / read / 1e9, "copy_gb_s": 2 * source.nbytes / copy / 1e9}


def _time_search(bits: int, n: int, rng: np.random.Generator) -> dict[str, Any]:
    """Top-50 over n random codes of `bits`: our numpy scan (distances only, and the store's whole search) vs faiss."""
    codes = rng.integers(0, 256, (n, bits // 8), dtype=np.uint8)
    query = rng.integers(0, 256, (1, bits // 8), dtype=np.uint8)
    store = BinaryVectorStore(bits, "random")
    store.add([RowRef("", i, i, bytes(16)) for i in range(n)], Embeddings(codes))
    words = store._snap.parts[0].words
    scan = _median_seconds(lambda: hamming_distances(words, n, query[0].view(np.uint64)))
    whole = _median_seconds(lambda: store.search(Embeddings(query), SEARCH_K))
    row: dict[str, Any] = {
        "bits": bits,
        "codes": n,
        "numpy_scan_ms": scan * 1e3,
        "numpy_search_ms": whole * 1e3,
        "vectors_per_s": n / scan,
        "gb_s": n * bits / 8 / scan / 1e9,
    }
    try:
        import faiss
    except ImportError:
        return row
    index = faiss.IndexBinaryFlat(bits)
    index.add(codes)
    threads = faiss.omp_get_max_threads()
    row["faiss_ms"] = _median_seconds(lambda: index.search(query, SEARCH_K)) * 1e3
    faiss.omp_set_num_threads(1)
    row["faiss_1thread_ms"] = _median_seconds(lambda: index.search(query, SEARCH_K)) * 1e3
    faiss.omp_set_num_threads(threads)
    return row


def search_speed(sizes: Sequence[int] = SEARCH_SIZES, bit_widths: Sequence[int] = SEARCH_BITS) -> list[dict[str, Any]]:
    rng = np.random.default_rng(0)
    return [_time_search(bits, n, rng) for bits in bit_widths for n in sizes]


def memory_per_chunk(retriever: SemanticRetriever) -> dict[str, float]:
    """Bytes per live chunk held by the vector store: the vectors (codes, int8 rescoring vectors and scales) and the
    row columns (lines, text hash, symbol, kind, snippet, per-file tables); there is no object per row."""
    figures = retriever.store.memory()
    live = max(figures["live"], 1)
    return {
        "vector_bytes_per_chunk": figures["vector_bytes"] / live,
        "column_bytes_per_chunk": figures["column_bytes"] / live,
        "parts": float(figures["parts"]),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N stdlib files")
    parser.add_argument("--no-wordllama", action="store_true", help="skip wordllama's own padded inference")
    parser.add_argument("--no-fused", action="store_true", help="skip the engine (text alone and fused path)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    parser.add_argument("--embed-worker", nargs=2, metavar=("KIND", "TEXTS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.embed_worker:
        embed_worker(*args.embed_worker)
        return
    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}

    start = time.perf_counter()
    analyses = load_corpus(args.limit)
    chunks = [c for a in analyses for c in a.chunks]
    report["corpus"] = {
        "root": str(stdlib_root()),
        "files": len(analyses),
        "chunks": len(chunks),
        "analyse_seconds": time.perf_counter() - start,
    }
    print(f"corpus: {len(analyses)} files, {len(chunks)} chunks from {stdlib_root()}")

    words = [document_text(c, "words") for c in chunks]
    report["embedding"] = {
        "local, code-aware text": run_embed_child("local", words),
        "local, raw chunk text": run_embed_child("local", [c.text for c in chunks]),
    }
    if not args.no_wordllama:
        report["embedding"]["wordllama.embed, raw chunk text"] = run_embed_child("wordllama", [c.text for c in chunks])
    for name, fig in report["embedding"].items():
        print(
            f"embed {name:34s} {fig['chunks_per_s']:8.0f} chunks/s  peak RSS {fig['peak_rss'] / MB:6.0f} MB "
            f"(before embedding {fig['baseline_rss'] / MB:.0f} MB)"
        )

    with tempfile.TemporaryDirectory() as store_dir:
        retriever, figures = index_with_retriever(analyses, Path(store_dir))
        report["retriever"] = figures
        rate = figures["embedded_texts"] / figures["cold_seconds"]
        print(
            f"retriever cold index {figures['cold_seconds']:.1f} s ({rate:.0f} chunks/s), "
            f"save {figures['save_seconds']:.2f} s, warm open {figures['warm_load_seconds']:.3f} s + stale check "
            f"{figures['warm_stale_seconds']:.3f} s ({figures['warm_stale_files']} files stale) + re-apply "
            f"{figures['warm_reapply_seconds']:.2f} s ({figures['warm_embedded_texts']} embedded), rebuild from cache "
            f"{figures['from_cache_seconds']:.1f} s ({figures['from_cache_embedded_texts']} embedded)"
        )
        print(
            f"on disk per chunk: vectors {figures['vectors_file_bytes'] / figures['chunks']:.0f} B, "
            f"cache {figures['cache_file_bytes'] / figures['chunks']:.0f} B"
        )
        report["memory"] = memory_per_chunk(retriever)
        print("memory per chunk: " + ", ".join(f"{k} {v:.0f}" for k, v in report["memory"].items()))

        questions = json.loads(QUESTIONS.read_text())["questions"]
        quality = semantic_variants(analyses, questions, retriever)
        quality["BM25 (bm25s) over raw chunk text"] = bm25s_baseline(analyses, questions)
        retriever.close()
    if not args.no_fused:
        engine = engine_paths(questions)
        if isinstance(engine, str):
            print(f"engine paths {engine}")
        else:
            quality.update(engine)
    report["quality"] = quality
    print(f"quality on {len(questions)} questions (distinct files):")
    for name, q in quality.items():
        if "share" in q:
            print(f"  {name:52s} {q['share']:.3f}")
        else:
            print(f"  {name:52s} Recall@10 {q['recall@10']:.3f}  MRR@10 {q['mrr@10']:.3f}")

    report["bandwidth"] = memory_bandwidth()
    print(
        f"numpy memory bandwidth: read {report['bandwidth']['read_gb_s']:.1f} GB/s, "
        f"copy {report['bandwidth']['copy_gb_s']:.1f} GB/s"
    )
    report["search"] = search_speed()
    for row in report["search"]:
        faiss_part = (
            f"  faiss {row['faiss_ms']:6.2f} ms (1 thread {row['faiss_1thread_ms']:6.2f} ms)"
            if "faiss_ms" in row
            else ""
        )
        print(
            f"top-{SEARCH_K} over {row['codes']:>9,} x {row['bits']:4d}-bit: numpy scan {row['numpy_scan_ms']:6.2f} ms "
            f"(search {row['numpy_search_ms']:6.2f} ms) = {row['vectors_per_s'] / 1e6:6.1f} M vectors/s, "
            f"{row['gb_s']:5.2f} GB/s{faiss_part}"
        )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

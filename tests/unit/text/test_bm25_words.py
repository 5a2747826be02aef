"""The BM25 build from a core's chunk bytes (bm25_words) gives the postings the build from the decoded chunk texts
gives, for any text: identifiers led by digits, cut by underscores or non-ASCII characters, of every length (one
48-bit limb or several), chunks that are lines of their file or their own text, in any batching."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.index import bm25
from maguyva_lsp.index.analysis_columns import CoreColumns, encode_analyses
from maguyva_lsp.index.bm25_words import chunk_byte_batches, identifier_spans
from maguyva_lsp.model import Chunk, FileAnalysis, PathClass, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.tokens import IDENTIFIER_RE

ROOT = Path(__file__).resolve().parents[3]
PIECES = [
    "x", "ab", "_", "__init__", "HTTPServer", "parse2Config", "utf8", "9abc", "12", "0x1F", "a1b2c3", "ABCdef",
    "exactly8", "nineChars", "sixteen_chars_ab", "seventeen_chars_a", "a" * 40, "Q" * 200, "mid_9_x", "é", "café_x",
    "\ud800z", " ", "  ", "\n", "\t", ".", "(", "-", "+", "'", "日本語",
]  # fmt: skip


def _random_text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 400)))


def _analysis(path: str, text: str, chunks: tuple[Chunk, ...]) -> FileAnalysis:
    return FileAnalysis(SourceFile(path, "/" + path, None, PathClass.SOURCE, len(text), 0), text, "h", (), (), chunks)


def _random_core(seed: int) -> CoreColumns:
    rng = random.Random(seed)
    analyses = []
    for f in range(12):
        text = _random_text(rng)
        lines = text.split("\n")
        chunks = []
        for _ in range(rng.randint(0, 6)):
            start = rng.randint(0, len(lines) + 1)  # past the last line too
            end = start + rng.randint(-1, 4)
            body = "\n".join(lines[start : end + 1]) if rng.random() < 0.8 else _random_text(rng)
            symbol = rng.choice([None, "parse_config", "Widget.run", "x", "HTTPServer.a1b"])
            chunks.append(Chunk(f"p{f}.py", "python", start, end, body, symbol, "function"))
        analyses.append(_analysis(f"p{f}.py", text, tuple(chunks)))
    return CoreColumns(encode_analyses(analyses))


def _assert_same(a: bm25.TermPostings, b: bm25.TermPostings) -> None:
    assert a.terms == b.terms
    for x, y in zip(a[1:], b[1:], strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)


@pytest.mark.parametrize("seed", range(6))
def test_byte_build_equals_the_text_build(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    core = _random_core(seed)
    expected = bm25.chunk_term_postings(*core.chunk_texts())
    assert expected.terms  # the random texts hold words
    for batch in (4096, 3, 1):
        monkeypatch.setattr(bm25, "WORD_BATCH_CHUNKS", batch)
        _assert_same(bm25.core_term_postings(core), expected)


def test_byte_build_equals_the_text_build_on_real_files() -> None:
    analyses = []
    for path in sorted((ROOT / "maguyva_lsp" / "index").glob("*.py")):
        rel = f"index/{path.name}"
        file = SourceFile(rel, f"/ws/{rel}", language_for_path(rel), classify_path(rel), path.stat().st_size, 1)
        analyses.append(analyze_file(file, path.read_bytes()))
    core = CoreColumns(encode_analyses(analyses))
    _assert_same(bm25.core_term_postings(core), bm25.chunk_term_postings(*core.chunk_texts()))


def test_batches_hold_the_chunk_texts_and_spans_the_identifiers() -> None:
    core = _random_core(11)
    texts, _ = core.chunk_texts()
    for at, buffer, starts in chunk_byte_batches(core, 5):
        begin, end = identifier_spans(buffer)
        found = sorted(buffer[b:e].decode("ascii") for b, e in zip(begin.tolist(), end.tolist(), strict=True))
        batch_texts = texts[at : at + starts.size]
        assert found == sorted(w for t in batch_texts for w in IDENTIFIER_RE.findall(t))
        bounds = [*starts.tolist(), len(buffer)]
        for i, text in enumerate(batch_texts):
            assert (
                buffer[bounds[i] : bounds[i] + len(text.encode("utf-8", "surrogatepass"))].decode(
                    "utf-8", "surrogatepass"
                )
                == text
            )


def test_a_core_without_chunks_or_words() -> None:
    empty = CoreColumns(encode_analyses([_analysis("a.py", "", ())]))
    built = bm25.core_term_postings(empty)
    assert built.terms == [] and built.keys.size == 0 and built.lengths.size == 0
    letters = CoreColumns(encode_analyses([_analysis("b.py", "a = b\n", (Chunk("b.py", None, 0, 0, "a = b"),))]))
    _assert_same(bm25.core_term_postings(letters), bm25.chunk_term_postings(["a = b"], [None]))

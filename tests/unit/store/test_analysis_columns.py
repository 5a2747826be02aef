"""Core columns: line slices and single chunks read from the columns equal what the analysis held."""

from __future__ import annotations

import random

from maguyva_lsp.index.analysis_columns import CoreColumns, encode_analyses
from maguyva_lsp.model import Chunk, FileAnalysis, PathClass, SourceFile

TEXTS = ["", "one", "a\nb", "a\nb\n", "\n\n", "x\r\ny\r\n", "é\nü\n\ud800z", "line\n" * 7 + "tail"]


def _analysis(path: str, text: str, chunks: tuple[Chunk, ...] = ()) -> FileAnalysis:
    return FileAnalysis(SourceFile(path, "/" + path, None, PathClass.SOURCE, len(text), 0), text, "h", (), (), chunks)


def test_lines_text_equals_joined_split_lines() -> None:
    core = CoreColumns(encode_analyses([_analysis(f"f{i}.txt", t) for i, t in enumerate(TEXTS)]))
    for i, text in enumerate(TEXTS):
        local = core.local_id(f"f{i}.txt")
        lines = text.split("\n")
        assert core.line_count(local) == len(lines)
        for start in range(len(lines) + 2):
            for end in range(start - 1, len(lines) + 2):
                assert core.lines_text(local, start, end) == "\n".join(lines[start : end + 1]), (text, start, end)
        for line in range(len(lines) + 1):
            assert core.line(local, line) == (lines[line] if line < len(lines) else "")


def test_single_chunks_equal_the_analysis_chunks() -> None:
    rng = random.Random(7)
    analyses = []
    for f in range(5):
        lines = [f"line {f}.{i} " + "x" * rng.randint(0, 5) for i in range(rng.randint(1, 30))]
        text = "\n".join(lines)
        chunks = []
        start = 0
        while start < len(lines):
            end = min(len(lines) - 1, start + rng.randint(0, 6))
            body = "\n".join(lines[start : end + 1]) if rng.random() < 0.8 else "its own text"
            chunks.append(Chunk(f"p{f}.py", "python", start, end, body, f"h{start}", f"s{start}", "function"))
            start = end + 1
        analyses.append(_analysis(f"p{f}.py", text, tuple(chunks)))
    core = CoreColumns(encode_analyses(analyses))
    rows = [core.chunk(row) for row in range(core.chunk_count)]
    assert rows == [c for a in sorted(analyses, key=lambda a: a.path) for c in a.chunks]
    texts, symbols = core.chunk_texts()
    assert texts == [c.text for c in rows] and symbols == [c.symbol for c in rows]

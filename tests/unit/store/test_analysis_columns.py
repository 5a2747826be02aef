"""Core columns: line slices, single chunks and references read from the columns equal what the analysis held,
whatever their storage (narrow or wide spans, sparse columns), also after a merge; an extracted file's reference
table encodes as its objects would."""

from __future__ import annotations

import dataclasses
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.config import DEFAULT_MAX_FILE_SIZE
from maguyva_lsp.index.analysis_columns import CoreColumns, encode_analyses, encode_core, merge_core
from maguyva_lsp.indexer import read_and_analyze
from maguyva_lsp.model import Chunk, Definition, FileAnalysis, PathClass, Reference, ReferenceTable, SourceFile, Span
from maguyva_lsp.scan.walker import WorkspaceScanner
from maguyva_lsp.store.container import ContainerError

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


def test_a_core_given_its_texts_reads_what_its_frames_hold() -> None:
    """A build hands the parts the files' UTF-8 it encoded (`encode_core`): they are what the frames decode to, and a
    core given them reads the same bytes, chunk texts and lines."""
    analyses = [_analysis(f"f{i}.txt", t) for i, t in enumerate(TEXTS)]
    arrays, texts = encode_core(analyses)
    framed, given = CoreColumns(arrays), CoreColumns(arrays, texts)
    assert arrays.keys() == encode_analyses(analyses).keys()
    for local in range(framed.file_count):
        assert given.text_bytes(local) == framed.text_bytes(local) == texts[local]
        assert given.lines_text(local, 0, 3) == framed.lines_text(local, 0, 3)
    assert given.chunk_texts() == framed.chunk_texts()


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
            chunks.append(Chunk(f"p{f}.py", "python", start, end, body, f"s{start}", "function"))
            start = end + 1
        analyses.append(_analysis(f"p{f}.py", text, tuple(chunks)))
    core = CoreColumns(encode_analyses(analyses))
    rows = [core.chunk(row) for row in range(core.chunk_count)]
    assert rows == [c for a in sorted(analyses, key=lambda a: a.path) for c in a.chunks]
    texts, symbols = core.chunk_texts()
    assert texts == [c.text for c in rows] and symbols == [c.symbol for c in rows]


def test_a_chunk_stores_its_own_text_exactly_when_it_is_not_its_lines() -> None:
    """ASCII files (compared in place at their line starts) and others (lines joined), chunks past the end, empty
    texts, a start after the end: a text is stored exactly when it is not `"\n".join(lines[start : end + 1])`, and
    every chunk reads back equal."""
    analyses = []
    for f, text in enumerate([*TEXTS, "ab\ncd\n\nef", "\u00e9t\u00e9\nab\ncd"]):
        lines = text.split("\n")
        spans = [(s, e) for s in range(len(lines) + 2) for e in range(s - 1, len(lines) + 2)]
        chunks = []
        for k, (start, end) in enumerate(spans):
            joined = "\n".join(lines[start : end + 1])
            body = [joined, joined + "x", joined[:-1], "", text][k % 5]
            chunks.append(Chunk(f"c{f}.py", "python", start, end, body, f"s{k % 3}", "function"))
        analyses.append(_analysis(f"c{f}.py", text, tuple(chunks)))
    core = CoreColumns(encode_analyses(analyses))
    own = core.arrays["chunk.text"]
    rows = [core.chunk(row) for row in range(core.chunk_count)]
    expected = [c for a in sorted(analyses, key=lambda a: a.path) for c in a.chunks]
    assert rows == expected
    for row, c in enumerate(expected):
        lines = core.text(core.chunk_file(row)).split("\n")
        derived = 0 <= c.start_line <= c.end_line and "\n".join(lines[c.start_line : c.end_line + 1]) == c.text
        assert (own[row] < 0) == derived, (row, c)


def _with_refs(path: str, refs: list[tuple[int, int, str | None, str | None]], big: bool = False) -> FileAnalysis:
    """A file with references at (line, col), some with a module and an alias; `big`: one column past uint16."""
    references = tuple(
        Reference(f"n{i}", "import" if module else "call", path, Span(line, col, line, col + (70_000 if big else 3)),
                  None, None, module, alias)
        for i, (line, col, module, alias) in enumerate(refs)
    )  # fmt: skip
    definition = Definition("f", "function", path, Span(0, 0, 9, 1), Span(0, 4, 0, 5), "def f()")
    analysis = _analysis(path, "x\n" * 10)
    return FileAnalysis(analysis.file, analysis.text, "h", (definition,), references, ())


def test_narrow_spans_and_sparse_columns_read_back_equal_and_merge() -> None:
    rng = random.Random(3)
    modules = [None] * 20 + ["os.path", "typing"]

    def refs() -> list[tuple[int, int, str | None, str | None]]:
        return [
            (rng.randint(0, 9), rng.randint(0, 60), m := rng.choice(modules), rng.choice([None, "pj"]) if m else None)
            for _ in range(rng.randint(0, 30))
        ]

    small = [_with_refs(f"s{i}.py", refs()) for i in range(6)]
    big = [_with_refs("big.py", [*refs(), (1, 2, "os", "o")], big=True)]
    narrow, wide = CoreColumns(encode_analyses(small)), CoreColumns(encode_analyses(big))
    assert narrow.arrays["ref.span"].dtype == np.uint16 and wide.arrays["ref.span"].dtype == np.int32
    assert narrow.arrays["ref.module.at"].size < narrow.arrays["ref.name"].size
    for core, analyses in ((narrow, small), (wide, big)):
        for analysis in analyses:
            local = core.local_id(analysis.path)
            assert core.analysis(local) == analysis
            assert core.references(local) == analysis.references
    merged = CoreColumns(
        merge_core([(narrow, np.ones(narrow.file_count, dtype=np.bool_)), (wide, np.ones(1, dtype=np.bool_))])
    )
    assert merged.arrays["ref.span"].dtype == np.int32
    for analysis in [*small, *big]:
        assert merged.analysis(merged.local_id(analysis.path)) == analysis
    only_small = CoreColumns(
        merge_core([(narrow, np.ones(narrow.file_count, dtype=np.bool_)), (wide, np.zeros(1, dtype=np.bool_))])
    )
    assert only_small.arrays["ref.span"].dtype == np.uint16
    assert [only_small.analysis(i) for i in range(only_small.file_count)] == sorted(small, key=lambda a: a.path)


def test_a_column_of_a_foreign_dtype_is_refused() -> None:
    arrays = encode_analyses([_with_refs("a.py", [(1, 2, "os", None)])])
    with pytest.raises(ContainerError, match=r"ref\.span"):
        CoreColumns({**arrays, "ref.span": arrays["ref.span"].astype(np.float32)})
    with pytest.raises(ContainerError, match=r"ref\.module"):
        CoreColumns({**arrays, "ref.module.at": np.array([5], dtype=np.int32)})


def _sample_analyses() -> list[FileAnalysis]:
    """Real extractions of the parse samples (every grammar with a references query, and some without)."""
    folder = Path(__file__).parents[1] / "parse" / "samples"
    files = WorkspaceScanner(folder, max_file_size=DEFAULT_MAX_FILE_SIZE).scan().files
    found = [read_and_analyze(f, 60) for f in files]
    return [a for a in found if isinstance(a, FileAnalysis)]


def test_extracted_reference_tables_encode_as_their_objects_do() -> None:
    analyses = _sample_analyses()
    tables = [a.references for a in analyses]
    assert all(isinstance(t, ReferenceTable) for t in tables) and sum(map(len, tables)) > 100
    as_tuples = [dataclasses.replace(a, references=tuple(a.references)) for a in analyses]
    assert as_tuples == analyses  # a table equals the tuple of its references (both ways round)
    assert all(t == tuple(t) and tuple(t) == t and hash(t) == hash(tuple(t)) for t in tables)
    mixed = [a if i % 2 else t for i, (a, t) in enumerate(zip(analyses, as_tuples, strict=True))]
    expected = encode_analyses(as_tuples)
    for version in (analyses, mixed):
        arrays = encode_analyses(version)
        assert arrays.keys() == expected.keys()
        for name, values in expected.items():
            assert arrays[name].dtype == values.dtype and np.array_equal(arrays[name], values), name
    core = CoreColumns(expected)
    for analysis in analyses:
        assert core.references(core.local_id(analysis.path)) == analysis.references


def test_a_reference_table_pickles_as_columns_and_reads_as_a_sequence() -> None:
    table = next(a.references for a in _sample_analyses() if len(a.references) > 10)
    assert isinstance(table, ReferenceTable)
    rows = tuple(table)
    again = pickle.loads(pickle.dumps(table))
    assert again == table and tuple(again) == rows
    assert table[0] == rows[0] and table[-1] == rows[-1] and table[2:5] == rows[2:5] and len(table) == len(rows)
    assert rows[3] in table and table.index(rows[3]) == rows.index(rows[3])
    assert table != list(rows) and ReferenceTable.empty("x.py") == ()
    with pytest.raises(ValueError, match="different lengths"):
        ReferenceTable("x.py", ["a"], [], np.zeros((1, 4), dtype=np.int64), [None], receivers=[None], modules=[None],
                       aliases=[None])  # fmt: skip

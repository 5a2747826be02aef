"""analyze_file on real content: decoding, hashing, parse failures, and the chunks every file gets."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from maguyva_lsp.model import FileAnalysis, PathClass, SourceFile
from maguyva_lsp.parse.analyze import MAX_ERROR_FRACTION, analyze_file, error_fraction, is_binary, parse_source
from maguyva_lsp.parse.languages import language_for_path, parser_for

SAMPLES = Path(__file__).parent / "samples"


def _analyze(tmp_path: Path, name: str, data: bytes, language: str | None = None) -> FileAnalysis:
    file_path = tmp_path / name
    file_path.write_bytes(data)
    lang = language if language is not None else language_for_path(name)
    source = SourceFile(name, str(file_path), lang, PathClass.SOURCE, len(data), 0)
    return analyze_file(source, file_path.read_bytes())


def _covered_lines(analysis: FileAnalysis) -> set[int]:
    return {line for c in analysis.chunks for line in range(c.start_line, c.end_line + 1)}


def _non_blank_lines(text: str) -> set[int]:
    return {i for i, line in enumerate(text.split("\n")) if line.strip()}


def test_python_file_gets_definitions_and_chunks(tmp_path: Path) -> None:
    analysis = _analyze(tmp_path, "sample.py", (SAMPLES / "sample.py").read_bytes())
    assert analysis.parse_error is None
    assert {"parse", "Config", "load", "MAX_SIZE"} <= {d.name for d in analysis.definitions}
    calls = {(r.name, r.enclosing) for r in analysis.references if r.kind == "call"}
    assert ("helper", "parse") in calls  # references are read off the same tree, with their enclosing definition
    assert any(c.symbol == "load" and c.parent == "Config" for c in analysis.chunks)
    assert analysis.content_hash == hashlib.blake2b(analysis.text.encode(), digest_size=16).hexdigest()


def test_empty_file(tmp_path: Path) -> None:
    analysis = _analyze(tmp_path, "empty.py", b"")
    assert analysis.text == ""
    assert analysis.definitions == ()
    assert analysis.chunks == ()
    assert analysis.parse_error is None


def test_blank_file_has_no_chunks(tmp_path: Path) -> None:
    assert _analyze(tmp_path, "blank.go", b"\n\n   \n\t\n").chunks == ()


def test_invalid_utf8_does_not_crash(tmp_path: Path) -> None:
    data = b"def f\xff\xfe(x):\n    return '\xc3('\n\nclass K\x80:\n    pass\n"
    analysis = _analyze(tmp_path, "bad.py", data)
    assert "\ufffd" in analysis.text
    assert _covered_lines(analysis) >= _non_blank_lines(analysis.text)
    assert analysis.content_hash == hashlib.blake2b(data, digest_size=16).hexdigest()


def test_garbage_bytes_give_parse_error_and_window_chunks(tmp_path: Path) -> None:
    rng = random.Random(7)
    lines = [bytes(rng.randrange(33, 256) for _ in range(60)) for _ in range(100)]
    analysis = _analyze(tmp_path, "garbage.rs", b"\n".join(lines))
    assert analysis.parse_error is not None
    assert "rust" in analysis.parse_error
    assert analysis.definitions == ()
    assert len(analysis.chunks) >= 3  # 100 lines in windows of at most 40
    assert all(c.symbol is None and c.end_line - c.start_line < 40 for c in analysis.chunks)
    assert _covered_lines(analysis) == _non_blank_lines(analysis.text)


def test_a_local_syntax_error_keeps_the_tree(tmp_path: Path) -> None:
    source = (SAMPLES / "sample.py").read_bytes().replace(b"def load(self", b"def load((((self", 1)
    tree = parser_for("python").parse(source)  # type: ignore[union-attr]
    assert tree.root_node.has_error
    assert 0 < error_fraction(tree.root_node, len(source)) < MAX_ERROR_FRACTION
    analysis = _analyze(tmp_path, "broken.py", source)
    assert analysis.parse_error is None
    assert "parse" in {d.name for d in analysis.definitions}


def test_preprocessor_split_braces_keep_the_tree(tmp_path: Path) -> None:
    """tree-sitter wraps this whole file in one ERROR node, yet the functions under it are sound and kept."""
    source = (
        b"#ifndef S_H\n#define S_H\nstruct point { int x; int y; };\n#ifdef WIDE\nint scale(int a) {\n#else\n"
        b"int scale(int a, int b) {\n#endif\n  return a;\n}\n"
        b"int area(int width, int height) { return width * height; }\n"
        b"#endif\n"
    )
    tree = parser_for("c").parse(source)  # type: ignore[union-attr]
    assert [c.type for c in tree.root_node.children] == ["ERROR"]
    assert error_fraction(tree.root_node, len(source)) < MAX_ERROR_FRACTION
    analysis = _analyze(tmp_path, "split.c", source)
    assert analysis.parse_error is None
    assert {"area", "point"} <= {d.name for d in analysis.definitions}


PROSE = b"""Maguyva is a code search tool for editors.
You bring the question; it brings the tools.
Install it with pip, then open a folder in your editor and wait for the first index to finish.
Searching while indexing works, but results are partial until the progress bar is gone.
The index lives on disk, so the next start is warm: unchanged files are not read again.
Binary and huge files are skipped, and so is anything your ignore files leave out.
Questions about meaning go to the embeddings; exact strings go to the trigram index.
When a question is ambiguous, several engines answer and their lists are fused.
"""


@pytest.mark.parametrize("name", ["README.c", "README.go", "README.rs", "README.py"])
def test_prose_is_not_code(tmp_path: Path, name: str) -> None:
    analysis = _analyze(tmp_path, name, PROSE)
    assert analysis.parse_error is not None
    assert analysis.definitions == ()
    assert _covered_lines(analysis) == _non_blank_lines(analysis.text)


def test_parse_source_without_grammar_is_not_an_error() -> None:
    parsed = parse_source("no-such-grammar", b"x")
    assert parsed.tree is None
    assert parsed.error is None


def test_cpp_header_named_h_falls_back_to_the_cpp_grammar(tmp_path: Path) -> None:
    header = b"#pragma once\nnamespace geo {\nclass Shape {\n public:\n  virtual double area() const = 0;\n};\n}\n"
    parsed = parse_source("c", header)
    assert (parsed.language, parsed.error) == ("cpp", None)
    analysis = _analyze(tmp_path, "shape.h", header)
    assert analysis.file.language == "c"
    assert [(d.kind, d.qualified_name, d.language) for d in analysis.definitions] == [
        ("module", "geo", "cpp"),
        ("class", "geo.Shape", "cpp"),
        ("method", "geo.Shape.area", "cpp"),
    ]


def test_plain_c_header_keeps_the_c_grammar() -> None:
    parsed = parse_source("c", b"struct point { int x; };\nint add(int a, int b);\n")
    assert (parsed.language, parsed.error) == ("c", None)


def test_file_without_language_gets_windows(tmp_path: Path) -> None:
    text = "\n".join(f"line {i}" for i in range(95)) + "\n"
    analysis = _analyze(tmp_path, "notes.unknownext", text.encode())
    assert analysis.file.language is None
    assert [(c.start_line, c.end_line) for c in analysis.chunks] == [(0, 39), (40, 79), (80, 94)]
    assert analysis.parse_error is None


def test_byte_order_mark_is_not_part_of_the_text(tmp_path: Path) -> None:
    analysis = _analyze(tmp_path, "bom.py", b"\xef\xbb\xbfdef first():\n    return 1\n")
    assert analysis.text.startswith("def first")
    (definition,) = analysis.definitions
    assert (definition.name_span.start_line, definition.name_span.start_col) == (0, 4)


def test_non_ascii_columns_are_code_points(tmp_path: Path) -> None:
    analysis = _analyze(tmp_path, "u.py", "x = 'été'; y = 1\nclass Ünïcode:\n    def été(self): pass\n".encode())
    method = next(d for d in analysis.definitions if d.kind == "method")
    assert method.parent == "Ünïcode"
    assert (method.name_span.start_col, method.name_span.end_col) == (8, 11)


def test_is_binary() -> None:
    assert is_binary(b"abc\x00def")
    assert not is_binary("plain text, ünïcode".encode())
    assert not is_binary(b"x" * (8 * 1024) + b"\x00")  # only the first 8 KiB are sniffed
    assert not is_binary(b"")


def test_documents_are_prose_and_data_files_and_files_no_grammar_reads() -> None:
    from maguyva_lsp.parse.languages import is_document

    documents = ["README.md", "docs/api.rst", "CHANGES.rst", "setup.cfg", "pyproject.toml", "a/b.json", "x.yml"]
    documents += ["LICENSE", "notes.txt", "requirements.txt", ".gitignore", "go.sum", "logo.svg"]
    code = ["src/app.py", "lib/x.js", "main.go", "a.ts", "templates/index.html", "style.css", "Makefile", "run.sh"]
    assert [p for p in documents if not is_document(p)] == []
    assert [p for p in code if is_document(p)] == []

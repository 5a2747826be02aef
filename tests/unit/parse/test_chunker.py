"""Chunking along definitions: coverage, no overlap, class/method split, long definitions, module-level windows."""

from __future__ import annotations

from pathlib import Path

import pytest

from maguyva_lsp.model import Chunk, Definition, PathClass, SourceFile, Span
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.chunker import MAX_DEFINITION_LINES, chunk_file
from maguyva_lsp.parse.languages import language_for_path

SAMPLES = Path(__file__).parent / "samples"
SAMPLE_NAMES = sorted(p.name for p in SAMPLES.iterdir())


def _chunks(tmp_path: Path, name: str, text: str, window_lines: int = 40) -> list[Chunk]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    data = path.read_bytes()
    source = SourceFile(name, str(path), language_for_path(name), PathClass.SOURCE, len(data), 0)
    return list(analyze_file(source, data, chunk_lines=window_lines).chunks)


def _assert_partition(chunks: list[Chunk], text: str) -> None:
    """Chunks are sorted, disjoint, exact, hashed by their text, and cover every non-blank line."""
    lines = text.split("\n")
    covered: list[int] = []
    for previous, chunk in zip([None, *chunks], chunks, strict=False):
        assert chunk.start_line <= chunk.end_line
        if previous is not None:
            assert previous.end_line < chunk.start_line
        assert chunk.text == "\n".join(lines[chunk.start_line : chunk.end_line + 1])
        assert chunk.text.strip()
        assert lines[chunk.start_line].strip() and lines[chunk.end_line].strip()
        covered.extend(range(chunk.start_line, chunk.end_line + 1))
    assert {i for i, line in enumerate(lines) if line.strip()} <= set(covered)


@pytest.mark.parametrize("name", SAMPLE_NAMES)
@pytest.mark.parametrize("window_lines", [40, 3])
def test_sample_chunks_partition_the_file(tmp_path: Path, name: str, window_lines: int) -> None:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    chunks = _chunks(tmp_path, name, text, window_lines)
    assert chunks
    _assert_partition(chunks, text)
    assert chunks == _chunks(tmp_path, name, text, window_lines)  # deterministic


def test_python_class_chunk_holds_its_own_lines_only(tmp_path: Path) -> None:
    text = (SAMPLES / "sample.py").read_text(encoding="utf-8")
    by_symbol = {(c.parent, c.symbol): c for c in _chunks(tmp_path, "sample.py", text)}
    config = by_symbol[(None, "Config")]
    assert config.kind == "class"
    assert config.signature == "class Config(Base):"
    assert config.text.splitlines() == [
        "@dataclass",
        "class Config(Base):",
        '    """A configuration."""',
        "",
        '    name: str = "x"',
    ]
    load = by_symbol[("Config", "load")]
    assert (load.kind, load.text.split("\n")[0]) == ("method", '    def load(self, path: str) -> "Config":')
    inner_method = by_symbol[("Config.Inner", "method")]
    assert inner_method.kind == "method"
    assert by_symbol[("Config", "Inner")].text == "    class Inner:"
    parse = by_symbol[(None, "parse")]
    assert "def helper(line):" in parse.text  # a closure stays in its function's chunk
    assert ("parse", "helper") not in by_symbol


def test_module_level_code_goes_to_windows(tmp_path: Path) -> None:
    text = (SAMPLES / "sample.py").read_text(encoding="utf-8")
    windows = [c for c in _chunks(tmp_path, "sample.py", text) if c.symbol is None]
    assert windows[0].text.split("\n")[2] == '"""A small module used by the tag tests."""'
    assert "lower_name" in windows[0].text
    assert windows[-1].text.startswith('if __name__ == "__main__":')
    assert all(c.kind is None and c.parent is None and c.signature is None for c in windows)


def test_windows_respect_their_size_and_prefer_blank_lines(tmp_path: Path) -> None:
    blocks = ["\n".join(f"value_{b}_{i} = {i}" for i in range(7)) for b in range(12)]
    text = "\n\n".join(blocks) + "\n"
    chunks = _chunks(tmp_path, "settings.py", text, window_lines=20)
    _assert_partition(chunks, text)
    assert all(c.end_line - c.start_line < 20 for c in chunks)
    lines = text.split("\n")
    assert all(c.end_line + 1 >= len(lines) or not lines[c.end_line + 1].strip() for c in chunks[:-1])


def test_long_definition_is_split_into_pieces_that_keep_its_symbol(tmp_path: Path) -> None:
    body = "\n".join(f"        total += {i}" for i in range(300))
    text = f"import os\n\n\nclass Big:\n    def huge(self, total):\n{body}\n        return total\n"
    chunks = _chunks(tmp_path, "big.py", text)
    _assert_partition(chunks, text)
    pieces = [c for c in chunks if c.symbol == "huge"]
    assert len(pieces) == 3
    assert all(c.end_line - c.start_line < MAX_DEFINITION_LINES for c in pieces)
    assert {(c.kind, c.parent, c.signature) for c in pieces} == {("method", "Big", "def huge(self, total):")}
    assert [c.start_line for c in pieces[1:]] == [c.end_line + 1 for c in pieces[:-1]]
    assert pieces[-1].end_line == len(text.split("\n")) - 2


def test_leading_comments_and_attributes_join_the_definition(tmp_path: Path) -> None:
    text = (SAMPLES / "sample.rs").read_text(encoding="utf-8")
    point = next(c for c in _chunks(tmp_path, "sample.rs", text) if c.symbol == "Point" and c.kind == "struct")
    assert point.text.startswith("/// A point in space.\n#[derive(Debug, Clone)]\npub struct Point {")
    source = "import os\n\n# Parse a line.\n# Returns a dict.\ndef parse(line):\n    return {}\n"
    (_, parse) = _chunks(tmp_path, "c.py", source)
    assert (parse.start_line, parse.symbol) == (2, "parse")


def test_closing_lines_join_the_chunk_before(tmp_path: Path) -> None:
    text = (SAMPLES / "Sample.java").read_text(encoding="utf-8")
    chunks = _chunks(tmp_path, "Sample.java", text)
    assert not any(c.text.strip() in ("}", "};") for c in chunks)
    is_fast = next(c for c in chunks if c.symbol == "isFast")
    assert is_fast.text.endswith("        }\n    }\n}")


def test_interface_members_stay_in_the_interface_chunk(tmp_path: Path) -> None:
    text = (SAMPLES / "sample.go").read_text(encoding="utf-8")
    chunks = _chunks(tmp_path, "sample.go", text)
    handler = next(c for c in chunks if c.symbol == "Handler")
    assert "Serve(w http.ResponseWriter" in handler.text
    assert not any(c.symbol == "Serve" for c in chunks)
    start = next(c for c in chunks if c.symbol == "Start")
    assert (start.kind, start.parent) == ("method", "Server")


def test_file_without_definitions_gets_windows_only(tmp_path: Path) -> None:
    text = "\n".join(f"echo step {i}" for i in range(50)) + "\n"
    chunks = _chunks(tmp_path, "steps.sh", text)
    assert [(c.start_line, c.end_line, c.symbol) for c in chunks] == [(0, 39, None), (40, 49, None)]


def test_crlf_text_is_kept_exactly(tmp_path: Path) -> None:
    text = "import os\r\n\r\ndef f():\r\n    return 1\r\n"
    path = tmp_path / "crlf.py"
    path.write_bytes(text.encode())
    data = path.read_bytes()
    analysis = analyze_file(SourceFile("crlf.py", str(path), "python", PathClass.SOURCE, len(data), 0), data)
    assert [(c.start_line, c.end_line, c.symbol) for c in analysis.chunks] == [(0, 0, None), (2, 3, "f")]
    assert analysis.chunks[1].text == "def f():\r\n    return 1\r"


def test_definitions_out_of_range_do_not_break_chunking() -> None:
    text = "a = 1\nb = 2\n"
    odd = [
        Definition("ghost", "function", "x.py", Span(10, 0, 20, 0), Span(10, 4, 10, 9), "def ghost():"),
        Definition("back", "class", "x.py", Span(1, 0, 0, 0), Span(1, 0, 1, 1), "class back:"),
    ]
    chunks = chunk_file("x.py", "python", text, odd)
    assert [(c.start_line, c.end_line) for c in chunks] == [(0, 1)]


def test_one_line_members_stay_in_their_class_chunk(tmp_path: Path) -> None:
    text = (SAMPLES / "sample.cpp").read_text(encoding="utf-8")
    chunks = _chunks(tmp_path, "sample.cpp", text)
    shape = next(c for c in chunks if c.symbol == "Shape")
    assert (shape.start_line, shape.end_line, shape.kind) == (6, 11, "class")
    assert "virtual double area() const = 0;" in shape.text
    assert not any(c.parent == "geo.Shape" and c.symbol in ("name", "area", "~Shape") for c in chunks)
    area = [c for c in chunks if c.symbol == "area"]  # the out-of-class definition is a chunk of its own
    assert [(c.parent, c.start_line) for c in area] == [("geo.Circle", 18)]


def test_comment_after_the_last_definition_is_not_glued_to_it(tmp_path: Path) -> None:
    text = "class A {\n  m() {\n    return 1;\n  }\n}\n\n// The end of the module.\n// Nothing follows.\n"
    chunks = _chunks(tmp_path, "tail.js", text)
    assert [(c.start_line, c.end_line, c.symbol) for c in chunks] == [(0, 0, "A"), (1, 4, "m"), (6, 7, None)]

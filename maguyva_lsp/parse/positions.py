"""Convert tree-sitter byte positions to the engine's 0-based (line, code-point column) spans."""

from __future__ import annotations

from typing import Any

from maguyva_lsp.model import Span


class LineIndex:
    """The byte offset where each line of a source starts, to turn byte columns into code-point columns."""

    __slots__ = ("_lines", "ascii")

    def __init__(self, source: bytes) -> None:
        self._lines = source.split(b"\n")
        self.ascii = source.isascii()  # byte columns are code-point columns: skip the decode

    def column(self, row: int, byte_col: int) -> int:
        """The code-point column of a byte column on a row."""
        if self.ascii or byte_col == 0 or row >= len(self._lines):
            return byte_col
        return len(self._lines[row][:byte_col].decode("utf-8", "replace"))

    def span(self, node: Any) -> Span:
        """The Span of a tree-sitter node."""
        return Span(*self.position(node))

    def position(self, node: Any) -> tuple[int, int, int, int]:
        """A node's span as a tuple (start line, start column, end line, end column)."""
        (sr, sc), (er, ec) = node.start_point, node.end_point
        if self.ascii:
            return (sr, sc, er, ec)
        return (sr, self.column(sr, sc), er, self.column(er, ec))

    def line_text(self, row: int) -> str:
        return self._lines[row].decode("utf-8", "replace") if row < len(self._lines) else ""

    @property
    def line_count(self) -> int:
        return len(self._lines)

"""Convert tree-sitter byte positions to the engine's 0-based (line, code-point column) spans."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.model import Span

I64 = npt.NDArray[np.int64]
_CONTINUATION_MASK, _CONTINUATION = 0xC0, 0x80  # UTF-8 bytes 10xxxxxx continue a character


class LineIndex:
    """The byte offset where each line of a source starts, to turn byte columns into code-point columns."""

    __slots__ = ("_continued", "_lines", "_source", "_starts", "_valid", "ascii")

    def __init__(self, source: bytes) -> None:
        self._source = source
        self._lines = source.split(b"\n")
        self.ascii = source.isascii()  # byte columns are code-point columns: skip the decode
        self._starts: I64 | None = None
        self._continued: I64 | None = None
        self._valid: bool | None = None  # whether the source is valid UTF-8 (asked for non-ASCII sources only)

    def column(self, row: int, byte_col: int) -> int:
        """The code-point column of a byte column on a row."""
        if self.ascii or byte_col == 0 or row >= len(self._lines):
            return byte_col
        return len(self._lines[row][:byte_col].decode("utf-8", "replace"))

    def span(self, node: Any) -> Span:
        """The Span of a tree-sitter node."""
        (sr, sc), (er, ec) = node.start_point, node.end_point
        if self.ascii:
            return Span(sr, sc, er, ec)
        return Span(sr, self.column(sr, sc), er, self.column(er, ec))

    def position(self, node: Any) -> tuple[int, int, int, int]:
        """A node's span as a tuple (start line, start column, end line, end column)."""
        (sr, sc), (er, ec) = node.start_point, node.end_point
        if self.ascii:
            return (sr, sc, er, ec)
        return (sr, self.column(sr, sc), er, self.column(er, ec))

    def positions(self, begins: I64, ends: I64) -> tuple[I64, I64, I64, I64]:
        """The spans of byte ranges as four columns (start lines, start columns, end lines, end columns): what
        `position` gives for nodes with those ranges (a point's row counts the newlines before it, as tree-sitter's
        does), without a call into the binding per node."""
        starts = self._line_starts()
        start_rows = np.searchsorted(starts, begins, side="right") - 1
        end_rows = np.searchsorted(starts, ends, side="right") - 1
        start_cols = begins - starts[start_rows]
        end_cols = ends - starts[end_rows]
        if not self.ascii:
            start_cols = self._code_points(start_rows, start_cols, begins)
            end_cols = self._code_points(end_rows, end_cols, ends)
        return start_rows, start_cols, end_rows, end_cols

    def _line_starts(self) -> I64:
        if self._starts is None:
            newlines = np.flatnonzero(np.frombuffer(self._source, dtype=np.uint8) == ord("\n"))
            self._starts = np.concatenate(([0], newlines + 1)).astype(np.int64)
        return self._starts

    def _code_points(self, rows: I64, byte_cols: I64, offsets: I64) -> I64:
        """Code-point columns of byte columns: on valid UTF-8 at character boundaries, the bytes before the offset on
        its line that start a character; anything else (invalid bytes, an offset inside a character) through
        `column`, whose replacement characters that count does not model."""
        data = np.frombuffer(self._source, dtype=np.uint8)
        if self._continued is None:
            continued = np.zeros(len(data) + 1, dtype=np.int64)
            np.cumsum((data & _CONTINUATION_MASK) == _CONTINUATION, out=continued[1:])
            self._continued = continued
        inside = offsets < len(data)
        at_boundary = not bool(np.any((data[offsets[inside]] & _CONTINUATION_MASK) == _CONTINUATION))
        if at_boundary and self._valid_utf8():
            line_begins = offsets - byte_cols
            counts: I64 = self._continued[offsets] - self._continued[line_begins]
            return byte_cols - counts
        return np.array(
            [self.column(r, c) for r, c in zip(rows.tolist(), byte_cols.tolist(), strict=True)], dtype=np.int64
        )

    def _valid_utf8(self) -> bool:
        if self._valid is None:
            try:
                self._source.decode("utf-8")
                self._valid = True
            except UnicodeDecodeError:
                self._valid = False
        return self._valid

    def line_text(self, row: int) -> str:
        return self._lines[row].decode("utf-8", "replace") if row < len(self._lines) else ""

    @property
    def line_count(self) -> int:
        return len(self._lines)

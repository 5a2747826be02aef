"""Python source as arrays for a line scanner: strings and comments masked, bracket depth after every byte, and per
line its start, end, indentation, whether a statement starts there, and where that statement's last line is.

`parse/python_outline.py` reads definitions off these. Anything the masking cannot settle the way the tokenizer would
(CRLF, tabs or form feeds in indentation, an unterminated string, unbalanced brackets) raises `DeclineError`: the
caller parses the file instead.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cached_property
from typing import cast

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]

# Strings (triple or single quoted, escapes) and comments, leftmost first: a `#` inside a string and a quote inside a
# comment are each read as part of the token that holds them. Every branch starts with `#`, `'` or `"`, so the regex
# engine skips to the next of those at C speed; a prefix (`rb"..."`) stays as code letters before the masked string,
# which changes no indentation, statement end or bracket depth (a raw string ends at the same quote).
_TOKENS = re.compile(
    rb"(#[^\n]*"
    rb"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    rb'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    rb"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    rb'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")',
    re.DOTALL,
)
_ODD_INDENT = re.compile(rb"\n[ ]*[\t\f]")
_SKIP_BLANK = re.compile(rb"(?:[ \n]|\\\n)*")  # spaces, newlines and line continuations

_STRING_FILL, _SPACE, _NEWLINE, _BACKSLASH = ord("x"), ord(" "), ord("\n"), ord("\\")
_BRACKET_STEP = np.zeros(256, dtype=np.int16)
_BRACKET_STEP[list(b"([{")] = 1
_BRACKET_STEP[list(b")]}")] = -1


class DeclineError(Exception):
    """The file holds something the scanner does not read the grammar's way: parse it instead."""


class PythonLines:
    """One file's masked code (strings filled with `x`, comments with spaces, newlines kept), bracket depths and
    logical lines as numpy arrays, with plain lists of the per-line facts for readers that look at a few lines one by
    one (list indexing and bisect cost less than numpy scalars)."""

    def __init__(self, source: bytes) -> None:
        self.ascii = source.isascii()
        if b"\r" in source:
            raise DeclineError
        if (b"\t" in source or b"\f" in source) and _ODD_INDENT.search(b"\n" + source):
            raise DeclineError
        self.source = source
        data = np.frombuffer(source, dtype=np.uint8)
        self.size = size = len(data)
        string_mask, comment_mask, comment_starts = _token_masks(source, size)
        code: U8 = data.copy()
        code[string_mask & (data != _NEWLINE)] = _STRING_FILL
        code[comment_mask] = _SPACE
        self.code = code.tobytes()
        if b'"' in self.code or b"'" in self.code:
            raise DeclineError  # an unterminated string
        self.code_array = code
        self.semicolons = b";" in self.code  # statements the scanner does not split: checked where they matter
        depth = np.cumsum(_BRACKET_STEP[code], dtype=np.int16)  # depth after each byte (at most 200 in CPython)
        if depth[-1] != 0 or int(depth.min()) < 0:
            raise DeclineError
        self.depth = depth
        newlines = np.flatnonzero(data == _NEWLINE)
        self.starts = starts = np.concatenate(([0], newlines + 1)).astype(np.int64)
        self.ends = ends = np.concatenate((newlines, [size])).astype(np.int64)  # exclusive: the line's newline
        self.line_count = len(starts)
        before = np.maximum(starts - 1, 0)  # the newline ending the line before
        continued = np.zeros(len(starts), dtype=bool)
        continued[1:] = (newlines > 0) & (code[np.maximum(newlines - 1, 0)] == _BACKSLASH)
        self.logical_lines = logical = (starts == 0) | ((depth[before] == 0) & ~string_mask[before] & ~continued)
        code_cells = (code != _SPACE) & (code != _NEWLINE)
        self.code_at = code_at = np.flatnonzero(code_cells)
        first_index = np.searchsorted(code_at, starts)
        first_code = code_at[np.minimum(first_index, max(len(code_at) - 1, 0))] if len(code_at) else starts
        self.has_code = has_code = (first_index < len(code_at)) & (first_code < ends)
        self.indents = np.where(has_code, first_code - starts, -1)
        comment_at = np.searchsorted(starts, comment_starts, side="right") - 1  # each comment's line
        self.has_comment = np.zeros(len(starts), dtype=bool)
        self.has_comment[comment_at] = True
        comment_only = logical[comment_at] & ~has_code[comment_at]
        self.comment_lines = comment_at[comment_only]
        self.comment_indents = np.full(len(starts), -1, dtype=np.int64)
        self.comment_indents[self.comment_lines] = comment_starts[comment_only] - starts[self.comment_lines]
        self.statements = np.flatnonzero(has_code & logical)  # statements' first lines
        self.code_lines = np.flatnonzero(has_code)
        logical_at = np.flatnonzero(logical)
        # the last physical line of the statement each logical line starts
        self.statement_last_at = np.zeros(len(starts), dtype=np.int64)
        self.statement_last_at[logical_at] = np.append(logical_at[1:], len(starts)) - 1
        self._next_shallower: dict[int, I64] = {}

    @cached_property
    def line_starts(self) -> list[int]:
        return cast("list[int]", self.starts.tolist())

    @cached_property
    def indent(self) -> list[int]:
        return cast("list[int]", self.indents.tolist())

    @cached_property
    def logical(self) -> list[bool]:
        return cast("list[bool]", self.logical_lines.tolist())

    @cached_property
    def statement_last(self) -> list[int]:
        return self.statement_last_at.tolist()

    @cached_property
    def line_ends(self) -> list[int]:
        return cast("list[int]", self.ends.tolist())

    def last_seen(self, lines: I64) -> I64:
        """The byte after each line's last token, a comment included (tree-sitter's comment token runs to the end of
        its line, trailing spaces too)."""
        code_at = self.code_at
        last = code_at[np.maximum(np.searchsorted(code_at, self.ends[lines]) - 1, 0)] + 1
        return np.where(self.has_comment[lines], self.ends[lines], last)

    def line_of(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset) - 1

    def logical_of(self, line: int) -> int:
        """The first line of the statement a physical line belongs to."""
        while not self.logical[line]:
            line -= 1
        return line

    def find_at_depth(self, mark: bytes, begin: int, end: int | None = None, depth: int = 0) -> int:
        """Where `mark` first occurs in the code between `begin` and `end` at bracket depth `depth`, or -1."""
        code, depths = self.code, self.depth
        position = code.find(mark, begin, end)
        while position >= 0 and depths[position] != depth:
            position = code.find(mark, position + 1, end)
        return position

    def colon(self, after: int) -> int:
        """The first colon after `after` outside brackets (a header's or a lambda's)."""
        position = self.find_at_depth(b":", after)
        if position < 0:
            raise DeclineError
        return position

    def next_code(self, offset: int) -> int:
        """The first code byte at or after `offset` (comments are masked to spaces), past line continuations."""
        return _SKIP_BLANK.match(self.code, offset).end()  # type: ignore[union-attr]

    def next_codes(self, offsets: I64) -> I64:
        """`next_code` of each offset (the source's size where none follows): one search among the code bytes, and
        `next_code` itself where that lands on a line continuation."""
        code_at = self.code_at
        following = np.searchsorted(code_at, offsets)
        found = np.where(following < len(code_at), code_at[np.minimum(following, max(len(code_at) - 1, 0))], self.size)
        for i in np.flatnonzero(self.code_array[np.minimum(found, self.size - 1)] == _BACKSLASH).tolist():
            found[i] = self.next_code(int(offsets[i]))
        return found

    def statement_end(self, line: int) -> int:
        """The byte after the last token of the statement starting on `line`."""
        last = self.statement_last[line]
        while True:
            start = self.line_starts[last]
            length = len(self.code[start : self.line_ends[last]].rstrip(b" "))
            if length:
                return start + length
            last -= 1

    def shallower_after(self, level: int) -> I64:
        """For each statement (index into `statements`), the index of the next one indented less than `level`."""
        cached = self._next_shallower.get(level)
        if cached is None:
            indents = self.indents[self.statements]
            count = len(indents)
            positions = np.where(indents < level, np.arange(count), count)
            following = np.minimum.accumulate(positions[::-1])[::-1]  # the first at or after each index
            cached = np.append(following[1:], count)  # strictly after
            self._next_shallower[level] = cached
        return cached


def _token_masks(source: bytes, size: int) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], I64]:
    """Which bytes lie in strings and which in comments: one `split` by the token regex gives the pieces (code and
    tokens alternating), and each piece's kind repeated over its length is the mask, without a Python step per token."""
    pieces = _TOKENS.split(source)
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    kinds = np.zeros(len(pieces), dtype=np.uint8)  # 0 code, 1 string, 2 comment
    comment_starts = np.zeros(0, dtype=np.int64)
    if len(pieces) > 1:
        token_begins = (np.cumsum(lengths) - lengths)[1::2]
        comment = np.frombuffer(source, dtype=np.uint8)[np.minimum(token_begins, size - 1)] == ord("#")
        kinds[1::2] = np.where(comment, 2, 1)
        comment_starts = token_begins[comment]
    per_byte = np.repeat(kinds, lengths)
    return per_byte == 1, per_byte == 2, comment_starts

"""Split a file into retrieval chunks along its definitions: one per function/method/class, line windows elsewhere.

Chunks never overlap and cover every non-blank line. A class chunk holds the class's own lines (header, docstring,
attributes, one-line members), not its methods, which are chunks of their own; a function keeps everything nested in it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from maguyva_lsp.model import Chunk, Definition

I64 = npt.NDArray[np.int64]

DEFAULT_WINDOW_LINES = 40
# A definition longer than this is cut into consecutive pieces of about equal length (each keeps its symbol):
# one 600-line function is too coarse a unit for retrieval and too long for an embedding model's input.
MAX_DEFINITION_LINES = 120
# When a window must be cut, prefer a blank line in the window's last part (this fraction onwards) to a hard cut.
WINDOW_SOFT_CUT_FRACTION = 0.5

# Definitions that become chunks of their own; the rest (constants, type aliases, macros) stay in the line windows.
CHUNK_KINDS: frozenset[str] = frozenset(
    {"function", "method", "class", "interface", "struct", "enum", "trait", "impl", "module"}
)
# A member shorter than this (a one-line signature, accessor or declaration) stays in its container's chunk, where it
# reads in context, instead of making a chunk of its own.
MIN_MEMBER_CHUNK_LINES = 2
# Kinds whose nested definitions stay inside their chunk: a closure belongs to its function, and an interface is a
# contract of mostly one-line signatures best read whole.
ABSORBING_KINDS: frozenset[str] = frozenset({"function", "method", "interface"})

# Comment and attribute lines directly above a definition belong to its chunk (doc comments, `#[derive]`, `@Annot`).
_LEADING_PREFIXES: dict[str, tuple[str, ...]] = {
    "python": ("#",),
    "ruby": ("#",),
    "bash": ("#",),
    "lua": ("--",),
    "rust": ("//", "/*", "*", "#["),
    "go": ("//", "/*", "*"),
    "c": ("//", "/*", "*"),
    "cpp": ("//", "/*", "*"),
    "javascript": ("//", "/*", "*", "@"),
    "typescript": ("//", "/*", "*", "@"),
    "tsx": ("//", "/*", "*", "@"),
    "java": ("//", "/*", "*", "@"),
    "kotlin": ("//", "/*", "*", "@"),
    "scala": ("//", "/*", "*", "@"),
    "swift": ("//", "/*", "*", "@"),
    "csharp": ("//", "/*", "*", "["),
    "php": ("//", "#", "/*", "*"),
}
# A run of lines holding only closing brackets, `end` or `#endif` (and blank lines, and maybe a trailing comment) is
# glued to the chunk before it instead of standing alone.
_CLOSER_LINE = re.compile(r"^\s*(?:[)\]}>;,]+|end|fi|done|esac|#\s*endif\b)\s*;?\s*(?:(?://|#|--).*)?$")

_NO_OWNER = -1


def chunk_file(
    path: str,
    language: str | None,
    text: str,
    definitions: Sequence[Definition],
    *,
    window_lines: int = DEFAULT_WINDOW_LINES,
) -> list[Chunk]:
    """The file's chunks in line order: definitions where it has them, windows of at most `window_lines` elsewhere."""
    lines = text.split("\n")
    # `not line.strip()`: strip() removes exactly the characters isspace() accepts; this allocates nothing.
    blank = [not line or line.isspace() for line in lines]
    window_lines = max(1, window_lines)
    chunkable = [d for d in definitions if d.kind in CHUNK_KINDS]
    owners = _line_owners(lines, blank, chunkable, language)
    chunks: list[Chunk] = []
    for owner, first, last, all_blank in _segments(owners, blank):
        if all_blank:
            continue
        if chunks and _is_closers(lines, blank, first, last):
            chunks[-1] = _extend(chunks[-1], lines, blank, last)
            continue
        if owner == _NO_OWNER:
            for window in _windows(blank, first, last, window_lines):
                chunks.append(_chunk(path, language, lines, window, None))
        else:
            start, end = _trim(blank, first, last)
            for piece in _pieces(start, end, MAX_DEFINITION_LINES):
                chunks.append(_chunk(path, language, lines, piece, chunkable[owner]))
    return chunks


def _line_owners(lines: list[str], blank: list[bool], chunkable: list[Definition], language: str | None) -> I64:
    """For each line, the index of the innermost chunked definition that owns it (or _NO_OWNER): an array, so that
    owning a range of lines and finding the runs are not a Python step per line."""
    last = len(lines) - 1
    owners = np.full(len(lines), _NO_OWNER, dtype=np.int64)
    prefixes = _LEADING_PREFIXES.get(language or "", ())
    bounds = [(d.span.start_line, d.span.end_line) for d in chunkable]
    keys = [(start, -end) for start, end in bounds]
    order = sorted(range(len(chunkable)), key=keys.__getitem__)
    absorbed_until = -1  # definitions inside a function or method stay in its chunk
    for index in order:
        definition = chunkable[index]
        start, end = max(0, bounds[index][0]), min(last, bounds[index][1])
        if start > end or start <= absorbed_until:
            continue
        enclosing = int(owners[start])
        if enclosing != _NO_OWNER and end - start + 1 < MIN_MEMBER_CHUNK_LINES:
            continue
        while (
            start > 0
            and owners[start - 1] == enclosing
            and not blank[start - 1]
            and _is_leading_line(lines[start - 1], prefixes)
        ):
            start -= 1
        owners[start : end + 1] = index
        if definition.kind in ABSORBING_KINDS:
            absorbed_until = max(absorbed_until, end)
    return owners


def _is_leading_line(line: str, prefixes: tuple[str, ...]) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(prefixes) and not stripped.startswith("#!")


def _segments(owners: I64, blank: list[bool]) -> list[tuple[int, int, int, bool]]:
    """Maximal runs of lines with the same owner: (owner, first line, last line, whether all its lines are blank)."""
    cuts = np.flatnonzero(owners[1:] != owners[:-1]) + 1
    starts = np.concatenate((np.zeros(1, dtype=np.int64), cuts))
    ends = np.concatenate((cuts - 1, np.full(1, len(owners) - 1, dtype=np.int64)))
    filled = np.zeros(len(owners) + 1, dtype=np.int64)  # non-blank lines before each line
    np.cumsum(~np.array(blank, dtype=np.bool_), out=filled[1:])
    all_blank = filled[ends + 1] == filled[starts]
    return list(zip(owners[starts].tolist(), starts.tolist(), ends.tolist(), all_blank.tolist(), strict=True))


def _is_closers(lines: list[str], blank: list[bool], start: int, end: int) -> bool:
    return all(blank[i] or _CLOSER_LINE.match(lines[i]) for i in range(start, end + 1))


def _trim(blank: list[bool], start: int, end: int) -> tuple[int, int]:
    """The range without its leading and trailing blank lines (the caller knows it holds a non-blank one)."""
    while blank[start]:
        start += 1
    while blank[end]:
        end -= 1
    return start, end


def _windows(blank: list[bool], start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Non-blank windows of at most `size` lines over a module-level run, cut at blank lines where possible."""
    windows: list[tuple[int, int]] = []
    while start <= end:
        while start <= end and blank[start]:
            start += 1
        if start > end:
            break
        stop = min(end, start + size - 1)
        if stop < end:
            soft = start + int(size * WINDOW_SOFT_CUT_FRACTION)
            cut = next((i for i in range(stop, soft - 1, -1) if blank[i]), None)
            if cut is not None and cut > start:
                stop = cut - 1
        windows.append(_trim(blank, start, stop))  # starts on a non-blank line, so never blank
        start = stop + 1
    return windows


def _pieces(start: int, end: int, cap: int) -> list[tuple[int, int]]:
    """Cut a definition's lines into the fewest consecutive pieces of at most `cap` lines, of about equal length."""
    total = end - start + 1
    count = -(-total // cap)
    size = -(-total // count)
    return [(s, min(end, s + size - 1)) for s in range(start, end + 1, size)]


def _chunk(
    path: str, language: str | None, lines: list[str], span: tuple[int, int], definition: Definition | None
) -> Chunk:
    start, end = span
    text = "\n".join(lines[start : end + 1])
    if definition is None:
        return Chunk(path, language, start, end, text)
    return Chunk(
        path,
        language,
        start,
        end,
        text,
        definition.name,
        definition.kind,
        definition.parent,
        definition.signature,
    )


def _extend(chunk: Chunk, lines: list[str], blank: list[bool], end: int) -> Chunk:
    """The chunk grown down to `end` (to take in the closing lines that follow it), trailing blank lines left out."""
    while end > chunk.end_line and blank[end]:
        end -= 1
    text = "\n".join(lines[chunk.start_line : end + 1])
    return Chunk(
        chunk.path,
        chunk.language,
        chunk.start_line,
        end,
        text,
        symbol=chunk.symbol,
        kind=chunk.kind,
        parent=chunk.parent,
        signature=chunk.signature,
    )

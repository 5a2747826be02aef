"""Matchers that verify candidate documents: a literal (case-sensitive or not), a regex matched line by line as grep
does, and a whole identifier. Each counts the matches in a text and lists them in the order a file shows them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from maguyva_lsp.index.text_regex import RegexPlan
from maguyva_lsp.index.trigram import TextDocument

# Between two lines of a line-by-line regex scan, check the clock every this many lines.
DEADLINE_CHECK_LINES = 256
# Words that, directly before a name, make its line look like the name's definition, in most languages:
# `def f`, `class C`, `function f`, `func f`, `fn f`, `fun f`, `struct S`, `const X`, `let x`, `#define X` ...
DEFINITION_KEYWORDS: tuple[str, ...] = (
    "def", "class", "function", "func", "fn", "fun", "interface", "struct", "enum", "trait", "type", "module",
    "namespace", "record", "object", "protocol", "union", "macro", "const", "let", "var", "val", "define", "sub",
)  # fmt: skip
# The keyword is looked for this far before the name at most (a bound that keeps minified lines linear).
DEFINITION_LOOKBACK_CHARS = 160
# Between the keyword and the name: Go receivers `func (r *T) Name`, generics-free qualifiers `def Class.name`.
_DEFINITION_GAP = r"\s+(?:\([^()\n]*\)\s*)?(?:[\w$]+\.)*"
# An assignment at the start of a line, `NAME = ...` / `NAME: type = ...` (constants, globals), also counts.
_ASSIGNMENT_SUFFIX = r"[ \t]*(?::[^=\n]*)?=(?!=)"


class Deadline:
    """A wall-clock budget shared by the whole verification of one query."""

    __slots__ = ("_end",)

    def __init__(self, seconds: float) -> None:
        self._end = time.monotonic() + seconds

    def passed(self) -> bool:
        return time.monotonic() > self._end


class Matcher(Protocol):
    """What verification needs of a query."""

    @property
    def description(self) -> str: ...

    def count(self, doc: TextDocument, deadline: Deadline) -> int:
        """How many matches the document holds (0: not a match after all)."""
        ...

    def preferred(self, doc: TextDocument) -> int:
        """0 when the document holds one of the better kind of match (whole word, definition), else more (lower is
        better)."""
        ...

    def ordered(self, doc: TextDocument) -> Iterator[tuple[int, int]]:
        """(start, end) character offsets of every match, better kind first, then in text order."""
        ...


def _better_first(all_matches: list[tuple[int, int]], better: set[int]) -> Iterator[tuple[int, int]]:
    if not better:
        yield from all_matches
        return
    yield from (m for m in all_matches if m[0] in better)
    yield from (m for m in all_matches if m[0] not in better)


def is_word_char(char: str) -> bool:
    """Exactly what `\\w` matches in a str pattern: Unicode alphanumerics and the underscore."""
    return char == "_" or char.isalnum()


class _WordEdges:
    """Whether an occurrence stands as a whole word: no word character glued to an end of the needle that is itself
    a word character (`self.` is whole in `self.x`; `parseConfig` is not in `parseConfigs`)."""

    __slots__ = ("_end", "_start")

    def __init__(self, needle: str) -> None:
        self._start = is_word_char(needle[0])
        self._end = is_word_char(needle[-1])

    @property
    def always(self) -> bool:
        return not (self._start or self._end)

    def whole(self, text: str, start: int, end: int) -> bool:
        if self._start and start > 0 and is_word_char(text[start - 1]):
            return False
        return not (self._end and end < len(text) and is_word_char(text[end]))


def _find_all(haystack: str, needle: str) -> Iterator[tuple[int, int]]:
    """Non-overlapping occurrences, left to right (what str.count counts)."""
    size = len(needle)
    pos = haystack.find(needle)
    while pos >= 0:
        yield pos, pos + size
        pos = haystack.find(needle, pos + size)


@dataclass(slots=True)
class LiteralMatcher:
    """A literal string. Case-insensitive means Python's re.IGNORECASE (Unicode simple case folding); for an ASCII
    text and needle that is plain lower-casing, which runs about 10x faster than the regex engine."""

    needle: str
    case_sensitive: bool
    _edges: _WordEdges | None = None
    _folded: re.Pattern[str] | None = None
    _lowered: tuple[int, str] = (-1, "")  # (doc id, its text lower-cased): one document is verified at a time

    def __post_init__(self) -> None:
        self._edges = _WordEdges(self.needle)
        if not self.case_sensitive:
            self._folded = re.compile(re.escape(self.needle), re.IGNORECASE)

    @property
    def description(self) -> str:
        return "literal" if self.case_sensitive else "literal, ignoring case"

    def _plain(self, doc: TextDocument) -> tuple[str, str] | None:
        """(haystack, needle) for plain str search, or None when the regex engine must fold case."""
        if self.case_sensitive:
            return doc.text, self.needle
        if not (doc.text.isascii() and self.needle.isascii()):
            return None
        if self._lowered[0] != doc.doc_id:
            self._lowered = (doc.doc_id, doc.text.lower())
        return self._lowered[1], self.needle.lower()

    def _all(self, doc: TextDocument) -> Iterator[tuple[int, int]]:
        plain = self._plain(doc)
        if plain is not None:
            return _find_all(*plain)
        assert self._folded is not None
        return (m.span() for m in self._folded.finditer(doc.text))

    def count(self, doc: TextDocument, deadline: Deadline) -> int:
        plain = self._plain(doc)
        if plain is not None:
            return plain[0].count(plain[1])
        assert self._folded is not None
        return sum(1 for _ in self._folded.finditer(doc.text))

    def preferred(self, doc: TextDocument) -> int:
        assert self._edges is not None
        if self._edges.always:
            return 0
        return 0 if any(self._edges.whole(doc.text, s, e) for s, e in self._all(doc)) else 1

    def ordered(self, doc: TextDocument) -> Iterator[tuple[int, int]]:
        assert self._edges is not None
        spans = list(self._all(doc))
        if self._edges.always:
            return iter(spans)
        return _better_first(spans, {s for s, e in spans if self._edges.whole(doc.text, s, e)})


_KEYWORD_BEFORE = re.compile(rf"(?<!\w)(?:{'|'.join(DEFINITION_KEYWORDS)}){_DEFINITION_GAP}\Z")
_INDENTATION_ONLY = re.compile(r"[ \t]*\Z")
_ASSIGNMENT_AFTER = re.compile(_ASSIGNMENT_SUFFIX)


def looks_like_definition(text: str, start: int, end: int) -> bool:
    """True when the name at [start, end) follows a definition keyword, or starts its line as an assignment target."""
    line_start = text.rfind("\n", 0, start) + 1
    if _KEYWORD_BEFORE.search(text, max(line_start, start - DEFINITION_LOOKBACK_CHARS), start):
        return True
    return bool(_INDENTATION_ONLY.match(text, line_start, start) and _ASSIGNMENT_AFTER.match(text, end))


@dataclass(slots=True)
class IdentifierMatcher:
    """A whole identifier: case-sensitive, `\\w` boundaries (`parseConfig` does not match `parseConfigs`), the lines
    that look like its definition first. Found with str.find (GB/s) and boundaries checked per occurrence; a regex
    with a lookbehind would forgo the engine's literal-prefix scan and run 40x slower."""

    name: str
    # The scope a qualified question named (`Queue` of `Queue.qsize`): files that hold it as a whole word, or are
    # named after it (a module), rank before the other files with the same kind of match.
    scope: str = ""
    _edges: _WordEdges | None = None
    # (doc id, its matches): verification asks count and then preferred of the same document; one scan serves both.
    _spans: tuple[int, list[tuple[int, int]]] = (-1, [])

    def __post_init__(self) -> None:
        self._edges = _WordEdges(self.name)

    def _matches(self, doc: TextDocument) -> list[tuple[int, int]]:
        if self._spans[0] != doc.doc_id:
            self._spans = (doc.doc_id, list(self._all(doc.text)))
        return self._spans[1]

    @property
    def description(self) -> str:
        return "identifier" if not self.scope else f"identifier, files with {self.scope} first"

    def _all(self, text: str, name: str | None = None) -> Iterator[tuple[int, int]]:
        name = self.name if name is None else name
        edges = self._edges if name == self.name else _WordEdges(name)
        assert edges is not None
        size = len(name)
        pos = text.find(name)
        while pos >= 0:
            if edges.whole(text, pos, pos + size):
                yield pos, pos + size
                pos = text.find(name, pos + size)
            else:  # a name with inner punctuation (`a.a`) may start again inside a rejected occurrence
                pos = text.find(name, pos + 1)

    def count(self, doc: TextDocument, deadline: Deadline) -> int:
        return len(self._matches(doc))

    def preferred(self, doc: TextDocument) -> int:
        """0: a definition-looking line (in a file of the scope, when one is named); then the other combinations."""
        defined = any(looks_like_definition(doc.text, s, e) for s, e in self._matches(doc))
        if not self.scope:
            return 0 if defined else 1
        stem = doc.path.rsplit("/", 1)[-1].split(".", 1)[0]
        in_scope = stem == self.scope or next(self._all(doc.text, self.scope), None) is not None
        return (0 if defined else 2) + (0 if in_scope else 1)

    def ordered(self, doc: TextDocument) -> Iterator[tuple[int, int]]:
        spans = self._matches(doc)
        return _better_first(spans, {s for s, e in spans if looks_like_definition(doc.text, s, e)})


@dataclass(slots=True)
class RegexMatcher:
    """A regex matched against each line on its own, as grep does: a match never spans a newline, `^`/`$` are the
    line's ends. Fast path: one pass over the whole text, valid when no match crosses a line and the pattern cannot
    look past one (`RegexPlan.line_safe`); otherwise that document is matched line by line."""

    plan: RegexPlan
    _by_line: set[int] | None = None

    @property
    def description(self) -> str:
        return "regex, ignoring case" if self.plan.ignore_case else "regex"

    def _whole_text(self, text: str) -> list[tuple[int, int]] | None:
        """All matches in one pass, or None when one crosses a line (the fast path does not apply)."""
        out: list[tuple[int, int]] = []
        for m in self.plan.pattern.finditer(text):
            start, end = m.span()
            if end > start and text.find("\n", start, end) >= 0:
                return None
            out.append((start, end))
        return out

    def _line_by_line(self, text: str, deadline: Deadline | None) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        search = self.plan.pattern.finditer
        offset = 0
        for number, line in enumerate(text.split("\n")):
            if deadline is not None and number % DEADLINE_CHECK_LINES == 0 and deadline.passed():
                break
            out.extend((offset + m.start(), offset + m.end()) for m in search(line))
            offset += len(line) + 1
        return out

    def _all(self, doc: TextDocument, deadline: Deadline | None) -> list[tuple[int, int]]:
        if self._by_line is None:
            self._by_line = set()
        if self.plan.line_safe and doc.doc_id not in self._by_line:
            found = self._whole_text(doc.text)
            if found is not None:
                return found
            self._by_line.add(doc.doc_id)
        return self._line_by_line(doc.text, deadline)

    def count(self, doc: TextDocument, deadline: Deadline) -> int:
        return len(self._all(doc, deadline))

    def preferred(self, doc: TextDocument) -> int:
        return 1

    def ordered(self, doc: TextDocument) -> Iterator[tuple[int, int]]:
        return iter(self._all(doc, None))


# A line that raises, throws, returns or panics with an error (its sites, after its definition).
_RAISE_SITE_RE = re.compile(r"\b(?:raise|throw|return|panic|reject|Errorf|bail|Err)\b|\bnew\s+\w")
# How an error token's occurrences rank: its definition, its raise/return sites, then every other mention.
ERROR_TOKEN_TIERS = ("definition", "raise site", "mention")


def error_token_tier(line: str, name: str, detail: dict[str, object] | None = None) -> int:
    """0 for a line that defines the error token, 1 for one that raises/throws/returns it, 2 for any other mention."""
    start = line.find(name)
    while start >= 0 and not _WordEdges(name).whole(line, start, start + len(name)):
        start = line.find(name, start + 1)
    if start >= 0 and looks_like_definition(line, start, start + len(name)):
        return 0
    return 1 if _RAISE_SITE_RE.search(line) else 2

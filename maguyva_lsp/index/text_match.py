"""Matchers that verify candidate files: a literal (case-sensitive or not), a regex matched line by line as grep
does, and a whole identifier. Each finds its matches lazily, in text order, as byte offsets of the file's UTF-8, so
that a bounded search (text_results.py) reads a file only as far as ranking it needs: literals and identifiers are
found in the file's UTF-8 bytes (FileView.data: nothing decoded to characters), regexes in its decoded text.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from maguyva_lsp.index.text_regex import RegexPlan
from maguyva_lsp.index.text_views import ONTO_ASCII, ByteOffsets, FileView, decode
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS

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


Span = tuple[int, int]  # [start, end) byte offsets within a file


class Deadline:
    """A wall-clock budget shared by the whole verification of one query."""

    __slots__ = ("_end",)

    def __init__(self, seconds: float) -> None:
        self._end = time.monotonic() + seconds

    def passed(self) -> bool:
        return time.monotonic() > self._end


class Matcher(Protocol):
    """What verification needs of a query. A file's rank among files with the same path class is
    `(rank(...), number of matches, path)`, lower first; `better` marks the better kind of match (a whole word, a
    definition-looking line), which a file shows first and which makes its rank."""

    @property
    def description(self) -> str: ...

    @property
    def has_better(self) -> bool:
        """False when no match is better than another (then `better` is never asked)."""
        ...

    def matches(self, view: FileView, deadline: Deadline) -> Iterator[Span]:
        """Every match, in text order, found lazily (a caller that stops early reads no further)."""
        ...

    def count(self, view: FileView, cap: int | None, deadline: Deadline) -> int:
        """How many matches the file holds, counting no further than `cap` (None: all of them)."""
        ...

    def better(self, view: FileView, span: Span) -> bool: ...

    def lists_cheaply(self, view: FileView) -> bool:
        """Whether listing the file's matches costs about what counting them does and gives the same number (then a
        file sure to enter the top is listed once instead of counted, then listed: text_results.run_matcher)."""
        ...

    def rank_floor(self, view: FileView) -> int:
        """The best rank the file can have, known before reading it."""
        ...

    def rank(self, view: FileView, better_found: bool) -> int:
        """The file's kind of match, 0 best, given whether any of its matches is a better one."""
        ...


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

    def whole_in(self, view: FileView, start: int, end: int) -> bool:
        """`whole` over a file's bytes (byte offsets), decoding only the neighbouring characters."""
        if self._start and is_word_char(view.char_before(start)):
            return False
        return not (self._end and is_word_char(view.char_at(end)))


def _utf8(text: str) -> bytes:
    return text.encode(ENCODING, ENCODING_ERRORS)


def count_matches(found: Iterator[object], cap: int | None) -> int:
    """The length of an iterator of matches, read no further than `cap` (None: to its end)."""
    if cap is None:
        return sum(1 for _ in found)
    return len(list(itertools.islice(found, cap)))


def _found_all(haystack: bytes, needle: bytes) -> Iterator[Span]:
    """Non-overlapping occurrences, left to right (what bytes.count counts)."""
    size = len(needle)
    pos = haystack.find(needle)
    while pos >= 0:
        yield pos, pos + size
        pos = haystack.find(needle, pos + size)


def _count_found(haystack: bytes, needle: bytes, cap: int | None) -> int:
    """Non-overlapping occurrences, counted no further than `cap`."""
    if cap is None:
        return haystack.count(needle)
    found, pos = 0, haystack.find(needle)
    while pos >= 0 and found < cap:
        found += 1
        pos = haystack.find(needle, pos + len(needle))
    return found


def _in_text(pattern: re.Pattern[str], view: FileView) -> Iterator[Span]:
    """Non-overlapping matches of a str pattern in the file's decoded text, as byte offsets."""
    to_bytes = ByteOffsets(view.text)
    for m in pattern.finditer(view.text):
        start = to_bytes(m.start())
        yield start, to_bytes(m.end())


@dataclass(slots=True)
class LiteralMatcher:
    """A literal string. Case-insensitive means Python's re.IGNORECASE (Unicode simple case folding): for an ASCII
    needle in a file without the few characters that fold onto ASCII letters (`FileView.folding`) that is ASCII case
    folding of the bytes, which runs on the file's bytes in place; otherwise the decoded text is matched."""

    needle: str
    case_sensitive: bool
    _edges: _WordEdges = field(init=False)
    _data: bytes = field(init=False)
    _lowered: bytes = field(init=False)
    _ascii: bool = field(init=False)  # an ASCII needle: ASCII case folding of the bytes is Python's
    _folded: re.Pattern[str] = field(init=False)
    _onto: tuple[tuple[bytes, bytes], ...] = field(init=False)  # the folding characters of the needle's letters

    def __post_init__(self) -> None:
        self._edges = _WordEdges(self.needle)
        data = self._data = _utf8(self.needle)
        self._lowered = data.lower()
        self._ascii = self.needle.isascii()
        self._folded = re.compile(re.escape(self.needle), re.IGNORECASE)
        self._onto = tuple((encoded, letter) for encoded, letter in ONTO_ASCII if letter in self._lowered)

    @property
    def description(self) -> str:
        return "literal" if self.case_sensitive else "literal, ignoring case"

    @property
    def has_better(self) -> bool:
        return not self._edges.always

    def matches(self, view: FileView, deadline: Deadline) -> Iterator[Span]:
        if self.case_sensitive:
            return _found_all(view.data(), self._data)
        if self._ascii and not self._folds(view):  # bytes.find in the kept lower-cased copy: 5x the regex's folding
            return _found_all(view.lowered(), self._lowered)
        return _in_text(self._folded, view)

    def count(self, view: FileView, cap: int | None, deadline: Deadline) -> int:
        if self.case_sensitive:
            # bytes.find/count over the file's bytes: several GB/s, 5x the regex engine's literal scan.
            data = view.data()
            return data.count(self._data) if cap is None else _count_found(data, self._data, cap)
        if not self._ascii:
            return count_matches(self.matches(view, deadline), cap)
        if self._folds(view):  # its few characters that fold onto ASCII letters put in their place, lower-cased
            return _count_found(view.folded(), self._lowered, cap)
        # ASCII case folding of the bytes, in the lower-cased copy the text cache keeps beside the text: bytes.find
        # at memory speed from the second search on (the regex engine folds case at ~0.2 GB/s: a broad literal
        # ignoring case read its ~600 stdlib files at 70 ms a query, against 20 ms for the exact case).
        return _count_found(view.lowered(), self._lowered, cap)

    def better(self, view: FileView, span: Span) -> bool:
        return self._edges.whole_in(view, *span)

    def lists_cheaply(self, view: FileView) -> bool:
        # The same bytes and non-overlapping left-to-right scan either way (bytes.count, bytes.find), but for an ASCII
        # needle ignoring case in a folding file: counted in its folded copy, listed by the regex over decoded text.
        return self.case_sensitive or not self._ascii or not self._folds(view)

    @property
    def overlaps_itself(self) -> bool:
        """Whether two occurrences ignoring case can overlap (the lower-cased needle begins as it ends: `aa`, `abab`).
        When they cannot, a file's non-overlapping count is the number of places it occurs at, so an equal count
        ignoring case and exactly means the same places."""
        n = self._lowered
        return any(n[:k] == n[-k:] for k in range(1, len(n)))

    def total_ignoring_case(self, views: list[FileView], stop: int) -> int:
        """Matches ignoring case in the files, counted as `count` does (a file that folds onto the needle's letters in
        its folded copy, any other in its lower-cased copy, kept in the text cache), until the total passes `stop`."""
        total = 0
        for view in views:
            haystack = view.folded() if self._folds(view) else view.lowered()
            total += haystack.count(self._lowered)
            if total > stop:
                break
        return total

    def _folds(self, view: FileView) -> bool:
        """Whether the file holds a character that folds onto one of the needle's letters (bytes lower-casing is not
        enough then)."""
        return view.folding and bool(self._onto)

    def rank_floor(self, view: FileView) -> int:
        return 0

    def rank(self, view: FileView, better_found: bool) -> int:
        return 0 if better_found or self._edges.always else 1


_KEYWORD_BEFORE = re.compile(rf"(?<!\w)(?:{'|'.join(DEFINITION_KEYWORDS)}){_DEFINITION_GAP}\Z")
_INDENTATION_ONLY = re.compile(r"[ \t]*\Z")
_ASSIGNMENT_AFTER = re.compile(_ASSIGNMENT_SUFFIX)


def looks_like_definition(text: str, start: int, end: int) -> bool:
    """True when the name at [start, end) follows a definition keyword, or starts its line as an assignment target."""
    line_start = text.rfind("\n", 0, start) + 1
    if _KEYWORD_BEFORE.search(text, max(line_start, start - DEFINITION_LOOKBACK_CHARS), start):
        return True
    return bool(_INDENTATION_ONLY.match(text, line_start, start) and _ASSIGNMENT_AFTER.match(text, end))


def defines_at(view: FileView, span: Span) -> bool:
    """`looks_like_definition` for a match in a file's bytes: only the match's line is decoded (the test looks no
    further than the line)."""
    start, end = span
    _, line_start, line_end = view.line_of(start)
    line = view.bytes_at(line_start, max(line_end, end))
    if line.isascii():
        return looks_like_definition(line.decode("ascii"), start - line_start, end - line_start)
    head = len(decode(line[: start - line_start]))
    return looks_like_definition(decode(line), head, head + len(decode(line[start - line_start : end - line_start])))


@dataclass(slots=True)
class IdentifierMatcher:
    """A whole identifier: case-sensitive, `\\w` boundaries (`parseConfig` does not match `parseConfigs`), the lines
    that look like its definition first. Occurrences are found in the bytes (a literal search, GB/s) and their
    boundaries checked one by one; a regex with a lookbehind would forgo the engine's literal scan and run 40x
    slower."""

    name: str
    # The scope a qualified question named (`Queue` of `Queue.qsize`): files that hold it as a whole word, or are
    # named after it (a module), rank before the other files with the same kind of match.
    scope: str = ""
    _edges: _WordEdges = field(init=False)
    _pattern: re.Pattern[bytes] = field(init=False)
    _scope_matcher: IdentifierMatcher | None = field(init=False)
    _in_scope: dict[int, bool] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._edges = _WordEdges(self.name)
        self._pattern = re.compile(re.escape(_utf8(self.name)))
        self._scope_matcher = IdentifierMatcher(self.scope) if self.scope else None

    @property
    def description(self) -> str:
        return "identifier" if not self.scope else f"identifier, files with {self.scope} first"

    @property
    def has_better(self) -> bool:
        return True

    def matches(self, view: FileView, deadline: Deadline) -> Iterator[Span]:
        search = self._pattern.search
        data = view.data()
        edges = self._edges
        pos = 0
        while True:
            m = search(data, pos)
            if m is None:
                return
            start, end = m.start(), m.end()
            if edges.whole_in(view, start, end):
                yield start, end
                pos = m.end()
            else:  # a name with inner punctuation (`a.a`) may start again inside a rejected occurrence
                pos = m.start() + 1

    def count(self, view: FileView, cap: int | None, deadline: Deadline) -> int:
        return count_matches(self.matches(view, deadline), cap)

    def better(self, view: FileView, span: Span) -> bool:
        return defines_at(view, span)

    def lists_cheaply(self, view: FileView) -> bool:
        return True  # counting is listing

    def rank_floor(self, view: FileView) -> int:
        return 0 if self._scope_matcher is None or self._scoped(view) else 1

    def rank(self, view: FileView, better_found: bool) -> int:
        """0: a definition-looking line (in a file of the scope, when one is named); then the other combinations."""
        if self._scope_matcher is None:
            return 0 if better_found else 1
        return (0 if better_found else 2) + (0 if self._scoped(view) else 1)

    def _scoped(self, view: FileView) -> bool:
        known = self._in_scope.get(view.doc_id)
        if known is None:
            assert self._scope_matcher is not None
            stem = view.path.rsplit("/", 1)[-1].split(".", 1)[0]
            known = stem == self.scope or next(self._scope_matcher.matches(view, Deadline(0)), None) is not None
            self._in_scope[view.doc_id] = known
        return known


@dataclass(slots=True)
class RegexMatcher:
    """A regex matched against each line on its own, as grep does: a match never spans a newline, `^`/`$` are the
    line's ends.

    With `required`, trigrams every match holds (the pattern's required ones, rarest first: `TrigramIndex.by_rarity`),
    only the lines holding them all are matched: the rarest is found in the file's lower-cased bytes (as trigrams are)
    by a literal search, the others checked on its line, and only the lines left are decoded, so a file is read at
    the speed of a literal search, not of the regex engine on its whole text. Not where case folding goes beyond ASCII
    (a file with characters that fold onto ASCII letters: a match may not hold the trigrams' bytes there).

    Otherwise one pass over the whole text, valid while no match crosses a line and the pattern cannot look past one
    (`RegexPlan.line_safe`); from the first match that crosses a line on, that file is matched line by line (the
    matches before it are the same either way: a pattern that cannot look past a line fails on a line no less often
    than on the whole text)."""

    plan: RegexPlan
    required: tuple[int, ...] = ()  # trigram codes every match holds, rarest first
    _required: tuple[bytes, ...] = field(init=False)

    def __post_init__(self) -> None:
        self._required = tuple(bytes((code >> 16, (code >> 8) & 255, code & 255)) for code in self.required)

    @property
    def description(self) -> str:
        return "regex, ignoring case" if self.plan.ignore_case else "regex"

    @property
    def has_better(self) -> bool:
        return False

    def matches(self, view: FileView, deadline: Deadline) -> Iterator[Span]:
        if self._required and not (self.plan.ignore_case and view.folding):
            return self._on_lines_holding(view, deadline)
        return self._in_text(view, deadline)

    def _on_lines_holding(self, view: FileView, deadline: Deadline) -> Iterator[Span]:
        """Matches of the lines that hold every required trigram, in text order."""
        search = self.plan.pattern.finditer
        rarest, *others = self._required
        # Trigrams are of lower-cased bytes, case-sensitive or not (index/trigram.py); the copy is kept in the text
        # cache: a broad pattern reads the same files query after query.
        haystack = view.lowered()
        pos, number = 0, 0
        while True:
            found = haystack.find(rarest, pos)
            if found < 0:
                return
            number += 1
            if number % DEADLINE_CHECK_LINES == 0 and deadline.passed():
                return
            begin = haystack.rfind(b"\n", 0, found) + 1
            end = haystack.find(b"\n", found)
            end = len(haystack) if end < 0 else end
            pos = end + 1  # the next line
            if others:
                line = haystack[begin:end]
                missing = False
                for gram in others:  # a loop, not all() over a generator: half the cost per candidate line
                    if gram not in line:
                        missing = True
                        break
                if missing:
                    continue
            data = view.bytes_at(begin, end)
            if data.isascii():
                for m in search(data.decode("ascii")):
                    yield begin + m.start(), begin + m.end()
            else:
                text = decode(data)
                to_bytes = ByteOffsets(text)
                for m in search(text):
                    first = to_bytes(m.start())
                    yield begin + first, begin + to_bytes(m.end())

    def _in_text(self, view: FileView, deadline: Deadline) -> Iterator[Span]:
        text = view.text
        to_bytes = ByteOffsets(text)
        resume = 0  # character offset from which lines are matched one by one
        if self.plan.line_safe:
            for m in self.plan.pattern.finditer(text):
                start, end = m.span()
                if end > start and text.find("\n", start, end) >= 0:
                    resume = start
                    break
                first = to_bytes(start)
                yield first, to_bytes(end)
            else:
                return
        yield from self._line_by_line(text, resume, to_bytes, deadline)

    def _line_by_line(self, text: str, resume: int, to_bytes: ByteOffsets, deadline: Deadline) -> Iterator[Span]:
        """Matches of each line from the one holding `resume`, those starting before `resume` left out."""
        search = self.plan.pattern.finditer
        offset = text.rfind("\n", 0, resume) + 1
        number = 0
        while offset <= len(text):
            if number % DEADLINE_CHECK_LINES == 0 and number and deadline.passed():
                return
            number += 1
            stop = text.find("\n", offset)
            line_end = len(text) if stop < 0 else stop
            for m in search(text[offset:line_end]):
                start = offset + m.start()
                if start >= resume:
                    first = to_bytes(start)
                    yield first, to_bytes(offset + m.end())
            if stop < 0:
                return
            offset = stop + 1

    def count(self, view: FileView, cap: int | None, deadline: Deadline) -> int:
        return count_matches(self.matches(view, deadline), cap)

    def better(self, view: FileView, span: Span) -> bool:
        return False

    def lists_cheaply(self, view: FileView) -> bool:
        return True  # counting is listing

    def rank_floor(self, view: FileView) -> int:
        return 1

    def rank(self, view: FileView, better_found: bool) -> int:
        return 1


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

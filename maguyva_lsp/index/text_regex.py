"""From a Python regular expression to what the trigram index can use: the trigrams any match must contain (an AND/OR
query; alternations become ORs), whether line-by-line matching can take a whole-file fast path, and a guard against
patterns whose backtracking can take exponential time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

from maguyva_lsp.index.text_regex_safety import check_backtracking, sre_constants, sre_parser, walk
from maguyva_lsp.index.trigram import MATCH_ALL, TrigramQuery, all_of, any_of, string_trigrams
from maguyva_lsp.retrieve.base import RetrieverError

# More exact strings than this and a node keeps only prefixes, suffixes and a trigram condition.
MAX_EXACT_STRINGS = 16
# An exact string longer than this is folded into the trigram condition (keeps long literals linear to analyse).
MAX_EXACT_CHARS = 48
# A character class of more characters than this is treated as "any character".
MAX_CLASS_CHARS = 8
# More distinct prefixes (or suffixes) than this carry no information.
MAX_AFFIXES = 32
# Prefixes and suffixes are cut to this many characters once their own trigrams are in the condition; two characters
# are all a neighbour needs to form the trigrams that span the boundary.
AFFIX_KEEP_CHARS = 2


@dataclass(frozen=True, slots=True)
class _Info:
    """What any match of a pattern node is known to be: one of `exact` (when few), else it starts with one of
    `prefixes`, ends with one of `suffixes`, and the document holding it satisfies `condition`."""

    exact: frozenset[str] | None
    prefixes: frozenset[str] = frozenset()
    suffixes: frozenset[str] = frozenset()
    condition: TrigramQuery = MATCH_ALL


_EMPTY = _Info(frozenset({""}))
_ANY_CHAR = _Info(None, frozenset({""}), frozenset({""}))
_ANY_STRING = _ANY_CHAR  # as far as trigrams go, "any one character" and "anything" say the same: nothing


@dataclass(frozen=True, slots=True)
class RegexPlan:
    """A compiled pattern (MULTILINE, so ^ and $ work per line) and what the index and the matcher need of it."""

    pattern: re.Pattern[str]
    query: TrigramQuery
    ignore_case: bool
    # True when a match found in the whole text that stays within one line is exactly what matching that line alone
    # finds: no lookaround or \A \Z can see past the line.
    line_safe: bool


class _Analyzer:
    def __init__(self, ignore_case: bool) -> None:
        self.ignore_case = ignore_case

    def condition(self, strings: Iterable[str]) -> TrigramQuery:
        """OR over the strings of AND over each string's trigrams (a string without trigrams makes it true)."""
        return any_of(all_of(string_trigrams(s, ignore_case=self.ignore_case)) for s in strings)

    def exact(self, strings: frozenset[str]) -> _Info:
        if len(strings) <= MAX_EXACT_STRINGS and all(len(s) <= MAX_EXACT_CHARS for s in strings):
            return _Info(strings)
        return self.inexact(strings, strings, self.condition(strings))

    def inexact(self, prefixes: Iterable[str], suffixes: Iterable[str], condition: TrigramQuery) -> _Info:
        """Fold the affixes' own trigrams into the condition (they are substrings of every match), then trim them."""
        pre, suf = frozenset(prefixes), frozenset(suffixes)
        condition = all_of(subs=(condition, self.condition(pre), self.condition(suf)))
        pre = frozenset(s[:AFFIX_KEEP_CHARS] for s in pre)
        suf = frozenset(s[-AFFIX_KEEP_CHARS:] for s in suf)
        return _Info(
            None,
            pre if len(pre) <= MAX_AFFIXES else frozenset({""}),
            suf if len(suf) <= MAX_AFFIXES else frozenset({""}),
            condition,
        )

    def loosen(self, info: _Info) -> _Info:
        """The same knowledge without an exact set."""
        return info if info.exact is None else self.inexact(info.exact, info.exact, self.condition(info.exact))

    def concat(self, x: _Info, y: _Info) -> _Info:
        if x.exact is not None and y.exact is not None:
            return self.exact(frozenset(a + b for a, b in product(x.exact, y.exact)))
        condition = all_of(subs=(self.whole(x), self.whole(y)))
        prefixes = x.prefixes if x.exact is None else frozenset(a + p for a, p in product(x.exact, y.prefixes))
        suffixes = y.suffixes if y.exact is None else frozenset(s + b for s, b in product(x.suffixes, y.exact))
        if x.exact is None and y.exact is None and len(x.suffixes) * len(y.prefixes) <= MAX_AFFIXES * MAX_AFFIXES:
            # Every match holds some suffix of x directly followed by some prefix of y: trigrams across the seam.
            condition = all_of(subs=(condition, self.condition(s + p for s, p in product(x.suffixes, y.prefixes))))
        return self.inexact(prefixes, suffixes, condition)

    def alternate(self, options: Sequence[_Info]) -> _Info:
        if all(o.exact is not None for o in options):
            union = frozenset().union(*(o.exact for o in options if o.exact is not None))
            return self.exact(union)
        loose = [self.loosen(o) for o in options]
        return self.inexact(
            frozenset().union(*(o.prefixes for o in loose)),
            frozenset().union(*(o.suffixes for o in loose)),
            any_of(o.condition for o in loose),
        )

    def whole(self, info: _Info) -> TrigramQuery:
        """The condition a document holding a match satisfies."""
        if info.exact is not None:
            return self.condition(info.exact)
        return all_of(subs=(info.condition, self.condition(info.prefixes), self.condition(info.suffixes)))

    def char(self, code: int) -> _Info:
        char = chr(code)
        if self.ignore_case:
            # A non-ASCII character may match a differently cased one with other bytes: it says nothing.
            return _Info(frozenset({char.lower()})) if char.isascii() else _ANY_CHAR
        return _Info(frozenset({char}))

    def char_class(self, items: Sequence[tuple[Any, Any]]) -> _Info:
        chars: set[str] = set()
        for op, arg in items:
            if op is sre_constants.LITERAL:
                chars.add(chr(arg))
            elif op is sre_constants.RANGE and arg[1] - arg[0] < MAX_CLASS_CHARS:
                chars.update(chr(c) for c in range(arg[0], arg[1] + 1))
            else:  # NEGATE, CATEGORY, a wide RANGE: too many characters to enumerate
                return _ANY_CHAR
        if self.ignore_case:
            if not all(c.isascii() for c in chars):
                return _ANY_CHAR
            chars = {c.lower() for c in chars}
        return _Info(frozenset(chars)) if 0 < len(chars) <= MAX_CLASS_CHARS else _ANY_CHAR

    def repeat(self, low: int, high: int, body: _Info) -> _Info:
        if low == 0:
            return self.alternate([_EMPTY, body]) if high == 1 else _ANY_STRING
        if low == high == 1:
            return body
        # One or more copies: every match starts like the body, ends like it and contains it.
        return self.loosen(body)

    def sequence(self, items: Iterable[tuple[Any, Any]]) -> _Info:
        info = _EMPTY
        run: list[str] = []  # consecutive literal characters join as one string: linear in a long literal
        for op, arg in items:
            if op is sre_constants.LITERAL and (not self.ignore_case or chr(arg).isascii()):
                run.append(chr(arg).lower() if self.ignore_case else chr(arg))
                continue
            if run:
                info = self.concat(info, self.exact(frozenset({"".join(run)})))
                run = []
            info = self.concat(info, self.node(op, arg))
        if run:
            info = self.concat(info, self.exact(frozenset({"".join(run)})))
        return info

    def node(self, op: Any, arg: Any) -> _Info:
        c = sre_constants
        if op is c.LITERAL:
            return self.char(arg)
        if op is c.IN:
            return self.char_class(arg)
        if op in (c.SUBPATTERN,):
            return self.sequence(arg[-1])
        if op is getattr(c, "ATOMIC_GROUP", None):
            return self.sequence(arg)
        if op is c.BRANCH:
            return self.alternate([self.sequence(branch) for branch in arg[1]])
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)):
            low, high, body = arg
            return self.repeat(low, high, self.sequence(body))
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return _EMPTY  # zero-width; ignoring what a lookaround requires only loses precision
        if op in (c.ANY, c.NOT_LITERAL):
            return _ANY_CHAR
        return _ANY_STRING  # backreferences, conditionals, anything new: no constraint


def _line_safe(parsed: Any) -> bool:
    c = sre_constants
    for op, arg in walk(parsed):
        if op in (c.ASSERT, c.ASSERT_NOT) or (op is c.AT and arg in (c.AT_BEGINNING_STRING, c.AT_END_STRING)):
            return False
    return True


def _local_ignore_case(parsed: Any) -> bool:
    return any(op is sre_constants.SUBPATTERN and bool(arg[1] & re.IGNORECASE) for op, arg in walk(parsed))


def describe_error(pattern: str, exc: re.error) -> str:
    """A one-line message naming the position of a syntax error."""
    if exc.pos is None:
        return f"invalid regular expression {pattern!r}: {exc.msg}"
    pos = exc.pos
    return f"invalid regular expression at position {pos}: {exc.msg} (in {pattern[:pos]!r} ⟨here⟩ {pattern[pos:]!r})"


def plan_regex(pattern: str, *, case_sensitive: bool) -> RegexPlan:
    """Compile and analyse a pattern; RetrieverError for an invalid or dangerous one."""
    flags = re.MULTILINE | (0 if case_sensitive else re.IGNORECASE)
    try:
        compiled = re.compile(pattern, flags)
    except re.error as exc:
        raise RetrieverError(describe_error(pattern, exc)) from None
    except (RecursionError, OverflowError, MemoryError) as exc:
        raise RetrieverError(f"regular expression too complex to compile: {type(exc).__name__}") from None
    ignore_case = bool(compiled.flags & re.IGNORECASE)
    if sre_parser is None or sre_constants is None:
        return RegexPlan(compiled, MATCH_ALL, ignore_case, line_safe=False)
    try:
        parsed = sre_parser.parse(pattern, flags)
    except Exception:  # the private parser changed shape: analyse nothing, match everything
        return RegexPlan(compiled, MATCH_ALL, ignore_case, line_safe=False)
    check_backtracking(parsed, pattern)
    ignore_case = ignore_case or _local_ignore_case(parsed)
    try:
        analyzer = _Analyzer(ignore_case)
        query = analyzer.whole(analyzer.sequence(parsed))
    except (RecursionError, AttributeError, TypeError, IndexError, ValueError):
        query = MATCH_ALL
    return RegexPlan(compiled, query, ignore_case, _line_safe(parsed))

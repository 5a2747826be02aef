"""Walk Python's parsed regular expressions, and refuse the shapes whose backtracking can take exponential time
(`(a+)+`, `(\\w+\\s*)*`, `(a|aa)*`): Python's `re` cannot be interrupted, so such a pattern must never start.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from maguyva_lsp.retrieve.base import RetrieverError

sre_parser: Any
sre_constants: Any
try:  # private modules of the standard library: used when present, otherwise no analysis at all
    sre_parser = importlib.import_module("re._parser")
    sre_constants = importlib.import_module("re._constants")
except ImportError:  # pragma: no cover - other Python versions
    sre_parser = None
    sre_constants = None

CharTest = Callable[[str], bool]


def _children(op: Any, arg: Any) -> list[Any]:
    """The sub-sequences nested in one parsed node."""
    c = sre_constants
    if op is c.SUBPATTERN:
        return [arg[-1]]
    if op is getattr(c, "ATOMIC_GROUP", None):
        return [arg]
    if op is c.BRANCH:
        return list(arg[1])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
        return [arg[2]]
    if op in (c.ASSERT, c.ASSERT_NOT):
        return [arg[1]]
    if op is c.GROUPREF_EXISTS:
        return [s for s in arg[1:] if s is not None]
    return []


def walk(items: Iterable[tuple[Any, Any]], *, into_guarded: bool = True) -> Iterable[tuple[Any, Any]]:
    """Every node, depth first; with into_guarded False, not inside atomic groups and possessive repetitions (which
    never backtrack into what they matched)."""
    guarded = (getattr(sre_constants, "ATOMIC_GROUP", None), getattr(sre_constants, "POSSESSIVE_REPEAT", None))
    for op, arg in items:
        yield op, arg
        if into_guarded or op not in guarded:
            for child in _children(op, arg):
                yield from walk(child, into_guarded=into_guarded)


def _is_backtracking_repeat(op: Any) -> bool:
    return op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT)


def _any_char(char: str) -> bool:
    return True


def _same_letter(literal: str) -> CharTest:
    folded = literal.lower()
    return lambda char: char.lower() == folded


def _in_range(low: int, high: int) -> CharTest:
    return lambda char: any(low <= ord(x) <= high for x in (char, char.lower(), char.upper()))


def _category_test(category: Any) -> CharTest:
    c = sre_constants
    tests: dict[Any, CharTest] = {
        c.CATEGORY_DIGIT: str.isdecimal,
        c.CATEGORY_NOT_DIGIT: lambda ch: not ch.isdecimal(),
        c.CATEGORY_SPACE: str.isspace,
        c.CATEGORY_NOT_SPACE: lambda ch: not ch.isspace(),
        c.CATEGORY_WORD: lambda ch: ch == "_" or ch.isalnum(),
        c.CATEGORY_NOT_WORD: lambda ch: not (ch == "_" or ch.isalnum()),
    }
    return tests.get(category, _any_char)


def _class_test(items: Sequence[tuple[Any, Any]]) -> CharTest:
    """Whether a character class may match a character (case folded both ways; unknown members match all)."""
    c = sre_constants
    negate = any(op is c.NEGATE for op, _ in items)
    parts: list[CharTest] = []
    for op, arg in items:
        if op is c.LITERAL:
            parts.append(_same_letter(chr(arg)))
        elif op is c.RANGE:
            parts.append(_in_range(arg[0], arg[1]))
        elif op is c.CATEGORY:
            parts.append(_category_test(arg))
        elif op is not c.NEGATE:
            return _any_char
    if negate:  # case folding makes a negated class hard to bound: assume it may match
        return _any_char
    return lambda ch: any(part(ch) for part in parts)


def _char_tests(items: Iterable[tuple[Any, Any]]) -> list[CharTest]:
    """A test per character-consuming node under the items: together, which characters they may consume."""
    c = sre_constants
    out: list[CharTest] = []
    for op, arg in walk(items):
        if op is c.LITERAL:
            out.append(_same_letter(chr(arg)))
        elif op is c.IN:
            out.append(_class_test(arg))
        elif op in (c.ANY, c.NOT_LITERAL, c.GROUPREF, c.GROUPREF_EXISTS):
            out.append(_any_char)
    return out


def _delimiters(items: Iterable[tuple[Any, Any]]) -> set[str]:
    """Literal characters the sequence always matches (directly or in plain groups)."""
    out: set[str] = set()
    for op, arg in items:
        if op is sre_constants.LITERAL:
            out.add(chr(arg))
        elif op is sre_constants.SUBPATTERN:
            out |= _delimiters(arg[-1])
    return out


def _first_chars(items: Sequence[tuple[Any, Any]]) -> frozenset[str] | None:
    """The characters a match of the sequence can start with, when they are plain literals; None when unknown."""
    c = sre_constants
    if not items:
        return None
    op, arg = items[0]
    if op is c.LITERAL:
        return frozenset({chr(arg)})
    if op is c.SUBPATTERN:
        return _first_chars(list(arg[-1]))
    if op is c.IN and all(o is c.LITERAL for o, _ in arg):
        return frozenset(chr(a) for _, a in arg)
    return None


def _variable_parts(body: Any) -> list[Any]:
    """Sub-sequences whose length varies: bodies of variable repetitions, alternations with an empty branch."""
    c = sre_constants
    out: list[Any] = []
    for op, arg in walk(body, into_guarded=False):
        if _is_backtracking_repeat(op) and arg[1] > arg[0]:
            out.append(arg[2])
        elif op is c.BRANCH and any(len(branch) == 0 for branch in arg[1]):
            out.extend(arg[1])
    return out


def _risky_body(body: Any) -> bool:
    """A repeated body that can split one text into iterations in many ways: a variable-length part that can also
    consume every delimiter of the body, or an alternation whose branches can start alike."""
    delimiters = _delimiters(body)
    for part in _variable_parts(body):
        tests = _char_tests(part)
        if all(any(test(d) for test in tests) for d in delimiters):
            return True
    for op, arg in walk(body, into_guarded=False):
        if op is sre_constants.BRANCH:
            starts = [_first_chars(list(branch)) for branch in arg[1]]
            for i, first in enumerate(starts):
                for other in starts[i + 1 :]:
                    if (first is None and other is None) or (first and other and first & other):
                        return True
    return False


def check_backtracking(parsed: Any, pattern: str) -> None:
    """RetrieverError for a repetition whose body can match the same text in many ways (exponential backtracking)."""
    for op, arg in walk(parsed, into_guarded=False):
        if _is_backtracking_repeat(op) and arg[1] > 1 and _risky_body(arg[2]):
            raise RetrieverError(
                f"regular expression {pattern!r}: a repetition of something that itself repeats or branches alike "
                "(like `(a+)+` or `(a|aa)*`) can backtrack for exponential time; make it possessive (`(?:...)++`) "
                "or atomic (`(?>...)`), or put a delimiter in the repeated part that the rest cannot match"
            )

"""Where in a BM25 chunk a hit points: the line holding the most query weight.

A BM25 hit is a chunk; its answer is the chunk's line where the query's distinct terms weigh most (sum of their
idf), at the first identifier there that holds one of them. Query terms are lower-case sub-words (or whole
lower-cased identifiers) of ASCII identifiers (`tokens.index_tokens`), so an identifier holding one of them holds it
as a substring of the lower-cased text: the terms' occurrences, found by `str.find`, are the only identifiers worth
splitting, instead of a Python loop over every line and every identifier of the chunk (a question reads the best
line of about fifty chunks of some forty lines each: 0.5 ms each that way, about a tenth of it this way).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from maguyva_lsp.tokens import index_tokens

_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_DIGITS = "0123456789"
# The runs of identifier characters of a text (the fallback when lower-casing changes the text's length).
_RUN_RE = re.compile(r"[A-Za-z0-9_]+")


def best_line_in(text: str, term_idf: Mapping[str, float]) -> tuple[int, int, int, str]:
    """(line offset in the text, start and end column of the line's first identifier holding a query term, the
    line's text without a trailing CR) of the line whose distinct query terms weigh most; the first such line on
    ties; the first line at columns 0–0 when no identifier holds a term."""
    best_weight = -1.0
    best: tuple[int, int, int] = (0, 0, 0)
    line_no = 0
    counted_to = 0  # newlines counted in text[:counted_to]
    current = -1  # the line being summed
    seen: set[str] = set()
    first = (0, 0)
    for run_start, end in _runs(text, [t for t in term_idf if t]):
        word = text[run_start:end].lstrip(_DIGITS)  # an identifier cannot start with a digit (IDENTIFIER_RE)
        if not word:
            continue
        start = end - len(word)
        matched = [t for t in index_tokens(word) if t in term_idf]
        if not matched:
            continue
        line_no += text.count("\n", counted_to, start)
        counted_to = start
        if line_no != current:
            if current >= 0:
                weight = sum(term_idf[t] for t in seen)
                if weight > best_weight:
                    best_weight, best = weight, (current, *first)
            current, seen = line_no, set()
            line_start = text.rfind("\n", 0, start) + 1
            first = (start - line_start, end - line_start)
        seen.update(matched)
    if current >= 0 and sum(term_idf[t] for t in seen) > best_weight:
        best = (current, *first)
    offset, start_col, end_col = best
    return offset, start_col, end_col, text.split("\n", offset + 1)[offset].removesuffix("\r")


def _runs(text: str, terms: list[str]) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of ASCII identifier characters that holds a term as a lower-case substring, in text
    order, each once. Every identifier holding a term is among them (some others are, which the caller drops)."""
    if not terms:
        return iter(())
    lowered = text.lower()
    if len(lowered) != len(text):  # a character that lower-cases to several: positions would not line up
        return (m.span() for m in _RUN_RE.finditer(text) if any(t in m.group().lower() for t in terms))
    runs: dict[int, int] = {}
    size = len(text)
    for term in terms:
        at = lowered.find(term)
        while at >= 0:
            if text[at] in _WORD:
                start = at
                while start > 0 and text[start - 1] in _WORD:
                    start -= 1
                if start not in runs:
                    end = at + 1  # scanned, not at + len(term): a non-ASCII letter can lower-case to an ASCII one
                    while end < size and text[end] in _WORD:
                        end += 1
                    runs[start] = end
                at = lowered.find(term, runs[start])
            else:
                at = lowered.find(term, at + 1)
    return iter(sorted(runs.items()))

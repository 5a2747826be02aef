"""Identifier-aware tokenization shared by BM25, the symbol table and the embedder's input text.

`parseConfig`, `parse_config`, `ParseConfig` and `PARSE_CONFIG` all yield the sub-words `parse`, `config`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

# A run of letters/digits/underscores: one identifier as written.
IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Sub-words inside an identifier: `HTTPServer` → HTTP, Server; `parse2Config` → parse2, Config; `utf8` → utf8.
_SUBWORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")

STOPWORDS: frozenset[str] = frozenset(
    "a an and are as at be by do does for from how i in is it of on or the this that to was what when where which "
    "who why with work works you".split()
)


# Identifiers repeat endlessly across a code base (`self`, `name`, `value`): split each distinct one once.
SPLIT_CACHE_SIZE = 1 << 17


@lru_cache(maxsize=SPLIT_CACHE_SIZE)
def split_identifier(identifier: str) -> tuple[str, ...]:
    """Lower-cased sub-words of one identifier (camelCase, PascalCase, snake_case, SCREAMING_CASE, digits)."""
    return tuple(subwords(identifier))


def subwords(identifier: str) -> list[str]:
    """split_identifier without its cache (for callers that cache what they make of the sub-words instead)."""
    return [part.lower() for part in _SUBWORD_RE.findall(identifier)]


@lru_cache(maxsize=SPLIT_CACHE_SIZE)
def _index_word_tokens(word: str) -> tuple[str, ...]:
    parts = tuple(p for p in split_identifier(word) if len(p) > 1)
    return (*parts, word.lower()) if len(parts) > 1 else parts


def identifiers(text: str) -> Iterator[str]:
    """Every identifier-shaped word of a text, as written."""
    return (m.group(0) for m in IDENTIFIER_RE.finditer(text))


def subword_tokens(text: str, *, drop_stopwords: bool = False) -> list[str]:
    """The text as a bag of lower-case sub-words: every identifier split, single letters dropped."""
    out: list[str] = []
    for word in identifiers(text):
        for part in split_identifier(word):
            if len(part) > 1 and not (drop_stopwords and part in STOPWORDS):
                out.append(part)
    return out


def index_tokens(text: str) -> list[str]:
    """Tokens for a search index: each identifier's sub-words plus the whole identifier lower-cased when it has
    several parts, so that `parse_config` matches both the query `parse config` and the query `parse_config`."""
    out: list[str] = []
    for word in IDENTIFIER_RE.findall(text):
        out.extend(_index_word_tokens(word))
    return out


def is_identifier(text: str) -> bool:
    """True when the whole text is one identifier (dotted paths such as `os.path.join` count)."""
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*", text))

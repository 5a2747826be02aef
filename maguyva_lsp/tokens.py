"""Identifier-aware tokenization shared by BM25, the symbol table and the embedder's input text.

`parseConfig`, `parse_config`, `ParseConfig` and `PARSE_CONFIG` all yield the sub-words `parse`, `config`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

# A run of letters/digits/underscores: one identifier as written.
IDENTIFIER_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Sub-words inside an identifier: `HTTPServer` → HTTP, Server; `parse2Config` → parse2, Config; `utf8` → utf8.
_SUBWORD_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+")
_SUBWORD_OR_SPACE_RE = re.compile(f"{_SUBWORD_RE.pattern}| ")

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


def words_index_tokens(words: Sequence[str]) -> tuple[list[str], npt.NDArray[np.int64]]:
    """`index_tokens` of many distinct identifiers at once: every word's tokens one after the other, and how many
    each word has. The same tokens as one `index_tokens(word)` per word, but found by a few passes of C over the
    words joined by spaces (a sub-word never spans a space, and lower-casing ASCII keeps lengths), not by a Python
    call per word: a segment build meets ~50k distinct identifiers, and per word the calls cost more than the
    splitting (measured 0.8 s CPU per stdlib that way)."""
    n = len(words)
    if n == 0:
        return [], np.zeros(0, dtype=np.int64)
    joined = " ".join(words)
    # the sub-words and the spaces between words in one findall (a space is no sub-word, nor in one)
    parts = _SUBWORD_OR_SPACE_RE.findall(joined)
    lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    word_of_part = np.cumsum(np.fromiter(map(" ".__eq__, parts), dtype=np.bool_, count=len(parts)))
    lowered_parts = "\x00".join(parts).lower().split("\x00") if parts else []
    long = lengths > 1  # never a space
    kept = np.bincount(word_of_part[long], minlength=n)
    compound = kept > 1  # several kept sub-words: the whole word lower-cased is a token too
    counts = kept + compound
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    # where each kept part and each compound goes in the flat output (a word's parts in order, then its compound)
    kept_words = word_of_part[long]
    rank_in_word = np.arange(kept_words.size, dtype=np.int64) - np.concatenate(([0], np.cumsum(kept)[:-1]))[kept_words]
    source = np.empty(int(counts.sum()), dtype=np.int64)
    source[starts[kept_words] + rank_in_word] = np.flatnonzero(long)
    compound_words = np.flatnonzero(compound)
    source[starts[compound_words] + kept[compound_words]] = len(lowered_parts) + compound_words
    strings = lowered_parts + joined.lower().split(" ")
    return list(map(strings.__getitem__, source.tolist())), counts


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

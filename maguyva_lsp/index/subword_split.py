"""Sub-words of many ASCII words at once, found with numpy: what `tokens._SUBWORD_RE.findall` finds in each word,
for the segment builds (BM25 terms, symbol sub-words), which split tens of thousands of distinct words per segment.

The regex `[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+` cuts a word by its runs of upper-case
letters (U), lower-case letters (L) and digits (D); anything else separates. Followed through its alternatives, a
sub-word is, run by run:
- an L-run, from the last letter of a U-run right before it (`Config` in `parseConfig`, `Server` in `HTTPServer`),
  with the D-run right after it (`parse2`);
- a U-run followed by an L-run, without its last letter, when two or more letters are left of it (`HTTP`);
  a single upper-case letter before an L-run starts that L-run's sub-word instead;
- any other U-run, with the D-run right after it (`ABC123`);
- a D-run that no letter run right before it took (`2024`, the `12` of `_12`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import spans_text

I64 = npt.NDArray[np.int64]

_OTHER, _UPPER, _LOWER, _DIGIT = 0, 1, 2, 3
_CLASS = bytearray(256)
for _b in range(ord("A"), ord("Z") + 1):
    _CLASS[_b] = _UPPER
for _b in range(ord("a"), ord("z") + 1):
    _CLASS[_b] = _LOWER
for _b in range(ord("0"), ord("9") + 1):
    _CLASS[_b] = _DIGIT
_CLASSES = bytes(_CLASS)


class Subwords(NamedTuple):
    """The sub-words of words joined by spaces: `lowered` the joined text lower-cased, each sub-word a span
    [start, end) of it, in order, with the index of its word."""

    lowered: str
    starts: I64
    ends: I64
    word_of: I64

    def strings(self) -> list[str]:
        text = self.lowered
        return [text[s:e] for s, e in zip(self.starts.tolist(), self.ends.tolist(), strict=True)]


def split_words(words: Sequence[str]) -> Subwords:
    """Every word's sub-words (`_SUBWORD_RE.findall(word)`, lower-cased), the words ASCII (and holding no space)."""
    joined = " ".join(words)
    data = joined.encode("ascii")
    kind = np.frombuffer(data.translate(_CLASSES), dtype=np.uint8)
    empty = np.zeros(0, dtype=np.int64)
    if kind.size == 0:
        return Subwords("", empty, empty, empty)
    # runs of one class: their starts, ends (exclusive) and classes, with the classes of the runs around them
    cuts = np.flatnonzero(kind[1:] != kind[:-1]) + 1
    run_start = np.concatenate(([0], cuts)).astype(np.int64)
    run_end = np.concatenate((cuts, [kind.size])).astype(np.int64)
    run_kind = kind[run_start]
    before = np.concatenate(([_OTHER], run_kind[:-1]))
    after = np.concatenate((run_kind[1:], [_OTHER]))
    after_end = np.concatenate((run_end[1:], [kind.size]))  # the end of the run after (a D-run to take in)
    lower, upper, digit = run_kind == _LOWER, run_kind == _UPPER, run_kind == _DIGIT
    before_lower = after == _LOWER
    length = run_end - run_start
    # one sub-word per run at most (a U-run before an L-run: its head, the rest going to the L-run's)
    head_of_upper = upper & before_lower & (length >= 2)
    whole_upper = upper & ~before_lower
    own_digit = digit & (before != _LOWER) & (before != _UPPER)
    starts = np.where(lower & (before == _UPPER), run_start - 1, run_start)
    ends = np.where(head_of_upper, run_end - 1, np.where((lower | whole_upper) & (after == _DIGIT), after_end, run_end))
    keep = lower | head_of_upper | whole_upper | own_digit
    starts, ends = starts[keep], ends[keep]
    spaces = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0x20)
    word_of = np.searchsorted(spaces, starts).astype(np.int64)
    return Subwords(joined.lower(), starts, ends, word_of)


def index_tokens_of(words: Sequence[str]) -> tuple[list[str], I64]:
    """`tokens.words_index_tokens` of ASCII identifiers: each word's sub-words longer than one character, then the
    whole word lower-cased when it has more than one of them; every word's tokens one after the other, and how many
    each has."""
    n = len(words)
    if n == 0:
        return [], np.zeros(0, dtype=np.int64)
    split = split_words(words)
    long = (split.ends - split.starts) > 1
    starts, ends, word_of = split.starts[long], split.ends[long], split.word_of[long]
    kept = np.bincount(word_of, minlength=n)
    compound = np.flatnonzero(kept > 1)
    counts = kept + (kept > 1)
    # the compounds' spans: their words' (each word's start in the joined text, its length)
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=n)
    word_start = np.cumsum(lengths + 1) - lengths - 1
    all_starts = np.concatenate((starts, word_start[compound]))
    all_ends = np.concatenate((ends, word_start[compound] + lengths[compound]))
    # order: by word, a word's sub-words (in order) before its compound
    owner = np.concatenate((word_of, compound))
    order = np.lexsort((np.concatenate((np.zeros(starts.size, np.int8), np.ones(compound.size, np.int8))), owner))
    # the tokens (ASCII, no spaces, none empty) gathered with a space after each and cut by one str.split
    lowered = np.frombuffer(split.lowered.encode("ascii"), dtype=np.uint8)
    ordered = all_starts[order]
    out = spans_text(lowered, ordered, all_ends[order] - ordered).decode("ascii").split()
    return out, counts.astype(np.int64)

"""Term search over definitions: how well a natural-language query's words cover a definition's name, parent and
signature sub-words (an idf-weighted coverage fraction, with light stemming), over every segment of a snapshot.

Document frequencies, stem variants and the common-word rule are taken over all segments together (live
definitions only), and each definition's score sums its words in one fixed order, so that the scores do not depend
on how the files are split into segments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.postings import I32
from maguyva_lsp.index.symbol_segment import Field, Live

F64 = npt.NDArray[np.float64]

# How much a query word counts when found in each field of a definition.
NAME_FIELD_WEIGHT = 1.0
PARENT_FIELD_WEIGHT = 0.6
SIGNATURE_FIELD_WEIGHT = 0.3
FIELD_WEIGHTS: tuple[tuple[Field, float], ...] = (
    ("name", NAME_FIELD_WEIGHT),
    ("parent", PARENT_FIELD_WEIGHT),
    ("sig", SIGNATURE_FIELD_WEIGHT),
)
STEM_MATCH_FACTOR = 0.7  # a word found only through its stem (`parsing` → `parser`) counts this much
STEM_MIN_CHARS = 4  # a stem shorter than this matches too many unrelated words
STEM_MAX_EXTRA_CHARS = 4  # a stem variant may be at most this much longer than the stem
STEM_MAX_TERMS = 16  # variants looked up per query word and field
STEM_SUFFIXES: tuple[str, ...] = ("ations", "ation", "ings", "ing", "ers", "er", "ions", "ion", "ed", "es", "s")
# A word held by more than this share of all definitions, and by more than COMMON_WORD_MIN_DF of them (`test` in a
# test-heavy tree), only adds to the scores of definitions that rarer query words found: it brings in no candidates
# of its own (it would bring in thousands, to be scored and ranked on every query). Below the minimum that is cheap.
COMMON_WORD_SHARE = 0.05
COMMON_WORD_MIN_DF = 1000
MAX_QUERY_WORDS = 128  # distinct words of a query looked up (a pasted snippet has hundreds; the first say enough)

Variant = tuple[Field, str, float]  # field, sub-word, weight


def stem(word: str) -> str:
    """The word without its longest common English suffix, if what remains is long enough to mean something."""
    for suffix in STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= STEM_MIN_CHARS:
            return word[: -len(suffix)]
    return word


class _Words:
    """Sub-word ids per segment, looked up once per query."""

    def __init__(self, lives: Sequence[Live]) -> None:
        self.lives = lives
        self._ids: dict[str, list[int]] = {}

    def ids(self, word: str) -> list[int]:
        found = self._ids.get(word)
        if found is None:
            found = self._ids[word] = [live.segment.words.find(word) for live in self.lives]
        return found

    def count(self, field: Field, word: str) -> int:
        """Live definitions holding the word in the field, over all segments."""
        return sum(
            int(live.word_counts(field)[w]) for live, w in zip(self.lives, self.ids(word), strict=True) if w >= 0
        )

    def first_with_prefix(self, field: Field, prefix: str, limit: int) -> list[str]:
        """The first `limit` words (alphabetical, over all segments) some live definition holds in the field."""
        texts: set[str] = set()
        for live in self.lives:
            seg = live.segment
            lo, hi = seg.words.prefix_range(prefix)
            ids = np.arange(lo, hi, dtype=np.int64)[live.word_counts(field)[lo:hi] > 0][:limit]
            texts.update(seg.words.texts(ids))
        return sorted(texts)[:limit]


def _variants(words: _Words, word: str) -> list[Variant]:
    """The word itself in each field and its stem variants, best weight first, those some definition holds."""
    root = stem(word)
    out: list[Variant] = []
    for field, weight in FIELD_WEIGHTS:
        out.append((field, word, weight))
        if len(root) >= STEM_MIN_CHARS:
            out += [
                (field, key, weight * STEM_MATCH_FACTOR)
                for key in words.first_with_prefix(field, root, STEM_MAX_TERMS)
                if key != word and len(key) - len(root) <= STEM_MAX_EXTRA_CHARS
            ]
    out.sort(key=lambda v: -v[2])
    return [v for v in out if words.count(v[0], v[1])]


def term_scores(lives: Sequence[Live], words: Sequence[str], limit: int) -> list[tuple[I32, F64]]:
    """Per segment, the definitions (ids, scores) that can be among the best `limit`, where score(d) =
    Σ_w idf(w)·f(w, d) / Σ_w idf(w) over the query words found in the index, f(w, d) is the best weight with which
    w (or a stem variant) occurs in d's fields and idf(w) = ln(1 + N / df(w)), N the number of live definitions and
    df(w) the postings of w and its variants (an upper bound of the definitions holding it). A fraction in [0, 1]:
    how much of the query, weighted by rarity, the definition covers. All those tied with the limit-th are kept,
    for a final ranking with tie-breaks."""
    lookup = _Words(lives)
    plans = []
    unique = list(dict.fromkeys(w.lower() for w in words if w))
    for word in unique[:MAX_QUERY_WORDS]:
        variants = _variants(lookup, word)
        df = sum(lookup.count(f, k) for f, k, _ in variants)
        if df:
            plans.append((df, word, variants))
    if not plans or limit <= 0:
        return []
    plans.sort(key=lambda p: (p[0], p[1]))  # rarest first, so that common words only add to what they found
    total = sum(live.def_count for live in lives)
    acc = [np.zeros(live.segment.def_count) for live in lives]
    touched = [np.zeros(live.segment.def_count, dtype=np.bool_) for live in lives]
    norm = 0.0
    anything = False
    for df, _word, variants in plans:
        idf = math.log(1.0 + total / df)
        norm += idf
        common = anything and df > max(COMMON_WORD_SHARE * total, COMMON_WORD_MIN_DF)
        for position, live in enumerate(lives):
            seg = live.segment
            ids_parts, weight_parts = [], []
            for field, key, weight in variants:  # best weight first: the first weight an id gets is its best
                ids = live.keep(seg.word_ids(field, lookup.ids(key)[position]))
                if common:
                    ids = ids[touched[position][ids]]
                ids_parts.append(ids)
                weight_parts.append(np.full(ids.size, weight))
            every = np.concatenate(ids_parts)
            if every.size == 0:
                continue
            ids, first = np.unique(every, return_index=True)
            acc[position][ids] += idf * np.concatenate(weight_parts)[first]
            touched[position][ids] = True
            anything = True
    out = []
    for position in range(len(lives)):
        ids = np.flatnonzero(touched[position]).astype(np.int32)
        out.append((ids, acc[position][ids] / norm))
    every_score = np.concatenate([scores for _, scores in out])
    if every_score.size > limit:
        cutoff = np.partition(every_score, every_score.size - limit)[every_score.size - limit]
        out = [(ids[scores >= cutoff], scores[scores >= cutoff]) for ids, scores in out]
    return out

"""Term search over definitions: how well a natural-language query's words cover a definition's name, parent and
signature sub-words (an idf-weighted coverage fraction, with light stemming)."""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from maguyva_lsp.index.postings import Postings, prefix_range

# How much a query word counts when found in each field of a definition.
NAME_FIELD_WEIGHT = 1.0
PARENT_FIELD_WEIGHT = 0.6
SIGNATURE_FIELD_WEIGHT = 0.3
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


@dataclass(frozen=True, slots=True)
class TermFields:
    """The three sub-word postings a term search reads."""

    name: Postings
    parent: Postings
    signature: Postings


def stem(word: str) -> str:
    """The word without its longest common English suffix, if what remains is long enough to mean something."""
    for suffix in STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= STEM_MIN_CHARS:
            return word[: -len(suffix)]
    return word


def _variants(fields: TermFields, word: str) -> list[tuple[Postings, str, float]]:
    """(postings, key, weight) for the word itself in each field and for its stem variants, best weight first."""
    root = stem(word)
    out: list[tuple[Postings, str, float]] = []
    for postings, weight in (
        (fields.name, NAME_FIELD_WEIGHT),
        (fields.parent, PARENT_FIELD_WEIGHT),
        (fields.signature, SIGNATURE_FIELD_WEIGHT),
    ):
        out.append((postings, word, weight))
        if len(root) >= STEM_MIN_CHARS:
            lo, hi = prefix_range(postings.keys, root)
            out += [
                (postings, key, weight * STEM_MATCH_FACTOR)
                for key in postings.keys[lo : min(hi, lo + STEM_MAX_TERMS)]
                if key != word and len(key) - len(root) <= STEM_MAX_EXTRA_CHARS
            ]
    out.sort(key=lambda v: -v[2])
    return [v for v in out if v[0].count(v[1])]


def term_scores(fields: TermFields, words: Sequence[str], total: int) -> dict[int, float]:
    """id → score(d) = Σ_w idf(w)·f(w, d) / Σ_w idf(w) over the query words found in the index, where f(w, d) is
    the best weight with which w (or a stem variant) occurs in d's fields and idf(w) = ln(1 + N / df(w)), N the
    number of definitions and df(w) the postings of w and its variants (an upper bound of the definitions holding
    it). A fraction in [0, 1]: how much of the query, weighted by rarity, the definition covers."""
    plans = []
    unique = list(dict.fromkeys(w.lower() for w in words if w))
    for word in unique[:MAX_QUERY_WORDS]:
        variants = _variants(fields, word)
        df = sum(p.count(k) for p, k, _ in variants)
        if df:
            plans.append((df, word, variants))
    plans.sort(key=lambda p: (p[0], p[1]))  # rarest first, so that common words only add to what they found
    acc: dict[int, float] = {}
    norm = 0.0
    for df, _word, variants in plans:
        idf = math.log(1.0 + total / df)
        norm += idf
        best: dict[int, float] = {}
        common = bool(acc) and df > max(COMMON_WORD_SHARE * total, COMMON_WORD_MIN_DF)
        for postings, key, weight in variants:  # best weight first: the first weight an id gets is its best
            ids = postings.get(key)
            for eid in [eid for eid in acc if eid in ids] if common else ids:
                if eid not in best:
                    best[eid] = weight
        for eid, weight in best.items():
            acc[eid] = acc.get(eid, 0.0) + idf * weight
    return {eid: score / norm for eid, score in acc.items()} if norm else {}


def top_ids(scores: dict[int, float], limit: int) -> list[int]:
    """The ids that can be among the best `limit` scores (all those tied with the limit-th), for a final ranking
    with tie-breaks."""
    if len(scores) <= limit:
        return list(scores)
    cutoff = heapq.nlargest(limit, scores.values())[-1]
    return [eid for eid, score in scores.items() if score >= cutoff]

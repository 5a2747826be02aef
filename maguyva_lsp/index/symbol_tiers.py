"""The match tiers of a name query over every segment of a snapshot: exact, case-insensitive and normalized names,
prefixes shortest first, sub-words, sub-word prefixes, sub-words of the qualified name, then fuzzy names.

Each tier adds the live definitions it finds (and that no higher tier found) with its score. The decisions that
depend on the whole workspace — whether the tiers so far hold enough candidates, which name lengths the prefix tier
takes, which sub-word completions and fuzzy names count, which query word is rarest — are taken over all segments
together, so that the answer does not depend on how the files are split into segments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.index.fuzzy import fuzzy_matches
from maguyva_lsp.index.postings import EMPTY_IDS, I32, I64, csr_rows, intersect, members
from maguyva_lsp.index.symbol_entry import compact_name
from maguyva_lsp.index.symbol_query import subwords_of
from maguyva_lsp.index.symbol_segment import Live

F64 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]

# Match-type scores: a higher tier always outranks a lower one, because the length penalty below (applied to the
# open-ended tiers) never exceeds the gap of 5 between neighbouring tiers.
EXACT = 100.0  # the name as typed (or, for a qualified query, name and qualifier as typed)
CASE_INSENSITIVE = 90.0  # `parseconfig` → `parseConfig`
NORMALIZED = 80.0  # the same sub-words spelled otherwise: `parseConfig` → `parse_config`, `ParseConfig`
PREFIX = 70.0  # the name starts with the query, ignoring case: `parseC` → `parseConfig`
SEPARATOR_PREFIX = 60.0  # ... once separators are dropped: `parseconf` → `parse_config`
SUBWORD = 50.0  # every query sub-word is a sub-word of the name: `configParse` → `parse_config_file`
SUBWORD_PREFIX = 40.0  # every query sub-word begins a sub-word of the name: `parsConf` → `parse_config`
SUBWORD_QUALIFIED = 30.0  # ... of the qualified name, one in the name itself: `parseConfig` → `ConfigParser.parse`
FUZZY = 20.0  # the first letter, then the others in order, a bounded last resort: `pcfg` → `parse_config`
MATCH_SCORES: dict[str, float] = {
    "exact": EXACT,
    "case_insensitive": CASE_INSENSITIVE,
    "normalized": NORMALIZED,
    "prefix": PREFIX,
    "separator_prefix": SEPARATOR_PREFIX,
    "subword": SUBWORD,
    "subword_prefix": SUBWORD_PREFIX,
    "subword_qualified": SUBWORD_QUALIFIED,
    "fuzzy": FUZZY,
}
# What a match is called in answers, by code; "qualified" is the scope match of a qualified query.
MATCH_NAMES: tuple[str, ...] = (*MATCH_SCORES, "qualified")
_FEW = 16  # candidates few enough to be tested one by one in Python rather than as arrays
_EXACT_SCORES = np.array([EXACT, CASE_INSENSITIVE, NORMALIZED])  # by code: as typed, ignoring case, normalized
_CODE = {name: i for i, name in enumerate(MATCH_NAMES)}
# Within an open-ended tier, each character a name has beyond the query costs this much (closer matches first)...
LENGTH_PENALTY = 0.1
# ... at most this much, so that a tier never sinks into the next one.
LENGTH_PENALTY_CAP = 4.0

# Bounds that keep one query cheap whatever the workspace size (type-ahead runs on every keystroke).
# Prefix candidates are taken shortest name first, whole lengths at a time, until this many times `limit` are in:
# longer names of the same sub-tier only score lower. (A longer plain prefix could still outrank a shorter
# separator-only prefix already taken; the oversampling leaves room for that.)
PREFIX_OVERSAMPLE = 2
SUBWORD_PREFIX_TERMS = 64  # sub-words one query sub-word may expand to as a prefix
FUZZY_MIN_CHARS = 2  # shorter queries match too much to be worth a fuzzy scan
FUZZY_BELOW = 5  # the fuzzy scan runs only when the tiers above found fewer results than this: a last resort
FUZZY_MAX_KEYS = 200  # names taken from the fuzzy scan


def length_penalty(name_len: npt.NDArray[np.int32] | I64, query_len: int) -> F64:
    return np.minimum(
        LENGTH_PENALTY * np.maximum(np.asarray(name_len, dtype=np.int64) - query_len, 0), LENGTH_PENALTY_CAP
    )


@dataclass(slots=True)
class Found:
    """The candidates one segment contributes: definition ids with their score and match code."""

    live: Live
    ids: list[I32] = field(default_factory=list)
    scores: list[F64] = field(default_factory=list)
    codes: list[I8] = field(default_factory=list)
    count: int = 0

    def add(self, ids: I32, scores: F64, codes: I8 | int) -> int:
        if ids.size:
            self.ids.append(ids)
            self.scores.append(scores)
            self.codes.append(np.full(ids.size, codes, dtype=np.int8) if isinstance(codes, int) else codes)
            self.count += int(ids.size)
        return int(ids.size)

    def new(self, ids: I32) -> I32:
        """Those of `ids` not found yet."""
        if not self.ids or ids.size == 0:
            return ids
        taken = np.sort(np.concatenate(self.ids))
        return ids[~members(ids, taken)]

    def arrays(self) -> tuple[I32, F64, I8]:
        if not self.ids:
            return EMPTY_IDS, np.zeros(0), np.zeros(0, dtype=np.int8)
        return np.concatenate(self.ids), np.concatenate(self.scores), np.concatenate(self.codes)


def collect(lives: Sequence[Live], name: str, limit: int) -> list[Found]:
    """The candidates of a bare name, tier by tier, per segment. Stops once the tiers so far hold `limit` live
    candidates in all, since no lower tier could enter the top."""
    lower, compact = name.lower(), compact_name(name)
    subs = tuple(dict.fromkeys(subwords_of(name)))
    found = [Found(live) for live in lives]
    exact_keys = [f.live.segment.keys.find(compact) for f in found]
    total = sum(_exact(f, key, name, lower) for f, key in zip(found, exact_keys, strict=True))
    if total < limit:
        total += _prefix(found, exact_keys, lower, compact, limit * PREFIX_OVERSAMPLE)
    if total < limit and subs:
        total += sum(_subword(f, subs, len(compact)) for f in found)
    if total < limit and subs:
        total += _subword_prefix(found, subs, len(compact))
    if total < limit and len(subs) > 1:
        total += _subword_qualified(found, subs, len(compact))
    if total < min(limit, FUZZY_BELOW) and len(compact) >= FUZZY_MIN_CHARS:
        _fuzzy(found, compact)
    return found


def _exact(f: Found, key: int, name: str, lower: str) -> int:
    """Names whose separator-free form is the query's: as typed, ignoring case, or spelled otherwise."""
    seg = f.live.segment
    ids = f.live.keep(seg.key_ids(key))
    if ids.size == 0:
        return 0
    nm = seg.def_nm[ids]
    if ids.size <= _FEW:  # a few names (the usual group): their texts, decoded once and kept, are cheaper
        spelled = [seg.spelled(i) for i in nm.tolist()]
        codes = np.array([0 if s == name else 1 if s.lower() == lower else 2 for s in spelled], dtype=np.int8)
    else:
        as_typed = seg.spellings.equal_to(nm, name)
        codes = np.where(as_typed, 0, np.where(seg.lower_spellings.equal_to(nm, lower), 1, 2)).astype(np.int8)
    return f.add(ids, _EXACT_SCORES[codes], codes)


def _prefix(found: list[Found], exact_keys: list[int], lower: str, compact: str, want: int) -> int:
    """Names that start with the query: with case ignored (PREFIX) or only once separators are dropped
    (SEPARATOR_PREFIX); shortest first, whole lengths at a time, until `want` candidates are in (over all
    segments: the cut-off length is the first at which the live candidates of every segment reach `want`)."""
    spans: list[tuple[int, I32, I64] | None] = []
    histogram: F64 = np.zeros(0)
    for f, exact in zip(found, exact_keys, strict=True):
        seg = f.live.segment
        lo, hi = seg.keys.prefix_range(compact)
        if hi <= lo:
            spans.append(None)
            continue
        lengths = seg.key_len[lo:hi]
        live = f.live.key_counts()[lo:hi]
        if lo <= exact < hi:  # the query's own name: found already
            live = live.copy()
            live[exact - lo] = 0
        spans.append((lo, lengths, live))
        counts: F64 = np.bincount(lengths, weights=live).astype(np.float64)
        if counts.size > histogram.size:
            counts[: histogram.size] += histogram
            histogram = counts
        else:
            histogram[: counts.size] += counts
    if histogram.size == 0:
        return 0
    reached = np.flatnonzero(np.cumsum(histogram) >= want)
    cutoff = int(reached[0]) if reached.size else histogram.size
    added = 0
    for f, span in zip(found, spans, strict=True):
        if span is None:
            continue
        lo, lengths, live = span
        seg = f.live.segment
        chosen = np.flatnonzero((lengths <= cutoff) & (live > 0))
        owner, ids = csr_rows(seg.key_off, seg.key_post, chosen + lo)
        if f.live.defs is not None:
            alive = f.live.defs[ids]
            owner, ids = owner[alive], ids[alive]
        plain = _starts_with(f, ids, lower)
        penalty = length_penalty(lengths[chosen[owner]], len(compact))
        scores = np.where(plain, PREFIX, SEPARATOR_PREFIX) - penalty
        added += f.add(ids, scores, np.where(plain, _CODE["prefix"], _CODE["separator_prefix"]).astype(np.int8))
    return added


def _starts_with(f: Found, ids: I32, lower: str) -> npt.NDArray[np.bool_]:
    """Whether each definition's lower-cased name starts with `lower`."""
    return f.live.segment.lower_spellings.starting_with(f.live.segment.def_nm[ids], lower)


def _subword(f: Found, subs: tuple[str, ...], query_len: int) -> int:
    """Every query sub-word is a sub-word of the name."""
    seg = f.live.segment
    words = [seg.words.find(w) for w in subs]
    if min(words) < 0:
        return 0
    ids = f.new(f.live.keep(intersect([seg.word_ids("name", w) for w in words])))
    return f.add(ids, SUBWORD - length_penalty(seg.nm_clen[seg.def_nm[ids]], query_len), _CODE["subword"])


def _completions(found: list[Found], word: str) -> tuple[list[I64], int]:
    """The SUBWORD_PREFIX_TERMS shortest name sub-words (over all segments) that start with `word`: per segment
    their local ids, and how many live definitions hold one of them (a sub-word held by several counts per hold)."""
    local: list[I64] = []
    for f in found:
        seg = f.live.segment
        lo, hi = seg.words.prefix_range(word)
        ids = np.arange(lo, hi, dtype=np.int64)[f.live.word_counts("name")[lo:hi] > 0]
        if ids.size > SUBWORD_PREFIX_TERMS:  # the shortest, alphabetical within a length
            ids = np.sort(ids[np.lexsort((ids, seg.word_len[ids]))[:SUBWORD_PREFIX_TERMS]])
        local.append(ids)
    if len(found) > 1:  # the shortest over all segments: compared as text
        texts = [f.live.segment.words.texts(ids) for f, ids in zip(found, local, strict=True)]
        every = {s for strings in texts for s in strings}
        if len(every) > SUBWORD_PREFIX_TERMS:
            chosen = set(sorted(every, key=lambda s: (len(s), s))[:SUBWORD_PREFIX_TERMS])
            local = [
                ids[np.array([s in chosen for s in strings], dtype=np.bool_)] if strings else ids
                for ids, strings in zip(local, texts, strict=True)
            ]
    size = sum(int(f.live.word_counts("name")[ids].sum()) for f, ids in zip(found, local, strict=True))
    return local, size


def _subword_prefix(found: list[Found], subs: tuple[str, ...], query_len: int) -> int:
    """Every query sub-word begins a sub-word of the name. Only the rarest query sub-word's postings are gathered
    (over its SUBWORD_PREFIX_TERMS shortest completions); the other words are checked on those candidates' names."""
    options = [_completions(found, w) for w in subs]
    rarest = min(range(len(subs)), key=lambda i: options[i][1])
    others = [w for i, w in enumerate(subs) if i != rarest]
    added = 0
    for position, f in enumerate(found):
        seg = f.live.segment
        ids = f.new(f.live.keep(seg.union("name", options[rarest][0][position])))
        if others and ids.size:
            owner, words = csr_rows(seg.nm_words_off, seg.nm_words, seg.def_nm[ids])
            passing = np.ones(ids.size, dtype=np.bool_)
            for w in others:  # a name passes when one of its sub-words starts with each other query word
                lo, hi = seg.words.prefix_range(w)
                hit = (words >= lo) & (words < hi)
                passing &= np.bincount(owner[hit], minlength=ids.size) > 0
            ids = ids[passing]
        penalty = length_penalty(seg.nm_clen[seg.def_nm[ids]], query_len)
        added += f.add(ids, SUBWORD_PREFIX - penalty, _CODE["subword_prefix"])
    return added


def _subword_qualified(found: list[Found], subs: tuple[str, ...], query_len: int) -> int:
    """Names whose name and parent together hold every query sub-word, at least one of them in the name: the
    rarest word's postings (over all segments), checked for the rest."""

    def df(word: str) -> int:
        total = 0
        for f in found:
            seg = f.live.segment
            w = seg.words.find(word)
            if w >= 0:
                total += int(f.live.word_counts("name")[w] + f.live.word_counts("parent")[w])
        return total

    rarest = min(subs, key=df)
    added = 0
    for f in found:
        seg = f.live.segment
        wanted = np.array(sorted(seg.words.find(w) for w in subs), dtype=np.int32)
        if wanted[0] < 0:  # a query word no definition of this segment has
            continue
        r = seg.words.find(rarest)
        ids = np.union1d(seg.word_ids("name", r), seg.word_ids("parent", r)).astype(np.int32)
        ids = f.new(f.live.keep(ids))
        if ids.size == 0:
            continue
        owner_n, words_n = csr_rows(seg.nm_words_off, seg.nm_words, seg.def_nm[ids])
        with_parent = np.flatnonzero(seg.def_pr[ids] >= 0)
        owner_p, words_p = csr_rows(seg.pr_words_off, seg.pr_words, seg.def_pr[ids][with_parent])
        in_name = members(words_n, wanted)
        named = np.bincount(owner_n[in_name], minlength=ids.size) > 0
        owners = np.concatenate([owner_n[in_name], with_parent[owner_p][members(words_p, wanted)]])
        held = np.concatenate([words_n[in_name], words_p[members(words_p, wanted)]])
        pairs = unique(owners * (int(wanted[-1]) + 1) + held)
        covered = np.bincount(pairs // (int(wanted[-1]) + 1), minlength=ids.size) == wanted.size
        ids = ids[named & covered]
        penalty = length_penalty(seg.nm_clen[seg.def_nm[ids]], query_len)
        added += f.add(ids, SUBWORD_QUALIFIED - penalty, _CODE["subword_qualified"])
    return added


def _fuzzy(found: list[Found], compact: str) -> int:
    """The first letter, then the others in order: the FUZZY_MAX_KEYS first such names (alphabetical, over all
    segments), each with all its definitions."""
    local = [
        fuzzy_matches(f.live.segment.keys, f.live.segment.key_mask, f.live.key_present(), compact, FUZZY_MAX_KEYS)
        for f in found
    ]
    chosen = set(sorted({s for names in local for s, _ in names})[:FUZZY_MAX_KEYS])
    added = 0
    for f, names in zip(found, local, strict=True):
        seg = f.live.segment
        keys = [key for s, key in names if s in chosen]
        if not keys:
            continue
        _, ids = csr_rows(seg.key_off, seg.key_post, np.array(keys, dtype=np.int64))
        ids = f.new(f.live.keep(ids))
        added += f.add(ids, FUZZY - length_penalty(seg.nm_clen[seg.def_nm[ids]], len(compact)), _CODE["fuzzy"])
    return added

"""The symbol table: every definition of the workspace, indexed by name, lower-case name, separator-free name and
sub-word, answering exact, case-insensitive, qualified, prefix, sub-word and (bounded) fuzzy queries, ranked.

Ranking: a match-type score from the table below, then the tie-breaks of `symbol_entry.rank_key`.
"""

from __future__ import annotations

import heapq
import math
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from maguyva_lsp.index.postings import Postings, intersect, prefix_range
from maguyva_lsp.index.symbol_entry import Entry, compact_name, make_entry
from maguyva_lsp.index.symbol_query import parse_symbol_query, subwords_of
from maguyva_lsp.model import Definition, PathClass

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
FUZZY = 20.0  # the query's letters in order, a bounded last resort: `pcfg` → `parse_config`
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
# Within an open-ended tier, each character a name has beyond the query costs this much (closer matches first)...
LENGTH_PENALTY = 0.1
# ... at most this much, so that a tier never sinks into the next one.
LENGTH_PENALTY_CAP = 4.0
# A qualified query (`Config.parse`) whose qualifier fits no candidate still answers for its last component, with
# every score multiplied by this factor: below any candidate whose qualifier fits (those score >= CASE_INSENSITIVE).
QUALIFIER_MISS_FACTOR = 0.5

# Bounds that keep one query cheap whatever the workspace size (type-ahead runs on every keystroke).
PREFIX_SCAN_KEYS = 2000  # separator-free names examined for a prefix (the shortest ones when more match)
SUBWORD_PREFIX_TERMS = 64  # sub-words one query sub-word may expand to as a prefix
FUZZY_MIN_CHARS = 2  # shorter queries match too much to be worth a fuzzy scan
FUZZY_MAX_KEYS = 200  # names taken from the fuzzy scan
# Term search (natural-language queries): how much a query word counts when found in each field of a definition.
NAME_FIELD_WEIGHT = 1.0
PARENT_FIELD_WEIGHT = 0.6
SIGNATURE_FIELD_WEIGHT = 0.3
STEM_MATCH_FACTOR = 0.7  # a word found only through its stem (`parsing` → `parser`) counts this much
STEM_MIN_CHARS = 4  # a stem shorter than this matches too many unrelated words
STEM_MAX_EXTRA_CHARS = 4  # a stem variant may be at most this much longer than the stem
STEM_MAX_TERMS = 16  # variants looked up per query word
_STEM_SUFFIXES: tuple[str, ...] = ("ations", "ation", "ings", "ing", "ers", "er", "ions", "ion", "ed", "es", "s")


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    """One ranked answer of the symbol table."""

    definition: Definition
    score: float
    match: str  # a key of MATCH_SCORES, "qualified", or "terms" for a term search


def _length_penalty(name: str, query: str) -> float:
    return min(LENGTH_PENALTY * max(len(name) - len(query), 0), LENGTH_PENALTY_CAP)


def _stem(word: str) -> str:
    """The word without its longest common English suffix, if what remains is long enough to mean something."""
    for suffix in _STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= STEM_MIN_CHARS:
            return word[: -len(suffix)]
    return word


class SymbolTable:
    """All definitions, replaced and removed per path; searches may run in several threads alongside one writer.

    Readers and the writer share one lock, held only while ids are collected or indexes mutated (never while
    ranking). Under the GIL, readers gain nothing from running their dictionary lookups at the same time.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[int, Entry] = {}
        self._by_path: dict[str, list[int]] = {}
        self._path_class: dict[str, PathClass] = {}
        self._by_name = Postings()
        self._by_lower = Postings()
        self._by_compact = Postings()
        self._name_sub = Postings()
        self._parent_sub = Postings()
        self._sig_sub = Postings()
        self._fuzzy_blob: str | None = None  # "\n".join(compact keys), rebuilt lazily after a change
        self._next_id = 0

    # ---- writing -------------------------------------------------------------------------------------------

    def replace_file(
        self, path: str, definitions: Iterable[Definition], path_class: PathClass = PathClass.SOURCE
    ) -> None:
        """Make `definitions` the whole content of `path` (an empty iterable keeps the path, with no symbols)."""
        self.apply([(path, tuple(definitions), path_class)], ())

    def remove_file(self, path: str) -> None:
        self.apply((), (path,))

    def apply(
        self, updated: Sequence[tuple[str, Sequence[Definition], PathClass]], removed: Sequence[str] = ()
    ) -> None:
        """Replace the definitions of each updated path and forget each removed path, as one change for readers.

        Raises ValueError, before changing anything, when a definition's path is not the path it is filed under.
        """
        prepared: list[tuple[str, PathClass, list[Entry]]] = []
        for path, definitions, path_class in updated:
            wrong = next((d for d in definitions if d.path != path), None)
            if wrong is not None:
                raise ValueError(f"definition {wrong.name!r} has path {wrong.path!r}, filed under {path!r}")
            entries = [make_entry(d, path_class) for d in definitions]
            entries.sort(key=lambda e: (e.definition.span.start_line, e.definition.span.start_col, e.rank))
            prepared.append((path, path_class, entries))
        with self._lock:
            for path in removed:
                self._drop_path(path)
                self._path_class.pop(path, None)
            for path, path_class, entries in prepared:
                self._drop_path(path)
                self._path_class[path] = path_class
                self._by_path[path] = [self._add(entry) for entry in entries]
            for postings in self._all_postings():
                postings.settle()
            self._fuzzy_blob = None

    def _all_postings(self) -> tuple[Postings, ...]:
        return (self._by_name, self._by_lower, self._by_compact, self._name_sub, self._parent_sub, self._sig_sub)

    def _add(self, entry: Entry) -> int:
        eid = self._next_id
        self._next_id += 1
        self._entries[eid] = entry
        self._by_name.add(entry.definition.name, eid)
        self._by_lower.add(entry.lower, eid)
        self._by_compact.add(entry.compact, eid)
        for word in entry.name_subwords:
            self._name_sub.add(word, eid)
        for word in entry.parent_subwords:
            self._parent_sub.add(word, eid)
        for word in entry.signature_subwords:
            self._sig_sub.add(word, eid)
        return eid

    def _drop_path(self, path: str) -> None:
        for eid in self._by_path.pop(path, ()):
            entry = self._entries.pop(eid)
            self._by_name.discard(entry.definition.name, eid)
            self._by_lower.discard(entry.lower, eid)
            self._by_compact.discard(entry.compact, eid)
            for word in entry.name_subwords:
                self._name_sub.discard(word, eid)
            for word in entry.parent_subwords:
                self._parent_sub.discard(word, eid)
            for word in entry.signature_subwords:
                self._sig_sub.discard(word, eid)

    # ---- per-file questions ----------------------------------------------------------------------------------

    def definitions_in(self, path: str) -> list[Definition]:
        """The definitions of one file in source order (document symbols)."""
        with self._lock:
            return [self._entries[eid].definition for eid in self._by_path.get(path, ())]

    def definition_at(self, path: str, line: int, col: int) -> Definition | None:
        """The innermost definition of `path` whose span holds the position, or None."""
        best: Definition | None = None
        for d in self.definitions_in(path):
            s = d.span
            if (s.start_line, s.start_col) <= (line, col) <= (s.end_line, s.end_col) and (
                best is None or (s.start_line, s.start_col) >= (best.span.start_line, best.span.start_col)
            ):
                best = d
        return best

    def paths(self) -> list[str]:
        with self._lock:
            return sorted(self._by_path)

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {
                "files": len(self._by_path),
                "definitions": len(self._entries),
                "names": len(self._by_name.sets),
                "subwords": len(self._name_sub.sets),
            }

    # ---- name search -----------------------------------------------------------------------------------------

    def lookup(self, name: str) -> list[Definition]:
        """Go-to-definition: every definition of exactly this name (qualified names narrow it), best first."""
        query = parse_symbol_query(name)
        if query is None:
            return []
        with self._lock:
            ids = set(self._by_name.get(query.name))
            entries = [self._entries[eid] for eid in ids]
        if query.qualified:
            entries = [e for e in entries if query.qualifier_fits(e.definition, case_sensitive=True)]
        return [e.definition for e in sorted(entries, key=lambda e: e.rank)]

    def workspace_symbols(self, query: str, limit: int) -> list[Definition]:
        """Type-ahead symbol search (every keystroke): the best `limit` definitions for a partial name."""
        return [m.definition for m in self.search(query, limit)]

    def search(self, text: str, limit: int) -> list[SymbolMatch]:
        """The best `limit` definitions for a name-like query, by match-type score and then the tie-breaks."""
        query = parse_symbol_query(text)
        if query is None or limit <= 0:
            return []
        with self._lock:
            found = self._collect(query.name, limit)
            qualified: dict[int, tuple[float, str]] = {}
            if query.qualified:
                for eid in self._by_lower.get(query.name.lower()):
                    d = self._entries[eid].definition
                    if query.qualifier_fits(d, case_sensitive=True) and d.name == query.name:
                        qualified[eid] = (EXACT, "qualified")
                    elif query.qualifier_fits(d, case_sensitive=False):
                        qualified[eid] = (CASE_INSENSITIVE, "qualified")
            scored = [(s, m, self._entries[eid]) for eid, (s, m) in qualified.items()]
            scale = QUALIFIER_MISS_FACTOR if query.qualified else 1.0
            scored += [(s * scale, m, self._entries[eid]) for eid, (s, m) in found.items() if eid not in qualified]
        best = heapq.nsmallest(limit, scored, key=lambda t: (-t[0], t[2].rank))
        return [SymbolMatch(e.definition, round(s, 4), m) for s, m, e in best]

    def _collect(self, name: str, limit: int) -> dict[int, tuple[float, str]]:
        """Candidates for a bare name, tier by tier, as id → (score, match). Stops once the tiers so far hold
        `limit` candidates, since no lower tier could enter the top. Called with the lock held."""
        found: dict[int, tuple[float, str]] = {}
        lower, compact = name.lower(), compact_name(name)
        subs = tuple(dict.fromkeys(subwords_of(name)))

        def take(ids: Iterable[int], tier: float, match: str) -> None:
            for eid in ids:
                if eid not in found:
                    found[eid] = (tier - _length_penalty(self._entries[eid].compact, compact), match)

        take(self._by_name.get(name), EXACT, "exact")
        take(self._by_lower.get(lower), CASE_INSENSITIVE, "case_insensitive")
        take(self._by_compact.get(compact), NORMALIZED, "normalized")
        if len(found) < limit:
            for key in self._prefix_keys(compact):
                for eid in self._by_compact.get(key):
                    if eid not in found:
                        prefix = self._entries[eid].lower.startswith(lower)
                        take((eid,), PREFIX if prefix else SEPARATOR_PREFIX, "prefix" if prefix else "separator_prefix")
        if len(found) < limit and subs:
            take(intersect([self._name_sub.get(w) for w in subs]), SUBWORD, "subword")
        if len(found) < limit and subs:
            groups = [self._expand(self._name_sub, w, SUBWORD_PREFIX_TERMS) for w in subs]
            take(intersect(groups), SUBWORD_PREFIX, "subword_prefix")
        if len(found) < limit and len(subs) > 1:
            either = [self._name_sub.get(w) | self._parent_sub.get(w) for w in subs]
            in_name = self._name_sub.union_of(list(subs))
            take(intersect(either) & in_name, SUBWORD_QUALIFIED, "subword_qualified")
        if len(found) < limit and len(compact) >= FUZZY_MIN_CHARS:
            take(self._fuzzy(compact), FUZZY, "fuzzy")
        return found

    def _prefix_keys(self, compact: str) -> list[str]:
        """Separator-free names that start with the query (the shortest PREFIX_SCAN_KEYS of them when more do)."""
        keys = self._by_compact.keys
        lo, hi = prefix_range(keys, compact)
        if hi - lo > PREFIX_SCAN_KEYS:
            return heapq.nsmallest(PREFIX_SCAN_KEYS, keys[lo:hi], key=len)
        return keys[lo:hi]

    def _expand(self, postings: Postings, prefix: str, max_terms: int) -> set[int]:
        """The ids under every key that starts with the prefix (at most `max_terms` keys, shortest first)."""
        lo, hi = prefix_range(postings.keys, prefix)
        keys = postings.keys[lo:hi]
        if len(keys) > max_terms:
            keys = heapq.nsmallest(max_terms, keys, key=len)
        return postings.union_of(keys)

    def _fuzzy(self, compact: str) -> list[int]:
        """Ids of names holding the query's letters in order: one regular-expression pass over a newline-joined
        list of the separator-free names (a bounded scan, the only one), taking at most FUZZY_MAX_KEYS names."""
        if self._fuzzy_blob is None:
            self._fuzzy_blob = "\n".join(self._by_compact.keys)
        # `[^c\n]*+c` finds the next `c` without backtracking: subsequence matching stays linear per name.
        body = "".join(f"[^{re.escape(c)}\\n]*+{re.escape(c)}" for c in compact)
        pattern = re.compile(f"^{body}[^\\n]*", re.MULTILINE)
        ids: list[int] = []
        for n, match in enumerate(pattern.finditer(self._fuzzy_blob)):
            if n >= FUZZY_MAX_KEYS:
                break
            ids.extend(self._by_compact.get(match.group(0)))
        return ids

    # ---- term search (natural-language queries) --------------------------------------------------------------

    def search_terms(self, words: Sequence[str], limit: int) -> list[SymbolMatch]:
        """Definitions whose name, parent or signature share sub-words with the query's words, best first.

        score(d) = Σ_w idf(w)·f(w, d) / Σ_w idf(w), over the query words w found anywhere in the index, where
        f(w, d) is the best field weight of w in d (name NAME_FIELD_WEIGHT, parent PARENT_FIELD_WEIGHT,
        signature SIGNATURE_FIELD_WEIGHT; times STEM_MATCH_FACTOR when only a stem variant matched) and
        idf(w) = ln(1 + N / df(w)) with N definitions, df(w) of them holding w: a coverage fraction in [0, 1].
        """
        unique = list(dict.fromkeys(w.lower() for w in words if w))
        if not unique or limit <= 0:
            return []
        with self._lock:
            total = len(self._entries)
            acc: dict[int, float] = {}
            norm = 0.0
            for word in unique:
                weights = self._word_weights(word)
                if not weights:
                    continue
                idf = math.log(1.0 + total / len(weights))
                norm += idf
                for eid, weight in weights.items():
                    acc[eid] = acc.get(eid, 0.0) + idf * weight
            scored = [(score / norm, self._entries[eid]) for eid, score in acc.items()]
        best = heapq.nsmallest(limit, scored, key=lambda t: (-t[0], t[1].rank))
        return [SymbolMatch(e.definition, round(s, 6), "terms") for s, e in best]

    def _word_weights(self, word: str) -> dict[int, float]:
        """id → the best weight with which one query word (or a stem variant of it) occurs in that definition."""
        weights: dict[int, float] = {}
        stem = _stem(word)
        fields = (
            (self._name_sub, NAME_FIELD_WEIGHT),
            (self._parent_sub, PARENT_FIELD_WEIGHT),
            (self._sig_sub, SIGNATURE_FIELD_WEIGHT),
        )
        for postings, field_weight in fields:
            variants = [(word, field_weight)]
            if len(stem) >= STEM_MIN_CHARS:
                lo, hi = prefix_range(postings.keys, stem)
                variants += [
                    (key, field_weight * STEM_MATCH_FACTOR)
                    for key in postings.keys[lo : min(hi, lo + STEM_MAX_TERMS)]
                    if key != word and len(key) - len(stem) <= STEM_MAX_EXTRA_CHARS
                ]
            for key, weight in variants:
                for eid in postings.get(key):
                    if weights.get(eid, 0.0) < weight:
                        weights[eid] = weight
        return weights

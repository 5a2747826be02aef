"""The symbol table: every definition of the workspace, indexed by separator-free lower-case name and by sub-word,
answering exact, case-insensitive, qualified, prefix, sub-word and (bounded) fuzzy queries, ranked.

Ranking: a match-type score from the table below, then the tie-breaks of `symbol_entry.rank_key`.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from maguyva_lsp.index.fuzzy import FuzzyNames
from maguyva_lsp.index.postings import Postings, intersect, prefix_range
from maguyva_lsp.index.symbol_entry import Entry, IndexKeys, compact_name, index_keys, make_entry
from maguyva_lsp.index.symbol_query import SymbolQuery, parse_symbol_query, subwords_of
from maguyva_lsp.index.symbol_terms import TermFields, term_scores, top_ids
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
# Within an open-ended tier, each character a name has beyond the query costs this much (closer matches first)...
LENGTH_PENALTY = 0.1
# ... at most this much, so that a tier never sinks into the next one.
LENGTH_PENALTY_CAP = 4.0
# A qualified query (`Config.parse`) also answers for its last component alone (`parse` anywhere), with those
# scores multiplied by this factor: below every definition in the named scope (those score >= CASE_INSENSITIVE).
QUALIFIER_MISS_FACTOR = 0.5

# Bounds that keep one query cheap whatever the workspace size (type-ahead runs on every keystroke).
MAX_NAME_QUERY_CHARS = 512  # longer than any real (qualified) symbol name: such text is not a name query
# Prefix candidates are taken shortest name first, whole lengths at a time, until this many times `limit` are in:
# longer names of the same sub-tier only score lower. (A longer plain prefix could still outrank a shorter
# separator-only prefix already taken; the oversampling leaves room for that.)
PREFIX_OVERSAMPLE = 2
SUBWORD_PREFIX_TERMS = 64  # sub-words one query sub-word may expand to as a prefix
FUZZY_MIN_CHARS = 2  # shorter queries match too much to be worth a fuzzy scan
FUZZY_BELOW = 5  # the fuzzy scan runs only when the tiers above found fewer results than this: a last resort
FUZZY_MAX_KEYS = 200  # names taken from the fuzzy scan


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    """One ranked answer of the symbol table."""

    definition: Definition
    score: float
    match: str  # a key of MATCH_SCORES, "qualified", or "terms" for a term search


def _length_penalty(name_len: int, query_len: int) -> float:
    return min(LENGTH_PENALTY * max(name_len - query_len, 0), LENGTH_PENALTY_CAP)


class SymbolTable:
    """All definitions, replaced and removed per path; searches may run in several threads alongside one writer.

    Readers and the writer share one lock, held only while ids are collected or indexes mutated (never while
    ranking). Under the GIL, readers would gain nothing from running their dictionary lookups at the same time.
    Names are filed under their separator-free lower-case form only: exact and case-insensitive matches are the
    members of that (small) group whose name is equal as typed or ignoring case.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[int, Entry] = {}
        self._by_path: dict[str, list[int]] = {}
        self._by_compact = Postings(by_length=True)
        self._fuzzy = FuzzyNames()
        self._name_sub = Postings()
        self._parent_sub = Postings()
        self._sig_sub = Postings()
        self._term_fields = TermFields(self._name_sub, self._parent_sub, self._sig_sub)
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
        prepared: list[tuple[str, list[tuple[Entry, IndexKeys]]]] = []
        for path, definitions, path_class in updated:
            wrong = next((d for d in definitions if d.path != path), None)
            if wrong is not None:
                raise ValueError(f"definition {wrong.name!r} has path {wrong.path!r}, filed under {path!r}")
            pairs = []
            for d in definitions:
                keys = index_keys(d)
                pairs.append((make_entry(d, path_class, keys), keys))
            pairs.sort(key=lambda p: (p[0].definition.span.start_line, p[0].definition.span.start_col, p[0].rank))
            prepared.append((path, pairs))
        with self._lock:
            for path in removed:
                self._drop_path(path)
            for path, pairs in prepared:
                self._drop_path(path)
                self._by_path[path] = [self._add(entry, keys) for entry, keys in pairs]
            self._fuzzy.changed(self._by_compact.settle(), self._by_compact.sets)
            for postings in (self._name_sub, self._parent_sub, self._sig_sub):
                postings.settle()

    def _add(self, entry: Entry, keys: IndexKeys) -> int:
        eid = self._next_id
        self._next_id += 1
        self._entries[eid] = entry
        self._by_compact.add(keys.compact, eid)
        for postings, words in self._subword_fields(keys):
            for word in words:
                postings.add(word, eid)
        return eid

    def _drop_path(self, path: str) -> None:
        for eid in self._by_path.pop(path, ()):
            keys = index_keys(self._entries.pop(eid).definition)  # the same keys it was filed under
            self._by_compact.discard(keys.compact, eid)
            for postings, words in self._subword_fields(keys):
                for word in words:
                    postings.discard(word, eid)

    def _subword_fields(self, keys: IndexKeys) -> tuple[tuple[Postings, Iterable[str]], ...]:
        """Each subword posting list with the words of `keys` it files an entry under (one pairing for add and drop)."""
        return (
            (self._name_sub, keys.name_subwords),
            (self._parent_sub, keys.parent_subwords),
            (self._sig_sub, keys.signature_subwords),
        )

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
                "names": len(self._by_compact.sets),
                "subwords": len(self._name_sub.sets),
            }

    # ---- name search -----------------------------------------------------------------------------------------

    def lookup(self, name: str) -> list[Definition]:
        """Go-to-definition: every definition of exactly this name (qualified names narrow it), best first."""
        query = parse_symbol_query(name)
        if query is None:
            return []
        with self._lock:
            group = [self._entries[eid] for eid in self._by_compact.get(compact_name(query.name))]
        entries = [e for e in group if e.definition.name == query.name]
        if query.qualified:
            entries = [e for e in entries if query.qualifier_fits(e.definition, case_sensitive=True)]
        return [e.definition for e in sorted(entries, key=lambda e: e.rank)]

    def workspace_symbols(self, query: str, limit: int) -> list[Definition]:
        """Type-ahead symbol search (every keystroke): the best `limit` definitions for a partial name."""
        return [m.definition for m in self.search(query, limit)]

    def search(self, text: str, limit: int) -> list[SymbolMatch]:
        """The best `limit` definitions for a name-like query, by match-type score and then the tie-breaks.
        A query longer than MAX_NAME_QUERY_CHARS names no symbol: it gets no answer (ask `search_terms` instead)."""
        query = parse_symbol_query(text) if len(text) <= MAX_NAME_QUERY_CHARS else None
        if query is None or limit <= 0:
            return []
        with self._lock:
            found = self._collect(query.name, limit)
            if query.qualified:
                qualified: dict[int, tuple[float, str]] = {}
                for eid in self._qualified_candidates(query):
                    d = self._entries[eid].definition
                    if d.name == query.name and query.qualifier_fits(d, case_sensitive=True):
                        qualified[eid] = (EXACT, "qualified")
                    elif d.name.lower() == query.name.lower() and query.qualifier_fits(d, case_sensitive=False):
                        qualified[eid] = (CASE_INSENSITIVE, "qualified")
                found = {eid: (s * QUALIFIER_MISS_FACTOR, m) for eid, (s, m) in found.items()} | qualified
            scored = [(-s, (e := self._entries[eid]).rank, eid, m, e.definition) for eid, (s, m) in found.items()]
        best = heapq.nsmallest(limit, scored)  # the unique id ends every comparison before the definition
        return [SymbolMatch(d, round(-s, 4), m) for s, _, _, m, d in best]

    def _qualified_candidates(self, query: SymbolQuery) -> Iterable[int]:
        """Definitions of the query's name that may lie in its scope: module-level ones (their module or package
        is checked next), and members whose parent has the sub-words of the qualifier's last part (a `Foo.bar`
        query must not test every `bar` of the workspace)."""
        group = self._by_compact.get(compact_name(query.name))
        if not query.qualifier:
            return group
        words = subwords_of(query.qualifier.rsplit(".", 1)[-1])
        members = intersect([self._parent_sub.get(w) for w in words]) if words else set()
        return [eid for eid in group if eid in members or self._entries[eid].definition.parent is None]

    def _collect(self, name: str, limit: int) -> dict[int, tuple[float, str]]:
        """Candidates for a bare name, tier by tier, as id → (score, match). Stops once the tiers so far hold
        `limit` candidates, since no lower tier could enter the top. Called with the lock held."""
        found: dict[int, tuple[float, str]] = {}
        lower, compact = name.lower(), compact_name(name)
        subs = tuple(dict.fromkeys(subwords_of(name)))

        def take(ids: Iterable[int], tier: float, match: str) -> None:
            for eid in ids:
                if eid not in found:
                    found[eid] = (tier - _length_penalty(self._entries[eid].compact_len, len(compact)), match)

        for eid in self._by_compact.get(compact):
            candidate = self._entries[eid].definition.name
            if candidate == name:
                found[eid] = (EXACT, "exact")
            elif candidate.lower() == lower:
                found[eid] = (CASE_INSENSITIVE, "case_insensitive")
            else:
                found[eid] = (NORMALIZED, "normalized")
        if len(found) < limit:
            self._collect_prefix(found, lower, compact, limit * PREFIX_OVERSAMPLE)
        if len(found) < limit and subs:
            take(intersect([self._name_sub.get(w) for w in subs]), SUBWORD, "subword")
        if len(found) < limit and subs:
            take(self._subword_prefix_hits(subs), SUBWORD_PREFIX, "subword_prefix")
        if len(found) < limit and len(subs) > 1:
            take(self._subword_qualified_hits(subs), SUBWORD_QUALIFIED, "subword_qualified")
        if len(found) < min(limit, FUZZY_BELOW) and len(compact) >= FUZZY_MIN_CHARS:
            keys = self._fuzzy.matches(self._by_compact.keys, compact, FUZZY_MAX_KEYS)
            take(itertools.chain.from_iterable(self._by_compact.get(k) for k in keys), FUZZY, "fuzzy")
        return found

    def _collect_prefix(self, found: dict[int, tuple[float, str]], lower: str, compact: str, want: int) -> None:
        """Names that start with the query: with case ignored (PREFIX) or only once separators are dropped
        (SEPARATOR_PREFIX); shortest first, whole lengths at a time, until `want` candidates are in."""
        taken, last_len = 0, -1
        for key in self._by_compact.prefixed_shortest_first(compact):
            if len(key) != last_len and taken >= want:
                break
            last_len = len(key)
            penalty = _length_penalty(len(key), len(compact))
            for eid in self._by_compact.get(key):
                if eid not in found:
                    taken += 1
                    if self._entries[eid].definition.name.lower().startswith(lower):
                        found[eid] = (PREFIX - penalty, "prefix")
                    else:
                        found[eid] = (SEPARATOR_PREFIX - penalty, "separator_prefix")

    def _subword_prefix_hits(self, subs: tuple[str, ...]) -> list[int]:
        """Ids whose name has, for every query sub-word, a sub-word starting with it. Only the rarest query
        sub-word's postings are gathered (over its SUBWORD_PREFIX_TERMS shortest expansions); the other words are
        checked on those candidates' names."""
        options = [self._shortest_keys(self._name_sub, w, SUBWORD_PREFIX_TERMS) for w in subs]
        sizes = [sum(self._name_sub.count(k) for k in keys) for keys in options]
        rarest = min(range(len(subs)), key=sizes.__getitem__)
        candidates = self._name_sub.union_of(options[rarest])
        others = [w for i, w in enumerate(subs) if i != rarest]
        if not others:
            return list(candidates)
        # Each other word as the set of indexed sub-words it begins: a candidate passes when its name shares one
        # with every such set (set operations in C, no per-character work in Python).
        completions = [set(self._name_sub.keys[slice(*prefix_range(self._name_sub.keys, w))]) for w in others]
        entries = self._entries
        if len(completions) == 1:  # the common two-word query: no generator per candidate
            (only,) = completions
            return [eid for eid in candidates if not only.isdisjoint(entries[eid].name_subwords)]
        return [eid for eid in candidates if all(not c.isdisjoint(entries[eid].name_subwords) for c in completions)]

    def _subword_qualified_hits(self, subs: tuple[str, ...]) -> list[int]:
        """Ids whose name and parent together hold every query sub-word, at least one of them in the name: the
        rarest word's postings, checked for the rest."""
        rarest = min(subs, key=lambda w: self._name_sub.count(w) + self._parent_sub.count(w))
        candidates = self._name_sub.union_of((rarest,)) | self._parent_sub.union_of((rarest,))
        out: list[int] = []
        wanted = set(subs)
        for eid in candidates:
            entry = self._entries[eid]
            if not wanted.isdisjoint(entry.name_subwords) and wanted.issubset(
                (*entry.name_subwords, *entry.parent_subwords)
            ):
                out.append(eid)
        return out

    @staticmethod
    def _shortest_keys(postings: Postings, prefix: str, max_terms: int) -> list[str]:
        """The keys that start with the prefix (the `max_terms` shortest when more do)."""
        lo, hi = prefix_range(postings.keys, prefix)
        keys = postings.keys[lo:hi]
        return sorted(keys, key=len)[:max_terms] if len(keys) > max_terms else keys

    # ---- term search (natural-language queries) --------------------------------------------------------------

    def search_terms(self, words: Sequence[str], limit: int) -> list[SymbolMatch]:
        """Definitions whose name, parent or signature share sub-words with the query's words, best first by the
        coverage score of `symbol_terms.term_scores`, then the tie-breaks."""
        if limit <= 0:
            return []
        with self._lock:
            scores = term_scores(self._term_fields, words, len(self._entries))
            scored = [
                (-scores[eid], (e := self._entries[eid]).rank, eid, e.definition) for eid in top_ids(scores, limit)
            ]
        return [SymbolMatch(d, round(-s, 6), "terms") for s, _, _, d in heapq.nsmallest(limit, scored)]

"""The symbol table: every live definition of a snapshot of the segments, answering exact, case-insensitive,
qualified, prefix, sub-word and (bounded) fuzzy queries, ranked; plus go-to-definition and per-file questions.

It holds no definition itself: each segment's symbol part (symbol_part.py) is read through the snapshot the query
starts with, dead files masked, and a `Definition` is made only for what is returned. Ranking: a match-type score
(symbol_tiers.py), then the tie-breaks of `symbol_entry.rank_key`, stored per segment as one integer per
definition; results of several segments are merged on those keys, so the answer is the one a single segment of the
same files would give.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from maguyva_lsp.index.postings import I32, intersect
from maguyva_lsp.index.segment_set import Segments, SegmentSet
from maguyva_lsp.index.symbol_entry import compact_name
from maguyva_lsp.index.symbol_part import SYMBOL_PART, SymbolPart
from maguyva_lsp.index.symbol_query import SymbolQuery, parse_symbol_query, subwords_of
from maguyva_lsp.index.symbol_segment import Live, SymbolSegment
from maguyva_lsp.index.symbol_terms import term_scores
from maguyva_lsp.index.symbol_tiers import (
    CASE_INSENSITIVE,
    EXACT,
    FUZZY,
    MATCH_NAMES,
    MATCH_SCORES,
    NORMALIZED,
    PREFIX,
    SEPARATOR_PREFIX,
    SUBWORD,
    SUBWORD_PREFIX,
    SUBWORD_QUALIFIED,
    Found,
    collect,
)
from maguyva_lsp.model import Definition, FileAnalysis, PathClass, SourceFile

__all__ = [
    "CASE_INSENSITIVE", "EXACT", "FUZZY", "MATCH_SCORES", "NORMALIZED", "PREFIX", "QUALIFIER_MISS_FACTOR",
    "SEPARATOR_PREFIX", "SUBWORD", "SUBWORD_PREFIX", "SUBWORD_QUALIFIED", "SymbolMatch", "SymbolSnapshot",
    "SymbolTable",
]  # fmt: skip

# A qualified query (`Config.parse`) also answers for its last component alone (`parse` anywhere), with those
# scores multiplied by this factor: below every definition in the named scope (those score >= CASE_INSENSITIVE).
QUALIFIER_MISS_FACTOR = 0.5
MAX_NAME_QUERY_CHARS = 512  # longer than any real (qualified) symbol name: such text is not a name query
_QUALIFIED_CODE = MATCH_NAMES.index("qualified")
_SORT_ALL = 2048  # candidates sorted whole below this many (a selection first costs more numpy calls)


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    """One ranked answer of the symbol table."""

    definition: Definition
    score: float
    match: str  # a key of MATCH_SCORES, "qualified", or "terms" for a term search


class _Place:
    """Where a candidate sorts after its score and rank head: by path, then (in one segment) by its rank. Paths
    are decoded only when two segments' candidates tie on everything before (a live path is in one segment)."""

    __slots__ = ("live", "rank", "row")

    def __init__(self, live: Live, row: int, rank: int) -> None:
        self.live, self.row, self.rank = live, row, rank

    def __lt__(self, other: _Place) -> bool:
        if self.live is other.live:
            return self.rank < other.rank
        return self.live.segment.path(self.row) < other.live.segment.path(other.row)


class SegmentSource(Protocol):
    """Where the table reads its snapshot (the engine's `Segments`)."""

    @property
    def current(self) -> SegmentSet: ...


class SymbolTable:
    """All live definitions of the segments' current snapshot. Each question reads the snapshot once (a writer may
    publish a new one meanwhile); `snapshot()` gives one for several questions. Without `segments`, the table keeps
    segments of its own (in memory), fed by `apply`."""

    def __init__(self, segments: SegmentSource | None = None) -> None:
        self._owned = Segments(None, (SymbolPart(),)) if segments is None else None
        self._segments: SegmentSource = segments if segments is not None else self._owned  # type: ignore[assignment]
        self._cached: SymbolSnapshot | None = None

    def snapshot(self) -> SymbolSnapshot:
        """The symbols of the current snapshot of the segments (made once per snapshot)."""
        current = self._segments.current
        cached = self._cached
        if cached is None or cached.segments is not current:
            cached = self._cached = SymbolSnapshot(current)
        return cached

    # ---- writing (a table with segments of its own) ----------------------------------------------------------

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

        Raises ValueError, before changing anything, when a definition's path is not the path it is filed under."""
        if self._owned is None:
            raise RuntimeError("this symbol table reads the engine's segments: the engine feeds them")
        analyses = []
        for path, definitions, path_class in updated:
            wrong = next((d for d in definitions if d.path != path), None)
            if wrong is not None:
                raise ValueError(f"definition {wrong.name!r} has path {wrong.path!r}, filed under {path!r}")
            file = SourceFile(path, path, None, path_class, 0, 0)
            analyses.append(FileAnalysis(file, "", "", tuple(definitions), (), ()))
        self._owned.save(analyses, removed)

    # ---- questions, each on the current snapshot ---------------------------------------------------------------

    def definitions_in(self, path: str) -> list[Definition]:
        return self.snapshot().definitions_in(path)

    def definition_at(self, path: str, line: int, col: int) -> Definition | None:
        return self.snapshot().definition_at(path, line, col)

    def paths(self) -> list[str]:
        return self.snapshot().paths()

    def stats(self) -> dict[str, int]:
        return self.snapshot().stats()

    @property
    def definition_count(self) -> int:
        return self.snapshot().definition_count

    def lookup(self, name: str) -> list[Definition]:
        return self.snapshot().lookup(name)

    def workspace_symbols(self, query: str, limit: int) -> list[Definition]:
        return self.snapshot().workspace_symbols(query, limit)

    def search(self, text: str, limit: int) -> list[SymbolMatch]:
        return self.snapshot().search(text, limit)

    def search_terms(self, words: Sequence[str], limit: int) -> list[SymbolMatch]:
        return self.snapshot().search_terms(words, limit)


class SymbolSnapshot:
    """The symbol questions over one snapshot of the segments."""

    __slots__ = ("lives", "searched", "segments")

    def __init__(self, segments: SegmentSet) -> None:
        self.segments = segments
        self.lives = tuple(_part(s).live(s.alive) for s in segments.segments)
        self.searched = tuple(live for live in self.lives if live.def_count)

    # ---- per-file questions ----------------------------------------------------------------------------------

    def file(self, path: str) -> tuple[Live, int] | None:
        """The live view of the segment holding a path's live version, and its local id there."""
        found = self.segments.locate(path)
        return None if found is None else (self.lives[found[0]], found[1])

    def definitions_in(self, path: str) -> list[Definition]:
        """The definitions of one file in source order (document symbols)."""
        found = self.file(path)
        if found is None:
            return []
        seg = found[0].segment
        return seg.definitions(seg.file_rows(found[1]).tolist())

    def definition_at(self, path: str, line: int, col: int) -> Definition | None:
        """The innermost definition of `path` whose span holds the position, or None."""
        found = self.file(path)
        if found is None:
            return None
        seg = found[0].segment
        row = seg.innermost(found[1], line, col)
        return seg.definition(row) if row >= 0 else None

    def paths(self) -> list[str]:
        return sorted(
            live.segment.core.paths[local] for live in self.lives for local in np.flatnonzero(live.files).tolist()
        )

    def stats(self) -> dict[str, int]:
        """Counts for status and benchmarks (distinct names and sub-words decode the vocabularies: not per query)."""
        names: set[str] = set()
        subwords: set[str] = set()
        for live in self.lives:
            seg = live.segment
            names.update(seg.keys.texts(np.flatnonzero(live.key_counts())))
            subwords.update(seg.words.texts(np.flatnonzero(live.word_counts("name"))))
        return {
            "files": sum(int(np.count_nonzero(live.files)) for live in self.lives),
            "definitions": self.definition_count,
            "names": len(names),
            "subwords": len(subwords),
        }

    @property
    def definition_count(self) -> int:
        return sum(live.def_count for live in self.lives)

    # ---- name search -----------------------------------------------------------------------------------------

    def lookup(self, name: str) -> list[Definition]:
        """Go-to-definition: every definition of exactly this name (qualified names narrow it), best first."""
        query = parse_symbol_query(name)
        if query is None:
            return []
        lists = []
        for live in self.searched:
            seg = live.segment
            ids = live.keep(seg.key_ids(seg.keys.find(compact_name(query.name))))
            rows = [row for row in ids.tolist() if seg.name(row) == query.name]
            if query.qualified:
                rows = [row for row in rows if _fits(query, seg, row, case_sensitive=True)]
            rows.sort(key=lambda row: int(seg.def_rank[row]))
            lists.append([(int(seg.def_head[row]), _Place(live, row, int(seg.def_rank[row]))) for row in rows])
        places = [p for _, p in heapq.merge(*lists)]
        return _materialized(self.searched, [(self.searched.index(p.live), p.row) for p in places])

    def workspace_symbols(self, query: str, limit: int) -> list[Definition]:
        """Type-ahead symbol search (every keystroke): the best `limit` definitions for a partial name."""
        return [m.definition for m in self.search(query, limit)]

    def search(self, text: str, limit: int) -> list[SymbolMatch]:
        """The best `limit` definitions for a name-like query, by match-type score and then the tie-breaks.
        A query longer than MAX_NAME_QUERY_CHARS names no symbol: it gets no answer (ask `search_terms` instead)."""
        query = parse_symbol_query(text) if len(text) <= MAX_NAME_QUERY_CHARS else None
        if query is None or limit <= 0:
            return []
        lives = self.searched
        found = collect(lives, query.name, limit)
        candidates = [f.arrays() for f in found]
        if query.qualified:
            candidates = [_requalified(query, f, arrays) for f, arrays in zip(found, candidates, strict=True)]
        best = _best(lives, [(ids, scores) for ids, scores, _ in candidates], limit)
        definitions = _materialized(lives, [(position, row) for position, _, row, _ in best])
        return [
            SymbolMatch(d, round(score, 4), MATCH_NAMES[int(candidates[position][2][index])])
            for d, (position, index, _, score) in zip(definitions, best, strict=True)
        ]

    # ---- term search (natural-language queries) --------------------------------------------------------------

    def search_terms(self, words: Sequence[str], limit: int) -> list[SymbolMatch]:
        """Definitions whose name, parent or signature share sub-words with the query's words, best first by the
        coverage score of `symbol_terms.term_scores`, then the tie-breaks."""
        if limit <= 0:
            return []
        lives = self.searched
        scored = term_scores(lives, words, limit)
        best = _best(lives, scored, limit) if scored else []
        definitions = _materialized(lives, [(position, row) for position, _, row, _ in best])
        return [SymbolMatch(d, round(score, 6), "terms") for d, (_, _, _, score) in zip(definitions, best, strict=True)]


def _materialized(lives: Sequence[Live], found: Sequence[tuple[int, int]]) -> list[Definition]:
    """The definitions of (segment position, row) pairs, in their order (made per segment at once)."""
    if len({position for position, _ in found}) == 1:
        return lives[found[0][0]].segment.definitions([row for _, row in found])
    rows: dict[int, list[int]] = {}
    for position, row in found:
        rows.setdefault(position, []).append(row)
    made = {position: iter(lives[position].segment.definitions(r)) for position, r in rows.items()}
    return [next(made[position]) for position, _ in found]


def _part(segment: Any) -> SymbolSegment:
    part: SymbolSegment = segment.part(SYMBOL_PART)
    return part


def _fits(query: SymbolQuery, seg: SymbolSegment, row: int, *, case_sensitive: bool) -> bool:
    parent = seg.parent(row)
    name = seg.name(row)
    return query.scope_fits(seg.path(row), f"{parent}.{name}" if parent else name, case_sensitive=case_sensitive)


def _requalified(query: SymbolQuery, f: Found, arrays: tuple[I32, Any, Any]) -> tuple[I32, Any, Any]:
    """A qualified query's candidates: the definitions in the named scope score EXACT (name as typed) or
    CASE_INSENSITIVE; the bare-name candidates keep QUALIFIER_MISS_FACTOR of their score."""
    ids, scores, codes = arrays
    seg, live = f.live.segment, f.live
    group = live.keep(seg.key_ids(seg.keys.find(compact_name(query.name))))
    if query.qualifier:  # members whose parent has the qualifier's last part's sub-words, and module-level ones
        words = [seg.words.find(w) for w in subwords_of(query.qualifier.rsplit(".", 1)[-1])]
        parents = intersect([seg.word_ids("parent", w) for w in words]) if words and min(words) >= 0 else group[:0]
        group = group[np.isin(group, parents) | (seg.def_pr[group] < 0)]
    chosen_ids, chosen_scores = [], []
    lower = query.name.lower()
    same = seg.lower_spellings.equal_to(seg.def_nm[group], lower)
    exact = seg.spellings.equal_to(seg.def_nm[group], query.name)
    for row, as_typed in zip(group[same].tolist(), exact[same].tolist(), strict=True):
        if as_typed and _fits(query, seg, row, case_sensitive=True):
            chosen_ids.append(row)
            chosen_scores.append(EXACT)
        elif _fits(query, seg, row, case_sensitive=False):
            chosen_ids.append(row)
            chosen_scores.append(CASE_INSENSITIVE)
    qualified = np.array(chosen_ids, dtype=np.int32)
    rest = ~np.isin(ids, qualified)
    return (
        np.concatenate([ids[rest], qualified]).astype(np.int32),
        np.concatenate([scores[rest] * QUALIFIER_MISS_FACTOR, np.array(chosen_scores, dtype=np.float64)]),
        np.concatenate([codes[rest], np.full(qualified.size, _QUALIFIED_CODE, dtype=np.int8)]),
    )


def _best(
    lives: Sequence[Live], candidates: Sequence[tuple[I32, Any]], limit: int
) -> list[tuple[int, int, int, float]]:
    """The best `limit` (segment position, index among its candidates, row, score) by score, then rank, over every
    segment's candidates (ids, scores)."""
    chosen_lists = []
    for position, (live, (ids, scores)) in enumerate(zip(lives, candidates, strict=True)):
        if ids.size:
            chosen = _top(scores, live.segment.def_rank[ids], limit)
            chosen_lists.append((position, live, ids, scores, chosen))
    if len(chosen_lists) == 1:  # one segment: its order is the order
        position, _, ids, scores, chosen = chosen_lists[0]
        return [
            (position, index, row, value)
            for index, row, value in zip(chosen.tolist(), ids[chosen].tolist(), scores[chosen].tolist(), strict=True)
        ]
    lists = []
    for position, live, ids, scores, chosen in chosen_lists:
        seg = live.segment
        rows = ids[chosen]
        lists.append(
            [
                (-value, head, _Place(live, row, rank), position, index, row, value)
                for index, row, value, head, rank in zip(
                    chosen.tolist(),
                    rows.tolist(),
                    scores[chosen].tolist(),
                    seg.def_head[rows].tolist(),
                    seg.def_rank[rows].tolist(),
                    strict=True,
                )
            ]
        )
    merged = heapq.merge(*lists, key=lambda item: item[:3])
    return [(position, index, row, value) for _, _, _, position, index, row, value in itertools.islice(merged, limit)]


def _top(scores: Any, ranks: Any, limit: int) -> Any:
    """Indexes of the best `limit` by (score descending, rank), in that order; a selection before the sort when
    there are many candidates (an exact group of thousands of `__init__`)."""
    n = int(scores.size)
    if n <= _SORT_ALL:
        return np.lexsort((ranks, -scores))[:limit]
    negated = -scores
    kth = np.partition(negated, limit - 1)[limit - 1]
    better = np.flatnonzero(negated < kth)
    tied = np.flatnonzero(negated == kth)
    need = limit - better.size
    if tied.size > need:
        tied = tied[np.argpartition(ranks[tied], need - 1)[:need]]
    index = np.concatenate([better, tied])
    return index[np.lexsort((ranks[index], -scores[index]))]

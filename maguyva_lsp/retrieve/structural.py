"""The structural retriever: tree-sitter definitions in a symbol table. Identifier queries are answered by name
(definitions first, then mere mentions of the name; a definition question that finds a definition of the name gets no
mentions); natural-language queries by sub-word overlap with definitions."""

from __future__ import annotations

import logging
from dataclasses import replace

from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.symbol_mentions import mentions_of
from maguyva_lsp.index.symbol_part import SymbolPart
from maguyva_lsp.index.symbol_query import parse_symbol_query
from maguyva_lsp.index.symbols import QUALIFIER_MISS_FACTOR, SymbolMatch, SymbolSnapshot, SymbolTable
from maguyva_lsp.model import (
    ChangeBatch,
    Definition,
    FileAnalysis,
    Hit,
    Intent,
    Modality,
    RetrievalQuery,
    RetrieverStatus,
    Span,
)
from maguyva_lsp.query.question import named_identifiers
from maguyva_lsp.query.routing import IDENTIFIER_INTENTS
from maguyva_lsp.query.snippet import defined_names
from maguyva_lsp.tokens import subword_tokens

log = logging.getLogger(__name__)

# Intents answered by the symbol table when the target is identifier-like: those whose target names a symbol, and an
# exact match of an identifier (`ECONNREFUSED` is often a constant defined somewhere).
SYMBOL_TABLE_INTENTS: frozenset[Intent] = IDENTIFIER_INTENTS | {Intent.EXACT_MATCH}
# A mention of exactly the target ranks below a definition of the name in any spelling (exact, case-insensitive,
# normalized: scores 100/90/80) and above definitions that merely start with it or share sub-words (70 and below).
MENTION_SCORE = 75.0
# Words of a natural-language query that say what is asked, not what it is about.
QUERY_NOISE_WORDS: frozenset[str] = frozenset(
    "explain architecture code implemented implementation implement show find similar like defined definition "
    "used uses usage handled handle happens does done".split()
)


class StructuralRetriever:
    """Definitions by name or by sub-word overlap; the `structural` modality of the fusion. It reads the symbol part
    of the engine's segments (one snapshot per question); without `segments` it keeps segments of its own, fed by
    `apply`."""

    def __init__(self, segments: Segments | None = None) -> None:
        self._owned = segments is None
        self._segments = segments if segments is not None else Segments(None, (SymbolPart(),))
        self._table = SymbolTable(self._segments)

    @property
    def name(self) -> Modality:
        return "structural"

    @property
    def table(self) -> SymbolTable:
        return self._table

    @property
    def symbol_count(self) -> int:
        """How many definitions are indexed (for status reports)."""
        return self._table.definition_count

    def status(self) -> RetrieverStatus:
        return RetrieverStatus(available=True)

    # ---- maintenance -----------------------------------------------------------------------------------------

    def apply(self, batch: ChangeBatch) -> None:
        """Index a batch, when the retriever keeps segments of its own (each file's definitions and mentions
        replacing what its path held; removed paths forgotten); the engine feeds its segments itself."""
        if self._owned:
            self._segments.save([_own_definitions(fa) for fa in batch.updated], batch.removed)

    # ---- questions -------------------------------------------------------------------------------------------

    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        """Identifier targets by name (definitions, then mentions); other text by sub-word overlap, best first."""
        if limit <= 0:
            return []
        symbols = self._table.snapshot()
        target = query.target.strip() or query.text.strip()
        parsed = parse_symbol_query(target)
        if query.intent in SYMBOL_TABLE_INTENTS and parsed is not None and parsed.is_identifier:
            matches = symbols.search(target, limit)
            hits = [_definition_hit(m) for m in matches]
            mention_score = MENTION_SCORE * (QUALIFIER_MISS_FACTOR if parsed.qualified else 1.0)
            if query.intent is Intent.FIND_DEFINITION and any(m.score > mention_score for m in matches):
                # A definition question with a definition to show: uses of the name would only crowd it out (each
                # a near-equal RRF rank, and in its own file a call site's chunk can outscore the definition's).
                return hits
            # Mentions of the name as asked, and of the names of definitions that outrank mentions (`parseConfig`
            # asked, `parse_config` defined: its uses are what the user is after).
            names = [parsed.name, *(m.definition.name for m in matches if m.score > mention_score)]
            mentions = self._mention_hits(symbols, list(dict.fromkeys(names)), mention_score, limit)
            merged = sorted(hits + mentions, key=lambda h: -h.score)  # stable: each list keeps its own order
            return merged[:limit]
        if query.intent is Intent.EXACT_MATCH:
            return []  # a literal that is not a name: nothing structural to say about it
        if query.intent is Intent.FIND_SIMILAR:
            return self._snippet_definitions(symbols, target, limit)
        words = [w for w in subword_tokens(target, drop_stopwords=True) if w not in QUERY_NOISE_WORDS]
        terms = [_definition_hit(m) for m in symbols.search_terms(words, limit)]
        if query.intent is Intent.UNDERSTAND_CODE:
            return self._named_first(symbols, named_identifiers(query.text), terms, limit)
        return terms

    def _named_first(self, symbols: SymbolSnapshot, names: list[str], terms: list[Hit], limit: int) -> list[Hit]:
        """A question's list: the definitions of the identifiers it names (query/question.py), then their uses, then
        the definitions sharing its words — each location once."""
        if not names:
            return terms
        named = [_definition_hit(m) for name in names for m in symbols.search(name, limit) if m.definition.name == name]
        hits = named + self._mention_hits(symbols, names, MENTION_SCORE, limit) + terms
        seen: set[tuple[str, int, int]] = set()
        out: list[Hit] = []
        for hit in hits:
            where = (hit.path, hit.span.start_line, hit.span.start_col)
            if where not in seen:
                seen.add(where)
                out.append(hit)
        return out[:limit]

    def _snippet_definitions(self, symbols: SymbolSnapshot, snippet: str, limit: int) -> list[Hit]:
        """Definitions of the names a pasted snippet itself defines (`def normalize` → every `normalize`); nothing
        when it defines none: the names it merely uses say what it calls, not what it resembles."""
        hits = [
            _definition_hit(m)
            for name in defined_names(snippet)
            for m in symbols.search(name, limit)
            if m.definition.name == name
        ]
        return sorted(hits, key=lambda h: -h.score)[:limit]

    def goto_definition(self, name: str, from_path: str | None = None) -> list[Definition]:
        """Definitions of exactly this (possibly qualified) name: those in `from_path` first, then the rest."""
        found = self._table.lookup(name)
        return sorted(found, key=lambda d: d.path != from_path) if from_path is not None else found

    @staticmethod
    def _mention_hits(symbols: SymbolSnapshot, names: list[str], score: float, limit: int) -> list[Hit]:
        """Uses of any of the names: calls, then base classes, plain uses and imports; source before tests."""
        return [
            Hit(
                path=m.path,
                span=Span(m.line, m.col, m.line, m.end_col),
                score=score,
                symbol=m.name,
                kind=m.kind,
                snippet=f"{m.kind} of {m.name} in {m.enclosing or 'module level'}",
                detail={"match": "mention"},
            )
            for m in mentions_of(symbols.lives, names, limit)
        ]


def _definition_hit(match: SymbolMatch) -> Hit:
    d = match.definition
    return Hit(
        path=d.path,
        span=d.span,
        score=match.score,
        symbol=d.qualified_name,
        kind=d.kind,
        snippet=d.signature,
        detail={"match": match.match},
    )


def _own_definitions(analysis: FileAnalysis) -> FileAnalysis:
    """The analysis with only the file's own definitions; one filed under another path is dropped with a warning
    rather than refusing the whole batch."""
    own = tuple(d for d in analysis.definitions if d.path == analysis.path)
    if len(own) == len(analysis.definitions):
        return analysis
    log.warning(
        "%s: dropped %d definitions filed under another path", analysis.path, len(analysis.definitions) - len(own)
    )
    return replace(analysis, definitions=own)

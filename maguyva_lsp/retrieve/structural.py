"""The structural retriever: tree-sitter definitions in a symbol table. Identifier queries are answered by name
(definitions first, then mere mentions of the name; a definition question that finds a definition of the name gets no
mentions); natural-language queries by sub-word overlap with definitions."""

from __future__ import annotations

import logging
import threading
from array import array

from maguyva_lsp.index.symbol_entry import PATH_CLASS_RANK
from maguyva_lsp.index.symbol_query import parse_symbol_query
from maguyva_lsp.index.symbols import QUALIFIER_MISS_FACTOR, SymbolMatch, SymbolTable
from maguyva_lsp.model import (
    ChangeBatch,
    Definition,
    FileAnalysis,
    Hit,
    Intent,
    Modality,
    PathClass,
    Reference,
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
# Mentions of a name: calls and base classes say more about a symbol than plain uses, imports least.
MENTION_KINDS: tuple[str, ...] = ("call", "inherit", "reference", "import")
# Words of a natural-language query that say what is asked, not what it is about.
QUERY_NOISE_WORDS: frozenset[str] = frozenset(
    "explain architecture code implemented implementation implement show find similar like defined definition "
    "used uses usage handled handle happens does done".split()
)
_MENTION_FIELDS = 4  # line, start column, end column, index into MENTION_KINDS, flattened in one array per file


def _mention_rank(path_class: PathClass, path: str, kind: int, line: int, col: int) -> tuple[int, int, str, int, int]:
    return (kind, PATH_CLASS_RANK.get(path_class, len(PATH_CLASS_RANK)), path, line, col)


class StructuralRetriever:
    """Definitions by name or by sub-word overlap; the `structural` modality of the fusion."""

    def __init__(self, table: SymbolTable | None = None) -> None:
        self._table = table if table is not None else SymbolTable()
        self._lock = threading.Lock()  # guards the mention index (the table has its own lock)
        self._mentions: dict[str, dict[str, array[int]]] = {}  # name → path → flattened mentions
        self._mention_names: dict[str, tuple[str, ...]] = {}  # path → the names it mentions
        self._path_class: dict[str, PathClass] = {}

    @property
    def name(self) -> Modality:
        return "structural"

    @property
    def table(self) -> SymbolTable:
        return self._table

    @property
    def symbol_count(self) -> int:
        """How many definitions are indexed (for status reports)."""
        return self._table.stats()["definitions"]

    def status(self) -> RetrieverStatus:
        return RetrieverStatus(available=True)

    # ---- maintenance -----------------------------------------------------------------------------------------

    def apply(self, batch: ChangeBatch) -> None:
        """Index each updated file's definitions and mentions, replacing what its path held; forget removed paths."""
        updated = [(fa.path, _own_definitions(fa), fa.file.path_class) for fa in batch.updated]
        mentions = {fa.path: _mentions_by_name(fa.references) for fa in batch.updated}
        self._table.apply(updated, batch.removed)
        with self._lock:
            for path in (*batch.removed, *mentions):
                self._drop_mentions(path)
            for fa in batch.updated:
                self._path_class[fa.path] = fa.file.path_class
                by_name = mentions[fa.path]
                self._mention_names[fa.path] = tuple(by_name)
                for ref_name, flat in by_name.items():
                    self._mentions.setdefault(ref_name, {})[fa.path] = flat

    def _drop_mentions(self, path: str) -> None:
        self._path_class.pop(path, None)
        for ref_name in self._mention_names.pop(path, ()):
            paths = self._mentions.get(ref_name)
            if paths is not None:
                paths.pop(path, None)
                if not paths:
                    del self._mentions[ref_name]

    # ---- questions -------------------------------------------------------------------------------------------

    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        """Identifier targets by name (definitions, then mentions); other text by sub-word overlap, best first."""
        if limit <= 0:
            return []
        target = query.target.strip() or query.text.strip()
        parsed = parse_symbol_query(target)
        if query.intent in SYMBOL_TABLE_INTENTS and parsed is not None and parsed.is_identifier:
            matches = self._table.search(target, limit)
            hits = [_definition_hit(m) for m in matches]
            mention_score = MENTION_SCORE * (QUALIFIER_MISS_FACTOR if parsed.qualified else 1.0)
            if query.intent is Intent.FIND_DEFINITION and any(m.score > mention_score for m in matches):
                # A definition question with a definition to show: uses of the name would only crowd it out (each
                # a near-equal RRF rank, and in its own file a call site's chunk can outscore the definition's).
                return hits
            # Mentions of the name as asked, and of the names of definitions that outrank mentions (`parseConfig`
            # asked, `parse_config` defined: its uses are what the user is after).
            names = [parsed.name, *(m.definition.name for m in matches if m.score > mention_score)]
            mentions = self._mention_hits(list(dict.fromkeys(names)), mention_score, limit)
            merged = sorted(hits + mentions, key=lambda h: -h.score)  # stable: each list keeps its own order
            return merged[:limit]
        if query.intent is Intent.EXACT_MATCH:
            return []  # a literal that is not a name: nothing structural to say about it
        if query.intent is Intent.FIND_SIMILAR:
            return self._snippet_definitions(target, limit)
        words = [w for w in subword_tokens(target, drop_stopwords=True) if w not in QUERY_NOISE_WORDS]
        terms = [_definition_hit(m) for m in self._table.search_terms(words, limit)]
        if query.intent is Intent.UNDERSTAND_CODE:
            return self._named_first(named_identifiers(query.text), terms, limit)
        return terms

    def _named_first(self, names: list[str], terms: list[Hit], limit: int) -> list[Hit]:
        """A question's list: the definitions of the identifiers it names (query/question.py), then their uses, then
        the definitions sharing its words — each location once."""
        if not names:
            return terms
        named = [
            _definition_hit(m) for name in names for m in self._table.search(name, limit) if m.definition.name == name
        ]
        hits = named + self._mention_hits(names, MENTION_SCORE, limit) + terms
        seen: set[tuple[str, int, int]] = set()
        out: list[Hit] = []
        for hit in hits:
            where = (hit.path, hit.span.start_line, hit.span.start_col)
            if where not in seen:
                seen.add(where)
                out.append(hit)
        return out[:limit]

    def _snippet_definitions(self, snippet: str, limit: int) -> list[Hit]:
        """Definitions of the names a pasted snippet itself defines (`def normalize` → every `normalize`); nothing
        when it defines none: the names it merely uses say what it calls, not what it resembles."""
        hits = [
            _definition_hit(m)
            for name in defined_names(snippet)
            for m in self._table.search(name, limit)
            if m.definition.name == name
        ]
        return sorted(hits, key=lambda h: -h.score)[:limit]

    def goto_definition(self, name: str, from_path: str | None = None) -> list[Definition]:
        """Definitions of exactly this (possibly qualified) name: those in `from_path` first, then the rest."""
        found = self._table.lookup(name)
        return sorted(found, key=lambda d: d.path != from_path) if from_path is not None else found

    def _mention_hits(self, names: list[str], score: float, limit: int) -> list[Hit]:
        """Uses of any of the names: calls, then base classes, plain uses and imports; source before tests."""
        with self._lock:
            per_name = [(name, list(self._mentions.get(name, {}).items())) for name in names]
            classes = {path: self._path_class.get(path, PathClass.SOURCE) for _, paths in per_name for path, _ in paths}
        ranked: list[tuple[tuple[int, int, str, int, int], str, int, int, int, int]] = []
        for name, per_path in per_name:
            for path, flat in per_path:
                for i in range(0, len(flat), _MENTION_FIELDS):
                    line, col, end_col, kind = flat[i : i + _MENTION_FIELDS]
                    rank = _mention_rank(classes[path], path, kind, line, col)
                    ranked.append((rank, name, line, col, end_col, kind))
        ranked.sort()
        hits: list[Hit] = []
        for rank, name, line, col, end_col, kind in ranked[:limit]:
            path = rank[2]
            enclosing = self._table.definition_at(path, line, col)
            where = enclosing.qualified_name if enclosing is not None else "module level"
            hits.append(
                Hit(
                    path=path,
                    span=Span(line, col, line, end_col),
                    score=score,
                    symbol=name,
                    kind=MENTION_KINDS[kind],
                    snippet=f"{MENTION_KINDS[kind]} of {name} in {where}",
                    detail={"match": "mention"},
                )
            )
        return hits


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


def _own_definitions(analysis: FileAnalysis) -> tuple[Definition, ...]:
    """The file's definitions; one filed under another path is dropped with a warning rather than refusing the
    whole batch (the symbol table would reject it)."""
    own = tuple(d for d in analysis.definitions if d.path == analysis.path)
    if len(own) != len(analysis.definitions):
        log.warning(
            "%s: dropped %d definitions filed under another path", analysis.path, len(analysis.definitions) - len(own)
        )
    return own


def _mentions_by_name(references: tuple[Reference, ...]) -> dict[str, array[int]]:
    """name → (line, col, end col, kind) of each single-line mention, flattened; what a query needs, compactly."""
    kinds = {kind: i for i, kind in enumerate(MENTION_KINDS)}
    out: dict[str, array[int]] = {}
    for ref in references:
        s = ref.span
        if s.start_line != s.end_line or not ref.name:
            continue
        flat = out.get(ref.name)
        if flat is None:
            flat = out[ref.name] = array("I")
        flat.extend((s.start_line, s.start_col, s.end_col, kinds.get(ref.kind, kinds["reference"])))
    return out

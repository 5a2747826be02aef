"""Position-based questions for the editor: go to definition, find references, impact of what is under the cursor.

The graph resolves names the way a reader would (scope, `self`, imports); where it knows nothing of a name (a language
without reference queries, a name only mentioned in text) the structural and text indexes answer instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from maguyva_lsp.model import Span
from maguyva_lsp.retrieve.graph import GraphRetriever, ImpactResult
from maguyva_lsp.retrieve.structural import StructuralRetriever
from maguyva_lsp.retrieve.text import TextRetriever

_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
REFERENCE_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class Location:
    """A root-relative path and a span in it."""

    path: str
    span: Span


def word_at(line_text: str, column: int) -> tuple[str, int] | None:
    """The identifier under (or just before) a column, and the column where it starts."""
    for match in _WORD.finditer(line_text):
        if match.start() <= column <= match.end():
            return match.group(0), match.start()
    return None


class NavigationSource(Protocol):
    """What navigation reads of a workspace: three retrievers and the indexed text of a line (the engine has them)."""

    @property
    def graph(self) -> GraphRetriever: ...

    @property
    def structural(self) -> StructuralRetriever: ...

    @property
    def text(self) -> TextRetriever: ...

    def line_text(self, path: str, line: int) -> str: ...


class Navigator:
    """Definition, references and impact lookups over one workspace's retrievers."""

    def __init__(self, source: NavigationSource) -> None:
        self._engine = source

    def definition(self, path: str, line: int, column: int) -> list[Location]:
        """Where the name under the cursor is defined: resolved through the graph, else by name."""
        engine = self._engine
        nodes = engine.graph.symbols_at(path, line, column)
        resolved = [
            Location(n.path, n.name_span)
            for n in nodes
            if not n.is_module and not (n.path == path and n.name_span.contains_line(line))
        ]
        if resolved:
            return resolved
        found = word_at(engine.line_text(path, line), column)
        if found is None:
            return []
        name, start = found
        # On a definition's own name: it is its own definition.
        here = [d for d in engine.structural.table.definitions_in(path) if d.name_span == _name_span(line, start, name)]
        if here:
            return [Location(d.path, d.name_span) for d in here]
        definitions = engine.structural.goto_definition(name, from_path=path)
        return [Location(d.path, d.name_span) for d in definitions]

    def definitions_of(self, symbol: str) -> list[Location]:
        """Every definition of a name as written (`parse_config`, `Config.parse`), best placed first."""
        return [Location(d.path, d.name_span) for d in self._engine.structural.goto_definition(symbol)]

    def references(self, path: str, line: int, column: int, include_declaration: bool) -> list[Location]:
        """Uses of the symbol under the cursor: the graph's resolved uses when it knows the symbol, else whole-word
        text matches of the name (which may include same-named, unrelated symbols)."""
        engine = self._engine
        nodes = [n for n in engine.graph.symbols_at(path, line, column) if not n.is_module]
        out: dict[tuple[str, Span], None] = {}
        if nodes:
            if include_declaration:
                out.update({(n.path, n.name_span): None for n in nodes})
            for use in engine.graph.references_at(path, line, column):
                out[(use.path, use.site.span)] = None
            return [Location(p, s) for p, s in out]
        found = word_at(engine.line_text(path, line), column)
        if found is None:
            return []
        name, start = found
        declaration = _name_span(line, start, name)
        for hit in engine.text.find_identifier(name, limit=REFERENCE_LIMIT).hits:
            if not include_declaration and hit.path == path and hit.span == declaration:
                continue
            out[(hit.path, hit.span)] = None
        return [Location(p, s) for p, s in out]

    def impact(
        self, symbol: str | None, path: str | None, line: int, column: int, max_depth: int
    ) -> ImpactResult | None:
        """What depends on a symbol named in words, or on what a position names; None when nothing is found."""
        graph = self._engine.graph
        if symbol is not None:
            result = graph.impact(symbol, max_depth=max_depth)
        elif path is not None:
            result = graph.impact(path=path, line=line, column=column, max_depth=max_depth)
        else:
            return None
        return result if result.targets else None


def name_column(source: NavigationSource, path: str, line: int) -> int:
    """The column a line-only position means: the name of a definition on that line, else the line's first name
    (a call, a use), else 0."""
    for definition in source.structural.table.definitions_in(path):
        if definition.name_span.start_line == line:
            return definition.name_span.start_col
    first = _WORD.search(source.line_text(path, line))
    return first.start() if first else 0


def _name_span(line: int, start: int, name: str) -> Span:
    return Span(line, start, line, start + len(name))

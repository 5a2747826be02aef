"""The graph retriever: references and impact from the code graph, and central definitions for other questions.

Ranked lists per intent: find_references → the uses of the target (call sites first, then imports, base-class lists
and other mentions; surer resolutions first); impact_analysis → what depends on the target, each impacted symbol at
its definition, by depth then centrality; any other intent → definitions whose name matches the target (exactly,
then by how many of the query's sub-words it holds), the more central first.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from maguyva_lsp.graph import queries
from maguyva_lsp.graph.build import CodeGraph
from maguyva_lsp.graph.centrality import CentralityScores
from maguyva_lsp.graph.inputs import GraphInput, ReferenceSource
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH, SymbolNode, Use
from maguyva_lsp.graph.parallel import Runner, ShareJob, SharePart, StoredFiles
from maguyva_lsp.graph.resolve import MAX_CANDIDATES
from maguyva_lsp.graph.snapshot import GraphSnapshot
from maguyva_lsp.index.segment_parts import ChainExport
from maguyva_lsp.model import ChangeBatch, Hit, Intent, Modality, RetrievalQuery, RetrieverStatus
from maguyva_lsp.query.snippet import defined_names
from maguyva_lsp.store.container import Container, ContainerRecord
from maguyva_lsp.tokens import split_identifier, subword_tokens

# Score of a definition whose name is exactly the target; sub-word matches score their matched share below it.
EXACT_NAME_SCORE = 2.0
# Names sharing sub-words with the query are read from at most this many names per word (common words are noise).
MAX_NAMES_PER_WORD = 2000


@dataclass(frozen=True, slots=True)
class ImpactedSymbol:
    """One dependent of a changed symbol: the node, its distance, the chain of symbols that reaches it."""

    node: SymbolNode
    depth: int
    via: tuple[str, ...]  # display names, from the changed symbol to this one
    centrality: float


@dataclass(frozen=True, slots=True)
class ImpactResult:
    """What depends on the symbol(s) a request named (the contract's ImpactAnswer is built from it)."""

    targets: tuple[SymbolNode, ...]
    impacted: tuple[ImpactedSymbol, ...]
    # Said when uses by the target's name alone could not be attributed (too many definitions share the name).
    note: str | None = None

    @property
    def symbol(self) -> str | None:
        return self.targets[0].display_name if self.targets else None


def _crowded_note(crowded: tuple[SymbolNode, int]) -> str:
    node, count = crowded
    use = f"obj.{node.name}(...)" if node.member else f"{node.name}(...) without an import"
    return (
        f"{count} definitions are named {node.name}: a use by that name alone ({use}) cannot be told to mean this"
        " one, so such uses are not listed; search the name as text to see them all"
    )


class GraphRetriever:
    """The `graph` modality. Searches run concurrently with one writer applying batches."""

    def __init__(self, graph: CodeGraph | None = None) -> None:
        self.graph = graph if graph is not None else CodeGraph()

    @property
    def name(self) -> Modality:
        return "graph"

    def status(self) -> RetrieverStatus:
        return RetrieverStatus(available=True)

    def apply(self, batch: ChangeBatch) -> None:
        self.graph.apply(batch)

    def apply_inputs(self, updated: Sequence[GraphInput], removed: Sequence[str] = ()) -> None:
        """`apply` for files given without text (GraphInput, e.g. built from the segments' columns)."""
        self.graph.apply_inputs(updated, removed)

    def apply_in_workers(
        self,
        stored: StoredFiles,
        paths: Sequence[str],
        given: Sequence[GraphInput],
        removed: Sequence[str],
        *,
        runner: Runner[ShareJob, SharePart],
        workers: int,
    ) -> bool:
        """A cold build's files resolved in worker processes (CodeGraph.apply_in_workers); False: not done."""
        return self.graph.apply_in_workers(stored, paths, given, removed, runner=runner, workers=workers)

    def set_reference_source(self, source: ReferenceSource | None) -> None:
        """Where the references of stored files come from (the engine's segments): the graph then stores only each
        file's imports and base-class lists. Takes effect for files written from now on."""
        self.graph.reference_source = source

    # ---- the ranked list for fusion -----------------------------------------------------------------------------
    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        if limit <= 0:
            return []
        state, scores = self.graph.view()
        if query.intent is Intent.FIND_REFERENCES:
            targets = queries.find_symbols(state, scores, query.target)
            return [self._use_hit(state, u) for u in queries.references(state, targets)[:limit]]
        if query.intent is Intent.IMPACT_ANALYSIS:
            targets = queries.find_symbols(state, scores, query.target)
            impacted = queries.impact(state, scores, targets)[:limit]
            return [self._impact_hit(state, i) for i in impacted]
        if query.intent is Intent.FIND_SIMILAR:
            return self._snippet_definitions(state, scores, query.target, limit)
        return self._definitions(state, scores, query, limit)

    def _use_hit(self, state: GraphSnapshot, use: Use) -> Hit:
        source = _node(state, use.source)
        target = _node(state, use.target)
        return Hit(
            path=use.path,
            span=use.site.span,
            score=use.site.weight,
            symbol=source.display_name,
            kind=source.kind,
            detail={
                "edge": use.site.kind,
                "resolution": use.site.resolution,
                "target": target.display_name,
                "target_path": target.path,
            },
        )

    def _impact_hit(self, state: GraphSnapshot, impacted: queries.Impacted) -> Hit:
        node = _node(state, impacted.node_id)
        # Nearer first, then more central: the score orders exactly like the ranking.
        score = 1.0 / impacted.depth + impacted.centrality / (1.0 + impacted.centrality) / (impacted.depth + 1) ** 2
        return Hit(
            path=node.path,
            span=node.span,
            score=score,
            symbol=node.display_name,
            kind=node.kind,
            detail={
                "depth": impacted.depth,
                "path": [_node(state, n).display_name for n in impacted.via],
                "centrality": impacted.centrality,
            },
        )

    def _definitions(
        self, state: GraphSnapshot, scores: CentralityScores, query: RetrievalQuery, limit: int
    ) -> list[Hit]:
        """Definitions named by the target, then those sharing its (or the query's) sub-words, central first."""
        exact = queries.find_symbols(state, scores, query.target) if query.target else []
        words = set(subword_tokens(query.target or query.text, drop_stopwords=True))
        if not words:
            words = set(subword_tokens(query.text, drop_stopwords=True))
        ranked: dict[str, float] = {n: EXACT_NAME_SCORE for n in exact if not _node(state, n).is_module}
        if words:
            for name in _names_with_words(state, words):
                name_words = set(split_identifier(name))
                share = len(words & name_words) / len(words | name_words)
                for node_id, _ in state.named_ids(name):
                    ranked.setdefault(node_id, share)
        order = sorted(ranked, key=lambda n: (-ranked[n], -scores.of(n), n))[:limit]
        return [self._definition_hit(_node(state, n), ranked[n], scores.of(n)) for n in order]

    def _snippet_definitions(
        self, state: GraphSnapshot, scores: CentralityScores, snippet: str, limit: int
    ) -> list[Hit]:
        """For a pasted snippet: the definitions of the names it defines, central first; nothing when it defines
        none (what it calls says nothing of what it resembles)."""
        found: dict[str, None] = {}
        for name in defined_names(snippet):
            found.update(dict.fromkeys(node_id for node_id, _ in state.named_ids(name)))
        order = sorted(found, key=lambda n: (-scores.of(n), n))[:limit]
        return [self._definition_hit(_node(state, n), EXACT_NAME_SCORE, scores.of(n)) for n in order]

    def _definition_hit(self, node: SymbolNode, match: float, centrality: float) -> Hit:
        return Hit(
            path=node.path,
            span=node.span,
            score=match + math.log1p(centrality) / 100.0,
            symbol=node.display_name,
            kind=node.kind,
            detail={"match": round(match, 4), "centrality": centrality},
        )

    # ---- what the server asks directly --------------------------------------------------------------------------
    def symbols(self, text: str) -> list[SymbolNode]:
        """The nodes a symbol string names, most central first."""
        state, scores = self.graph.view()
        return [_node(state, n) for n in queries.find_symbols(state, scores, text)]

    def symbols_at(self, path: str, line: int, column: int) -> list[SymbolNode]:
        """The nodes a position names: the target of a use under it, or the definition there."""
        state = self.graph.state
        return [_node(state, n) for n in queries.nodes_at(state, path, line, column)]

    def references(self, symbol: str, *, min_weight: float = queries.REFERENCE_MIN_WEIGHT) -> list[Use]:
        state, scores = self.graph.view()
        return queries.references(state, queries.find_symbols(state, scores, symbol), min_weight=min_weight)

    def references_at(
        self, path: str, line: int, column: int, *, min_weight: float = queries.REFERENCE_MIN_WEIGHT
    ) -> list[Use]:
        """Uses of whatever the position names (for `textDocument/references`)."""
        state = self.graph.state
        return queries.references(state, queries.nodes_at(state, path, line, column), min_weight=min_weight)

    def callers(self, symbol: str) -> list[Use]:
        state, scores = self.graph.view()
        return queries.callers(state, queries.find_symbols(state, scores, symbol))

    def callees(self, symbol: str) -> list[Use]:
        state, scores = self.graph.view()
        return queries.callees(state, queries.find_symbols(state, scores, symbol))

    def impact(
        self,
        symbol: str | None = None,
        *,
        path: str | None = None,
        line: int = 0,
        column: int = 0,
        max_depth: int = DEFAULT_IMPACT_DEPTH,
    ) -> ImpactResult:
        """What depends on a symbol (by name) or on what a position names, up to `max_depth` edges away."""
        state, scores = self.graph.view()
        if symbol is not None:
            targets = queries.find_symbols(state, scores, symbol)
        elif path is not None:
            targets = queries.nodes_at(state, path, line, column)
        else:
            targets = []
        found = queries.impact(state, scores, targets, max_depth=max_depth)
        crowded = [(_node(state, t), n) for t in targets if (n := queries.namesakes(state, t)) > MAX_CANDIDATES]
        return ImpactResult(
            note=_crowded_note(crowded[0]) if crowded else None,
            targets=tuple(_node(state, t) for t in targets),
            impacted=tuple(
                ImpactedSymbol(
                    _node(state, i.node_id), i.depth, tuple(_node(state, n).display_name for n in i.via), i.centrality
                )
                for i in found
            ),
        )

    def node(self, node_id: str) -> SymbolNode | None:
        return self.graph.state.node(node_id)

    def centrality(self, path: str, symbol: str | None = None) -> float:
        """PageRank × node count (the average node has 1) of a definition of the file; 0.0 for unknown. `symbol`
        is a qualified name (`Config.parse`) or a bare name (the most central definition of it in that file);
        None asks for the file's centrality."""
        state, scores = self.graph.view()
        if symbol is None:
            return scores.of_file(path)
        value = scores.of(f"{path}::{symbol}")
        if value:
            return value
        return max((scores.of_slot(slot) for slot in state.file_slots_named(path, symbol)), default=0.0)

    def file_centrality(self, path: str) -> float:
        """The file's PageRank share × file count (the average file has 1); 0.0 for unknown."""
        return self.graph.scores.of_file(path)

    def degree(self, node_id: str) -> tuple[int, int]:
        return self.graph.scores.degree(node_id)

    def stats(self) -> dict[str, int]:
        return self.graph.stats()

    # ---- persistence: a chain part of the segment store (its `name` is the modality's, "graph") ----------------
    def export(self) -> ChainExport:
        return self.graph.export()

    def export_failed(self) -> None:
        self.graph.export_failed()

    def open(self, containers: Sequence[Container], records: Sequence[ContainerRecord] = ()) -> None:
        self.graph.open(containers)

    def file_versions(self) -> dict[str, str]:
        """Path → content hash of every file the graph holds: the files whose analysis differs are fed again."""
        return self.graph.file_versions()


def _node(state: GraphSnapshot, node_id: str) -> SymbolNode:
    """A node a query of this snapshot returned (so it exists)."""
    node = state.node(node_id)
    if node is None:
        raise KeyError(node_id)
    return node


def _names_with_words(state: GraphSnapshot, words: set[str]) -> set[str]:
    names: set[str] = set()
    for word in words:
        holders = state.names_with_word(word)
        if holders and len(holders) <= MAX_NAMES_PER_WORD:
            names |= holders
    return names

"""Questions asked of the graph: which nodes a symbol string or a position names, who calls or uses them, what they
call, and what a change to them impacts (transitive reverse dependencies with depth and path)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from maguyva_lsp.graph.build import GraphState
from maguyva_lsp.graph.centrality import CentralityScores
from maguyva_lsp.graph.model import (
    CLASS_KINDS,
    DEFAULT_IMPACT_DEPTH,
    GUESS_WEIGHT,
    ID_SEPARATOR,
    EdgeKind,
    EdgeSite,
    Use,
    module_id,
)
from maguyva_lsp.model import Span

# Order of uses in a references list: call sites first, then imports, base-class lists, and other mentions.
KIND_ORDER: dict[EdgeKind, int] = {"calls": 0, "imports": 1, "inherits": 2, "references": 3}
# Impact follows edges at least this sure: resolved ones and unique guesses, not the spread of ambiguous names
# (one `close()` of unknown type would otherwise make every `close` method impact half the project).
IMPACT_MIN_WEIGHT = GUESS_WEIGHT
# Uses listed by default: sure ones, unique guesses, and even shares of up to two (sure) or four ways. On the stdlib,
# against jedi: recall 0.97 here, 0.85 at GUESS_WEIGHT (benchmarks/bench_graph.py --quality).
REFERENCE_MIN_WEIGHT = GUESS_WEIGHT / 2
_MODULE_SYSTEM_ORDER = ("py", "js", "go", "jvm", "rs")
_QUALIFIER_RE = re.compile(r"::|[.#/]")


@dataclass(frozen=True, slots=True)
class Impacted:
    """A node a change reaches: how many edges away, and the path from the changed symbol to it."""

    node_id: str
    depth: int
    via: tuple[str, ...]
    centrality: float


def find_symbols(state: GraphState, scores: CentralityScores, text: str) -> list[str]:
    """Node ids a user's symbol string names (`parse`, `Config.parse`, `pkg.mod.parse`, `path::Config.parse`, a
    path), most central first within the best kind of match: exact qualified name, then module-qualified, then a
    qualified-name suffix; a bare name means every definition of that name (functions and methods) and modules."""
    text = text.strip().strip("`'\"").removesuffix("()")
    if not text:
        return []
    if text in state.nodes:
        return [text]
    if ID_SEPARATOR in text:
        path, _, qualified = text.partition(ID_SEPARATOR)
        record = state.records.get(path)
        node = record.symbols.get(qualified) if record else None
        if node is not None:
            return [node.node_id]
    if text in state.records:
        return [module_id(text)]
    parts = [p for p in _QUALIFIER_RE.split(text) if p]
    if not parts:
        return []
    dotted = ".".join(parts)
    named = state.by_name.get(parts[-1], set())
    if len(parts) > 1:
        exact = [n for n in named if state.nodes[n].qualified_name == dotted]
        if exact:
            return _by_centrality(exact, scores)
        in_module = _module_qualified(state, parts)
        if in_module:
            return _by_centrality(in_module, scores)
        suffix = [n for n in named if state.nodes[n].qualified_name.endswith("." + dotted)]
        return _by_centrality(suffix, scores)
    modules = _module_nodes(state, parts)
    return _by_centrality([*named, *modules], scores)


def _module_qualified(state: GraphState, parts: list[str]) -> list[str]:
    """`pkg.mod.Config.parse`: the longest leading part that is a module, the rest a qualified name in it."""
    for k in range(len(parts) - 1, 0, -1):
        qualified = ".".join(parts[k:])
        found = []
        for path in _module_files(state, parts[:k]):
            record = state.records.get(path)
            node = record.symbols.get(qualified) if record else None
            if node is not None:
                found.append(node.node_id)
        if found:
            return found
    return []


def _module_nodes(state: GraphState, parts: list[str]) -> list[str]:
    return [module_id(p) for p in _module_files(state, parts)]


def _module_files(state: GraphState, parts: list[str]) -> list[str]:
    files: set[str] = set()
    for system in _MODULE_SYSTEM_ORDER:
        files |= state.modules.files((system, tuple(parts)))
    return sorted(files)


def _by_centrality(node_ids: list[str], scores: CentralityScores) -> list[str]:
    return sorted(set(node_ids), key=lambda n: (-scores.of(n), n))


def nodes_at(state: GraphState, path: str, line: int, column: int) -> list[str]:
    """What a position in a file names: the target(s) of a use under it, else the definition whose name is under
    it, else the innermost definition around it, else the file's module node."""
    record = state.records.get(path)
    if record is None:
        return []
    best: list[tuple[float, str]] = []
    for node_id in record.node_ids():
        if not state.graph.has_node(node_id):
            continue
        for _, target, data in state.graph.out_edges(node_id, data=True):
            for site in data["sites"]:
                if _contains(site.span, line, column):
                    best.append((site.weight, target))
    if best:
        strongest = max(w for w, _ in best)
        return sorted({t for w, t in best if w == strongest})
    for node in record.symbols.values():
        if _contains(node.name_span, line, column):
            return [node.node_id]
    around = [n for n in record.symbols.values() if _contains(n.span, line, column)]
    if around:
        inner = min(around, key=lambda n: (n.span.end_line - n.span.start_line, n.span.end_col))
        return [inner.node_id]
    return [record.module_node.node_id]


def _contains(span: Span, line: int, column: int) -> bool:
    if line < span.start_line or line > span.end_line:
        return False
    if line == span.start_line and column < span.start_col:
        return False
    return not (line == span.end_line and column > span.end_col)


def _uses(
    state: GraphState, node_ids: list[str], *, incoming: bool, kinds: set[EdgeKind] | None, min_weight: float
) -> list[Use]:
    graph = state.graph
    out: list[Use] = []
    for node_id in node_ids:
        if not graph.has_node(node_id):
            continue
        edges = graph.in_edges(node_id, data=True) if incoming else graph.out_edges(node_id, data=True)
        for source, target, data in edges:
            path = state.nodes[source].path
            for site in data["sites"]:
                if (kinds is None or site.kind in kinds) and site.weight >= min_weight:
                    out.append(Use(source, target, path, site))
    out.sort(key=_use_order)
    return out


def _use_order(use: Use) -> tuple[int, float, str, int, int, str]:
    site: EdgeSite = use.site
    return (KIND_ORDER[site.kind], -site.weight, use.path, site.span.start_line, site.span.start_col, use.target)


def references(state: GraphState, node_ids: list[str], *, min_weight: float = REFERENCE_MIN_WEIGHT) -> list[Use]:
    """Every use of the nodes: call sites first, then imports, base-class lists and other mentions; surer first."""
    return _uses(state, node_ids, incoming=True, kinds=None, min_weight=min_weight)


def callers(state: GraphState, node_ids: list[str], *, min_weight: float = REFERENCE_MIN_WEIGHT) -> list[Use]:
    """The call sites of the nodes, each with the calling node."""
    return _uses(state, node_ids, incoming=True, kinds={"calls"}, min_weight=min_weight)


def callees(state: GraphState, node_ids: list[str], *, min_weight: float = REFERENCE_MIN_WEIGHT) -> list[Use]:
    """The calls made by the nodes, each with the called node."""
    return _uses(state, node_ids, incoming=False, kinds={"calls"}, min_weight=min_weight)


def impact(
    state: GraphState,
    scores: CentralityScores,
    node_ids: list[str],
    *,
    max_depth: int = DEFAULT_IMPACT_DEPTH,
    min_weight: float = IMPACT_MIN_WEIGHT,
) -> list[Impacted]:
    """Everything that depends on the nodes, transitively up to `max_depth` edges (a class counts with its members),
    breadth-first so each node gets its shortest path; ranked by depth, then centrality."""
    graph = state.graph
    seeds = _with_members(state, [n for n in node_ids if graph.has_node(n)])
    via: dict[str, tuple[str, ...]] = {s: (s,) for s in seeds}
    depth: dict[str, int] = dict.fromkeys(seeds, 0)
    frontier = sorted(seeds)
    for level in range(1, max_depth + 1):
        # Each newly reached node keeps the parent joined by its strongest use (a call beats an import or a mention).
        best: dict[str, tuple[tuple[int, float, str], str]] = {}
        for node_id in frontier:
            for source, _, data in graph.in_edges(node_id, data=True):
                strongest = max(data["sites"], key=lambda s: (s.weight, -KIND_ORDER[s.kind]))
                if source in depth or strongest.weight < min_weight:
                    continue
                rank = (KIND_ORDER[strongest.kind], -strongest.weight, node_id)
                if source not in best or rank < best[source][0]:
                    best[source] = (rank, node_id)
        for source, (_, parent) in best.items():
            depth[source] = level
            via[source] = (*via[parent], source)
        frontier = sorted(best)
        if not frontier:
            break
    impacted = [Impacted(n, d, via[n], scores.of(n)) for n, d in depth.items() if d > 0]
    impacted.sort(key=lambda i: (i.depth, -i.centrality, i.node_id))
    return impacted


def _with_members(state: GraphState, node_ids: list[str]) -> list[str]:
    """The nodes plus, for class-like ones, the definitions inside them (changing a class changes its methods)."""
    out = dict.fromkeys(node_ids)
    for node_id in node_ids:
        node = state.nodes[node_id]
        if node.kind not in CLASS_KINDS:
            continue
        record = state.records.get(node.path)
        prefix = node.qualified_name + "."
        for q, member in record.symbols.items() if record else ():
            if q.startswith(prefix):
                out.setdefault(member.node_id)
    return list(out)


def namesakes(state: GraphState, node_id: str) -> int:
    """How many definitions a use by this node's name alone could mean: those of the same name, of the same sort
    (member or importable) and language family. Past MAX_CANDIDATES resolution gives such uses no edge at all, so
    `obj.reset()` never reaches one `reset` of thirty: what depends on it is then unknown, not absent."""
    node = state.nodes.get(node_id)
    if node is None or node.is_module or not (node.member or node.toplevel):
        return 0
    record = state.records.get(node.path)
    family = (record.system or record.language) if record else None
    count = 0
    for other_id in state.by_name.get(node.name, ()):
        other = state.nodes[other_id]
        other_record = state.records.get(other.path)
        same_family = other_record is not None and (other_record.system or other_record.language) == family
        if same_family and (other.member if node.member else other.toplevel):
            count += 1
    return count

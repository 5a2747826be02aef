"""Questions asked of the graph: which nodes a symbol string or a position names, who calls or uses them, what they
call, and what a change to them impacts (transitive reverse dependencies with depth and path)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.graph.centrality import CentralityScores
from maguyva_lsp.graph.model import (
    CLASS_KINDS,
    DEFAULT_IMPACT_DEPTH,
    EDGE_KINDS,
    GUESS_WEIGHT,
    EdgeKind,
    EdgeSite,
    Use,
    module_id,
    symbol_id,
)
from maguyva_lsp.graph.segment import NODE_MEMBER, NODE_MODULE, NODE_TOPLEVEL
from maguyva_lsp.graph.snapshot import NO_SLOT, GraphSnapshot, Rows

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


def find_symbols(state: GraphSnapshot, scores: CentralityScores, text: str) -> list[str]:
    """Node ids a user's symbol string names (`parse`, `Config.parse`, `pkg.mod.parse`, `path::Config.parse`, a
    path), most central first within the best kind of match: exact qualified name, then module-qualified, then a
    qualified-name suffix; a bare name means every definition of that name (functions and methods) and modules."""
    text = text.strip().strip("`'\"").removesuffix("()")
    if not text:
        return []
    if state.has_node(text):  # a node id, `path::Config.parse`, or a file's path (its module node)
        return [text]
    parts = [p for p in _QUALIFIER_RE.split(text) if p]
    if not parts:
        return []
    dotted = ".".join(parts)
    named = state.named_slots(parts[-1])
    if len(parts) > 1:
        qualified = [(slot, state.qualified_at(slot)) for slot in named]
        exact = [state.node_id_at(slot) for slot, q in qualified if q == dotted]
        if exact:
            return _by_centrality(exact, scores)
        in_module = _module_qualified(state, parts)
        if in_module:
            return _by_centrality(in_module, scores)
        suffix = [state.node_id_at(slot) for slot, q in qualified if q.endswith("." + dotted)]
        return _by_centrality(suffix, scores)
    modules = _module_nodes(state, parts)
    return _by_centrality([*(state.node_id_at(slot) for slot in named), *modules], scores)


def _module_qualified(state: GraphSnapshot, parts: list[str]) -> list[str]:
    """`pkg.mod.Config.parse`: the longest leading part that is a module, the rest a qualified name in it."""
    for k in range(len(parts) - 1, 0, -1):
        qualified = ".".join(parts[k:])
        found = [
            node_id for path in _module_files(state, parts[:k]) if state.has_node(node_id := symbol_id(path, qualified))
        ]
        if found:
            return found
    return []


def _module_nodes(state: GraphSnapshot, parts: list[str]) -> list[str]:
    return [module_id(p) for p in _module_files(state, parts)]


def _module_files(state: GraphSnapshot, parts: list[str]) -> list[str]:
    files: set[str] = set()
    for system in _MODULE_SYSTEM_ORDER:
        files |= state.module_files((system, tuple(parts)))
    return sorted(files)


def _by_centrality(node_ids: list[str], scores: CentralityScores) -> list[str]:
    return sorted(set(node_ids), key=lambda n: (-scores.of(n), n))


def _containing(spans: npt.NDArray[np.integer[Any]], line: int, column: int) -> npt.NDArray[np.bool_]:
    """Which spans (rows of start line, start column, end line, end column) hold the position, ends included."""
    spans = spans.astype(np.int64)  # stored as narrow as they fit (uint16): compared with any line
    start_line, start_col, end_line, end_col = spans[:, 0], spans[:, 1], spans[:, 2], spans[:, 3]
    inside = (start_line <= line) & (line <= end_line)
    inside &= ~((line == start_line) & (column < start_col))
    inside &= ~((line == end_line) & (column > end_col))
    return inside


def nodes_at(state: GraphSnapshot, path: str, line: int, column: int) -> list[str]:
    """What a position in a file names: the target(s) of a use under it, else the definition whose name is under
    it, else the innermost definition around it, else the file's module node."""
    slots = state.file_node_slots(path)
    if not slots:
        return []
    best: list[tuple[float, str]] = []
    for k, rows in state.file_site_rows(path):
        a = state.segments[k].arrays
        hit = rows[_containing(a["sites.span"][rows], line, column)]
        targets = [state.strings.text(t) for t in a["sites.target"][hit].tolist()]
        best.extend(zip(state.segments[k].weights(hit).tolist(), targets, strict=True))
    if best:
        strongest = max(w for w, _ in best)
        return sorted({t for w, t in best if w == strongest})
    k, first = state.node_location(slots[0])
    a = state.segments[k].arrays
    symbols = np.arange(first + 1, first + len(slots), dtype=np.int64)
    named = symbols[_containing(a["nodes.name_span"][symbols], line, column)]
    if len(named):
        return [state.node_id_at(state.node_bases[k] + int(named[0]))]
    around = symbols[_containing(a["nodes.span"][symbols], line, column)]
    if len(around):
        spans = a["nodes.span"][around]
        inner = min(range(len(around)), key=lambda i: (int(spans[i, 2] - spans[i, 0]), int(spans[i, 3])))
        return [state.node_id_at(state.node_bases[k] + int(around[inner]))]
    return [state.node_id_at(slots[0])]


def _uses(
    state: GraphSnapshot, node_ids: list[str], *, incoming: bool, kinds: set[EdgeKind] | None, min_weight: float
) -> list[Use]:
    slots = [slot for n in node_ids if (slot := state.node_slot_of(n)) != NO_SLOT]
    rows = state.in_site_rows(slots) if incoming else state.out_site_rows(slots)
    out = [
        Use(source, target, path, site)
        for source, target, path, site in _sites(state, rows)
        if (kinds is None or site.kind in kinds) and site.weight >= min_weight
    ]
    out.sort(key=_use_order)
    return out


def _sites(state: GraphSnapshot, rows: Rows) -> list[tuple[str, str, str, EdgeSite]]:
    """(source, target, the source's path, site) of site rows."""
    out = []
    for k, segment_rows in rows:
        segment = state.segments[k]
        files = segment.arrays["sites.file"][segment_rows].tolist()
        for row, file_row in zip(segment_rows.tolist(), files, strict=True):
            source, target, site = segment.site(state.strings, row)
            out.append((source, target, segment.path(state.strings, file_row), site))
    return out


def _use_order(use: Use) -> tuple[int, float, str, int, int, str]:
    site: EdgeSite = use.site
    return (KIND_ORDER[site.kind], -site.weight, use.path, site.span.start_line, site.span.start_col, use.target)


def references(state: GraphSnapshot, node_ids: list[str], *, min_weight: float = REFERENCE_MIN_WEIGHT) -> list[Use]:
    """Every use of the nodes: call sites first, then imports, base-class lists and other mentions; surer first."""
    return _uses(state, node_ids, incoming=True, kinds=None, min_weight=min_weight)


def callers(state: GraphSnapshot, node_ids: list[str], *, min_weight: float = REFERENCE_MIN_WEIGHT) -> list[Use]:
    """The call sites of the nodes, each with the calling node."""
    return _uses(state, node_ids, incoming=True, kinds={"calls"}, min_weight=min_weight)


def callees(state: GraphSnapshot, node_ids: list[str], *, min_weight: float = REFERENCE_MIN_WEIGHT) -> list[Use]:
    """The calls made by the nodes, each with the called node."""
    return _uses(state, node_ids, incoming=False, kinds={"calls"}, min_weight=min_weight)


def impact(
    state: GraphSnapshot,
    scores: CentralityScores,
    node_ids: list[str],
    *,
    max_depth: int = DEFAULT_IMPACT_DEPTH,
    min_weight: float = IMPACT_MIN_WEIGHT,
) -> list[Impacted]:
    """Everything that depends on the nodes, transitively up to `max_depth` edges (a class counts with its members),
    breadth-first so each node gets its shortest path; ranked by depth, then centrality."""
    seeds = _with_members(state, [n for n in node_ids if state.has_node(n)])
    via: dict[str, tuple[str, ...]] = {s: (s,) for s in seeds}
    depth: dict[str, int] = dict.fromkeys(seeds, 0)
    frontier = sorted(seeds)
    strings = state.strings
    for level in range(1, max_depth + 1):
        # Each newly reached node keeps the parent joined by its strongest use (a call beats an import or a mention).
        strongest: dict[tuple[int, int], tuple[float, int]] = {}  # (source, target) → (weight, kind) of the best use
        for k, rows in state.in_site_rows([state.node_slot_of(n) for n in frontier]):
            segment = state.segments[k]
            a = segment.arrays
            columns = (a["sites.source"][rows], a["sites.target"][rows], segment.weights(rows), a["sites.kind"][rows])
            for source, target, weight, kind in zip(*(c.tolist() for c in columns), strict=True):
                previous = strongest.get((source, target))
                if previous is None or (weight, -kind) > (previous[0], -previous[1]):
                    strongest[(source, target)] = (weight, kind)
        best: dict[str, tuple[tuple[int, float, str], str]] = {}
        for (source_sid, target_sid), (weight, kind) in strongest.items():
            source = strings.text(source_sid)
            if source in depth or weight < min_weight:
                continue
            parent = strings.text(target_sid)
            rank = (KIND_ORDER[EDGE_KINDS[kind]], -weight, parent)
            if source not in best or rank < best[source][0]:
                best[source] = (rank, parent)
        for source, (_, parent) in best.items():
            depth[source] = level
            via[source] = (*via[parent], source)
        frontier = sorted(best)
        if not frontier:
            break
    impacted = [Impacted(n, d, via[n], scores.of(n)) for n, d in depth.items() if d > 0]
    impacted.sort(key=lambda i: (i.depth, -i.centrality, i.node_id))
    return impacted


def _with_members(state: GraphSnapshot, node_ids: list[str]) -> list[str]:
    """The nodes plus, for class-like ones, the definitions inside them (changing a class changes its methods)."""
    out = dict.fromkeys(node_ids)
    for node_id in node_ids:
        node = state.node(node_id)
        if node is None or node.kind not in CLASS_KINDS:
            continue
        prefix = node.qualified_name + "."
        for slot in state.file_node_slots(node.path)[1:]:
            if state.qualified_at(slot).startswith(prefix):
                out.setdefault(state.node_id_at(slot))
    return list(out)


def namesakes(state: GraphSnapshot, node_id: str) -> int:
    """How many definitions a use by this node's name alone could mean: those of the same name, of the same sort
    (member or importable) and language family. Past MAX_CANDIDATES resolution gives such uses no edge at all, so
    `obj.reset()` never reaches one `reset` of thirty: what depends on it is then unknown, not absent."""
    node = state.node(node_id)
    if node is None or node.is_module or not (node.member or node.toplevel):
        return 0
    family = state.family_of(node.path)
    sort = NODE_MEMBER if node.member else NODE_TOPLEVEL
    count = 0
    for slot in state.named_slots(node.name):
        flags = state.flags_at(slot)
        if not flags & NODE_MODULE and flags & sort and state.family_at(slot) == family:
            count += 1
    return count

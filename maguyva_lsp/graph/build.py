"""The code graph: symbol and module nodes with call/import/inherit/reference edges in a networkx DiGraph, kept up to
date file by file, with PageRank recomputed after each batch into a new snapshot while searches read the old one.

Incremental rule: a batch replaces exactly the nodes and outgoing edges of its files, then re-resolves every other
file whose resolution consulted a key the batch changed (a name defined or removed, a module appearing, a class's
bases, another file's import bindings), so the result equals a fresh build of the same files.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Iterable

import networkx as nx

from maguyva_lsp.graph.centrality import CentralityScores, EdgeMatrix
from maguyva_lsp.graph.model import EdgeSite, SymbolNode
from maguyva_lsp.graph.modules import PACKAGE_SYSTEMS, ModuleIndex, system_of
from maguyva_lsp.graph.records import DepKey, FileRecord, build_record, changed_keys
from maguyva_lsp.graph.resolve import MAX_CANDIDATES, resolve_file
from maguyva_lsp.heap import collector_paused
from maguyva_lsp.model import ChangeBatch, FileAnalysis
from maguyva_lsp.tokens import split_identifier

log = logging.getLogger(__name__)

# A batch touching more than this share of the known files is built as a fresh state beside the current one (which
# keeps answering meanwhile) instead of being applied in place under the lock.
REBUILD_FRACTION = 0.5


class GraphState:
    """Nodes, edges and the tables resolution reads. Mutated only by the single writer."""

    def __init__(self) -> None:
        self.graph: nx.DiGraph = nx.DiGraph()
        self.records: dict[str, FileRecord] = {}
        self.nodes: dict[str, SymbolNode] = {}
        self.by_name: dict[str, set[str]] = defaultdict(set)
        self.words: dict[str, set[str]] = defaultdict(set)  # lower-case sub-word → the definition names holding it
        self.modules = ModuleIndex()
        # Answers shared across the files of one resolution pass (module files, re-exports, bases); cleared when
        # the tables change.
        self.memo: dict[tuple[object, ...], tuple[list[str], frozenset[DepKey]]] = {}
        self.matrix = EdgeMatrix()
        self.site_counts: dict[str, int] = {}  # uses behind each file's outgoing edges
        self._dependents: dict[DepKey, set[str]] = defaultdict(set)
        self._deps_of: dict[str, frozenset[DepKey]] = {}

    def apply(self, updated: Iterable[FileRecord], removed: Iterable[str]) -> int:
        """Replace the given files' records (and drop the removed paths); returns how many files were resolved."""
        new_records = {r.path: r for r in updated}
        gone = {p for p in removed if p not in new_records}
        paths = sorted(gone | set(new_records))
        keys: set[DepKey] = set()
        families: set[str | None] = set()
        for path in paths:
            old, new = self.records.get(path), new_records.get(path)
            keys |= changed_keys(old, new)
            families.update((r.system or r.language) for r in (old, new) if r is not None)
        before = self._crowding(keys)
        for path in paths:
            keys |= self._replace(self.records.get(path), new_records.get(path))
        after = self._crowding(keys)
        keys -= {k for k in before if _still_crowded(before[k], after[k], families)}
        self.memo.clear()
        affected = set(new_records)
        for key in keys:
            affected |= self._dependents.get(key, set())
        affected &= set(self.records)
        for path in sorted(affected):
            self._resolve(self.records[path])
        self.memo.clear()
        return len(affected)

    def _crowding(self, keys: set[DepKey]) -> dict[DepKey, dict[str | None, int]]:
        """For project-wide name lookups (top-level or member definitions of a name), the candidates per language
        family: past MAX_CANDIDATES they give no edges, so a change among them changes no answer."""
        out: dict[DepKey, dict[str | None, int]] = {}
        for key in keys:
            if key[0] not in ("g", "mb"):
                continue
            counts: dict[str | None, int] = defaultdict(int)
            for node_id in self.by_name.get(str(key[1]), ()):
                node = self.nodes[node_id]
                if (node.member if key[0] == "mb" else node.toplevel) and (record := self.records.get(node.path)):
                    counts[record.system or record.language] += 1
            out[key] = counts
        return out

    def _replace(self, old: FileRecord | None, new: FileRecord | None) -> set[DepKey]:
        """Swap one file's nodes and module entries; returns the module/package keys that changed."""
        keys: set[DepKey] = set()
        path = new.path if new is not None else old.path if old is not None else ""
        new_ids = {n.node_id: n for n in ([new.module_node, *new.symbols.values()] if new else [])}
        if old is not None:
            for node_id in old.node_ids():
                if node_id not in new_ids:
                    self._drop_node(node_id)
            self._forget_edges(old)
            if new is None or new.language != old.language:
                keys |= self._module_keys(self.modules.remove(path), old)
        if new is None:
            self.records.pop(path, None)
            self.site_counts.pop(path, None)
            self.matrix.remove_file(path)
            self._set_deps(path, frozenset())
            return keys
        for node in new_ids.values():
            self._put_node(node)
        if old is None or new.language != old.language:
            keys |= self._module_keys(self.modules.add(path, new.language), new)
        self.records[path] = new
        return keys

    def _module_keys(self, module_keys: set[tuple[str, tuple[str, ...]]], record: FileRecord) -> set[DepKey]:
        keys: set[DepKey] = {("m", k) for k in module_keys}
        if record.system in PACKAGE_SYSTEMS:
            keys.add(("d", record.system, record.path.rpartition("/")[0]))
        return keys

    def _put_node(self, node: SymbolNode) -> None:
        previous = self.nodes.get(node.node_id)
        if previous is not None and previous.name != node.name:
            self._unname(previous)
        self.nodes[node.node_id] = node
        self.graph.add_node(node.node_id, node=node)
        if not node.is_module:
            holders = self.by_name[node.name]
            if not holders:
                for word in set(split_identifier(node.name)):
                    self.words[word].add(node.name)
            holders.add(node.node_id)
        self.matrix.add_node(node.node_id, node.path)

    def _unname(self, node: SymbolNode) -> None:
        holders = self.by_name.get(node.name)
        if holders is None:
            return
        holders.discard(node.node_id)
        if holders:
            return
        del self.by_name[node.name]
        for word in set(split_identifier(node.name)):
            names = self.words.get(word)
            if names is not None:
                names.discard(node.name)
                if not names:
                    del self.words[word]

    def _drop_node(self, node_id: str) -> None:
        node = self.nodes.pop(node_id, None)
        if node is None:
            return
        if not node.is_module:
            self._unname(node)
        if self.graph.has_node(node_id):
            self.graph.remove_node(node_id)
        self.matrix.remove_node(node_id)

    def _forget_edges(self, record: FileRecord) -> None:
        graph = self.graph
        for node_id in record.node_ids():
            if graph.has_node(node_id):
                graph.remove_edges_from(list(graph.out_edges(node_id)))

    def _resolve(self, record: FileRecord) -> None:
        """(Re)compute one file's outgoing edges and remember what its answers depended on."""
        self._forget_edges(record)
        resolved = resolve_file(self, record)
        grouped: dict[tuple[str, str], list[EdgeSite]] = defaultdict(list)
        for source, target, site in resolved.edges:
            if target in self.nodes:
                grouped[(source, target)].append(site)
        weighted: list[tuple[str, str, float]] = []
        for (source, target), sites in grouped.items():
            weight = sum(s.weight for s in sites)
            self.graph.add_edge(source, target, sites=tuple(sites), weight=weight)
            weighted.append((source, target, weight))
        self.matrix.set_edges(record.path, weighted)
        self.site_counts[record.path] = sum(len(sites) for sites in grouped.values())
        self._set_deps(record.path, frozenset(resolved.deps))

    def _set_deps(self, path: str, deps: frozenset[DepKey]) -> None:
        old = self._deps_of.get(path, frozenset())
        for key in old - deps:
            holders = self._dependents.get(key)
            if holders is not None:
                holders.discard(path)
                if not holders:
                    del self._dependents[key]
        for key in deps - old:
            self._dependents[key].add(path)
        if deps:
            self._deps_of[path] = deps
        else:
            self._deps_of.pop(path, None)


def _belongs(analysis: FileAnalysis) -> bool:
    """Files the graph holds: code with a module system (even an empty `__init__.py` makes a package), or with
    definitions or references. Prose, data and configuration files would only add isolated nodes."""
    return system_of(analysis.file.language) is not None or bool(analysis.definitions or analysis.references)


def _still_crowded(before: dict[str | None, int], after: dict[str | None, int], families: set[str | None]) -> bool:
    """Whether a name had too many candidates to resolve, before and after, in every family the batch touched (one
    more than the cap: a file's own definition does not count for its global lookups)."""
    return all(min(before.get(f, 0), after.get(f, 0)) > MAX_CANDIDATES + 1 for f in families)


class CodeGraph:
    """The graph a retriever queries: one writer applies batches, any number of readers query meanwhile.

    Readers take `lock` for the length of one query; the writer holds it while it mutates the state in place, or
    builds a large batch into a fresh state without it and swaps the state in. Centrality is computed after each
    batch outside the lock and swapped in as one reference (the previous snapshot serves until then).
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.state = GraphState()
        self.scores = CentralityScores()
        self._writer = threading.Lock()

    def apply(self, batch: ChangeBatch) -> None:
        """Index the batch's files (replacing their old state) and forget its removed paths."""
        with self._writer, collector_paused():  # resolution makes no cycles: see heap.py
            records = [build_record(a) for a in batch.updated if _belongs(a)]
            # A file that no longer belongs (its code is gone) leaves like a removed one.
            removed = {*batch.removed, *(a.path for a in batch.updated if not _belongs(a))}
            state = self.state
            touched = len(records) + len(removed)
            if not state.records or touched > REBUILD_FRACTION * len(state.records):
                fresh = GraphState()
                keep = [r for p, r in state.records.items() if p not in removed]
                fresh.apply([*keep, *records], ())
                with self.lock:
                    self.state = fresh
                state = fresh
            else:
                with self.lock:
                    resolved = state.apply(records, removed)
                log.debug("graph batch: %d files re-resolved", resolved)
            with self.lock:
                prepared = state.matrix.prepare()
            self.scores = prepared.compute()

    def stats(self) -> dict[str, int]:
        with self.lock:
            graph = self.state.graph
            return {
                "files": len(self.state.records),
                "nodes": graph.number_of_nodes(),
                "edges": graph.number_of_edges(),
                "sites": sum(self.state.site_counts.values()),
            }

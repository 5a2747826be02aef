"""The code graph, kept up to date file by file: each batch makes a new columnar snapshot (a base segment plus a
small delta segment of the files it re-wrote), with PageRank recomputed for it; searches read the previous snapshot
until the new one is swapped in.

Incremental rule: a batch replaces exactly the nodes and uses of its files, then re-resolves every other file whose
resolution consulted a key the batch changed (a name defined or removed, a module appearing, a class's bases,
another file's import bindings), so the result equals a fresh build of the same files. Resolution reads the snapshot
through `ResolutionIndex`, which makes records and nodes from the columns only as the resolver asks for them.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from maguyva_lsp.graph.batch import resolve_rows
from maguyva_lsp.graph.centrality import CentralityScores, compute_centrality, live_uses
from maguyva_lsp.graph.inputs import GraphInput, GraphSourceError, ReferenceSource
from maguyva_lsp.graph.model import EdgeSite, SymbolNode
from maguyva_lsp.graph.modules import PACKAGE_SYSTEMS, ModuleKey, is_init_file, module_keys
from maguyva_lsp.graph.parallel import USE_COLUMNS, Runner, ShareJob, SharePart, StoredFiles, join, shares
from maguyva_lsp.graph.persist import export_base, export_delta, open_chain
from maguyva_lsp.graph.records import DepKey, FileRecord, build_record, changed_keys, make_record
from maguyva_lsp.graph.resolve import MAX_CANDIDATES, resolve_file
from maguyva_lsp.graph.segment import FileEntry, GraphSegment, SegmentBuilder
from maguyva_lsp.graph.snapshot import GraphSnapshot
from maguyva_lsp.graph.strings import StringTable
from maguyva_lsp.heap import collector_paused, paused_collector
from maguyva_lsp.index.segment_parts import ChainExport
from maguyva_lsp.model import ChangeBatch, PathClass
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.store.container import Container

log = logging.getLogger(__name__)

# A batch touching more than this share of the known files is built as a fresh snapshot from all records.
REBUILD_FRACTION = 0.5
# The delta segment is merged into the base once its rows exceed this share of the base's: each row is then copied
# a bounded number of times, and lookups consult at most two segments.
MERGE_FRACTION = 0.25


def empty_snapshot(strings: StringTable | None = None) -> GraphSnapshot:
    return GraphSnapshot.make(strings or StringTable.empty(), [], [])


_V = TypeVar("_V")


class _Loaded(dict[str, _V]):
    """A dict that loads a missing key on first use (C-speed hits for the resolver's many lookups); the loader's
    None means absent, remembered too."""

    def __init__(self, loader: Callable[[str], _V | None], preset: dict[str, _V], absent: Iterable[str] = ()) -> None:
        super().__init__(preset)
        self._loader = loader
        self._absent = set(absent)

    def load(self, key: str) -> _V | None:
        if key in self._absent:
            return None
        value = self._loader(key)
        if value is None:
            self._absent.add(key)
        else:
            dict.__setitem__(self, key, value)
        return value

    def __missing__(self, key: str) -> _V:
        value = self.load(key)
        if value is None:
            raise KeyError(key)
        return value

    def get(self, key: str, default: _V | None = None, /) -> _V | None:  # type: ignore[override]
        value = dict.get(self, key)
        if value is None:
            value = self.load(key)
        return default if value is None else value

    def __contains__(self, key: object, /) -> bool:
        return dict.__contains__(self, key) or (isinstance(key, str) and self.load(key) is not None)


class ResolutionIndex:
    """What resolution reads during one batch: the snapshot's files, overridden by `overlay` (a path mapped to None
    is gone), each record, node and name list made from the columns once and kept for the pass."""

    def __init__(
        self,
        snapshot: GraphSnapshot,
        overlay: dict[str, FileRecord | None],
        keys: dict[str, tuple[ModuleKey, ...]] | None = None,
        source: ReferenceSource | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.source = source
        self.overlay = overlay
        self.memo: dict[tuple[object, ...], tuple[list[str], frozenset[DepKey]]] = {}
        self.module_keys: dict[str, tuple[ModuleKey, ...]] = dict(keys or {})  # files whose keys are not stored
        self._file_facts: dict[str, tuple[bool, str | None, str | None]] = {}
        self._module_files: dict[ModuleKey, frozenset[str]] = {}
        self._rekeyed = set(self.module_keys)  # files whose stored module keys do not hold in this pass
        own_nodes: dict[str, SymbolNode] = {}
        self._own_named: dict[str, set[str]] = defaultdict(set)
        self._own_keyed: dict[ModuleKey, set[str]] = defaultdict(set)
        self._own_packages: dict[tuple[str, str], set[str]] = defaultdict(set)
        for record in overlay.values():
            if record is None:
                continue
            for node in (record.module_node, *record.symbols.values()):
                own_nodes[node.node_id] = node
                if not node.is_module:
                    self._own_named[node.name].add(node.node_id)
            if record.system in PACKAGE_SYSTEMS:
                self._own_packages[(record.system, record.path.rpartition("/")[0])].add(record.path)
        for path, path_keys in self.module_keys.items():
            for key in path_keys:
                self._own_keyed[key].add(path)
        present = {p: r for p, r in overlay.items() if r is not None}
        gone = [p for p, r in overlay.items() if r is None]
        # The loaders hold the snapshot and the overlay, not this index: no reference cycle, so a pass's caches are
        # freed as soon as it ends (the collector is paused meanwhile).
        self.nodes: _Loaded[SymbolNode] = _Loaded(partial(_stored_node, snapshot, overlay), own_nodes)
        self.records: _Loaded[FileRecord] = _Loaded(
            partial(_stored_record, snapshot, overlay, self.nodes), present, gone
        )
        self.by_name: _Loaded[frozenset[str]] = _Loaded(
            partial(_stored_named, snapshot, overlay, self.nodes, self._own_named), {}
        )
        self._hidden_paths: npt.NDArray[np.int32] | None = None

    @property
    def modules(self) -> ResolutionIndex:
        """The module table is this index (`files`, `keys_of`, `package_files`); no stored back-reference, so no
        reference cycle keeps a pass's caches alive for the collector."""
        return self

    def files(self, key: ModuleKey) -> frozenset[str]:
        return self.files_of(key)

    def hidden(self, path: str) -> bool:
        """Whether the snapshot's copy of a file is overridden in this pass."""
        return path in self.overlay

    def full_record(self, path: str) -> FileRecord | None:
        """A file's record with every use, to resolve it."""
        record = self.records.get(path)
        if record is not None and not record.complete:
            record = complete_record(self.snapshot, path, self.source, record)
            self.records[path] = record
        return record

    def named(self, name: str) -> frozenset[str]:
        """Ids of the definitions (not file nodes) with this name."""
        return self.by_name.get(name) or frozenset()

    def family_counts(self, name: str, *, members: bool) -> dict[str | None, int]:
        """The class members (or top-level definitions) with this name, counted per language family of their files."""
        counts = self.snapshot.family_counts(name, members=members, hidden=self._hidden())
        for node_id in self._own_named.get(name, ()):
            node = self.nodes[node_id]
            known, family = self.family(node.path)
            if known and (node.member if members else node.toplevel):
                counts[family] = counts.get(family, 0) + 1
        return counts

    def _hidden(self) -> npt.NDArray[np.int32]:
        """String ids of the overlay's paths (their stored copies are hidden in this pass)."""
        if self._hidden_paths is None:
            strings = self.snapshot.strings
            self._hidden_paths = np.array([strings.find(p) for p in self.overlay], dtype=np.int32)
        return self._hidden_paths

    def named_in(self, name: str, family: str | None, *, members: bool) -> list[str]:
        """Ids of the members of classes (or the top-level definitions) with this name in files of this language
        family, sorted: what `by_name` filtered by node and file would give, read from the columns at once."""
        own = self.nodes
        found = [
            n
            for n in self._own_named.get(name, ())
            if (own[n].member if members else own[n].toplevel) and self.family(own[n].path) == (True, family)
        ]
        found.extend(self.snapshot.named_in(name, family, members=members, hidden=self._hidden()))
        return sorted(found)

    def _facts(self, path: str) -> tuple[bool, str | None, str | None]:
        """(whether the file is known, its module system, its language)."""
        facts = self._file_facts.get(path)
        if facts is None:
            if path in self.overlay:
                record = self.overlay[path]
                facts = (False, None, None) if record is None else (True, record.system, record.language)
            else:
                facts = self.snapshot.file_facts(path)
            self._file_facts[path] = facts
        return facts

    def family(self, path: str) -> tuple[bool, str | None]:
        known, system, language = self._facts(path)
        return (known, system or language)

    def system(self, path: str) -> str | None:
        return self._facts(path)[1]

    def keys_of(self, path: str) -> tuple[ModuleKey, ...]:
        keys = self.module_keys.get(path)
        if keys is None:
            keys = self.module_keys[path] = () if path in self.overlay else self.snapshot.module_keys(path)
        return keys

    def files_of(self, key: ModuleKey) -> frozenset[str]:
        found = self._module_files.get(key)
        if found is None:
            stored = {p for p in self.snapshot.module_files(key) if not self.hidden(p) and p not in self._rekeyed}
            found = self._module_files[key] = frozenset(stored | self._own_keyed.get(key, set()))
        return found

    def package_files(self, path: str) -> frozenset[str]:
        system = self.system(path)
        if system not in PACKAGE_SYSTEMS:
            return frozenset()
        folder = path.rpartition("/")[0]
        stored = {p for p in self.snapshot.package_files(system, folder) if not self.hidden(p)}
        return frozenset(stored | self._own_packages.get((system, folder), set()))

    def is_package(self, folder: str) -> bool:
        """Whether a folder holds a live `__init__.py` (the workspace root never counts, as Python's own)."""
        if not folder:
            return False
        init = f"{folder}/__init__.py"
        return is_init_file(init, self.system(init))


def complete_record(
    snapshot: GraphSnapshot, path: str, source: ReferenceSource | None, light: FileRecord | None = None
) -> FileRecord:
    """A stored file's record with every reference: its own, or (stored with imports and bases only) the source's
    references of the very version the graph holds. `light`: the record already made without them (its nodes are
    reused)."""
    record = light if light is not None else snapshot.record(path, complete=False)
    if record is None:
        raise KeyError(path)
    references = snapshot.stored_references(path)
    if references is None and source is not None:
        references = source(path, record.content_hash)
    if references is None:
        raise GraphSourceError(f"no references of {path} (content {record.content_hash}) to resolve it again")
    return make_record(record.module_node, record.symbols, references, content_hash=record.content_hash)


def _stored_record(
    snapshot: GraphSnapshot, overlay: dict[str, FileRecord | None], nodes: dict[str, SymbolNode], path: str
) -> FileRecord | None:
    """A stored file's record as other files' resolution reads it (without its own uses); its nodes join the pass's
    node cache (lookups of members and targets in a file read just now are common)."""
    if path in overlay:
        return None
    record = snapshot.record(path, complete=False)
    if record is not None:
        for node in (record.module_node, *record.symbols.values()):
            nodes.setdefault(node.node_id, node)
    return record


def _stored_node(snapshot: GraphSnapshot, overlay: dict[str, FileRecord | None], node_id: str) -> SymbolNode | None:
    node = snapshot.node(node_id)
    return None if node is None or node.path in overlay else node


def _stored_named(
    snapshot: GraphSnapshot,
    overlay: dict[str, FileRecord | None],
    nodes: dict[str, SymbolNode],
    own: dict[str, set[str]],
    name: str,
) -> frozenset[str] | None:
    stored: set[str] = set()
    for node in snapshot.named_nodes(name):
        if node.path not in overlay:
            stored.add(node.node_id)
            nodes.setdefault(node.node_id, node)
    return frozenset(stored | own.get(name, set())) or None


def _still_crowded(before: dict[str | None, int], after: dict[str | None, int], families: set[str | None]) -> bool:
    """Whether a name had too many candidates to resolve, before and after, in every family the batch touched (one
    more than the cap: a file's own definition does not count for its global lookups)."""
    return all(min(before.get(f, 0), after.get(f, 0)) > MAX_CANDIDATES + 1 for f in families)


def _crowding(index: ResolutionIndex, keys: set[DepKey]) -> dict[DepKey, dict[str | None, int]]:
    """For project-wide name lookups (top-level or member definitions of a name), the candidates per language
    family: past MAX_CANDIDATES they give no edges, so a change among them changes no answer."""
    return {key: index.family_counts(str(key[1]), members=key[0] == "mb") for key in keys if key[0] in ("g", "mb")}


def _is_test(path: str) -> bool:
    return classify_path(path) is PathClass.TEST


def _resolve(index: ResolutionIndex, record: FileRecord) -> FileEntry:
    """One file's uses (to targets that exist) and the keys its answers depended on."""
    resolved = resolve_file(index, record)
    nodes = index.nodes
    sites = [(source, target, site) for source, target, site in resolved.edges if target in nodes]
    return FileEntry(record, sites, frozenset(resolved.deps), index.keys_of(record.path), _is_test(record.path))


@paused_collector
def resolve_share(job: ShareJob) -> SharePart:
    """Run in a worker: the records of all files, then the share's uses (graph/parallel.py says how they are joined)."""
    records: dict[str, FileRecord] = {}
    others: list[tuple[str, str]] = []
    for path, content_hash, record in job.stored.records(job.stored_paths):
        if record is not None:
            records[path] = record
        else:
            others.append((path, content_hash))
    records.update((f.path, build_record(f)) for f in job.given if f.belongs)
    strings = StringTable.empty()
    overlay: dict[str, FileRecord | None] = dict(records)
    packages = {p.rpartition("/")[0] for p, r in records.items() if is_init_file(p, r.system)}
    packages.discard("")  # the workspace root is never a package, as for Python itself
    keys = {p: module_keys(p, r.system, packages.__contains__) for p, r in records.items()}
    index = ResolutionIndex(empty_snapshot(strings), overlay, keys, job.stored.references)
    builder = SegmentBuilder(strings, outward_only=True)
    paths = sorted(records)
    files_part: dict[str, npt.NDArray[Any]] | None = None
    base_table: StringTable | None = None
    texts: list[str] | None = None
    if job.first:  # the files' part: the others' strings are all renumbered when the parts are joined
        for path in paths:
            builder.add_file(FileEntry(records[path], (), frozenset(), keys[path], _is_test(path)))
        files_part = builder.files_part()
        texts = strings.texts_from(0)  # the files' strings (all in the overlay so far: a copy of its list)
        base_table = strings.frozen()  # the same strings (the uses go on interning into `strings`)
    base = len(strings)
    start, stop = job.share
    share = [p for p in paths if p >= start and (stop is None or p < stop)]
    pieces: list[dict[str, npt.NDArray[Any]]] = [SegmentBuilder.use_arrays({name: [] for name in USE_COLUMNS})]
    for row, path in enumerate(share):
        record = records[path]
        if record.complete:  # a file given whole
            columns: dict[str, list[Any]] = {name: [] for name in USE_COLUMNS}
            builder.encode_uses(columns, row, _resolve(index, record))
            pieces.append(SegmentBuilder.use_arrays(columns))
            continue
        # A stored file: its reference columns are resolved as they are (graph/batch.py) and dropped after it.
        rows = job.stored.reference_rows(path, record.content_hash)
        if rows is None:
            raise GraphSourceError(f"no references of {path} (content {record.content_hash})")
        pieces.append(resolve_rows(index, record, rows, row, builder))
    # Column by column, each piece's array dropped once copied: one copy of the uses at a time, not two.
    uses = {name: np.concatenate([piece.pop(name) for piece in pieces]) for name in USE_COLUMNS}
    added = strings.texts_from(base)
    table = base_table.arrays() if base_table is not None else None
    return SharePart(len(share), uses, added, base, files_part, table, texts, others if job.first else None)


class CodeGraph:
    """The graph a retriever queries: one writer applies batches; readers take `state` (an immutable snapshot) and
    `scores` (its centrality) and never wait for the writer."""

    def __init__(self, snapshot: GraphSnapshot | None = None, scores: CentralityScores | None = None) -> None:
        state = snapshot if snapshot is not None else empty_snapshot()
        self._view = (state, scores if scores is not None else compute_centrality(state))
        self._writer = threading.Lock()
        self._edge_count: tuple[GraphSnapshot, int] | None = None  # distinct node pairs, counted when asked
        # What the last export wrote: its base segment, the strings that base was written with, its delta.
        # What the last export wrote: its base segment, the strings that base was written with, its delta, and the
        # others table (files given but not held) it wrote.
        self._exported: tuple[GraphSegment, int, GraphSegment | None, npt.NDArray[np.int32]] | None = None
        self.problem: str | None = None  # why a stored chain could not be used, for the status
        # Where stored files' references come from when the graph keeps only their imports and bases (the engine's
        # segments); None: the graph stores every reference itself.
        self.reference_source: ReferenceSource | None = None

    @property
    def state(self) -> GraphSnapshot:
        return self._view[0]

    @property
    def scores(self) -> CentralityScores:
        return self._view[1]

    def view(self) -> tuple[GraphSnapshot, CentralityScores]:
        """The current snapshot and its centrality, taken together."""
        return self._view

    def apply(self, batch: ChangeBatch) -> None:
        """Index the batch's files (replacing their old state) and forget its removed paths."""
        self.apply_inputs([GraphInput.of(a) for a in batch.updated], batch.removed)

    def apply_inputs(self, updated: Sequence[GraphInput], removed: Iterable[str] = ()) -> None:
        """`apply` for files given as GraphInputs (built from stored columns, without text). Raises GraphSourceError
        when the reference source lacks a stored file that must be resolved again; the graph is then unchanged."""
        with self._writer, collector_paused():  # resolution makes no cycles: see heap.py
            records = [build_record(f) for f in updated if f.belongs]
            # A file that no longer belongs (its code is gone) leaves like a removed one.
            gone = {*removed, *(f.path for f in updated if not f.belongs)}
            state, scores = self._view
            known = state.file_count
            touched = len(records) + len(gone)
            source = self.reference_source
            rebuilt = not known or touched > REBUILD_FRACTION * known
            if not records and not any(state.has_file(p) for p in gone):
                snapshot = state  # prose and data only: the graph itself does not change
            elif rebuilt:
                snapshot = _rebuild(state, records, gone, source)
            else:
                snapshot = _update(state, records, gone, source)
            others = _others(state, snapshot.strings, updated, removed)
            if snapshot is state:
                if not _same_others(others, state.others):
                    self._view = (state.with_others(others), scores)
                return
            snapshot = snapshot.with_others(others)
            # An update's edge count is left to `stats`, which counts it when asked (once per state).
            self._view = (snapshot, compute_centrality(snapshot, count_pairs=rebuilt))

    def apply_in_workers(
        self,
        stored: StoredFiles,
        paths: Sequence[str],
        given: Sequence[GraphInput],
        removed: Iterable[str],
        *,
        runner: Runner[ShareJob, SharePart],
        workers: int,
    ) -> bool:
        """`apply_inputs` for a cold build: stored files (by path) and given ones, resolved in `workers` worker
        processes (graph/parallel.py), the same graph as one process makes. Returns False, changing nothing, when
        the batch is not a whole rebuild (the graph holds files it does not name) or a worker failed: the caller
        then applies it here."""
        with self._writer, collector_paused():
            state = self.state
            named = {*paths, *(f.path for f in given)}
            gone = set(removed)
            if any(p not in named and p not in gone for p in state.paths()):
                return False
            ranges = shares(stored, paths, given, max(1, workers))
            jobs = [ShareJob(stored, tuple(paths), tuple(given), r, i == 0) for i, r in enumerate(ranges)]
            try:
                snapshot, not_held = join(runner(resolve_share, jobs))
            except Exception:  # a worker died or disagreed: the caller resolves the files here
                log.warning("resolving the graph in worker processes failed: resolving it here", exc_info=True)
                return False
            changed = named | gone
            strings = snapshot.strings
            kept = [
                (strings.intern(state.strings.text(p)), strings.intern(state.strings.text(h)))
                for p, h in zip(state.others[0].tolist(), state.others[1].tolist(), strict=True)
                if state.strings.text(p) not in changed
            ]
            kept.extend((strings.intern(f.path), strings.intern(f.content_hash)) for f in given if not f.belongs)
            kept.extend((strings.intern(p), strings.intern(h)) for p, h in not_held)
            others = np.array(kept, dtype=np.int32).reshape(-1, 2).T.copy()
            snapshot = snapshot.with_others(others)
            self._view = (snapshot, compute_centrality(snapshot))
        return True

    # ---- persistence: a chain part of the segment store (index/segment_parts.py; formats in persist.py) --------
    def export(self) -> ChainExport:
        """What changed since the last export: nothing; a delta (cumulative since the base, replacing the delta
        written before it); or a base, when the base was rewritten (merged, rebuilt) or never written — a delta not
        yet written is merged into it first, since a base is written without tombstones."""
        with self._writer:
            state, exported = self.state, self._exported
            if exported is None or not state.segments or exported[0] is not state.segments[0]:
                if len(state.segments) != 1 or not bool(np.all(state.live[0])):
                    self._view = _merged(*self._view)
                state, scores = self._view
                self._exported = (state.segments[0], len(state.strings), None, state.others)
                return ChainExport(True, [export_base(state, scores)])
            delta = state.segments[1] if len(state.segments) > 1 else None
            if (delta is None or exported[2] is delta) and _same_others(exported[3], state.others):
                return ChainExport(False)
            if delta is None:  # only the files the graph does not hold changed: an empty delta carries them
                self._view = (_with_empty_delta(state), self.scores)
                state = self.state
                delta = state.segments[1]
            written = export_delta(state, self.scores, exported[1])
            self._exported = (exported[0], exported[1], delta, state.others)
            return ChainExport(False, [written], replaces=1 if exported[2] is not None else 0)

    def export_failed(self) -> None:
        """The last export was not written: the next one is a base."""
        with self._writer:
            self._exported = None

    def open(self, containers: Sequence[Container]) -> None:
        """Take the chain the store names (mapped, in order). A chain this version cannot read (another format, parts
        that do not fit) is dropped with a warning: the graph starts empty and is rebuilt from the files fed to it."""
        with self._writer:
            state: GraphSnapshot = empty_snapshot()
            scores: CentralityScores | None = None
            self._exported = None
            if containers:
                try:
                    state, scores = open_chain([c.arrays for c in containers], [c.meta for c in containers])
                except ValueError as exc:
                    log.warning("the stored graph is unusable (%s): it is rebuilt", exc)
                    self.problem = f"the stored graph was unusable ({exc}) and is rebuilt"
                else:
                    base_meta = containers[max(i for i, c in enumerate(containers) if c.meta.get("kind") == "base")]
                    delta = state.segments[1] if len(state.segments) > 1 else None
                    self._exported = (state.segments[0], int(str(base_meta.meta["strings"])), delta, state.others)
            self._view = (state, scores if scores is not None else compute_centrality(state))

    def file_versions(self) -> dict[str, str]:
        """The content hash of every file the graph was given: those it holds (the version it resolved) and those it
        does not hold (prose, data), so that an unchanged file is not given again at the next start."""
        state = self.state
        out: dict[str, str] = state.other_versions()
        for segment, live in zip(state.segments, state.live, strict=True):
            a = segment.arrays
            for row in np.flatnonzero(live).tolist():
                out[state.strings.text(int(a["files.path"][row]))] = state.strings.text(int(a["files.hash"][row]))
        return out

    def stats(self) -> dict[str, int]:
        state, scores = self.view()
        if scores.pair_total >= 0:  # computed with the scores of this state
            edges = scores.pair_total
        else:  # scores of an incremental update, or from an older container: counted once per state
            counted = self._edge_count
            if counted is None or counted[0] is not state:
                counted = self._edge_count = (state, live_uses(state).distinct_pairs(state.slot_count))
            edges = counted[1]
        return {"files": state.file_count, "nodes": scores.node_count, "edges": edges, "sites": scores.site_total}

    # ---- whole-graph views, for tests and benchmarks --------------------------------------------------------------
    def node_ids(self) -> Iterator[str]:
        state = self.state
        for slot in np.flatnonzero(state.live_nodes()).tolist():
            yield state.node_id_at(slot)

    def edges(self) -> dict[tuple[str, str], tuple[EdgeSite, ...]]:
        """Every (source, target) pair with its uses, in stored order."""
        state = self.state
        out: dict[tuple[str, str], list[EdgeSite]] = defaultdict(list)
        for path in state.paths():
            for k, rows in state.file_site_rows(path):
                for row in rows.tolist():
                    source, target, site = state.segments[k].site(state.strings, row)
                    out[(source, target)].append(site)
        return {edge: tuple(sites) for edge, sites in out.items()}


def _rebuild(
    state: GraphSnapshot, records: list[FileRecord], removed: set[str], source: ReferenceSource | None
) -> GraphSnapshot:
    """A fresh snapshot of every file: the batch's records and the others' as stored, resolved in path order."""
    new = {r.path: r for r in records}
    kept = {p: complete_record(state, p, source) for p in state.paths() if p not in new and p not in removed}
    overlay: dict[str, FileRecord | None] = dict(kept)
    overlay.update(new)
    fresh = StringTable.empty()
    packages = {p.rpartition("/")[0] for p, r in overlay.items() if r is not None and is_init_file(p, r.system)}
    packages.discard("")  # the workspace root is never a package, as for Python itself
    keys = {p: module_keys(p, r.system, packages.__contains__) for p, r in overlay.items() if r is not None}
    index = ResolutionIndex(empty_snapshot(fresh), overlay, keys, source)
    builder = SegmentBuilder(fresh, outward_only=source is not None)
    for path in sorted(overlay):
        record = overlay[path]
        if record is not None:
            builder.add(_resolve(index, record))
    segment = builder.build()
    fresh = fresh.frozen()
    return GraphSnapshot.make(fresh, [segment], [np.ones(segment.file_count, dtype=bool)])


def _update(
    state: GraphSnapshot, records: list[FileRecord], removed: set[str], source: ReferenceSource | None
) -> GraphSnapshot:
    """Replace the batch's files and re-resolve the files whose answers they change; a new delta segment."""
    new_records = {r.path: r for r in records}
    gone = {p for p in removed if p not in new_records and state.has_file(p)}
    paths = sorted(gone | set(new_records))
    before = ResolutionIndex(state, {})
    keys: set[DepKey] = set()
    families: set[str | None] = set()
    for path in paths:
        old, new = before.records.get(path), new_records.get(path)
        keys |= changed_keys(old, new)
        families.update((r.system or r.language) for r in (old, new) if r is not None)
    crowded_before = _crowding(before, keys)
    overlay: dict[str, FileRecord | None] = {p: new_records.get(p) for p in paths}
    new_keys, module_changes = _module_changes(state, before, overlay)
    after = ResolutionIndex(state, overlay, new_keys, source)
    keys |= module_changes
    crowded_after = _crowding(after, keys)
    keys -= {k for k in crowded_before if _still_crowded(crowded_before[k], crowded_after[k], families)}
    affected = set(new_records)
    for key in keys:
        affected |= state.dependents(key)
    entries: dict[str, FileEntry] = {}
    resolved: dict[str, FileEntry] = {}  # stored files resolved again, same content and keys: only uses re-encoded
    for path in sorted(affected):
        record = after.full_record(path)
        if record is None:
            continue
        entry = _resolve(after, record)
        if path in overlay or path in new_keys:
            entries[path] = entry
        else:
            resolved[path] = entry
    for path, path_keys in new_keys.items():  # stored files whose package name changed: the same rows, new keys
        if path not in entries and path not in overlay and (where := state.file_location(path)) is not None:
            entries[path] = state.segments[where[0]].entry(state.strings, where[1], path_keys)
    log.debug("graph batch: %d files re-resolved", len(affected))
    return _with_delta(state, entries, resolved, gone, outward_only=source is not None)


def _module_changes(
    state: GraphSnapshot, before: ResolutionIndex, overlay: dict[str, FileRecord | None]
) -> tuple[dict[str, tuple[ModuleKey, ...]], set[DepKey]]:
    """The module keys of the batch's files and of stored files whose package name changes with it (an
    `__init__.py` came or went), and the dependency keys whose answers that changes."""
    keyless = ResolutionIndex(state, overlay)
    files = {p: r.system if r is not None else None for p, r in overlay.items()}
    for path, record in overlay.items():
        was = is_init_file(path, state.system_of_file(path))
        if was != is_init_file(path, record.system if record else None):
            folder = path.rpartition("/")[0]
            for below in state.python_files_below(folder):
                files.setdefault(below, "py")
            for other, other_record in overlay.items():
                below_folder = not folder or other.startswith(folder + "/")
                if other_record is not None and other_record.system == "py" and below_folder:
                    files.setdefault(other, "py")
    new_keys: dict[str, tuple[ModuleKey, ...]] = {}
    changes: set[DepKey] = set()
    for path, system in files.items():
        keys = module_keys(path, system, keyless.is_package) if system is not None else ()
        old = before.keys_of(path)
        if path in overlay or keys != old:
            new_keys[path] = keys
        changes.update(("m", k) for k in set(old) ^ set(keys))
        old_system = state.system_of_file(path)
        if old_system != system:
            folder = path.rpartition("/")[0]
            changes.update(("d", s, folder) for s in (old_system, system) if s in PACKAGE_SYSTEMS)
    return new_keys, changes


def _with_delta(
    state: GraphSnapshot,
    entries: dict[str, FileEntry],
    resolved: dict[str, FileEntry],
    gone: Iterable[str],
    *,
    outward_only: bool,
) -> GraphSnapshot:
    """The state with these files (re)written into a new delta segment and the gone ones dropped; the delta is
    merged into the base when it has grown large. `resolved` files keep their stored rows but their uses."""
    live = [m.copy() for m in state.live]
    stored: dict[int, list[tuple[int, FileEntry]]] = defaultdict(list)
    for path in (*entries, *resolved, *gone):
        where = state.file_location(path)
        if where is not None:
            live[where[0]][where[1]] = False
            if path in resolved:
                stored[where[0]].append((where[1], resolved[path]))
    strings = state.strings
    builder = SegmentBuilder(strings, outward_only=outward_only)
    base: GraphSegment | None = state.segments[0] if state.segments else None
    if len(state.segments) > 1:
        builder.copy(state.segments[1], live[1])
    for k, found in sorted(stored.items()):
        found.sort(key=lambda item: item[0])
        builder.add_resolved(state.segments[k], [row for row, _ in found], [entry for _, entry in found])
    for path in sorted(entries):
        builder.add(entries[path])
    delta = builder.build()
    if base is None:
        return GraphSnapshot.make(strings, [delta], [np.ones(delta.file_count, dtype=bool)])
    if delta.node_count + delta.site_count > MERGE_FRACTION * (base.node_count + base.site_count):
        merger = SegmentBuilder(strings)
        merger.copy(base, live[0])
        merger.copy(delta, np.ones(delta.file_count, dtype=bool))
        merged = merger.build()
        return GraphSnapshot.make(strings.frozen(), [merged], [np.ones(merged.file_count, dtype=bool)])
    return GraphSnapshot.make(strings, [base, delta], [live[0], np.ones(delta.file_count, dtype=bool)])


def _others(
    state: GraphSnapshot, strings: StringTable, updated: Sequence[GraphInput], removed: Iterable[str]
) -> npt.NDArray[np.int32]:
    """The files given that the graph does not hold, after a batch: the earlier ones not in the batch, then the
    batch's (ids of `strings`, the new snapshot's table: a rebuild starts a new one)."""
    changed = {f.path for f in updated} | set(removed)
    texts = state.strings.text
    kept = [
        (p, h)
        for p, h in zip(state.others[0].tolist(), state.others[1].tolist(), strict=True)
        if texts(p) not in changed
    ]
    if strings is not state.strings:
        kept = [(strings.intern(texts(p)), strings.intern(texts(h))) for p, h in kept]
    kept.extend((strings.intern(f.path), strings.intern(f.content_hash)) for f in updated if not f.belongs)
    return np.array(kept, dtype=np.int32).reshape(-1, 2).T.copy()


def _same_others(a: npt.NDArray[np.int32], b: npt.NDArray[np.int32]) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _with_empty_delta(state: GraphSnapshot) -> GraphSnapshot:
    """A base-only state with an empty delta after it (to write what changed beside the segments); the slots and
    hence the centrality are the same."""
    delta = SegmentBuilder(state.strings).build()
    live = [*state.live, np.ones(0, dtype=bool)]
    return GraphSnapshot.make(state.strings, [*state.segments, delta], live, state.others)


def _with_empty_base(state: GraphSnapshot) -> GraphSnapshot:
    """A state with no segment yet (nothing indexed) as one empty base, so that it can be written."""
    segment = SegmentBuilder(state.strings).build()
    return GraphSnapshot.make(state.strings, [segment], [np.ones(0, dtype=bool)], state.others)


def _merged(state: GraphSnapshot, scores: CentralityScores) -> tuple[GraphSnapshot, CentralityScores]:
    """The state as one base segment without tombstones; the centrality carried over by node and path (the values
    are those of the same graph, renumbered)."""
    if len(state.segments) == 1 and bool(np.all(state.live[0])):
        return state, scores
    builder = SegmentBuilder(state.strings)
    for segment, live in zip(state.segments, state.live, strict=True):
        builder.copy(segment, live)
    merged = builder.build()
    snapshot = GraphSnapshot.make(
        state.strings.frozen(), [merged], [np.ones(merged.file_count, dtype=bool)], state.others
    )
    return snapshot, scores.renumbered(snapshot, state)

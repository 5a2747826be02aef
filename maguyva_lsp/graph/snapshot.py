"""One consistent state of the columnar graph: segments (oldest first) with a liveness mask over each one's files,
and the slot tables that find a live node or file by its string id. Readers take a snapshot and never see it change;
each batch makes a new one (the segments it keeps are shared, not copied).

A file is live in at most one segment; a newer segment's copy of a file supersedes the older one, whose rows are
then dead (tombstoned) until a merge drops them. Global slots number every node (and file) row of every segment, in
segment order: they index the centrality arrays.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.graph.model import SymbolNode
from maguyva_lsp.graph.modules import PACKAGE_SYSTEMS, ModuleKey
from maguyva_lsp.graph.records import DepKey, FileRecord
from maguyva_lsp.graph.segment import (
    NODE_MEMBER,
    NODE_TOPLEVEL,
    GraphSegment,
    encode_module_key,
    find_dep,
    package_key,
)
from maguyva_lsp.graph.strings import NO_STRING, StringTable
from maguyva_lsp.model import Reference

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int32]
NO_SLOT = -1
Rows = list[tuple[int, IntArray]]  # (segment index, rows of one of its tables)


def _slots(
    keys: Sequence[IntArray], rows_live: Sequence[npt.NDArray[np.int64]], size: int, bases: list[int]
) -> IntArray:
    slots = np.full(size, NO_SLOT, dtype=np.int32)
    for k, (key, live_rows) in enumerate(zip(keys, rows_live, strict=True)):
        slots[key[live_rows]] = bases[k] + live_rows
    return slots


@dataclass(frozen=True)
class GraphSnapshot:
    strings: StringTable
    segments: tuple[GraphSegment, ...]
    live: tuple[BoolArray, ...]  # per segment, per file
    node_slot: IntArray  # node id's string id → global node slot, NO_SLOT when no live node has that id
    file_slot: IntArray  # path's string id → global file slot
    node_bases: tuple[int, ...]  # first global slot of each segment's nodes (and one past the last)
    file_bases: tuple[int, ...]
    # Files given to the graph that it does not hold (prose, data: no module system, no definitions or references):
    # row 0 their path ids, row 1 their content hashes' ids, so that `file_versions` says they are current too.
    others: IntArray = field(default_factory=lambda: np.zeros((2, 0), dtype=np.int32))

    @classmethod
    def make(
        cls,
        strings: StringTable,
        segments: Sequence[GraphSegment],
        live: Sequence[BoolArray],
        others: IntArray | None = None,
    ) -> GraphSnapshot:
        node_bases = [0]
        file_bases = [0]
        for segment in segments:
            node_bases.append(node_bases[-1] + segment.node_count)
            file_bases.append(file_bases[-1] + segment.file_count)
        live_nodes = [np.flatnonzero(m[s.arrays["nodes.file"]]) for s, m in zip(segments, live, strict=True)]
        live_files = [np.flatnonzero(m) for m in live]
        size = len(strings)
        return cls(
            strings=strings,
            segments=tuple(segments),
            live=tuple(live),
            node_slot=_slots([s.arrays["nodes.id"] for s in segments], live_nodes, size, node_bases),
            file_slot=_slots([s.arrays["files.path"] for s in segments], live_files, size, file_bases),
            node_bases=tuple(node_bases),
            file_bases=tuple(file_bases),
            others=others if others is not None else np.zeros((2, 0), dtype=np.int32),
        )

    def with_others(self, others: IntArray) -> GraphSnapshot:
        return dataclasses.replace(self, others=others)

    def other_versions(self) -> dict[str, str]:
        """Path → content hash of the files given to the graph that it does not hold."""
        text = self.strings.text
        return {text(p): text(h) for p, h in zip(self.others[0].tolist(), self.others[1].tolist(), strict=True)}

    # ---- counts -------------------------------------------------------------------------------------------------
    @property
    def file_count(self) -> int:
        return int(sum(int(m.sum()) for m in self.live))

    @property
    def slot_count(self) -> int:
        return self.node_bases[-1]

    def live_nodes(self) -> BoolArray:
        """Per global node slot: whether its file is live."""
        parts = [m[s.arrays["nodes.file"]] for s, m in zip(self.segments, self.live, strict=True)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)

    # ---- finding rows -------------------------------------------------------------------------------------------
    def _sid(self, text: str) -> int:
        sid = self.strings.find(text)
        return sid if sid < len(self.node_slot) else NO_STRING

    def node_slot_of(self, node_id: str) -> int:
        sid = self._sid(node_id)
        return NO_SLOT if sid == NO_STRING else int(self.node_slot[sid])

    def node_slot_of_sid(self, sid: int) -> int:
        return int(self.node_slot[sid]) if 0 <= sid < len(self.node_slot) else NO_SLOT

    def node_location(self, slot: int) -> tuple[int, int]:
        k = bisect.bisect_right(self.node_bases, slot) - 1
        return k, slot - self.node_bases[k]

    def file_location(self, path: str) -> tuple[int, int] | None:
        sid = self._sid(path)
        slot = NO_SLOT if sid == NO_STRING else int(self.file_slot[sid])
        if slot == NO_SLOT:
            return None
        k = bisect.bisect_right(self.file_bases, slot) - 1
        return k, slot - self.file_bases[k]

    def has_node(self, node_id: str) -> bool:
        return self.node_slot_of(node_id) != NO_SLOT

    def has_file(self, path: str) -> bool:
        return self.file_location(path) is not None

    # ---- objects ------------------------------------------------------------------------------------------------
    def node_at(self, slot: int) -> SymbolNode:
        k, row = self.node_location(slot)
        return self.segments[k].symbol_node(self.strings, row)

    def node(self, node_id: str) -> SymbolNode | None:
        slot = self.node_slot_of(node_id)
        return None if slot == NO_SLOT else self.node_at(slot)

    def node_id_at(self, slot: int) -> str:
        k, row = self.node_location(slot)
        return self.strings.text(int(self.segments[k].arrays["nodes.id"][row]))

    def qualified_at(self, slot: int) -> str:
        k, row = self.node_location(slot)
        return self.strings.text(int(self.segments[k].arrays["nodes.qual"][row]))

    def flags_at(self, slot: int) -> int:
        k, row = self.node_location(slot)
        return int(self.segments[k].arrays["nodes.flags"][row])

    def family_at(self, slot: int) -> str | None:
        """The module system, else the language, of the node's file."""
        k, row = self.node_location(slot)
        return self._family(k, int(self.segments[k].arrays["nodes.file"][row]))

    def file_facts(self, path: str) -> tuple[bool, str | None, str | None]:
        """(whether the file is live, its module system, its language)."""
        where = self.file_location(path)
        if where is None:
            return (False, None, None)
        a = self.segments[where[0]].arrays
        system = self.strings.text_or_none(int(a["files.system"][where[1]]))
        return (True, system, self.strings.text_or_none(int(a["files.language"][where[1]])))

    def family_of(self, path: str) -> str | None:
        where = self.file_location(path)
        return None if where is None else self._family(*where)

    def _family(self, k: int, file_row: int) -> str | None:
        a = self.segments[k].arrays
        system = self.strings.text_or_none(int(a["files.system"][file_row]))
        return system or self.strings.text_or_none(int(a["files.language"][file_row]))

    def record(self, path: str, *, complete: bool = True) -> FileRecord | None:
        where = self.file_location(path)
        return None if where is None else self.segments[where[0]].record(self.strings, where[1], complete=complete)

    def file_node_slots(self, path: str) -> range:
        """Global slots of a file's nodes, its module node first."""
        where = self.file_location(path)
        if where is None:
            return range(0)
        k, row = where
        start, end = self.segments[k].span_of("nodes", row)
        return range(self.node_bases[k] + start, self.node_bases[k] + end)

    def stored_references(self, path: str) -> tuple[Reference, ...] | None:
        """Every reference of a stored file, when the graph stored them all (else None: ask the source)."""
        where = self.file_location(path)
        if where is None:
            raise KeyError(path)
        segment = self.segments[where[0]]
        if not bool(segment.arrays["files.complete"][where[1]]):
            return None
        return segment.references(self.strings, where[1], path)

    def file_slots_named(self, path: str, name: str) -> list[int]:
        """Global slots of a file's definitions (not its file node) with this name, read from its rows only."""
        sid = self._sid(name)
        where = self.file_location(path) if sid != NO_STRING else None
        if where is None:
            return []
        k, row = where
        start, end = self.segments[k].span_of("nodes", row)
        names = self.segments[k].arrays["nodes.name"][start + 1 : end]
        return (np.flatnonzero(names == sid) + self.node_bases[k] + start + 1).tolist()

    def paths(self) -> Iterator[str]:
        for segment, live in zip(self.segments, self.live, strict=True):
            for row in np.flatnonzero(live).tolist():
                yield segment.path(self.strings, row)

    # ---- definitions by name ------------------------------------------------------------------------------------
    def named_slots(self, name: str) -> list[int]:
        """Global slots of the live definitions (not file nodes) with this name."""
        sid = self._sid(name)
        if sid == NO_STRING:
            return []
        out: list[int] = []
        for k, (segment, live) in enumerate(zip(self.segments, self.live, strict=True)):
            rows = segment.lookup("name", sid)
            if len(rows):
                rows = rows[live[segment.arrays["nodes.file"][rows]]]
                out.extend((rows + self.node_bases[k]).tolist())
        return out

    def named_nodes(self, name: str) -> list[SymbolNode]:
        """The live definitions (not file nodes) with this name."""
        sid = self._sid(name)
        if sid == NO_STRING:
            return []
        out: list[SymbolNode] = []
        for segment, live in zip(self.segments, self.live, strict=True):
            rows = segment.lookup("name", sid)
            if not len(rows):
                continue
            files = segment.arrays["nodes.file"][rows]
            keep = live[files]
            paths: dict[int, str] = {}
            for row, file_row in zip(rows[keep].tolist(), files[keep].tolist(), strict=True):
                path = paths.get(file_row)
                if path is None:
                    path = paths[file_row] = segment.path(self.strings, file_row)
                out.append(segment.symbol_node(self.strings, row, path))
        return out

    def named_in(self, name: str, family: str | None, *, members: bool, hidden: IntArray) -> list[str]:
        """Ids of the live members of classes (or top-level definitions) with this name in files of this family
        (module system, else language), leaving out the files whose path ids are in `hidden`."""
        family_sid = NO_STRING if family is None else self.strings.find(family)
        if family is not None and family_sid == NO_STRING:
            return []
        out: list[str] = []
        for segment, rows, families in self._named_rows(name, members=members, hidden=hidden):
            ids = segment.arrays["nodes.id"][rows[families == family_sid]]
            out.extend(self.strings.text(n) for n in ids.tolist())
        return out

    def family_counts(self, name: str, *, members: bool, hidden: IntArray) -> dict[str | None, int]:
        """How many live members of classes (or top-level definitions) have this name, per language family of their
        files, leaving out the files whose path ids are in `hidden` (counted from the columns, no objects)."""
        counts: dict[str | None, int] = {}
        for _segment, _rows, families in self._named_rows(name, members=members, hidden=hidden):
            for family, count in zip(*np.unique(families, return_counts=True), strict=True):
                key = self.strings.text_or_none(int(family))
                counts[key] = counts.get(key, 0) + int(count)
        return counts

    def _named_rows(
        self, name: str, *, members: bool, hidden: IntArray
    ) -> Iterator[tuple[GraphSegment, IntArray, IntArray]]:
        """Per segment, the live node rows of members of classes (or top-level definitions) with this name outside
        the `hidden` files, and each row's language family (module system, else language) as a string id."""
        sid = self._sid(name)
        if sid == NO_STRING:
            return
        sort = NODE_MEMBER if members else NODE_TOPLEVEL
        for segment, live in zip(self.segments, self.live, strict=True):
            rows = segment.lookup("name", sid)
            if not len(rows):
                continue
            a = segment.arrays
            files = a["nodes.file"][rows]
            keep = live[files] & ((a["nodes.flags"][rows] & sort) != 0)
            if len(hidden):
                keep &= ~np.isin(a["files.path"][files], hidden)
            systems = a["files.system"][files[keep]]
            yield segment, rows[keep], np.where(systems != NO_STRING, systems, a["files.language"][files[keep]])

    def named_ids(self, name: str) -> list[tuple[str, str]]:
        """(node id, path) of the live definitions with this name."""
        out: list[tuple[str, str]] = []
        for slot in self.named_slots(name):
            k, row = self.node_location(slot)
            segment = self.segments[k]
            node_sid = int(segment.arrays["nodes.id"][row])
            out.append(
                (self.strings.text(node_sid), segment.path(self.strings, int(segment.arrays["nodes.file"][row])))
            )
        return out

    def names_with_word(self, word: str) -> set[str]:
        """Definition names holding this lower-case sub-word, among names some live definition has."""
        sid = self._sid(word)
        if sid == NO_STRING:
            return set()
        candidates = unique(np.concatenate([s.words_named(sid) for s in self.segments] or [np.zeros(0, np.int32)]))
        if not len(candidates):
            return set()
        alive: set[int] = set()
        for segment, live in zip(self.segments, self.live, strict=True):
            rows = segment.lookup_many("name", candidates)
            rows = rows[live[segment.arrays["nodes.file"][rows]]]
            alive.update(unique(segment.arrays["nodes.name"][rows]).tolist())
        return {self.strings.text(s) for s in alive}

    # ---- uses ---------------------------------------------------------------------------------------------------
    def in_site_rows(self, node_slots: Sequence[int]) -> Rows:
        """Site rows (per segment) of the uses of these nodes from live files."""
        return self._site_rows(node_slots, "target")

    def out_site_rows(self, node_slots: Sequence[int]) -> Rows:
        """Site rows (per segment) of the uses made by these nodes whose target is a live node. A use belongs to a
        node of the file it is made in (`_Resolver.source_of`), so each node's own file's rows are scanned: the
        segments keep no index by source."""
        found: dict[int, list[IntArray]] = {}
        for slot in node_slots:
            if slot == NO_SLOT:
                continue
            k, row = self.node_location(slot)
            segment = self.segments[k]
            a = segment.arrays
            file_row = int(a["nodes.file"][row])
            if not bool(self.live[k][file_row]):
                continue
            start, end = segment.span_of("sites", file_row)
            rows = (np.flatnonzero(a["sites.source"][start:end] == a["nodes.id"][row]) + start).astype(np.int32)
            rows = rows[self.node_slot[a["sites.target"][rows]] != NO_SLOT]
            found.setdefault(k, []).append(rows)
        out: Rows = []
        for k in sorted(found):
            rows = np.concatenate(found[k])
            if len(rows):
                out.append((k, rows))
        return out

    def _site_rows(self, node_slots: Sequence[int], index: str) -> Rows:
        if not node_slots:
            return []
        sids = np.array([self._slot_sid(s) for s in node_slots], dtype=np.int32)
        out: Rows = []
        for k, (segment, live) in enumerate(zip(self.segments, self.live, strict=True)):
            rows = segment.lookup_many(index, sids)
            if not len(rows):
                continue
            rows = rows[live[segment.arrays["sites.file"][rows]]]
            if len(rows):
                out.append((k, rows))
        return out

    def file_site_rows(self, path: str) -> Rows:
        """Site rows of the uses made in a file whose target is a live node."""
        where = self.file_location(path)
        if where is None:
            return []
        k, row = where
        segment = self.segments[k]
        start, end = segment.span_of("sites", row)
        rows = np.arange(start, end, dtype=np.int32)
        rows = rows[self.node_slot[segment.arrays["sites.target"][rows]] != NO_SLOT]
        return [(k, rows)] if len(rows) else []

    def _slot_sid(self, slot: int) -> int:
        k, row = self.node_location(slot)
        return int(self.segments[k].arrays["nodes.id"][row])

    # ---- what resolution reads beyond records -------------------------------------------------------------------
    def dependents(self, key: DepKey) -> set[str]:
        """Live files whose last resolution consulted this key."""
        packed = find_dep(self.strings, key)
        if packed is None:
            return set()
        out: set[str] = set()
        for segment, live in zip(self.segments, self.live, strict=True):
            files = segment.arrays["deps.file"][segment.lookup("dep", packed)]
            out.update(segment.path(self.strings, f) for f in files[live[files]].tolist())
        return out

    def module_files(self, key: ModuleKey) -> set[str]:
        sid = self._sid(encode_module_key(key))
        if sid == NO_STRING:
            return set()
        out: set[str] = set()
        for segment, live in zip(self.segments, self.live, strict=True):
            files = segment.arrays["mkeys.file"][segment.lookup("mkey", sid)]
            out.update(segment.path(self.strings, f) for f in files[live[files]].tolist())
        return out

    def module_keys(self, path: str) -> tuple[ModuleKey, ...]:
        where = self.file_location(path)
        return () if where is None else self.segments[where[0]].module_keys(self.strings, where[1])

    def system_of_file(self, path: str) -> str | None:
        where = self.file_location(path)
        if where is None:
            return None
        return self.strings.text_or_none(int(self.segments[where[0]].arrays["files.system"][where[1]]))

    def package_files(self, system: str, folder: str) -> set[str]:
        """Live files of one package folder of a package system (Go, the Java family)."""
        if system not in PACKAGE_SYSTEMS:
            return set()
        system_sid, folder_sid = self._sid(system), self._sid(folder)
        if NO_STRING in (system_sid, folder_sid):
            return set()
        key = package_key(system_sid, folder_sid)
        out: set[str] = set()
        for segment, live in zip(self.segments, self.live, strict=True):
            files = segment.lookup("package", key)
            out.update(segment.path(self.strings, f) for f in files[live[files]].tolist())
        return out

    def python_files_below(self, folder: str) -> list[str]:
        """Live Python files under a folder ("" for the whole workspace), read through the distinct folders."""
        py = self._sid("py")
        out: list[str] = []
        for segment, live in zip(self.segments, self.live, strict=True):
            a = segment.arrays
            rows = np.flatnonzero(live & (a["files.system"] == py)) if py != NO_STRING else np.zeros(0, np.int64)
            folders = a["files.folder"][rows]
            for sid in unique(folders).tolist():
                text = self.strings.text(sid)
                if folder in ("", text) or text.startswith(folder + "/"):
                    out.extend(segment.path(self.strings, f) for f in rows[folders == sid].tolist())
        return out

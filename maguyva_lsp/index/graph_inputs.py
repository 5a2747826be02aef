"""The graph's view of the segments: what it takes of stored files (GraphInput: definitions, references, language,
content hash, line count — no text, no chunks), read from the core columns, and its reference source.

A cold index builds segments in worker processes; the graph then reads the files from the mapped columns instead of
having every analysis pickled back to the main process — or has worker processes read them (`StoredGraphFiles`, a
picklable view of the stored core containers) and resolve them in parallel.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.graph.inputs import GraphInput, ReferenceRows, ReferenceSource
from maguyva_lsp.graph.modules import system_of
from maguyva_lsp.graph.records import FileRecord, stored_record, stored_symbols
from maguyva_lsp.graph.segment import OUTWARD_REFERENCE_KINDS
from maguyva_lsp.index.analysis_columns import (
    CORE_PART,
    DEFINITION_COLUMNS,
    REFERENCE_KINDS,
    CoreColumns,
)
from maguyva_lsp.index.segment_set import Segments, SegmentSet
from maguyva_lsp.model import FileAnalysis, Reference, Span
from maguyva_lsp.store.container import ContainerRecord, open_container


def graph_inputs(snapshot: SegmentSet, paths: Iterable[str]) -> Iterator[GraphInput]:
    """The graph's input for each of these paths the snapshot holds (in the order given)."""
    for path in paths:
        found = snapshot.where(path)
        if found is None:
            continue
        segment, local = found
        core = segment.core
        yield GraphInput(
            path,
            core.language(local),
            core.content_hash(local),
            core.line_count(local) - 1,  # a line start follows each newline
            core.definitions(local),
            core.references(local),
        )


def reference_source(segments: Segments) -> ReferenceSource:
    """The graph's reference source over the engine's segments: a file's references for the version (content hash)
    the current snapshot holds, None for another version or an unknown path."""

    def references(path: str, content_hash: str) -> tuple[Reference, ...] | None:
        found = segments.current.where(path)
        if found is None:
            return None
        segment, local = found
        core = segment.core
        return core.references(local) if core.content_hash(local) == content_hash else None

    return references


class StoredGraphFiles:
    """Stored files by path, for a worker process: the core containers that hold them (file and record) and each
    path's (container, local id). Picklable; the containers are mapped in the process that reads them, once."""

    def __init__(self, cores: Sequence[tuple[Path, ContainerRecord]], where: dict[str, tuple[int, int]]) -> None:
        self.cores = tuple(cores)
        self.where = where
        self._opened: list[CoreColumns] | None = None
        self._pools: dict[int, list[str | None]] = {}  # by id() of an opened container's columns
        self._outward: dict[int, _OutwardRows] = {}  # likewise

    def __getstate__(self) -> dict[str, Any]:
        return {"cores": self.cores, "where": self.where}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.cores = state["cores"]
        self.where = state["where"]
        self._opened = None
        self._pools = {}
        self._outward = {}

    def _locate(self, path: str) -> tuple[CoreColumns, int]:
        if self._opened is None:
            self._opened = [CoreColumns(open_container(file, record)) for file, record in self.cores]
        k, local = self.where[path]
        return self._opened[k], local

    def records(self, paths: Sequence[str]) -> Iterator[tuple[str, str, FileRecord | None]]:
        """Each file's (path, content hash, record): with only its imports and base lists among its references
        (`complete=False`), None when the graph does not hold the file. The record `build_record` makes of the
        file's GraphInput, its nodes made straight from the definition rows."""
        for path in paths:
            core, local = self._locate(path)
            rows = self._outward_rows(core)
            pool = core.pool()
            definitions = rows.definition_rows(local)
            references = rows.references(local, pool, self._pool(core))
            language = core.language(local)
            content_hash = core.content_hash(local)
            # GraphInput.belongs (the stored reference count: `references` holds the outward ones only)
            if system_of(language) is None and not definitions and core.reference_count(local) == 0:
                yield path, content_hash, None
                continue
            lines = core.line_count(local) - 1  # a line start follows each newline
            symbols = stored_symbols(path, language, pool, definitions)
            yield (
                path,
                content_hash,
                stored_record(
                    path, language, content_hash=content_hash, lines=lines, symbols=symbols, references=references
                ),
            )

    def analyses(self, paths: Sequence[str]) -> Iterator[FileAnalysis]:
        """Each file's stored analysis without its definitions and references (text and chunks: the semantic
        workers' input)."""
        for path in paths:
            core, local = self._locate(path)
            yield core.analysis(local, symbols=False)

    def _at_version(self, path: str, content_hash: str) -> tuple[CoreColumns, int] | None:
        """Where a stored file is, when it is stored with this content (None: another version, or unknown)."""
        if path not in self.where:
            return None
        core, local = self._locate(path)
        return (core, local) if core.content_hash(local) == content_hash else None

    def references(self, path: str, content_hash: str) -> tuple[Reference, ...] | None:
        found = self._at_version(path, content_hash)
        return None if found is None else found[0].references(found[1])

    def _pool(self, core: CoreColumns) -> list[str | None]:
        """A container's string pool with None after it (so that id -1 reads as None), made once per container."""
        pool = self._pools.get(id(core))
        if pool is None:
            pool = self._pools[id(core)] = [*core.pool(), None]
        return pool

    def _outward_rows(self, core: CoreColumns) -> _OutwardRows:
        """A container's definitions and outward references, read once per container (`inputs` reads every file)."""
        rows = self._outward.get(id(core))
        if rows is None:
            rows = self._outward[id(core)] = _OutwardRows(core)
        return rows

    def reference_rows(self, path: str, content_hash: str) -> ReferenceRows | None:
        """`references` as columns: what a cold build's workers resolve, without a Reference per row."""
        found = self._at_version(path, content_hash)
        if found is None:
            return None
        core, local = found
        r0, r1 = int(core.arrays["file.refs"][local]), int(core.arrays["file.refs"][local + 1])

        def rows(name: str) -> npt.NDArray[Any]:
            return core.rows(name, r0, r1)

        return ReferenceRows(
            names=rows("ref.name"),
            kinds=rows("ref.kind"),
            enclosing=rows("ref.enclosing"),
            receivers=rows("ref.receiver"),
            modules=rows("ref.module"),
            aliases=rows("ref.alias"),
            spans=rows("ref.span"),
            pool=self._pool(core),
            kind_names=REFERENCE_KINDS,
        )

    def reference_counts(self, paths: Sequence[str]) -> list[int]:
        counts: list[int] = []
        for path in paths:
            core, local = self._locate(path)
            counts.append(core.reference_count(local))
        return counts


def stored_graph_files(segments: Segments, paths: Iterable[str]) -> StoredGraphFiles | None:
    """These stored files as worker processes can read them; None when one of them is not in a stored segment (an
    index kept in memory, an open buffer)."""
    data_dir = segments.data_dir
    if data_dir is None:
        return None
    snapshot = segments.current
    cores: list[tuple[Path, ContainerRecord]] = []
    position: dict[int, int] = {}
    where: dict[str, tuple[int, int]] = {}
    for path in paths:
        found = snapshot.locate(path)
        if found is None:
            return None
        segment = snapshot.segments[found[0]]
        record = segment.records.get(CORE_PART)
        if record is None or segment.volatile:
            return None
        k = position.get(found[0])
        if k is None:
            k = position[found[0]] = len(cores)
            cores.append((data_dir / record.name, record))
        where[path] = (k, found[1])
    return StoredGraphFiles(cores, where)


class _OutwardRows:
    """A container's definition rows and its imports and base lists (a few per cent of its references), each column
    read once for the whole container; a file's nodes (graph/records.py's `stored_symbols`) and References are made
    from its slice of them. The same values `CoreColumns.definitions` and `.references(local,
    OUTWARD_REFERENCE_KINDS)` give, without their per-file cost of a dozen array slices and a kind test (a worker
    reads every stored file)."""

    def __init__(self, core: CoreColumns) -> None:
        a = core.arrays
        self.core = core
        self.def_offsets: list[int] = np.asarray(a["file.defs"]).tolist()
        self.defs = list(zip(*(np.asarray(a[name]).tolist() for name in DEFINITION_COLUMNS), strict=True))
        ref_offsets = np.asarray(a["file.refs"], dtype=np.int64)
        total = int(ref_offsets[-1]) if len(ref_offsets) else 0
        codes = [i for i, kind in enumerate(REFERENCE_KINDS) if kind in OUTWARD_REFERENCE_KINDS]
        picked = np.flatnonzero(np.isin(np.asarray(a["ref.kind"][:total]), codes))
        # The picked rows of each file: [ref_starts[local], ref_starts[local + 1]) of `refs`.
        self.ref_starts: list[int] = np.searchsorted(picked, ref_offsets).tolist()
        columns = ("ref.name", "ref.kind", "ref.enclosing", "ref.receiver", "ref.module", "ref.alias", "ref.span")
        self.refs = list(zip(*(core.rows(name, 0, total)[picked].tolist() for name in columns), strict=True))

    def definition_rows(self, local: int) -> list[tuple[Any, ...]]:
        """One file's rows of DEFINITION_COLUMNS (pool ids, spans as 4 ints)."""
        return self.defs[self.def_offsets[local] : self.def_offsets[local + 1]]

    def references(self, local: int, pool: Sequence[str], with_none: list[str | None]) -> tuple[Reference, ...]:
        """One file's outward references (`with_none`: the pool with None after it)."""
        path = self.core.paths[local]
        return tuple(
            Reference(
                pool[name],
                REFERENCE_KINDS[kind],
                path,
                Span(*span),
                with_none[enc],
                with_none[rcv],
                with_none[mod],
                with_none[al],
            )
            for name, kind, enc, rcv, mod, al, span in self.refs[self.ref_starts[local] : self.ref_starts[local + 1]]
        )

"""Building a segment's containers from analyses, or from older segments (a merge): pure functions over arrays that
run in worker processes, so that a cold index builds segments on every core and a merge never holds up a query.

A job writes its containers itself when it is given a data folder and an id (the writer reserved the id, so the
store's garbage collection spares the files until the writer commits them); without one (an index kept in memory)
it returns the arrays instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from maguyva_lsp.heap import return_free_memory
from maguyva_lsp.index.analysis_columns import CORE_PART, CoreColumns, encode_core, merge_core
from maguyva_lsp.index.segment_parts import PartBuilder, PartSource
from maguyva_lsp.model import FileAnalysis
from maguyva_lsp.store.container import Array, ContainerError, ContainerRecord, open_container, write_container
from maguyva_lsp.store.segment_store import CONTAINER_SUFFIX


@dataclass(frozen=True, slots=True)
class SegmentTarget:
    """Where a job writes: the store's data folder and the id the writer reserved."""

    data_dir: Path
    ident: str

    def path(self, part: str) -> Path:
        return self.data_dir / f"{self.ident}-{part}{CONTAINER_SUFFIX}"


@dataclass(frozen=True, slots=True)
class BuiltSegment:
    """A segment a job built: its containers' records when written, else its arrays by part."""

    ident: str
    files: int
    records: Mapping[str, ContainerRecord] = field(default_factory=dict)
    arrays: Mapping[str, Mapping[str, Array]] = field(default_factory=dict)


def part_arrays(
    core_arrays: dict[str, Array], parts: Sequence[PartBuilder], texts: Sequence[bytes] | None = None
) -> dict[str, dict[str, Array]]:
    """The core columns and every part's arrays, by part name (`texts`: the files' UTF-8 when the caller has them,
    so that the parts read no compressed frame)."""
    core = CoreColumns(core_arrays, texts)
    out: dict[str, dict[str, Array]] = {CORE_PART: core_arrays}
    for part in parts:
        out[part.name] = part.build(core)
    return out


def finish(
    arrays: dict[str, dict[str, Array]], parts: Sequence[PartBuilder], target: SegmentTarget | None
) -> BuiltSegment:
    """Write a built segment's containers to the target (or keep the arrays when there is none)."""
    files = len(CoreColumns(arrays[CORE_PART]).paths)
    if target is None:
        return BuiltSegment("", files, arrays=arrays)
    versions = {part.name: part.version for part in parts}
    records: dict[str, ContainerRecord] = {}
    for name, part_arrays_ in arrays.items():
        meta: dict[str, object] = {"part": name, "id": target.ident}
        if name in versions:
            meta["version"] = versions[name]
        records[name] = write_container(target.path(name), part_arrays_, meta)
    return BuiltSegment(target.ident, files, records=records)


def build_segment(
    analyses: Sequence[FileAnalysis], parts: Sequence[PartBuilder], target: SegmentTarget | None
) -> BuiltSegment:
    """A segment holding these analyses."""
    core_arrays, texts = encode_core(analyses)
    return finish(part_arrays(core_arrays, parts, texts), parts, target)


@dataclass(frozen=True, slots=True)
class MergeSource:
    """One segment to merge: its core container and which of its files are alive (as the job was planned), and its
    parts' containers by part name (a part that can merge them reads them instead of rebuilding from the core)."""

    core: ContainerRecord
    alive: npt.NDArray[np.bool_]
    parts: Mapping[str, ContainerRecord] = field(default_factory=dict)


def merge_segments(
    data_dir: Path, sources: Sequence[MergeSource], parts: Sequence[PartBuilder], target: SegmentTarget | None
) -> BuiltSegment:
    """One segment with the live files of several (read mapped from the data folder): the core columns united,
    every part merged from the sources' parts where it can (the text and symbol parts), else built again from the
    united core."""
    cores = [(CoreColumns(open_container(data_dir / s.core.name, s.core)), s.alive) for s in sources]
    core_arrays = merge_core(cores)
    merged = CoreColumns(core_arrays)
    out: dict[str, dict[str, Array]] = {CORE_PART: core_arrays}
    for part in parts:
        # optional: a part that can merge its sources' parts
        merge: Callable[[list[PartSource], CoreColumns], dict[str, Array]] | None = getattr(part, "merge", None)
        part_sources = None if merge is None else _part_sources(data_dir, sources, cores, part)
        out[part.name] = part.build(merged) if merge is None or part_sources is None else merge(part_sources, merged)
    built = finish(out, parts, target)
    # The worker may take embedding jobs next (the cold build runs them beside the merge): the heap the merge freed
    # goes back to the system rather than stay in the worker's resident memory (~100 MB on the stdlib).
    del out, core_arrays, merged, cores
    return_free_memory()
    return built


def _part_sources(
    data_dir: Path,
    sources: Sequence[MergeSource],
    cores: Sequence[tuple[CoreColumns, npt.NDArray[np.bool_]]],
    part: PartBuilder,
) -> list[PartSource] | None:
    """The sources' containers of the part, mapped; None when a source lacks the part at its current version (the
    part is then built from the united core)."""
    out: list[PartSource] = []
    for source, (core, alive) in zip(sources, cores, strict=True):
        record = source.parts.get(part.name)
        if record is None:
            return None
        try:
            container = open_container(data_dir / record.name, record)
        except ContainerError:
            return None
        if container.meta.get("version") != part.version:
            return None
        out.append(PartSource(container.arrays, core, alive))
    return out

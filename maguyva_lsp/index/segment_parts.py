"""The contracts between the segment set and the indexes it stores: a *part* of every segment (the text postings,
the symbol table ...), derived from the segment's core columns and opened for queries; and a *chain* for an index
that is not split by file (the graph, the vectors), exported at every commit.

A part never sees tombstones: it is built once for every file of its segment, and its reader answers for any file;
the retriever that queries it masks dead files with the segment's `alive` flags (a file's rows are live iff its file
is). A part's `version` names its layout: a stored segment whose part has another version gets the part rebuilt
from its core columns (no file is analysed again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.store.container import Array, Container, ContainerRecord


class PartBuilder(Protocol):
    """Builds and opens one part of every segment."""

    @property
    def name(self) -> str:
        """The part's name in the store (a container per segment and part)."""
        ...

    @property
    def version(self) -> int: ...

    def build(self, core: CoreColumns) -> dict[str, Array]:
        """The part's arrays for every file of the segment. Pure: it may run in a worker process."""
        ...

    def open(self, arrays: Mapping[str, Array], core: CoreColumns) -> Any:
        """The part's reader over its arrays (mapped read-only from the store, or in memory)."""
        ...


@dataclass(frozen=True, slots=True)
class PartSource:
    """One segment of a merge, as a part that can merge its segments' parts (`merge(sources, merged_core)`, an
    optional method of a PartBuilder) reads it: the segment's arrays of that part, its core columns and which of its
    files are alive."""

    arrays: Mapping[str, Array]
    core: CoreColumns
    alive: npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class ChainExport:
    """What a chain part hands the store at a commit: containers to write (arrays, meta), replacing the part's chain
    (`base`) or appended to it, after dropping the chain's last `replaces` containers (a cumulative delta replaces
    the previous one). No containers: nothing changed since the last export."""

    base: bool
    containers: Sequence[tuple[Mapping[str, Array], Mapping[str, object]]] = ()
    replaces: int = 0


class ChainPart(Protocol):
    """An index that is not split by file (the graph, the vectors): persisted as a chain of containers that the
    manifest names in order — a base and the deltas written after it."""

    @property
    def name(self) -> str: ...

    def export(self) -> ChainExport:
        """What changed since the last export (called at every commit, under the segment set's lock)."""
        ...

    def export_failed(self) -> None:
        """The last export could not be written: the next one must be a base."""
        ...

    def open(self, containers: Sequence[Container], records: Sequence[ContainerRecord] = ()) -> None:
        """Take the chain the manifest names (mapped, in order); an empty sequence: start from nothing. `records`
        are the manifest's records of the containers (size, CRC-32), for a full check later, off the start path."""
        ...

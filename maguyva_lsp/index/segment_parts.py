"""The contract between the segment set and each index stored per segment (a *part*: the text postings, the symbol
table ...): how a part's arrays are derived from a segment's core columns, and how they are opened for queries.

A part never sees tombstones: it is built once for every file of its segment, and its reader answers for any file;
the retriever that queries it masks dead files with the segment's `alive` flags (a file's rows are live iff its file
is). A part's `version` names its layout: a stored segment whose part has another version gets the part rebuilt
from its core columns (no file is analysed again).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.store.container import Array


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

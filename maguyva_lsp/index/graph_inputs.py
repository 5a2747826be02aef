"""The graph's view of the segments: what it takes of stored files (GraphInput: definitions, references, language,
content hash, line count — no text, no chunks), read from the core columns, and its reference source.

A cold index builds segments in worker processes; the graph then reads the files from the mapped columns instead of
having every analysis pickled back to the main process.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from maguyva_lsp.graph.inputs import GraphInput, ReferenceSource
from maguyva_lsp.index.segment_set import Segments, SegmentSet
from maguyva_lsp.model import Reference


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

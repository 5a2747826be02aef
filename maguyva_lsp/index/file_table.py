"""Per-file facts over the current snapshot of the segments: which files are indexed, their class, the chunk that
holds a line, a line's text, a whole analysis when one is asked for. Nothing is copied out of the segments."""

from __future__ import annotations

import numpy as np

from maguyva_lsp.index.segment_set import Segment, Segments
from maguyva_lsp.model import FileAnalysis, PathClass, chunk_id


def _live_chunks(segment: Segment) -> int:
    count = segment.cache.get("chunks")
    if count is None:
        per_file = np.diff(np.asarray(segment.core.arrays["file.chunks"]))
        count = segment.cache["chunks"] = int(per_file[segment.alive].sum()) if per_file.size else 0
    return int(count)


class FileTable:
    """The indexed files, as the segments hold them now (open buffers included)."""

    def __init__(self, segments: Segments) -> None:
        self._segments = segments

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self._segments.current.locate(path) is not None

    @property
    def file_count(self) -> int:
        return self._segments.current.file_count

    @property
    def chunk_count(self) -> int:
        return sum(_live_chunks(s) for s in self._segments.current.segments)

    def paths(self) -> list[str]:
        return self._segments.current.paths()

    def content_hashes(self) -> dict[str, str]:
        """path → content hash of every indexed file as queries see it (an open buffer's version for its path)."""
        out: dict[str, str] = {}
        for segment in self._segments.current.segments:
            core = segment.core
            for local in np.flatnonzero(segment.alive).tolist():
                out[core.paths[local]] = core.content_hash(local)
        return out

    def content_hash(self, path: str) -> str | None:
        """The content hash of a file as queries see it (an open buffer's version), or None when it is not indexed."""
        found = self._segments.current.where(path)
        return None if found is None else found[0].core.content_hash(found[1])

    def identity(self, path: str) -> tuple[int, int] | None:
        """(size, mtime) of the indexed file, or None when it is not indexed or an open buffer stands for it."""
        found = self._segments.current.where(path)
        if found is None or found[0].volatile:
            return None
        segment, local = found
        return int(segment.core.sizes()[local]), int(segment.core.mtimes()[local])

    def from_buffer(self, path: str) -> bool:
        found = self._segments.current.where(path)
        return found is not None and found[0].volatile

    def path_class(self, path: str) -> PathClass:
        found = self._segments.current.where(path)
        return found[0].core.path_class(found[1]) if found else PathClass.SOURCE

    def chunk_key(self, path: str, line: int) -> str:
        """The id of the chunk holding a line (the last one starting at or before it), so that hits of different
        retrievers on one chunk agree in fusion; `path#line` when the file has no chunks."""
        found = self._segments.current.where(path)
        if found is None:
            return f"{path}#{line}"
        segment, local = found
        first, last = segment.core.chunk_rows(local)
        if first == last:
            return f"{path}#{line}"
        starts = np.asarray(segment.core.arrays["chunk.start"][first:last])
        row = first + max(int(np.searchsorted(starts, line, side="right")) - 1, 0)
        return chunk_id(path, int(segment.core.arrays["chunk.start"][row]), int(segment.core.arrays["chunk.end"][row]))

    def line_text(self, path: str, line: int) -> str:
        """One line of a file as the index holds it (an open buffer's text when there is one); "" when unknown."""
        found = self._segments.current.where(path)
        if found is None or line < 0:
            return ""
        segment, local = found
        if line >= segment.core.line_count(local):
            return ""
        return segment.core.line(local, line).rstrip("\r")

    def analysis(self, path: str) -> FileAnalysis | None:
        """The file's whole analysis, rebuilt from its segment's columns (costly: for tools and tests)."""
        found = self._segments.current.where(path)
        return found[0].core.analysis(found[1]) if found else None

"""Shared by the tests of a merge's parts made from its segments' parts (text_merge, symbol_merge): real files of this
package analysed as a store would hold them, and one part's arrays after merging every segment, either from the
segments' own parts or (without them) from the merged core."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from maguyva_lsp.engine import INDEX_PARTS
from maguyva_lsp.index.segment_build import MergeSource, SegmentTarget, merge_segments
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.model import FileAnalysis, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.store.container import open_container

ROOT = Path(__file__).resolve().parents[2]


def analysis(rel: str, data: bytes, mtime: int = 1) -> FileAnalysis:
    file = SourceFile(rel, f"/ws/{rel}", language_for_path(rel), classify_path(rel), len(data), mtime)
    return analyze_file(file, data)


def package_files(folder: str) -> list[FileAnalysis]:
    """Every Python file of one folder of maguyva_lsp, analysed."""
    return [
        analysis(f"{folder}/{p.name}", p.read_bytes()) for p in sorted((ROOT / "maguyva_lsp" / folder).glob("*.py"))
    ]


def merged_part(segments: Segments, tmp_path: Path, part: str, *, with_parts: bool) -> Mapping[str, np.ndarray]:
    """The arrays of `part` in the segment that merging all of `segments` writes (the merge is then abandoned)."""
    plan = segments.plan_merge(everything=True)
    assert plan is not None and len(plan.segments) >= 4
    sources = segments.merge_sources(plan)
    if not with_parts:
        sources = [MergeSource(s.core, s.alive) for s in sources]
    segments.abandon_merge(plan)
    assert segments.data_dir is not None
    out = tmp_path / ("parts" if with_parts else "cores")
    out.mkdir()
    built = merge_segments(segments.data_dir, sources, INDEX_PARTS, SegmentTarget(out, "99"))
    record = built.records[part]
    return dict(open_container(out / record.name, record).arrays)

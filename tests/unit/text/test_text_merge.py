"""A merge's text part made from its segments' text parts (index/text_merge.py) is the part a build from the merged
core gives, array for array: over real files, with files that died in the merged segments (replaced, removed), a
segment that is dead whole and a file holding a character that folds onto ASCII; a source whose text part is of
another version makes the merge build the part from the core instead."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.engine import INDEX_PARTS
from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.segment_build import MergeSource, SegmentTarget, _part_sources, merge_segments
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.text_part import TEXT_PART, TextPart
from maguyva_lsp.model import FileAnalysis, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.store.container import open_container
from maguyva_lsp.store.segment_store import SegmentStore

ROOT = Path(__file__).resolve().parents[3]
FOLDING = "def kelvin_scale():\n    return '\u212a is the Kelvin sign'\n"


def _analysis(rel: str, data: bytes, mtime: int = 1) -> FileAnalysis:
    file = SourceFile(rel, f"/ws/{rel}", language_for_path(rel), classify_path(rel), len(data), mtime)
    return analyze_file(file, data)


def _files(folder: str) -> list[FileAnalysis]:
    return [
        _analysis(f"{folder}/{p.name}", p.read_bytes()) for p in sorted((ROOT / "maguyva_lsp" / folder).glob("*.py"))
    ]


@pytest.fixture()
def segments(tmp_path: Path) -> Segments:
    segments = Segments(SegmentStore(tmp_path, "t", "fp"), INDEX_PARTS)
    segments.save(_files("index"))
    segments.save([*_files("parse"), _analysis("odd/kelvin.py", FOLDING.encode())])
    segments.save(_files("store"))
    changed = _files("index")[3]
    # a file replaced (dead in the first segment), one removed, and a segment whose files all die
    segments.save(
        [_analysis(changed.path, changed.text.encode() + b"\n# changed\n", mtime=2)], removed=["index/bm25.py"]
    )
    segments.save(_files("graph"))
    segments.save([], removed=[a.path for a in _files("graph")])
    return segments


def _merged_text(segments: Segments, tmp_path: Path, *, with_parts: bool) -> Mapping[str, np.ndarray]:
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
    record = built.records[TEXT_PART]
    return dict(open_container(out / record.name, record).arrays)


def test_the_merged_text_part_is_the_part_built_from_the_merged_core(segments: Segments, tmp_path: Path) -> None:
    from_parts = _merged_text(segments, tmp_path, with_parts=True)
    from_core = _merged_text(segments, tmp_path, with_parts=False)
    assert set(from_parts) == set(from_core)
    for name, array in from_core.items():
        assert from_parts[name].dtype == array.dtype, name
        assert np.array_equal(from_parts[name], array), name
    assert from_parts["tri.fold"].size >= 1  # the Kelvin sign's file among them, renumbered
    segments.close()


def test_a_source_part_of_another_version_is_built_from_the_core(segments: Segments) -> None:
    plan = segments.plan_merge(everything=True)
    assert plan is not None and segments.data_dir is not None
    sources = segments.merge_sources(plan)
    cores = [(CoreColumns(open_container(segments.data_dir / s.core.name, s.core)), s.alive) for s in sources]
    assert _part_sources(segments.data_dir, sources, cores, TextPart()) is not None

    class NewerText(TextPart):
        version = TextPart.version + 1

    assert _part_sources(segments.data_dir, sources, cores, NewerText()) is None
    without = [MergeSource(sources[0].core, sources[0].alive), *sources[1:]]
    assert _part_sources(segments.data_dir, without, cores, TextPart()) is None
    segments.abandon_merge(plan)
    segments.close()

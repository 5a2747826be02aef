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
from maguyva_lsp.index.segment_build import MergeSource, _part_sources
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.text_part import TEXT_PART, TextPart
from maguyva_lsp.store.container import open_container
from maguyva_lsp.store.segment_store import SegmentStore
from tests.unit.merged_parts import analysis, merged_part, package_files

FOLDING = "def kelvin_scale():\n    return '\u212a is the Kelvin sign'\n"


@pytest.fixture()
def segments(tmp_path: Path) -> Segments:
    segments = Segments(SegmentStore(tmp_path, "t", "fp"), INDEX_PARTS)
    segments.save(package_files("index"))
    segments.save([*package_files("parse"), analysis("odd/kelvin.py", FOLDING.encode())])
    segments.save(package_files("store"))
    changed = package_files("index")[3]
    # a file replaced (dead in the first segment), one removed, and a segment whose files all die
    segments.save(
        [analysis(changed.path, changed.text.encode() + b"\n# changed\n", mtime=2)], removed=["index/bm25.py"]
    )
    segments.save(package_files("graph"))
    segments.save([], removed=[a.path for a in package_files("graph")])
    return segments


def _merged_text(segments: Segments, tmp_path: Path, *, with_parts: bool) -> Mapping[str, np.ndarray]:
    return merged_part(segments, tmp_path, TEXT_PART, with_parts=with_parts)


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


def test_sources_of_consecutive_files_merge_without_a_sort(tmp_path: Path) -> None:
    """Segments whose files do not interleave (a cold build's: consecutive files) merge their BM25 postings by
    counting (text_merge._counted); interleaved ones (the fixture's changed file) by sorting: both as the build."""
    segments = Segments(SegmentStore(tmp_path / "store", "t", "fp"), INDEX_PARTS)
    for folder in ("graph", "index", "parse", "store"):
        segments.save(package_files(folder))
    segments.save([], removed=["index/bm25.py"])  # a dead file inside a source
    from_parts = merged_part(segments, tmp_path, TEXT_PART, with_parts=True)
    from_core = merged_part(segments, tmp_path, TEXT_PART, with_parts=False)
    assert set(from_parts) == set(from_core)
    for name, array in from_core.items():
        assert from_parts[name].dtype == array.dtype and np.array_equal(from_parts[name], array), name
    segments.close()


def test_the_counted_merge_declines_interleaved_rows() -> None:
    from maguyva_lsp.index.text_merge import _counted

    keys = [np.array([0, 0, 1], dtype=np.int64), np.array([0, 1], dtype=np.int64)]
    values = [np.ones(3, dtype=np.float32), np.full(2, 2, dtype=np.float32)]
    per_key = np.array([3, 2], dtype=np.int64)
    consecutive = _counted(keys, [np.array([0, 1, 1]), np.array([2, 3])], values, per_key)
    assert consecutive is not None
    assert consecutive.offsets.tolist() == [0, 3, 5] and consecutive.ids.tolist() == [0, 1, 2, 1, 3]
    assert consecutive.values is not None and consecutive.values.tolist() == [1, 1, 2, 1, 2]
    assert _counted(keys, [np.array([0, 2, 1]), np.array([1, 3])], values, per_key) is None  # 2 before 1 in key 0
    assert _counted([keys[0][::-1], keys[1]], [np.array([0, 1, 1]), np.array([2, 3])], values, per_key) is None

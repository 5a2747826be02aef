"""A merge's symbol part made from its segments' symbol parts (index/symbol_merge.py) is the part a build from the
merged core gives, array for array: over real files sharing names across segments, with files that died in the
merged segments (replaced, removed), a segment dead whole, names ASCII folding gets wrong and a merge that leaves
nothing alive; a source whose symbol part is missing or of another version makes the merge build the part from the
core instead, with the same arrays."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.engine import INDEX_PARTS
from maguyva_lsp.index.analysis_columns import CoreColumns, merge_core
from maguyva_lsp.index.segment_build import MergeSource, _part_sources
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.symbol_part import SYMBOL_PART, SymbolPart
from maguyva_lsp.store.container import open_container
from maguyva_lsp.store.segment_store import SegmentStore
from tests.unit.merged_parts import analysis, merged_part, package_files

NAMES = """\
class HTTPServer:
    def Ärger(self, ΣIGMA: int) -> None: ...


def Straße(): ...
def İstanbul(): ...
def parse(): ...
"""


@pytest.fixture()
def segments(tmp_path: Path) -> Segments:
    segments = Segments(SegmentStore(tmp_path, "t", "fp"), INDEX_PARTS)
    segments.save([*package_files("index"), analysis("odd/names.py", NAMES.encode())])
    segments.save(package_files("parse"))
    segments.save(package_files("store"))
    changed = package_files("index")[5]
    # a file replaced (dead in the first segment), two removed, a segment whose files all die, and the names file
    # rewritten so that some of its names live only in the older segment (dead there)
    segments.save(
        [
            analysis(changed.path, changed.text.encode() + b"\ndef added_here(x): ...\n", mtime=2),
            analysis("odd/names.py", "def Straße(): ...\ndef renamed_ÄRGER(): ...\n".encode(), mtime=2),
        ],
        removed=["index/bm25.py", "parse/__init__.py"],
    )
    segments.save(package_files("graph"))
    segments.save([], removed=[a.path for a in package_files("graph")])
    return segments


def _merged_symbols(segments: Segments, tmp_path: Path, *, with_parts: bool) -> Mapping[str, np.ndarray]:
    return merged_part(segments, tmp_path, SYMBOL_PART, with_parts=with_parts)


def _assert_same(merged: Mapping[str, np.ndarray], built: Mapping[str, np.ndarray]) -> None:
    assert set(merged) == set(built)
    for name, array in built.items():
        assert merged[name].dtype == array.dtype, name
        assert np.array_equal(merged[name], array), name


def test_the_merged_symbol_part_is_the_part_built_from_the_merged_core(segments: Segments, tmp_path: Path) -> None:
    from_parts = _merged_symbols(segments, tmp_path, with_parts=True)
    from_core = _merged_symbols(segments, tmp_path, with_parts=False)
    _assert_same(from_parts, from_core)
    assert from_parts["nm.off"].size > 100 and from_parts["word.sig"].size > 100  # a real merge, not an empty one
    assert from_parts["nm.lower.rows"].size >= 1  # a non-ASCII capital's lower case, renumbered
    segments.close()


@pytest.mark.parametrize("dead", ["none", "random", "a segment", "all"])
def test_merging_the_parts_directly_gives_the_built_arrays(segments: Segments, dead: str) -> None:
    plan = segments.plan_merge(everything=True)
    assert plan is not None and segments.data_dir is not None
    sources = segments.merge_sources(plan)
    segments.abandon_merge(plan)
    rng = np.random.default_rng(5)
    chosen: list[MergeSource] = []
    for i, source in enumerate(sources):
        alive = source.alive.copy()
        if dead == "random":
            alive &= rng.random(alive.size) > 0.3
        elif (dead == "a segment" and i == 1) or dead == "all":
            alive[:] = False
        chosen.append(MergeSource(source.core, alive, source.parts))
    cores = [(CoreColumns(open_container(segments.data_dir / s.core.name, s.core)), s.alive) for s in chosen]
    merged = CoreColumns(merge_core(cores))
    part_sources = _part_sources(segments.data_dir, chosen, cores, SymbolPart())
    assert part_sources is not None
    _assert_same(SymbolPart().merge(part_sources, merged), SymbolPart().build(merged))
    segments.close()


def test_a_source_part_missing_or_of_another_version_is_built_from_the_core(segments: Segments) -> None:
    plan = segments.plan_merge(everything=True)
    assert plan is not None and segments.data_dir is not None
    sources = segments.merge_sources(plan)
    cores = [(CoreColumns(open_container(segments.data_dir / s.core.name, s.core)), s.alive) for s in sources]
    assert _part_sources(segments.data_dir, sources, cores, SymbolPart()) is not None

    class NewerSymbols(SymbolPart):
        version = SymbolPart.version + 1

    assert _part_sources(segments.data_dir, sources, cores, NewerSymbols()) is None
    without = [*sources[:-1], MergeSource(sources[-1].core, sources[-1].alive)]
    assert _part_sources(segments.data_dir, without, cores, SymbolPart()) is None
    segments.abandon_merge(plan)
    segments.close()

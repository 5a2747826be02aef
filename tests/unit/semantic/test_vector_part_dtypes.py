"""A vector part's row columns as stored: lines and row-to-file rows uint16 unless a value needs int32, kinds as codes
into the part's kind names; parts built, merged and reopened give back every row exactly, and a reader refuses other
dtypes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.embed.base import pack_signs, quantize_int8, unit_rows
from maguyva_lsp.index.vector_part import (
    FileRows,
    RowColumns,
    RowRef,
    RowVectors,
    VectorPart,
    VectorPartError,
    build_part,
    merge_parts,
    part_meta,
)
from maguyva_lsp.index.vector_strings import BLOCK_ROWS, BlockStrings, block_arrays
from maguyva_lsp.store.container import open_container, write_container

DIM = 64
META = part_meta("test-model", DIM, "style:1", has_floats=True)
KINDS = ("function", "class", None, "method")


def _file(path: str, rows: int, *, first_line: int = 0) -> FileRows:
    refs = [
        RowRef(
            path,
            first_line + 10 * i,
            first_line + 10 * i + 9,
            bytes([i % 256]) * 16,
            f"sym{i}" if i % 3 else None,
            KINDS[i % len(KINDS)],
            f"def sym{i}():",
            i % 80,
        )
        for i in range(rows)
    ]
    return FileRows(path, f"tag-{path}", f"content-{path}", refs)


def _vectors(rows: int, seed: int = 0) -> RowVectors:
    floats = unit_rows(np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32))
    quantized, scales = quantize_int8(floats)
    return RowVectors(pack_signs(floats), quantized, scales)


def _rows(part: VectorPart) -> list[RowRef]:
    return part.refs(np.arange(part.n))


def _reopened(part: VectorPart, tmp_path: Path) -> VectorPart:
    write_container(tmp_path / "part.mgv", part.arrays(), part.meta)
    container = open_container(tmp_path / "part.mgv")
    return VectorPart(container.arrays, container.meta)


def test_small_values_are_stored_as_uint16_and_kinds_as_codes(tmp_path: Path) -> None:
    files = [_file("b.py", 5), _file("a.py", 3)]
    part = build_part(META, files, _vectors(8))
    arrays = part.arrays()
    for name in ("row.start", "row.end", "row.end_col", "row.path"):
        assert arrays[name].dtype == np.uint16, name
    assert arrays["row.kind"].dtype == np.uint8
    assert "row.kind.blob" not in arrays and len(part.kind_names) == len(KINDS)
    expected = [*files[1].refs, *files[0].refs]  # path order
    assert _rows(part) == expected
    assert _rows(_reopened(part, tmp_path)) == expected
    assert [part.ref(i) for i in range(part.n)] == expected


def test_a_line_past_uint16_keeps_int32_lines_and_merges_exactly(tmp_path: Path) -> None:
    far = _file("far.py", 4, first_line=70_000)
    near = _file("near.py", 6)
    far_part = build_part(META, [far], _vectors(4, 1))
    near_part = build_part(META, [near], _vectors(6, 2))
    assert far_part.arrays()["row.start"].dtype == np.int32
    assert near_part.arrays()["row.start"].dtype == np.uint16
    merged = merge_parts([(far_part, np.ones(1, bool)), (near_part, np.ones(1, bool))], META)
    assert merged.arrays()["row.start"].dtype == np.int32 and merged.arrays()["row.end_col"].dtype == np.uint16
    assert _rows(merged) == [*far.refs, *near.refs]
    assert _rows(_reopened(merged, tmp_path)) == [*far.refs, *near.refs]
    assert np.array_equal(merged.rescore, np.concatenate([far_part.rescore, near_part.rescore]))


def test_merging_parts_with_other_kind_names_recodes_them() -> None:
    one = _file("a.py", 2)  # kinds: function, class
    two = FileRows("b.py", "t", "c", [r._replace(path="b.py", kind="interface") for r in _file("b.py", 3).refs])
    merged = merge_parts(
        [
            (build_part(META, [one], _vectors(2)), np.ones(1, bool)),
            (build_part(META, [two], _vectors(3)), np.ones(1, bool)),
        ],
        META,
    )
    assert [r.kind for r in _rows(merged)] == ["function", "class", "interface", "interface", "interface"]


def test_a_reader_refuses_row_columns_of_another_dtype() -> None:
    part = build_part(META, [_file("a.py", 4)], _vectors(4))
    arrays = part.arrays()
    for name, dtype in (("row.start", np.int64), ("row.path", np.int16), ("row.kind", np.int32)):
        with pytest.raises(VectorPartError, match=name):
            VectorPart({**arrays, name: arrays[name].astype(dtype)}, part.meta)
    with pytest.raises(VectorPartError, match="kind codes"):
        VectorPart({**arrays, "row.kind": arrays["row.kind"] + np.uint8(9)}, part.meta)


def test_codes_and_int8_rows_read_back_exactly_through_a_merge(tmp_path: Path) -> None:
    floats = unit_rows(np.random.default_rng(3).standard_normal((50, DIM)).astype(np.float32))
    floats[:, 5] = 1e-6  # rounds to 0: the code still says positive
    quantized, scales = quantize_int8(floats)
    codes = pack_signs(floats)
    part = build_part(META, [_file("a.py", 50)], RowVectors(codes, quantized, scales))
    opened = _reopened(part, tmp_path)
    merged = merge_parts([(opened, np.ones(1, bool))], META)
    for each in (part, opened, merged):
        back = each.vectors(np.arange(50))
        assert np.array_equal(back.codes, codes) and np.array_equal(back.quantized, quantized)
        assert np.array_equal(each.int8_rows(np.arange(50)), quantized)


@pytest.mark.parametrize("count", [0, 1, BLOCK_ROWS, BLOCK_ROWS + 1, 3 * BLOCK_ROWS - 7])
def test_row_strings_in_frames_read_back_exactly(count: int) -> None:
    texts = [f"def f{i}(x: int) -> 'é\udcff{i}'" * (i % 4) for i in range(count)]
    arrays = block_arrays("row.snippet", texts)
    column = BlockStrings(arrays["row.snippet.z"], arrays["row.snippet.zoff"], count)
    assert column.to_list() == texts
    rows = list(range(count))[::-3] + list(range(0, count, 5))
    assert column.take(rows) == [texts[r] for r in rows]
    with pytest.raises(ValueError, match="frames"):
        BlockStrings(arrays["row.snippet.z"], arrays["row.snippet.zoff"], count + BLOCK_ROWS)
    with pytest.raises(ValueError, match="dtypes"):
        BlockStrings(arrays["row.snippet.z"], arrays["row.snippet.zoff"].astype(np.int16), count)


def test_rows_given_as_columns_build_the_part_references_build() -> None:
    """Rows as columns (what a cold build's workers send) and as references give the same part, array for array,
    also mixed in one build."""
    files = [_file("b.py", 5), _file("a.py", 3, first_line=70_000), _file("empty.py", 0), _file("c.py", 4)]
    vectors = _vectors(12)
    as_refs = build_part(META, files, vectors, ["gone.py"])
    columns = [FileRows(f.path, f.tag, f.content, RowColumns.of(f.refs)) for f in files]
    mixed = [columns[0], files[1], columns[2], files[3]]
    for given in (columns, mixed):
        part = build_part(META, given, vectors, ["gone.py"])
        assert part.meta == as_refs.meta
        assert part.arrays().keys() == as_refs.arrays().keys()
        for name, array in as_refs.arrays().items():
            got = np.asarray(part.arrays()[name])
            assert got.dtype == np.asarray(array).dtype and got.tobytes() == np.asarray(array).tobytes(), name
        assert _rows(part) == _rows(as_refs)


def test_row_columns_must_fit_together() -> None:
    refs = list(_file("a.py", 3).refs)
    good = RowColumns.of(refs)
    assert len(good) == 3
    with pytest.raises(ValueError, match="different lengths"):
        RowColumns(good.starts, good.ends[:2], good.end_cols, good.hashes, good.symbols, good.kinds, good.snippets)
    with pytest.raises(ValueError, match="16 bytes"):
        RowColumns(good.starts, good.ends, good.end_cols, good.hashes[:-1], good.symbols, good.kinds, good.snippets)
    with pytest.raises(ValueError, match="16 bytes"):
        RowColumns.of([refs[0]._replace(text_hash=b"short")])

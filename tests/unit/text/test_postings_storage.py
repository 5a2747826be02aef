"""Posting lists stored narrow (plain uint16 ids, gap-coded ids, uint8 values with the wide ones kept aside) read
back as the same ids and values (as uint32 / float32), list by list."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from maguyva_lsp.index.text_postings import PostingLists
from maguyva_lsp.store.container import ContainerError


def _postings(top_id: int, values: list[float] | None) -> PostingLists:
    keys = np.array([5, 5, 9, 9, 9], dtype=np.uint32)
    ids = np.array([0, top_id, 1, 2, top_id], dtype=np.uint32)
    return PostingLists.from_pairs(keys, ids, None if values is None else np.array(values, dtype=np.float32))


def _read_back(postings: PostingLists, arrays: dict[str, Any], keys: list[int]) -> None:
    stored = PostingLists.from_arrays(arrays, "p")
    starts, ends = stored.ranges(np.array(keys, dtype=np.uint32))
    built_starts, built_ends = postings.ranges(np.array(keys, dtype=np.uint32))
    assert starts.tolist() == built_starts.tolist() and ends.tolist() == built_ends.tolist()
    together = stored.lists_of(starts, ends)  # decoded in one go: the same lists
    assert [ids.tolist() for ids in together] == [postings.ids[a:b].tolist() for a, b in zip(starts, ends, strict=True)]
    assert all(ids.dtype == np.uint32 for ids in together)
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        ids = stored.ids_of(start, end)
        assert ids.dtype == np.uint32
        assert ids.tolist() == postings.ids[start:end].tolist()
        if postings.values is not None:
            got = stored.values_of(start, end)
            assert got.dtype == np.float32 and got.tobytes() == postings.values[start:end].tobytes()


@pytest.mark.parametrize(
    ("top_id", "values", "ids_dtype", "values_dtype"),
    [
        (7, [1, 2, 3, 255, 4], np.uint16, np.uint8),
        (70_000, [1, 2, 3, 256, 4], np.uint32, np.uint8),
        (7, [1, 2.5, 3, 1, 4], np.uint16, np.float32),
        (7, [1, 2, 3, 70_000, 4], np.uint16, np.uint8),
        (7, [1, 2, -3, 1, 4], np.uint16, np.float32),
    ],
)
def test_narrow_storage_reads_back_the_same(
    top_id: int, values: list[float], ids_dtype: type, values_dtype: type
) -> None:
    postings = _postings(top_id, values)
    arrays = postings.to_arrays("p", narrow_ids=True)
    assert arrays["p.ids"].dtype == ids_dtype and arrays["p.values"].dtype == values_dtype
    assert arrays["p.off"].dtype == np.uint32
    _read_back(postings, arrays, [5, 9, 6])


def _gap_postings(lists: list[list[int]]) -> PostingLists:
    keys = np.repeat(np.arange(len(lists), dtype=np.uint32), [len(ids) for ids in lists])
    ids = np.array([i for ids in lists for i in ids], dtype=np.uint32)
    tf = np.arange(1, ids.size + 1, dtype=np.float32) * 37  # past 255 from the 7th on: kept aside
    if not lists:
        return PostingLists.empty(True)
    return PostingLists.from_pairs(keys, ids, tf)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_gap_coded_ids_read_back_the_same_at_the_edges(dtype: type[np.unsignedinteger[Any]]) -> None:
    top = int(np.iinfo(dtype).max)
    lists = [
        [0],  # the first gap is id + 1
        [top - 1],  # first gap exactly the largest narrow one
        [top],  # first gap one past it: kept aside
        [0, top, top + 1, 2 * top + 1, 2 * top + 3],  # gaps top, 1, top, 2
        [
            5,
            5 + top + 1,
            5 + 3 * top,
            5 + 3 * top + 70_000,
            5_000_000,
        ],  # gaps past the narrow range in the middle and the end
        [3, 4, 5, 6],
        [2**32 - 2, 2**32 - 1],  # the widest ids
    ]
    postings = _gap_postings(lists)
    arrays = postings.to_arrays("p", id_gaps=dtype, dense_keys=True)
    assert "p.keys" not in arrays and "p.ids" not in arrays
    assert arrays["p.gaps"].dtype == dtype and arrays["p.gaps.at"].dtype == np.uint32
    assert arrays["p.gaps.at"].size >= 4  # the escape is exercised
    _read_back(postings, arrays, [*range(len(lists)), len(lists), 2**31])


def test_wide_entries_kept_aside_are_as_narrow_as_they_fit() -> None:
    postings = _gap_postings([[0, 300, 70_000], [5, 2_000]])
    arrays = postings.to_arrays("p", id_gaps=np.uint8, dense_keys=True)
    assert arrays["p.gaps.full"].dtype == np.uint32  # the gap 69,700
    small = _gap_postings([[0, 300, 7_000], [5, 2_000]]).to_arrays("p", id_gaps=np.uint8, dense_keys=True)
    assert small["p.gaps.full"].dtype == np.uint16 and small["p.values.full"].dtype == np.uint16
    _read_back(postings, arrays, [0, 1])


def test_split_ids_read_back_the_same_at_the_edges() -> None:
    lists = [
        [0],
        [65_535],  # the largest low half, no step
        [65_536],  # the first id steps
        [1, 65_535, 65_536, 65_537, 3 * 65_536 + 4],  # a step of one, then a step of two
        [70_000, 70_001],
        [2**32 - 2, 2**32 - 1],  # the widest ids: 65,535 steps on one position
    ]
    postings = _gap_postings(lists)
    arrays = postings.to_arrays("p", split_ids=True, dense_keys=True)
    assert arrays["p.low"].dtype == np.uint16 and arrays["p.low.steps"].dtype == np.uint32
    assert "p.ids" not in arrays and "p.keys" not in arrays
    _read_back(postings, arrays, [*range(len(lists)), len(lists)])
    with pytest.raises(ContainerError, match="low"):
        PostingLists.from_arrays({**arrays, "p.low": arrays["p.low"].astype(np.uint32)}, "p")


def test_empty_postings_round_trip() -> None:
    postings = PostingLists.empty(True)
    for arrays in (
        postings.to_arrays("p", id_gaps=np.uint16, dense_keys=True),
        postings.to_arrays("p", split_ids=True, dense_keys=True),
        postings.to_arrays("p"),
    ):
        stored = PostingLists.from_arrays(arrays, "p")
        starts, ends = stored.ranges(np.array([0, 3], dtype=np.uint32))
        assert starts.tolist() == ends.tolist() == [0, 0]
        assert stored.ids_of(0, 0).size == 0 and stored.values_of(0, 0).size == 0


def test_dense_keys_must_be_ranks() -> None:
    with pytest.raises(AssertionError):
        _postings(7, None).to_arrays("p", dense_keys=True)


def test_ids_stay_wide_unless_asked() -> None:
    assert (
        PostingLists.from_pairs(np.array([1], np.uint32), np.array([3], np.uint32), None).to_arrays("p")["p.ids"].dtype
        == np.uint32
    )


def test_a_foreign_dtype_or_a_missing_array_is_refused() -> None:
    arrays = _postings(7, [1, 2, 3, 4, 5]).to_arrays("p", narrow_ids=True)
    with pytest.raises(ContainerError, match="ids"):
        PostingLists.from_arrays({**arrays, "p.ids": arrays["p.ids"].astype(np.int8)}, "p")
    with pytest.raises(ContainerError, match="values"):
        PostingLists.from_arrays({**arrays, "p.values": arrays["p.values"].astype(np.float64)}, "p")
    with pytest.raises(ContainerError, match=r"values\.at"):
        PostingLists.from_arrays({k: v for k, v in arrays.items() if k != "p.values.at"}, "p")
    gapped = _gap_postings([[0, 300], [1]]).to_arrays("p", id_gaps=np.uint8, dense_keys=True)
    with pytest.raises(ContainerError, match="gaps"):
        PostingLists.from_arrays({**gapped, "p.gaps": gapped["p.gaps"].astype(np.int16)}, "p")
    with pytest.raises(ContainerError, match=r"gaps\.full"):
        PostingLists.from_arrays({**gapped, "p.gaps.full": gapped["p.gaps.full"].astype(np.float32)}, "p")

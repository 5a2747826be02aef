"""Posting lists stored narrow where the values fit read back as the same ids and values (as uint32 / float32)."""

from __future__ import annotations

import numpy as np
import pytest

from maguyva_lsp.index.text_postings import PostingLists
from maguyva_lsp.store.container import ContainerError


def _postings(top_id: int, values: list[float] | None) -> PostingLists:
    keys = np.array([5, 5, 9, 9, 9], dtype=np.uint32)
    ids = np.array([0, top_id, 1, 2, top_id], dtype=np.uint32)
    return PostingLists.from_pairs(keys, ids, None if values is None else np.array(values, dtype=np.float32))


@pytest.mark.parametrize(
    ("top_id", "values", "ids_dtype", "values_dtype"),
    [
        (7, [1, 2, 3, 255, 4], np.uint16, np.uint8),
        (70_000, [1, 2, 3, 256, 4], np.uint32, np.uint16),
        (7, [1, 2.5, 3, 1, 4], np.uint16, np.float32),
        (7, [1, 2, 3, 70_000, 4], np.uint16, np.float32),
    ],
)
def test_narrow_storage_reads_back_the_same(
    top_id: int, values: list[float], ids_dtype: type, values_dtype: type
) -> None:
    postings = _postings(top_id, values)
    arrays = postings.to_arrays("p", narrow_ids=True)
    assert arrays["p.ids"].dtype == ids_dtype and arrays["p.values"].dtype == values_dtype
    assert arrays["p.off"].dtype == np.uint32
    stored = PostingLists.from_arrays(arrays, "p")
    starts, ends = stored.ranges(np.array([5, 9, 6], dtype=np.uint32))
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        ids, got = stored.ids_of(start, end), stored.values_of(start, end)
        assert ids.dtype == np.uint32 and got.dtype == np.float32
        assert ids.tolist() == postings.ids[start:end].tolist()
        assert postings.values is not None and got.tobytes() == postings.values[start:end].tobytes()


def test_ids_stay_wide_unless_asked() -> None:
    assert (
        PostingLists.from_pairs(np.array([1], np.uint32), np.array([3], np.uint32), None).to_arrays("p")["p.ids"].dtype
        == np.uint32
    )


def test_a_foreign_dtype_is_refused() -> None:
    arrays = _postings(7, [1, 2, 3, 4, 5]).to_arrays("p", narrow_ids=True)
    with pytest.raises(ContainerError, match="ids"):
        PostingLists.from_arrays({**arrays, "p.ids": arrays["p.ids"].astype(np.int8)}, "p")
    with pytest.raises(ContainerError, match="values"):
        PostingLists.from_arrays({**arrays, "p.values": arrays["p.values"].astype(np.float64)}, "p")

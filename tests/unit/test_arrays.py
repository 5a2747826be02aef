"""arrays.unique / distinct_count give what np.unique gives for integer arrays, by sorting; run_starts finds the runs
of a sorted array as np.unique(return_index=True) does."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from maguyva_lsp.arrays import distinct_count, run_starts, unique


def _cases() -> list[npt.NDArray[np.generic]]:
    rng = np.random.default_rng(7)
    packed = rng.integers(0, 5_000, 20_000) * 75_870 + rng.integers(0, 5_000, 20_000)
    return [
        np.zeros(0, dtype=np.int32),
        np.array([3], dtype=np.int64),
        np.array([2, 2], dtype=np.int32),
        rng.integers(0, 50, 1_000).astype(np.int32),  # many repeats
        np.sort(rng.integers(-1, 1_000_000, 5_000)),  # sorted, with NO_STRING ids
        packed.astype(np.int64),  # the graph's packed (source, target) pairs
        rng.integers(0, 2**63, 3_000, dtype=np.uint64),
        rng.integers(0, 9, (40, 3)).astype(np.int16),  # 2-D: flattened, as np.unique does
    ]


@pytest.mark.parametrize("values", _cases(), ids=lambda a: f"{a.dtype}x{a.size}")
def test_unique_and_distinct_count_match_numpy(values: npt.NDArray[np.generic]) -> None:
    before = values.copy()
    expected = np.unique(values)
    found = unique(values)
    assert found.dtype == expected.dtype
    assert np.array_equal(found, expected)
    assert distinct_count(values) == len(expected)
    assert np.array_equal(values, before)  # the input is not sorted in place


@pytest.mark.parametrize("values", [c for c in _cases() if c.ndim == 1], ids=lambda a: f"{a.dtype}x{a.size}")
def test_run_starts_of_a_sorted_array_match_numpy(values: npt.NDArray[np.generic]) -> None:
    ordered = np.sort(values)
    _, expected = np.unique(ordered, return_index=True)
    assert run_starts(ordered).tolist() == expected.tolist()

"""arrays.unique / distinct_count give what np.unique gives for integer arrays, by sorting; run_starts finds the runs
of a sorted array as np.unique(return_index=True) does."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from maguyva_lsp.arrays import distinct_count, run_starts, spans_text, unique


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


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        ([], b""),
        ([(0, 5)], b"alpha "),
        ([(6, 4), (0, 5)], b"beta alpha "),  # out of order, as a sort by word gives them
        ([(11, 5)], b"gamma "),  # a span that ends the array: its space slot lies past the end
        ([(0, 1), (11, 5), (6, 4), (11, 5)], b"a gamma beta gamma "),  # repeated spans, the last one ending it
    ],
)
def test_spans_text_is_each_span_followed_by_a_space(spans: list[tuple[int, int]], expected: bytes) -> None:
    array = np.frombuffer(b"alpha beta gamma", dtype=np.uint8)
    starts = np.array([start for start, _ in spans], dtype=np.int64)
    lengths = np.array([length for _, length in spans], dtype=np.int64)
    assert spans_text(array, starts, lengths) == expected
    assert spans_text(array, starts, lengths).split() == [bytes(array[s : s + n]) for s, n in spans]
    assert array.tobytes() == b"alpha beta gamma", "the array is read, not written"

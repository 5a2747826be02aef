"""The binary vector store against brute-force references on seeded random data."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from maguyva_lsp.embed.base import Embeddings, pack_signs, unit_rows
from maguyva_lsp.index import vectors
from maguyva_lsp.index.vector_part import FileRows, RowRef
from maguyva_lsp.index.vectors import (
    BinaryVectorStore,
    hamming_distances,
    nearest_rows,
    quantize_int8,
)

DIM = 256


def _key(i: int) -> bytes:
    return i.to_bytes(16, "little")


def _refs(count: int, path: str = "a.py", offset: int = 0) -> list[RowRef]:
    return [RowRef(path, offset + i, offset + i, _key(offset + i)) for i in range(count)]


def _random_floats(rng: np.random.Generator, count: int, dim: int = DIM) -> np.ndarray:
    return unit_rows(rng.standard_normal((count, dim)).astype(np.float32))


def _brute_hamming(codes: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Reference: unpack every bit and count differences, one vector at a time."""
    qbits = np.unpackbits(query)
    return np.array([int(np.count_nonzero(np.unpackbits(row) != qbits)) for row in codes])


def test_pack_signs_sets_a_bit_for_each_positive_component_in_packbits_order() -> None:
    vector = np.array([[1.0, -1.0, 0.0, 2.0, -0.5, 0.1, 0.0, -3.0] * 8], dtype=np.float32)
    codes = pack_signs(vector)
    assert codes.shape == (1, 8)
    assert codes[0, 0] == 0b10010100
    assert np.array_equal(np.unpackbits(codes[0])[:8], [1, 0, 0, 1, 0, 1, 0, 0])


@pytest.mark.parametrize("dim", [64, 256, 1024, 2048])
def test_hamming_distances_match_a_bit_by_bit_reference(dim: int) -> None:
    rng = np.random.default_rng(dim)
    codes = rng.integers(0, 256, (300, dim // 8), dtype=np.uint8)
    query = rng.integers(0, 256, dim // 8, dtype=np.uint8)
    words = np.ascontiguousarray(codes.view(np.uint64).T)
    got = hamming_distances(words, len(codes), query.view(np.uint64))
    assert np.array_equal(got, _brute_hamming(codes, query))


def test_hamming_distances_cross_block_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "SEARCH_BLOCK_ROWS", 7)
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 256, (50, 32), dtype=np.uint8)
    query = rng.integers(0, 256, 32, dtype=np.uint8)
    got = hamming_distances(np.ascontiguousarray(codes.view(np.uint64).T), 50, query.view(np.uint64))
    assert np.array_equal(got, _brute_hamming(codes, query))


def test_search_without_query_floats_ranks_exactly_by_hamming_then_row() -> None:
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 256, (2000, DIM // 8), dtype=np.uint8)
    store = BinaryVectorStore(DIM, "m")
    store.add(_refs(2000), Embeddings(codes))
    query = rng.integers(0, 256, (1, DIM // 8), dtype=np.uint8)
    got = store.search(Embeddings(query), 25)
    reference = _brute_hamming(codes, query[0])
    expected = sorted(range(2000), key=lambda r: (reference[r], r))[:25]
    assert [m.ref.start_line for m in got] == expected
    assert [m.distance for m in got] == [int(reference[r]) for r in expected]


def test_rescoring_orders_candidates_by_float_similarity_not_hamming() -> None:
    rng = np.random.default_rng(2)
    floats = _random_floats(rng, 500)
    store = BinaryVectorStore(DIM, "m")
    store.add(_refs(500), Embeddings(pack_signs(floats), floats))
    query_floats = unit_rows(floats[17:18] + 0.3 * _random_floats(rng, 1))
    got = store.search(Embeddings(pack_signs(query_floats), query_floats), 10)
    assert got[0].ref.start_line == 17
    scores = [m.score for m in got]
    assert scores == sorted(scores, reverse=True)
    # Rescored with int8 document vectors: the exact float order among the Hamming candidates.
    exact = floats @ query_floats[0]
    rows = [m.ref.start_line for m in got]
    assert np.allclose(scores, exact[rows], atol=0.02)
    distances = _brute_hamming(pack_signs(floats), pack_signs(query_floats)[0])
    candidates = sorted(range(500), key=lambda r: (distances[r], r))[: 10 * vectors.RESCORE_MULTIPLE]
    assert rows == sorted(candidates, key=lambda r: -exact[r])[:10]


def test_rescoring_with_bits_only_uses_the_float_query_against_sign_vectors() -> None:
    rng = np.random.default_rng(3)
    floats = _random_floats(rng, 300)
    store = BinaryVectorStore(DIM, "voyage-like")
    store.add(_refs(300), Embeddings(pack_signs(floats)))
    query = unit_rows(floats[5:6] + 0.2 * _random_floats(rng, 1))
    got = store.search(Embeddings(pack_signs(query), query), 5)
    signs = np.unpackbits(pack_signs(floats), axis=1).astype(np.float32) * 2 - 1
    asymmetric = signs @ query[0] / np.sqrt(DIM)
    assert got[0].ref.start_line == 5
    assert np.allclose([m.score for m in got], asymmetric[[m.ref.start_line for m in got]], atol=1e-5)


def test_int8_quantization_round_trips_within_half_a_step() -> None:
    rng = np.random.default_rng(4)
    floats = _random_floats(rng, 50)
    quantized, scales = quantize_int8(floats)
    assert quantized.dtype == np.int8 and np.abs(quantized).max() == 127
    assert np.all(np.abs(quantized * scales[:, None] - floats) <= scales[:, None] / 2 + 1e-7)


def test_tombstoned_rows_never_come_back_and_compaction_keeps_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "COMPACT_MIN_TOMBSTONES", 10)
    rng = np.random.default_rng(6)
    floats = _random_floats(rng, 120)
    store = BinaryVectorStore(DIM, "m")
    for index, path in enumerate(("a.py", "b.py", "c.py")):
        part = slice(40 * index, 40 * (index + 1))
        store.add(_refs(40, path, 40 * index), Embeddings(pack_signs(floats[part]), floats[part]))
    query = Embeddings(pack_signs(floats[45:46]), floats[45:46])
    assert store.search(query, 1)[0].ref.path == "b.py"
    assert store.remove_path("b.py") == 40
    # 40 of 120 rows dead: past the 25% threshold, so the store compacted.
    assert store.tombstones == 0 and store.live_count == 80
    assert all(m.ref.path != "b.py" for m in store.search(query, 80))
    assert len(store.search(query, 500)) == 80
    # After compaction, rows still match their references.
    hit = store.search(Embeddings(pack_signs(floats[100:101]), floats[100:101]), 1)[0]
    assert (hit.ref.path, hit.ref.start_line) == ("c.py", 100)


def test_tombstones_below_the_threshold_wait_for_compaction() -> None:
    rng = np.random.default_rng(7)
    floats = _random_floats(rng, 10)
    store = BinaryVectorStore(DIM, "m")
    store.add(_refs(5, "a.py"), Embeddings(pack_signs(floats[:5]), floats[:5]))
    store.add(_refs(5, "b.py", 5), Embeddings(pack_signs(floats[5:]), floats[5:]))
    store.remove_path("a.py")
    assert store.tombstones == 5 and store.live_count == 5
    assert {m.ref.path for m in store.search(Embeddings(pack_signs(floats[:1]), floats[:1]), 10)} == {"b.py"}
    store.compact()
    assert store.tombstones == 0 and store.paths() == ["b.py"]


def test_replace_swaps_a_path_in_one_step() -> None:
    rng = np.random.default_rng(8)
    floats = _random_floats(rng, 6)
    store = BinaryVectorStore(DIM, "m")
    store.add(_refs(3, "a.py"), Embeddings(pack_signs(floats[:3]), floats[:3]))
    new = [FileRows("a.py", "", "", _refs(3, "a.py", 10))]
    removed = store.replace(["a.py"], new, Embeddings(pack_signs(floats[3:]), floats[3:]))
    assert removed == 3
    assert sorted(ref.start_line for _, ref in store.rows_of("a.py")) == [10, 11, 12]


def test_rejects_bad_shapes_and_mixed_float_rows() -> None:
    with pytest.raises(ValueError, match="multiple of 64"):
        BinaryVectorStore(100, "m")
    store = BinaryVectorStore(DIM, "m")
    floats = _random_floats(np.random.default_rng(11), 2)
    store.add(_refs(1), Embeddings(pack_signs(floats[:1]), floats[:1]))
    with pytest.raises(ValueError, match="cannot share"):
        store.add(_refs(1, "b.py"), Embeddings(pack_signs(floats[1:])))
    with pytest.raises(ValueError, match="references"):
        store.add(_refs(2, "c.py"), Embeddings(pack_signs(floats[1:]), floats[1:]))
    with pytest.raises(ValueError, match="one 256-bit code"):
        store.search(Embeddings(np.zeros((1, 64), dtype=np.uint8)), 1)


def test_empty_store_and_zero_limit_return_nothing() -> None:
    store = BinaryVectorStore(DIM, "m")
    query = Embeddings(np.zeros((1, DIM // 8), dtype=np.uint8))
    assert store.search(query, 10) == []
    store.add(_refs(3), Embeddings(np.zeros((3, DIM // 8), dtype=np.uint8)))
    assert store.search(query, 0) == []
    assert len(store.search(query, 10)) == 3


def test_searches_run_safely_while_one_writer_changes_the_store() -> None:
    rng = np.random.default_rng(12)
    floats = _random_floats(rng, 4000)
    store = BinaryVectorStore(DIM, "m")
    store.add(_refs(200, "base.py"), Embeddings(pack_signs(floats[:200]), floats[:200]))
    query = Embeddings(pack_signs(floats[:1]), floats[:1])
    errors: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        try:
            while not done.is_set():
                hits = store.search(query, 10)
                assert hits and hits[0].ref.path == "base.py" and hits[0].ref.start_line == 0
        except BaseException as exc:  # collected for the main thread
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for batch in range(19):
        path = f"f{batch % 4}.py"
        part = slice(200 + 200 * batch, 400 + 200 * batch)
        rows = [FileRows(path, "", "", _refs(200, path, 1000 * batch))]
        store.replace([path], rows, Embeddings(pack_signs(floats[part]), floats[part]))
    done.set()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.live_count == 200 + 4 * 200


def test_nearest_rows_selects_the_smallest_distances_with_ties_by_row() -> None:
    rng = np.random.default_rng(13)
    distances = rng.integers(0, 65, 5000).astype(np.uint16)
    for wanted in (1, 7, 50, 999, 5000, 6000):
        got = nearest_rows(distances, wanted, 64)
        expected = sorted(range(5000), key=lambda r: (distances[r], r))[:wanted]
        assert list(got) == sorted(expected)


def test_path_tags_follow_their_path() -> None:
    floats = _random_floats(np.random.default_rng(14), 3)
    store = BinaryVectorStore(DIM, "m")
    store.replace([], [FileRows("a.py", "t1", "c1", _refs(2, "a.py"))], Embeddings(pack_signs(floats[:2]), floats[:2]))
    store.replace([], [FileRows("empty.py", "t0", "c0", [])])  # a file without chunks keeps its tag
    second = [FileRows("a.py", "t2", "c2", _refs(1, "a.py", 5))]
    store.replace(["a.py"], second, Embeddings(pack_signs(floats[2:]), floats[2:]))
    assert (store.path_tag("a.py"), store.path_tag("empty.py"), store.path_tag("b.py")) == ("t2", "t0", None)
    assert store.contents() == {"a.py": "c2", "empty.py": "c0"}
    assert store.paths() == ["a.py", "empty.py"]
    store.remove_path("a.py")
    assert store.path_tag("a.py") is None and store.paths() == ["empty.py"]

"""The on-disk embedding cache: keys, persistence across instances, damaged files, sharing between connections."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.embed.base import Embeddings, pack_signs, quantize_int8, unit_rows
from maguyva_lsp.store import embedding_cache
from maguyva_lsp.store.embedding_cache import CACHE_FILE, EmbeddingCache, text_hash

DIM = 256


def _embeddings(count: int, seed: int, with_floats: bool = True) -> Embeddings:
    floats = unit_rows(np.random.default_rng(seed).standard_normal((count, DIM)).astype(np.float32))
    return Embeddings(pack_signs(floats), floats if with_floats else None)


def test_text_hash_is_stable_and_distinguishes_texts() -> None:
    assert text_hash("def f(): pass") == text_hash("def f(): pass")
    assert text_hash("a") != text_hash("b")
    assert len(text_hash("")) == embedding_cache.TEXT_HASH_BYTES
    assert text_hash("\ud800 lone surrogate")  # never raises on odd text


def test_put_then_get_across_instances(tmp_path: Path) -> None:
    keys = [text_hash(f"text {i}") for i in range(5)]
    emb = _embeddings(5, 1)
    first = EmbeddingCache(tmp_path / CACHE_FILE)
    first.put("m", DIM, keys, emb)
    first.close()
    second = EmbeddingCache(tmp_path / CACHE_FILE)
    assert len(second) == 5
    found = second.get("m", DIM, [*keys[:3], text_hash("absent")])
    assert set(found) == set(keys[:3])
    codes, quantized, scale = found[keys[1]]
    assert np.array_equal(codes, emb.codes[1])
    assert quantized is not None and scale is not None and emb.floats is not None
    # Stored as the vectors store keeps a row (int8 and its scale), bit for bit.
    expected_q, expected_scale = quantize_int8(emb.floats)
    assert np.array_equal(quantized, expected_q[1]) and scale == float(expected_scale[1])


def test_model_and_dimension_are_part_of_the_key(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / CACHE_FILE)
    key = text_hash("same text")
    cache.put("model-a", DIM, [key], _embeddings(1, 2))
    assert cache.get("model-b", DIM, [key]) == {}
    assert cache.get("model-a", 512, [key]) == {}
    assert set(cache.get("model-a", DIM, [key])) == {key}


def test_rows_without_floats_and_many_keys(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / CACHE_FILE)
    keys = [text_hash(str(i)) for i in range(2500)]  # more than one SELECT batch
    emb = _embeddings(2500, 3, with_floats=False)
    cache.put("voyage/x", DIM, keys, emb)
    found = cache.get("voyage/x", DIM, keys)
    assert len(found) == 2500
    assert all(quantized is None and scale is None for _, quantized, scale in found.values())
    assert np.array_equal(found[keys[2000]][0], emb.codes[2000])


def test_memory_cache_without_a_path() -> None:
    cache = EmbeddingCache(None)
    key = text_hash("x")
    cache.put("m", DIM, [key], _embeddings(1, 4))
    assert set(cache.get("m", DIM, [key])) == {key}


def test_a_corrupt_file_is_discarded_with_a_logged_reason(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / CACHE_FILE
    path.write_bytes(b"this is not a database" * 200)
    with caplog.at_level(logging.WARNING, logger="maguyva_lsp.store.embedding_cache"):
        cache = EmbeddingCache(path)
    assert "discarding the embedding cache" in caplog.text
    key = text_hash("after")
    cache.put("m", DIM, [key], _embeddings(1, 5))
    assert set(cache.get("m", DIM, [key])) == {key}


def test_a_cache_of_another_schema_version_is_discarded(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / CACHE_FILE
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE embeddings (x)")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING):
        cache = EmbeddingCache(path)
    assert "schema version 99" in caplog.text
    assert len(cache) == 0


def test_damage_anywhere_in_the_file_is_a_miss_then_an_empty_cache(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    good = tmp_path / "good.sqlite3"
    keys = [text_hash(str(i)) for i in range(3000)]
    original = EmbeddingCache(good)
    original.put("m", DIM, keys, _embeddings(3000, 9, with_floats=False))
    original.close()
    data = good.read_bytes()
    found_at_open = found_at_read = 0
    page = 4096
    for offset in range(2 * page, len(data), 8 * page):  # page 1 holds the header: damage past it
        damaged = tmp_path / f"damaged-{offset}.sqlite3"
        damaged.write_bytes(data[:offset] + b"\xff" * page + data[offset + page :])
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            cache = EmbeddingCache(damaged)
            rows_at_open = len(cache)
            got = cache.get("m", DIM, keys)
        assert len(got) in (0, 3000)
        if not got:
            assert "discarding the embedding cache" in caplog.text
            found_at_open += rows_at_open == 0
            found_at_read += rows_at_open > 0
            cache.put("m", DIM, keys[:1], _embeddings(1, 9, with_floats=False))
            assert set(cache.get("m", DIM, keys[:1])) == {keys[0]}, "a fresh cache works after the discard"
        cache.close()
    # Both ways of finding damage happened: while opening, and on a later read.
    assert found_at_open and found_at_read


def test_wrong_sized_rows_are_misses(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / CACHE_FILE)
    key = text_hash("k")
    cache.put("m", DIM, [key], _embeddings(1, 7))
    assert cache.get("m", 512, [key]) == {}  # another dimension: another key, so a miss
    conn = sqlite3.connect(tmp_path / CACHE_FILE)
    conn.execute("UPDATE embeddings SET codes = x'00'")
    conn.commit()
    conn.close()
    assert cache.get("m", DIM, [key]) == {}
    cache.put("m", DIM, [text_hash("j")], _embeddings(1, 8))
    conn = sqlite3.connect(tmp_path / CACHE_FILE)
    conn.execute("UPDATE embeddings SET rescore = x'0000'")
    conn.commit()
    conn.close()
    assert cache.get("m", DIM, [text_hash("j")]) == {}


def test_two_connections_share_the_file(tmp_path: Path) -> None:
    path = tmp_path / CACHE_FILE
    writer, reader = EmbeddingCache(path), EmbeddingCache(path)
    keys = [text_hash(f"k{i}") for i in range(10)]
    writer.put("m", DIM, keys, _embeddings(10, 8))
    assert len(reader.get("m", DIM, keys)) == 10
    reader.put("m", DIM, keys[:5], _embeddings(5, 8))  # duplicates are ignored, not an error
    assert len(writer.get("m", DIM, keys)) == 10


def test_pruning_keeps_the_cache_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding_cache, "MAX_CACHE_ROWS", 100)
    cache = EmbeddingCache(tmp_path / CACHE_FILE)
    for batch in range(3):
        keys = [text_hash(f"{batch}-{i}") for i in range(50)]
        cache.put("m", DIM, keys, _embeddings(50, batch))
    assert len(cache) <= 100
    assert len(cache) >= int(100 * embedding_cache.PRUNE_TO_FRACTION)


def test_an_unusable_location_keeps_the_cache_in_memory(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    with caplog.at_level(logging.WARNING):
        cache = EmbeddingCache(blocker / CACHE_FILE)
    assert "in memory only" in caplog.text and cache.path is None
    key = text_hash("k")
    cache.put("m", DIM, [key], _embeddings(1, 15))
    assert set(cache.get("m", DIM, [key])) == {key}


def test_a_read_only_cache_answers_but_is_never_deleted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / CACHE_FILE
    keys = [text_hash("a"), text_hash("b")]
    writer = EmbeddingCache(path)
    writer.put("m", DIM, keys[:1], _embeddings(1, 16))
    writer.close()
    reader = EmbeddingCache(path)
    reader._conn.execute("PRAGMA query_only = ON")  # what a read-only file gives: reads work, writes fail
    with caplog.at_level(logging.WARNING):
        reader.put("m", DIM, keys[1:], _embeddings(1, 17))
    assert "unavailable for this batch" in caplog.text
    assert set(reader.get("m", DIM, keys)) == {keys[0]}
    assert path.exists()


@pytest.mark.parametrize("dropped", [1, 150, 299, 300])
def test_delete_keeps_exactly_the_other_rows_and_gives_the_space_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dropped: int
) -> None:
    monkeypatch.setattr(embedding_cache, "COMPACT_MIN_FREE_PAGES", 4)
    keys = [text_hash(f"text {i}") for i in range(300)]
    cache = EmbeddingCache(tmp_path / CACHE_FILE)
    cache.put("m", DIM, keys, _embeddings(300, 2))
    cache.put("other", DIM, keys[:10], _embeddings(10, 3))  # another model's rows with the same keys stay
    full = sum(f.stat().st_size for f in tmp_path.glob(f"{CACHE_FILE}*"))  # the rows may sit in the WAL yet
    cache.delete("m", DIM, {*keys[:dropped], text_hash("never cached")})
    assert len(cache) == 300 - dropped + 10
    assert cache.keys("m", DIM) == set(keys[dropped:]) and cache.keys("other", DIM) == set(keys[:10])
    kept = cache.get("m", DIM, keys)
    assert set(kept) == set(keys[dropped:])
    cache.close()
    if dropped >= 299:
        assert sum(f.stat().st_size for f in tmp_path.glob(f"{CACHE_FILE}*")) < full / 4
    again = EmbeddingCache(tmp_path / CACHE_FILE)
    assert len(again) == 300 - dropped + 10
    again.close()

"""The vector chain over the real segment store: exported, committed in a manifest, mapped again; equal to a fresh
build whatever the history of deltas, tombstones, merges and compactions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from maguyva_lsp.embed.base import Embeddings, pack_signs, unit_rows
from maguyva_lsp.index import vectors
from maguyva_lsp.index.segment_parts import ChainExport
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.index.vector_part import VECTORS_PART, FileRows, RowRef
from maguyva_lsp.index.vectors import BinaryVectorStore, VectorStoreError
from maguyva_lsp.store.container import Container, ContainerRecord
from maguyva_lsp.store.segment_store import SegmentStore

DIM = 256
MODEL = "model-x"
TEXT = "words:1"


@dataclass(frozen=True)
class Stored:
    """Arrays and meta as a container holds them, made by hand."""

    arrays: dict[str, Any]
    meta: dict[str, Any]


class StoreChain:
    """A bare store as the segment set's chain part (the retriever's VectorChain does the same), noting what each
    export was."""

    name = VECTORS_PART

    def __init__(self, store: BinaryVectorStore) -> None:
        self.store = store
        self.kinds: list[str] = []

    def export(self) -> ChainExport:
        exported = self.store.export()
        self.kinds.append("base" if exported.base else "delta" if exported.containers else "none")
        return exported

    def export_failed(self) -> None:
        self.store.export_failed()

    def open(self, containers: Sequence[Container], records: Sequence[ContainerRecord] = ()) -> None:
        self.store.open(containers)


def attached(folder: Path, store: BinaryVectorStore) -> tuple[Segments, StoreChain]:
    """A segment set over the folder with the store's chain attached (the engine's writer side)."""
    segments = Segments(SegmentStore(folder, "schema", "fingerprint"))
    chain = StoreChain(store)
    segments.attach_chain(chain)
    return segments, chain


def reopened(folder: Path, dimension: int = DIM, model: str = MODEL, text: str = TEXT) -> BinaryVectorStore:
    """The chain the folder's manifest names, opened in a new store (a reader beside the writer, or a restart)."""
    fresh = BinaryVectorStore(dimension, model, text)
    segments, _ = attached(folder, fresh)
    segments.close()
    return fresh


class Corpus:
    """Random files of random rows with their float vectors, as a retriever would give them."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.files: dict[str, tuple[FileRows, np.ndarray]] = {}
        self.version = 0

    def make(self, path: str, rows: int | None = None) -> tuple[FileRows, np.ndarray]:
        self.version += 1
        count = int(self.rng.integers(0, 9)) if rows is None else rows
        floats = unit_rows(self.rng.standard_normal((count, DIM)).astype(np.float32))
        if count > 1 and self.rng.random() < 0.3:
            floats[1] = floats[0]  # a duplicated chunk: equal scores, so ties must be broken the same way
        refs = [
            RowRef(path, 3 * i, 3 * i + 2, self.rng.bytes(16), f"s{i}" if i % 2 else None, "function", f"def s{i}", i)
            for i in range(count)
        ]
        entry = (FileRows(path, f"tag{self.version}", f"content{self.version}", refs), floats)
        self.files[path] = entry
        return entry

    def fresh(self) -> BinaryVectorStore:
        """One store built in one step from the current files."""
        store = BinaryVectorStore(DIM, MODEL, TEXT)
        entries = [self.files[p] for p in sorted(self.files)]
        floats = np.concatenate([f for _, f in entries]) if entries else np.zeros((0, DIM), np.float32)
        store.replace((), [rows for rows, _ in entries], Embeddings(pack_signs(floats), floats))
        return store


def apply(
    store: BinaryVectorStore, corpus: Corpus, changed: list[str], removed: list[str], rows: int | None = None
) -> None:
    for path in removed:
        corpus.files.pop(path, None)
    entries = [corpus.make(path, rows) for path in changed]
    floats = np.concatenate([f for _, f in entries]) if entries else np.zeros((0, DIM), np.float32)
    store.replace([*changed, *removed], [rows for rows, _ in entries], Embeddings(pack_signs(floats), floats))


def answers(store: BinaryVectorStore, queries: np.ndarray, k: int = 25) -> list[list[tuple[RowRef, int, float]]]:
    out = []
    for query in queries:
        floats = query[None, :]
        out.append([(m.ref, m.distance, m.score) for m in store.search(Embeddings(pack_signs(floats), floats), k)])
        out.append([(m.ref, m.distance, m.score) for m in store.search(Embeddings(pack_signs(floats)), k)])
    return out


def same_content(a: BinaryVectorStore, b: BinaryVectorStore, queries: np.ndarray) -> None:
    assert a.paths() == b.paths()
    assert a.contents() == b.contents()
    assert [a.path_tag(p) for p in a.paths()] == [b.path_tag(p) for p in b.paths()]
    assert a.live_count == b.live_count
    assert answers(a, queries) == answers(b, queries)


def test_a_reopened_chain_answers_exactly_as_before(tmp_path: Path) -> None:
    corpus = Corpus(1)
    store = BinaryVectorStore(DIM, MODEL, TEXT)
    segments, _ = attached(tmp_path, store)
    apply(store, corpus, [f"f{i}.py" for i in range(40)], [])
    segments.commit_chains()
    apply(store, corpus, ["f3.py", "new.py"], ["f7.py"])
    segments.commit_chains()
    segments.close()
    queries = unit_rows(corpus.rng.standard_normal((6, DIM)).astype(np.float32))
    again = reopened(tmp_path)
    same_content(store, again, queries)
    assert again.tombstones == store.tombstones
    # Mapped, read-only: nothing was copied into memory.
    assert all(not part.words.flags.writeable for part in again._snap.parts)


def test_deltas_tombstones_merges_and_compactions_equal_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "COMPACT_MIN_TOMBSTONES", 40)
    corpus = Corpus(2)
    queries = unit_rows(corpus.rng.standard_normal((5, DIM)).astype(np.float32))
    store = BinaryVectorStore(DIM, MODEL, TEXT)
    segments, chain = attached(tmp_path, store)
    apply(store, corpus, [f"d{i % 7}/f{i}.py" for i in range(120)], [])
    segments.commit_chains()
    for step in range(60):
        paths = sorted(corpus.files)
        changed = [p for p in paths if corpus.rng.random() < 0.03] + [f"new{step}.py"] * int(step % 5 == 0)
        removed = [p for p in paths if p not in changed and corpus.rng.random() < 0.01]
        apply(store, corpus, changed, removed)
        if step % 3 == 0:
            segments.commit_chains()
            same_content(corpus.fresh(), reopened(tmp_path), queries)
        if step % 10 == 0:
            same_content(corpus.fresh(), store, queries)
    segments.close()
    assert {"base", "delta"} <= set(chain.kinds)
    same_content(corpus.fresh(), store, queries)
    store.compact()
    assert store.part_count == 1 and store.tombstones == 0
    same_content(corpus.fresh(), store, queries)


def test_the_chain_stays_short_under_many_small_changes() -> None:
    corpus = Corpus(3)
    store = BinaryVectorStore(DIM, MODEL, TEXT)
    apply(store, corpus, [f"f{i}.py" for i in range(300)], [])
    for step in range(200):
        apply(store, corpus, [f"f{step % 300}.py"], [])
        assert store.part_count <= 12
    assert store.live_count == corpus.fresh().live_count


def test_an_export_keeps_what_is_stored_and_a_failed_one_is_rewritten() -> None:
    corpus = Corpus(4)
    store = BinaryVectorStore(DIM, MODEL, TEXT)
    apply(store, corpus, [f"f{i}.py" for i in range(50)], [])
    first = store.export()
    assert first.base and len(first.containers) == 1
    assert store.export() == ChainExport(base=False)  # nothing new
    apply(store, corpus, ["f1.py"], [], rows=4)
    delta = store.export()
    assert not delta.base and delta.replaces == 0 and len(delta.containers) == 1  # appended after the base
    apply(store, corpus, ["f2.py"], [], rows=4)
    assert store.part_count == 2  # the new small part merged into the stored delta ...
    merged = store.export()  # ... so the merged one replaces it
    assert not merged.base and merged.replaces == 1 and len(merged.containers) == 1
    store.export_failed()
    apply(store, corpus, ["f3.py"], [])
    again = store.export()
    assert again.base and len(again.containers) == store.part_count


def test_an_empty_store_exports_an_empty_base_once_and_open_of_nothing_is_empty() -> None:
    store = BinaryVectorStore(DIM, MODEL, TEXT)
    assert store.export() == ChainExport(base=True, containers=[])  # whatever was stored is not this store's
    assert store.export() == ChainExport(base=False)
    store.open([])
    assert store.live_count == 0 and store.search(Embeddings(np.zeros((1, 32), np.uint8)), 3) == []


def test_a_chain_of_another_model_dimension_or_format_is_refused(tmp_path: Path) -> None:
    corpus = Corpus(5)
    store = BinaryVectorStore(DIM, MODEL, TEXT)
    segments, _ = attached(tmp_path, store)
    apply(store, corpus, ["a.py", "b.py"], [])
    segments.commit_chains()
    segments.close()
    with pytest.raises(VectorStoreError, match="not 'other'"):
        reopened(tmp_path, model="other")
    with pytest.raises(VectorStoreError, match="/512"):
        reopened(tmp_path, dimension=512)

    store.export_failed()
    arrays, meta = store.export().containers[0]
    foreign = Stored({"words": np.zeros((4, 0), np.uint64)}, {**meta, "format": 99})
    with pytest.raises(VectorStoreError, match="format 99"):
        BinaryVectorStore(DIM, MODEL, TEXT).open([foreign])

    damaged = dict(arrays)
    damaged["row.start"] = damaged["row.start"][:-1]

    with pytest.raises(VectorStoreError, match="inconsistent contents"):
        BinaryVectorStore(DIM, MODEL, TEXT).open([Stored(damaged, meta)])


def test_rows_of_another_embedded_text_answer_but_count_as_stale(tmp_path: Path) -> None:
    corpus = Corpus(6)
    store = BinaryVectorStore(DIM, MODEL, "words:1")
    segments, _ = attached(tmp_path, store)
    apply(store, corpus, ["a.py", "b.py"], [])
    segments.commit_chains()
    segments.close()
    newer = reopened(tmp_path, text="words:2")
    assert newer.live_count == store.live_count
    assert newer.path_tag("a.py") is None and newer.contents() == {"a.py": None, "b.py": None}
    assert store.path_tag("a.py") is not None

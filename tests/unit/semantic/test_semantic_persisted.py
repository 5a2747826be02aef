"""The semantic retriever over a stored chain, as the engine drives it: export at commits, open at start, `stale`
for the files the vectors lag behind; a restart embeds nothing and asks the cache nothing for unchanged files."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from maguyva_lsp.embed.base import Embeddings
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.model import ChangeBatch, Classification, FileAnalysis, Intent, RetrievalQuery
from maguyva_lsp.retrieve.semantic import SemanticRetriever
from maguyva_lsp.store.embedding_cache import CACHE_FILE, CachedRow, EmbeddingCache
from maguyva_lsp.store.manifest import read_manifest
from maguyva_lsp.store.segment_store import SegmentStore

FILES = {
    "app/mail.py": 'def send_email(to, body):\n    """Deliver a message through SMTP."""\n    smtp.send(to, body)\n',
    "app/sums.py": 'def checksum(data):\n    """CRC32 of bytes."""\n    return zlib.crc32(data)\n',
    "app/conf.py": (
        'class Loader:\n    def read_config(self, path):\n        """Parse an INI file."""\n        return ini(path)\n'
    ),
    "app/empty.py": "",
}


class CountingCache(EmbeddingCache):
    """The real embedding cache, counting the keys it is asked for."""

    def __init__(self, path: Path | None) -> None:
        super().__init__(path)
        self.asked = 0

    def get(self, model: str, dimension: int, keys: Sequence[bytes]) -> dict[bytes, CachedRow]:
        self.asked += len(keys)
        return super().get(model, dimension, keys)


def _query(text: str) -> RetrievalQuery:
    return RetrievalQuery(Classification(text, Intent.UNDERSTAND_CODE, 0.75, "test", text))


def _answers(retriever: SemanticRetriever) -> list[list[tuple[str, int, float]]]:
    return [
        [(h.path, h.span.start_line, h.score) for h in retriever.search(_query(q), 10)]
        for q in ("send an email", "checksum of bytes", "read the configuration file")
    ]


def _live(analyses: dict[str, FileAnalysis]) -> dict[str, str]:
    return {path: a.content_hash for path, a in analyses.items()}


def _segments(folder: Path) -> Segments:
    return Segments(SegmentStore(folder, "schema", "fingerprint"))


def _indexed(folder: Path, embedder: Any, *batches: ChangeBatch) -> tuple[SemanticRetriever, Segments]:
    """A retriever attached to a fresh segment set, the batches applied, committed after the first."""
    segments = _segments(folder)
    retriever = SemanticRetriever(embedder, cache=EmbeddingCache(folder / "semantic" / CACHE_FILE))
    segments.attach_chain(retriever.chain)
    for index, batch in enumerate(batches):
        retriever.apply(batch)
        if index == 0:
            segments.commit_chains()
    return retriever, segments


def _restart(folder: Path, embedder: Any) -> tuple[SemanticRetriever, CountingCache, Segments]:
    segments = _segments(folder)
    cache = CountingCache(folder / "semantic" / CACHE_FILE)
    retriever = SemanticRetriever(embedder, cache=cache)
    segments.attach_chain(retriever.chain)
    return retriever, cache, segments


def test_a_restart_reuses_every_vector_without_embedding_or_cache_lookups(
    tmp_path: Path, counting_embedder: Any, analyse: Any
) -> None:
    analyses = {path: analyse(path, text) for path, text in FILES.items()}
    folder = tmp_path / "index"
    retriever, segments = _indexed(folder, counting_embedder, ChangeBatch(updated=tuple(analyses.values())))
    before = _answers(retriever)
    embedded = counting_embedder.texts_embedded
    retriever.close()
    segments.close()

    again, cache, segments = _restart(folder, counting_embedder)
    assert again.stale(_live(analyses)) == ([], [])
    assert again.chunk_count == sum(len(a.chunks) for a in analyses.values())
    assert _answers(again) == before
    # The engine re-applies nothing here; even a re-applied unchanged file costs no embedding and no cache lookup.
    again.apply(ChangeBatch(updated=tuple(analyses.values())))
    assert counting_embedder.texts_embedded == embedded and cache.asked == 0
    assert not again.chain.export().containers
    again.close()
    segments.close()


def test_vectors_that_lag_the_text_index_are_caught_up_from_the_cache(
    tmp_path: Path, counting_embedder: Any, analyse: Any
) -> None:
    analyses = {path: analyse(path, text) for path, text in FILES.items()}
    folder = tmp_path / "index"
    # After the commit, two files are embedded and one removed, then the process dies: in the cache, not stored.
    retriever, segments = _indexed(
        folder,
        counting_embedder,
        ChangeBatch(updated=(analyses["app/mail.py"], analyses["app/sums.py"])),
        ChangeBatch(updated=(analyses["app/conf.py"], analyses["app/empty.py"])),
        ChangeBatch(removed=("app/sums.py",)),
    )
    embedded = counting_embedder.texts_embedded
    retriever.close()
    segments.close()
    del analyses["app/sums.py"]

    again, cache, segments = _restart(folder, counting_embedder)
    changed, gone = again.stale(_live(analyses))
    assert sorted(changed) == ["app/conf.py", "app/empty.py"] and gone == ["app/sums.py"]
    again.apply(ChangeBatch(updated=tuple(analyses[p] for p in changed), removed=tuple(gone)))
    assert counting_embedder.texts_embedded == embedded, "the cache answered for every lagging chunk"
    assert cache.asked == len(analyses["app/conf.py"].chunks)
    assert again.stale(_live(analyses)) == ([], [])
    assert {h.path for h in again.search(_query("checksum"), 20)} == {"app/mail.py", "app/conf.py"}
    # Rows taken from the cache are the rows a fresh embedding gives, bit for bit: the same answers, same scores.
    fresh = SemanticRetriever(counting_embedder)
    fresh.apply(ChangeBatch(updated=tuple(analyses.values())))
    assert _answers(again) == _answers(fresh)
    fresh.close()
    assert again.chain.export().containers, "the catch-up is stored at the next commit"
    again.close()
    segments.close()


def test_a_corrupt_container_is_detected_and_the_vectors_rebuilt(
    tmp_path: Path, counting_embedder: Any, analyse: Any, caplog: pytest.LogCaptureFixture
) -> None:
    analyses = {path: analyse(path, text) for path, text in FILES.items()}
    folder = tmp_path / "index"
    retriever, segments = _indexed(folder, counting_embedder, ChangeBatch(updated=tuple(analyses.values())))
    before = _answers(retriever)
    embedded = counting_embedder.texts_embedded
    retriever.close()
    segments.close()
    manifest = read_manifest(folder)
    assert manifest is not None
    (record,) = manifest.chains["vectors"]
    # One flipped bit in the codes: the header still reads well, the checksum does not.
    path = folder / "data" / record.name
    data = bytearray(path.read_bytes())
    data[-3] ^= 0x10
    path.write_bytes(bytes(data))

    again, _, segments = _restart(folder, counting_embedder)
    assert again.chunk_count > 0  # mapped at once, checked off the start path
    with caplog.at_level(logging.WARNING):
        changed, gone = again.stale(_live(analyses))
    assert "checksum" in caplog.text and "rebuilding it" in caplog.text
    assert sorted(changed) == sorted(analyses) and gone == []
    assert again.chunk_count == 0
    again.apply(ChangeBatch(updated=tuple(analyses.values())))
    # The commit stored every row, so the cache had dropped them: the damaged chain's rows are embedded again.
    assert counting_embedder.texts_embedded == 2 * embedded
    assert _answers(again) == before
    # The damaged chain is replaced, not appended to.
    segments.commit_chains()
    segments.close()
    manifest = read_manifest(folder)
    assert manifest is not None and len(manifest.chains["vectors"]) == 1
    assert manifest.chains["vectors"][0].name != record.name
    again.close()


def test_a_chain_of_another_model_is_not_taken(tmp_path: Path, counting_embedder: Any, analyse: Any) -> None:
    analyses = {path: analyse(path, text) for path, text in FILES.items()}
    store = SegmentStore(tmp_path / "index", "schema", "fingerprint")
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(ChangeBatch(updated=tuple(analyses.values())))
    arrays, meta = retriever.chain.export().containers[0]
    record = store.write(store.new_id(), "vectors", arrays, {**meta, "model": "someone-else"})
    retriever.close()
    other = SemanticRetriever(counting_embedder)
    assert not other.open([store.open(record)])
    assert other.chunk_count == 0 and other.chain.export().base
    assert sorted(other.stale(_live(analyses))[0]) == sorted(analyses)
    other.close()
    store.close()


def test_the_cache_keeps_only_embeddings_no_commit_holds(tmp_path: Path, counting_embedder: Any, analyse: Any) -> None:
    analyses = {path: analyse(path, text) for path, text in FILES.items()}
    folder = tmp_path / "index"
    first = ChangeBatch(updated=(analyses["app/mail.py"], analyses["app/sums.py"]))
    retriever, segments = _indexed(folder, counting_embedder, first)
    cache = EmbeddingCache(folder / "semantic" / CACHE_FILE)
    model, dimension = counting_embedder.name, counting_embedder.dimension
    committed = {r.text_hash for p in ("app/mail.py", "app/sums.py") for _, r in retriever.store.rows_of(p)}
    assert cache.keys(model, dimension) == committed, "committed, not yet known to be: still cached"
    retriever.apply(ChangeBatch(updated=(analyses["app/conf.py"],)))
    fresh = {r.text_hash for _, r in retriever.store.rows_of("app/conf.py")}
    assert cache.keys(model, dimension) == committed | fresh
    segments.commit_chains()  # the next export: the first one is stored
    retriever.apply(ChangeBatch(updated=(analyses["app/empty.py"],)))
    assert cache.keys(model, dimension) == fresh, "the second export may still be writing"
    retriever.close()  # the engine commits before it closes the retriever
    assert cache.keys(model, dimension) == set()
    segments.close()
    cache.close()


def test_a_failed_export_keeps_its_embeddings_cached(tmp_path: Path, counting_embedder: Any, analyse: Any) -> None:
    analyses = {path: analyse(path, text) for path, text in FILES.items()}
    retriever = SemanticRetriever(counting_embedder, cache=EmbeddingCache(tmp_path / CACHE_FILE))
    retriever.apply(ChangeBatch(updated=tuple(analyses.values())))
    chain = retriever.chain
    assert chain.export().containers
    chain.export_failed()
    retriever.apply(ChangeBatch(removed=("app/empty.py",)))
    retriever.close()
    cache = EmbeddingCache(tmp_path / CACHE_FILE)
    assert len(cache) == sum(len(a.chunks) for a in analyses.values())
    cache.close()


def test_a_stored_chain_that_reads_back_whole_empties_an_older_cache(
    tmp_path: Path, counting_embedder: Any, analyse: Any
) -> None:
    analyses = {path: analyse(path, text) for path, text in FILES.items()}
    folder = tmp_path / "index"
    retriever, segments = _indexed(folder, counting_embedder, ChangeBatch(updated=tuple(analyses.values())))
    rows = [(r.text_hash, loc) for p in analyses for loc, r in retriever.store.rows_of(p)]
    vectors = retriever.store.vectors_of([loc for _, loc in rows])
    retriever.close()
    segments.close()
    # A cache written before the cache dropped stored rows (or by a process that died after its last commit).
    old = EmbeddingCache(folder / "semantic" / CACHE_FILE)
    assert vectors.quantized is not None and vectors.scales is not None
    floats = vectors.quantized.astype(np.float32) * vectors.scales[:, None]
    model, dimension = counting_embedder.name, counting_embedder.dimension
    old.put(model, dimension, [k for k, _ in rows], Embeddings(vectors.codes, floats))
    old.put(model, dimension, [b"x" * 16], Embeddings(vectors.codes[:1], floats[:1]))
    assert len(old) == len(rows) + 1
    old.close()

    again, cache, segments = _restart(folder, counting_embedder)
    assert not again.chain_damaged()
    assert cache.keys(model, dimension) == {b"x" * 16}
    again.close()
    segments.close()

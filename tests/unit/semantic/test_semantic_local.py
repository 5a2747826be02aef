"""The local embedder: offline loading, parity with wordllama's own inference, sign binarization."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.embed import local
from maguyva_lsp.embed.base import EmbedderError, pack_signs
from maguyva_lsp.embed.local import TOKENIZER_FILE, WEIGHTS_FILE, LocalEmbedder, wordllama_dir

TEXTS = [
    "def parse_config(path): return json.load(open(path))",
    "how does authentication work",
    "",
    "héllo wörld — naïve café 🎉",
    "x = 1\n" * 300,
]


@pytest.mark.usefixtures("no_network")
def test_loads_and_embeds_with_networking_disabled() -> None:
    embedder = LocalEmbedder()
    result = embedder.embed_documents(["open a socket and read the response", "parse command line arguments"])
    assert result.codes.shape == (2, 32) and result.floats is not None and result.floats.shape == (2, 256)
    assert embedder.embed_query("read a file").codes.shape == (1, 32)


@pytest.mark.usefixtures("no_network")
def test_pooled_vectors_equal_wordllama_inference(tmp_path: Path, local_embedder: LocalEmbedder) -> None:
    # wordllama looks for its tokenizer in a folder its wheel lacks; offline it loads from a cache dir holding a copy.
    (tmp_path / "tokenizers").mkdir()
    shutil.copy(wordllama_dir() / TOKENIZER_FILE, tmp_path / "tokenizers")
    from wordllama import WordLlama

    reference = WordLlama.load(cache_dir=tmp_path, disable_download=True)
    expected = reference.embed(TEXTS, norm=False)
    ours = local_embedder.pool(TEXTS)
    assert np.allclose(ours, expected, atol=1e-6)
    # Batching does not change a text's vector (no padding in our path).
    assert np.allclose(local_embedder.pool(TEXTS[:1]), expected[:1], atol=1e-6)


def test_codes_are_the_signs_of_the_unit_floats(local_embedder: LocalEmbedder) -> None:
    result = local_embedder.embed_documents(TEXTS)
    assert result.floats is not None
    assert np.array_equal(result.codes, pack_signs(result.floats))
    norms = np.linalg.norm(result.floats, axis=1)
    assert np.allclose(norms[[0, 1, 3, 4]], 1.0, atol=1e-5)
    assert norms[2] == 0.0, "an empty text stays a zero vector, not NaN"
    assert np.isfinite(result.floats).all()


def test_embedding_is_deterministic_and_independent_of_batch_size(
    local_embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = local_embedder.embed_documents(TEXTS)
    monkeypatch.setattr(local, "EMBED_BATCH_TEXTS", 2)
    batched = local_embedder.embed_documents(TEXTS)
    assert np.array_equal(whole.codes, batched.codes)
    assert whole.floats is not None and batched.floats is not None
    assert np.allclose(whole.floats, batched.floats, atol=1e-6)


def test_long_texts_are_cut_before_tokenizing(local_embedder: LocalEmbedder) -> None:
    head = "alpha beta gamma " * 400
    assert len(head) > local.MAX_TEXT_CHARS
    a = local_embedder.pool([head + "zeta " * 2000])
    b = local_embedder.pool([head])
    assert np.allclose(a, b)


def test_similar_texts_are_nearer_than_unrelated_ones(local_embedder: LocalEmbedder) -> None:
    result = local_embedder.embed_documents(["read the http response body", "parse an http response", "sort a list"])
    assert result.floats is not None
    similarity = result.floats @ result.floats.T
    assert similarity[0, 1] > similarity[0, 2]


def test_a_missing_weights_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="cannot load the local embedding model"):
        LocalEmbedder(package_dir=tmp_path)


def test_the_model_is_read_at_the_first_embedding_and_a_damaged_one_is_a_clear_error(tmp_path: Path) -> None:
    # Opening an index for a name query must not pay for the model: the files are only looked for at construction.
    for name in (WEIGHTS_FILE, TOKENIZER_FILE):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"not a model")
    embedder = LocalEmbedder(package_dir=tmp_path)
    assert embedder.name.startswith("wordllama") and embedder.embed_documents([]).floats is not None
    with pytest.raises(EmbedderError, match="cannot load the local embedding model"):
        embedder.embed_query("read a file")


def test_model_identity(local_embedder: LocalEmbedder) -> None:
    assert local_embedder.dimension == 256
    assert not local_embedder.remote
    assert local_embedder.text_style == "words"
    assert local_embedder.name.startswith("wordllama-l2_supercat-256")
    assert local_embedder.embed_documents([]).floats is not None

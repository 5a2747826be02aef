"""The per-word token cache of the local model: the very ids its tokenizer gives, for any text."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

import maguyva_lsp
from maguyva_lsp.embed import word_ids
from maguyva_lsp.embed.local import TOKENIZER_FILE, wordllama_dir
from maguyva_lsp.embed.text import document_text
from maguyva_lsp.embed.word_ids import WordIds, splits_at_spaces
from maguyva_lsp.model import FileAnalysis

Analyse = Callable[[str, str], FileAnalysis]  # the `analyse` fixture (conftest.py)

# Texts the cache cannot answer for word by word (an empty word, a "▁", an added token), mixed with ones it can.
ODD_TEXTS = [
    "",
    "parse config",
    "a  b",
    " leading",
    "trailing ",
    "foo<s>bar baz",
    "x ▁y",
    "héllo wörld naïve café 🎉",
    "tab\there new\nline",
    "<unk> </s>",
    "1234 x86 utf8",
]


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    loaded = Tokenizer.from_file(str(wordllama_dir() / TOKENIZER_FILE))
    loaded.no_padding()
    loaded.no_truncation()
    return loaded


def _reference(tokenizer: Tokenizer, texts: list[str]) -> tuple[list[int], list[int]]:
    encodings = tokenizer.encode_batch(texts, add_special_tokens=False)
    return [i for e in encodings for i in e.ids], [len(e.ids) for e in encodings]


def _own_sources(analyse: Analyse) -> list[str]:
    """The embedded texts of this package's own modules (real code: docstrings, comments, names)."""
    root = Path(maguyva_lsp.__file__).parent
    texts: list[str] = []
    for path in sorted(root.glob("embed/*.py")) + sorted(root.glob("retrieve/*.py")):
        analysis = analyse(f"pkg/{path.name}", path.read_text(encoding="utf-8"))
        texts += [document_text(chunk, "words") for chunk in analysis.chunks]
    return texts


def test_the_shipped_tokenizer_splits_at_spaces(tokenizer: Tokenizer) -> None:
    assert splits_at_spaces(tokenizer)


def test_ids_equal_the_tokenizers_for_code_texts_and_odd_texts(tokenizer: Tokenizer, analyse: Analyse) -> None:
    texts = _own_sources(analyse)
    assert len(texts) > 100
    cache = WordIds(tokenizer)
    for batch in (texts[: len(texts) // 2], texts[len(texts) // 2 :], ODD_TEXTS, texts[:7] + ODD_TEXTS):
        ids, lengths = cache.token_ids(batch)
        expected_ids, expected_lengths = _reference(tokenizer, batch)
        assert ids.dtype == np.int32 and lengths.tolist() == expected_lengths
        assert ids.tolist() == expected_ids
    assert len(cache) > 0


def test_the_cache_starts_over_when_full(tokenizer: Tokenizer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(word_ids, "MAX_CACHED_WORDS", 3)
    monkeypatch.setattr(word_ids, "LEARN_GROUP_WORDS", 2)
    cache = WordIds(tokenizer)
    first = ["alpha beta gamma delta", "epsilon"]
    second = ["zeta eta theta alpha", "iota kappa"]
    for batch in (first, second, first):
        ids, lengths = cache.token_ids(batch)
        assert (ids.tolist(), lengths.tolist()) == _reference(tokenizer, batch)
        assert len(cache) <= 8


def test_an_empty_batch_gives_no_ids(tokenizer: Tokenizer) -> None:
    ids, lengths = WordIds(tokenizer).token_ids([])
    assert ids.size == 0 and lengths.size == 0


def test_a_tokenizer_that_may_join_words_is_refused(tokenizer: Tokenizer) -> None:
    spec = json.loads(tokenizer.to_str())
    pre_tokenized = {**spec, "pre_tokenizer": {"type": "Whitespace"}}
    assert not splits_at_spaces(Tokenizer.from_str(json.dumps(pre_tokenized)))
    crossing = json.loads(tokenizer.to_str())
    crossing["model"]["vocab"]["s▁"] = len(crossing["model"]["vocab"])
    crossing["model"]["merges"].append(["s", "▁"] if isinstance(crossing["model"]["merges"][0], list) else "s ▁")
    assert not splits_at_spaces(Tokenizer.from_str(json.dumps(crossing)))


def test_new_words_repeated_in_their_first_batch_and_met_again(tokenizer: Tokenizer) -> None:
    """A word gets its slot at its first lookup: its repeats in the same batch, and later batches mixing it with other
    new words and odd ones, give the tokenizer's ids."""
    cache = WordIds(tokenizer)
    batches = [
        ["parse parse config", "config parse", "parse"],
        ["config loader parse", "", "loader  loader", "x ▁y parse"],
        ["loader", "parse config loader", "zebra parse zebra"],
    ]
    for batch in batches:
        ids, lengths = cache.token_ids(batch)
        assert (ids.tolist(), lengths.tolist()) == _reference(tokenizer, batch)
    assert len(cache) >= 5

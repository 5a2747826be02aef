"""Token ids of many texts through a per-word cache: the local model's tokenizer, without tokenizing a word twice.

The local model's tokenizer (wordllama's Llama-2 BPE) has no pre-tokenizer: it runs BPE over a whole text at once,
so it caches nothing and costs about 30 µs a text, a third of a cold build's embedding. Yet its result is the
concatenation of each space-separated word's tokens: the normalizer writes every space as "▁" and prepends one, and
no merge rule joins a "▁" to what precedes it except runs of "▁" (checked when the tokenizer is loaded:
`splits_at_spaces`). So a text whose words are non-empty and hold no "▁" tokenizes as its words do one by one, and
the embedded texts (embed/text.py: sub-words joined by single spaces) repeat the same few tens of thousands of words
over and over. Each distinct word is tokenized once; a text's ids are a gather of its words' ids. The ids are
exactly the tokenizer's; a text that does not qualify (an empty word, a "▁", an added token's "<") is given to the
tokenizer whole.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import chain
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from numpy.typing import NDArray

from maguyva_lsp.arrays import unique

if TYPE_CHECKING:
    from tokenizers import Tokenizer

SPACE_MARK = "▁"  # what the normalizer writes for a space (SentencePiece's U+2581)
# Distinct words cached before the cache starts over: the standard library's embedded texts hold about 60k; a
# long-lived server meeting many workspaces stays bounded (a word costs ~150 bytes here).
MAX_CACHED_WORDS = 1 << 18
# New words are tokenized this many to a text (joined by spaces): fewer, longer texts cost the tokenizer less, up to
# a point (BPE's work over one text grows a little faster than its length; 200-1000 words measured alike).
LEARN_GROUP_WORDS = 256
_UNSAFE = -1  # the slot of a word the cache cannot answer for (its text goes to the tokenizer whole)
_Array = TypeVar("_Array", NDArray[np.int32], NDArray[np.int64])
_EMPTY = 0  # slot 0: a word without ids (what a text given to the tokenizer whole contributes to the gather)


def splits_at_spaces(tokenizer: Tokenizer) -> bool:
    """Whether the tokenizer's ids of a text are its space-separated words' ids one after another (for non-empty
    words without "▁" or "<"): a BPE model behind exactly the normalizer "prepend ▁, spaces to ▁", no pre-tokenizer,
    and no merge that puts a "▁" after anything but "▁"."""
    spec = json.loads(tokenizer.to_str())
    model, normalizer = spec.get("model") or {}, spec.get("normalizer") or {}
    expected = [
        {"type": "Prepend", "prepend": SPACE_MARK},
        {"type": "Replace", "pattern": {"String": " "}, "content": SPACE_MARK},
    ]
    if model.get("type") != "BPE" or model.get("dropout") or spec.get("pre_tokenizer") is not None:
        return False
    if normalizer.get("type") != "Sequence" or normalizer.get("normalizers") != expected:
        return False
    for merge in model.get("merges", []):
        left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
        if SPACE_MARK in left[1:] + right and set(left + right) != {SPACE_MARK}:
            return False
    return True


class WordIds:
    """Token ids of texts, each distinct word tokenized once (see the module's docstring). Not thread-safe: the
    caller holds its tokenizer lock."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        # Which ids are tokens that begin with "▁": the first token of each word (`_tokenize_words`).
        self._marked = np.zeros(tokenizer.get_vocab_size(with_added_tokens=True), dtype=np.bool_)
        for token, index in tokenizer.get_vocab(with_added_tokens=True).items():
            self._marked[index] = token.startswith(SPACE_MARK)
        self._reset()

    def _reset(self) -> None:
        self._slots: dict[str, int] = {}
        # Slot i's ids are ids[starts[i] : starts[i] + lengths[i]]; slot 0 is the empty word.
        self._ids = np.zeros(1 << 16, dtype=np.int32)
        self._starts = np.zeros(1 << 12, dtype=np.int64)
        self._lengths = np.zeros(1 << 12, dtype=np.int64)
        self._used_ids = 0
        self._used_slots = 1

    def __len__(self) -> int:
        return len(self._slots)

    def token_ids(self, texts: Sequence[str]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """All texts' token ids one after another, and each text's count of them (as the tokenizer would give
        them with `add_special_tokens=False`)."""
        words = [text.split(" ") for text in texts]
        counts = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        flat = list(chain.from_iterable(words))
        if len(self._slots) > MAX_CACHED_WORDS:
            self._reset()
        new = set(flat).difference(self._slots)
        if new:
            self._learn(new)
        slots = np.fromiter(map(self._slots.__getitem__, flat), dtype=np.int64, count=len(flat))
        unsafe = slots == _UNSAFE
        whole: NDArray[np.intp] = np.zeros(0, dtype=np.intp)
        if unsafe.any():
            text_of_word = np.repeat(np.arange(len(texts)), counts)
            whole = unique(text_of_word[unsafe])
            slots[np.isin(text_of_word, whole)] = _EMPTY
        piece_lengths = self._lengths[slots]
        word_starts = np.zeros(len(texts), dtype=np.int64)
        np.cumsum(counts[:-1], out=word_starts[1:])
        lengths = np.add.reduceat(piece_lengths, word_starts) if len(texts) else np.zeros(0, dtype=np.int64)
        # A ragged gather: output position p of word w reads ids[starts[w] + (p - first output position of w)].
        total = int(piece_lengths.sum())
        firsts = np.cumsum(piece_lengths) - piece_lengths
        ids = self._ids[np.arange(total, dtype=np.int64) - np.repeat(firsts - self._starts[slots], piece_lengths)]
        if len(whole):
            ids, lengths = self._splice_whole(texts, whole, ids, lengths)
        return ids, lengths

    def _learn(self, words: set[str]) -> None:
        """Tokenize new words; a word that may not split where it stands is unsafe."""
        safe = [w for w in words if w and SPACE_MARK not in w and "<" not in w]
        for word in words.difference(safe):
            self._slots[word] = _UNSAFE
        if not safe:
            return
        ids, lengths = self._tokenize_words(safe)
        first_slot, first_id = self._used_slots, self._used_ids
        self._used_slots += len(safe)
        self._used_ids += len(ids)
        self._starts = _grown(self._starts, self._used_slots)
        self._lengths = _grown(self._lengths, self._used_slots)
        self._ids = _grown(self._ids, self._used_ids)
        self._ids[first_id : self._used_ids] = ids
        self._lengths[first_slot : self._used_slots] = lengths
        self._starts[first_slot : self._used_slots] = first_id + np.cumsum(lengths) - lengths
        self._slots.update(zip(safe, range(first_slot, self._used_slots), strict=True))

    def _tokenize_words(self, words: list[str]) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """The words' ids one after another and each word's count. Tokenized LEARN_GROUP_WORDS at a time joined by
        spaces (one short text per word costs the tokenizer ~5x more), then cut where a token starts with "▁": each
        word's first token does, and no other (the merges never put a "▁" after anything else). A group whose cut
        does not find its words (cannot happen with a tokenizer `splits_at_spaces` accepts) is tokenized word by
        word."""
        groups = [words[at : at + LEARN_GROUP_WORDS] for at in range(0, len(words), LEARN_GROUP_WORDS)]
        encodings = self._tokenizer.encode_batch([" ".join(group) for group in groups], add_special_tokens=False)
        all_ids: list[NDArray[np.int32]] = []
        all_lengths: list[NDArray[np.int64]] = []
        for group, encoding in zip(groups, encodings, strict=True):
            ids = np.asarray(encoding.ids, dtype=np.int32)
            firsts = np.flatnonzero(self._marked[ids])
            if len(firsts) != len(group) or (len(firsts) and firsts[0] != 0):
                alone = self._tokenizer.encode_batch(group, add_special_tokens=False)
                ids = np.asarray([i for e in alone for i in e.ids], dtype=np.int32)
                lengths = np.asarray([len(e.ids) for e in alone], dtype=np.int64)
            else:
                lengths = np.diff(np.append(firsts, len(ids))).astype(np.int64)
            all_ids.append(ids)
            all_lengths.append(lengths)
        return np.concatenate(all_ids), np.concatenate(all_lengths)

    def _splice_whole(
        self, texts: Sequence[str], whole: NDArray[np.intp], ids: NDArray[np.int32], lengths: NDArray[np.int64]
    ) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """Put the tokenizer's ids of texts given to it whole (rare: odd query texts) in their places."""
        encodings = self._tokenizer.encode_batch([texts[i] for i in whole], add_special_tokens=False)
        per_text = np.split(ids, np.cumsum(lengths)[:-1])
        for index, encoding in zip(whole.tolist(), encodings, strict=True):
            per_text[index] = np.asarray(encoding.ids, dtype=np.int32)
            lengths[index] = len(encoding.ids)
        return np.concatenate(per_text) if per_text else ids, lengths


def _grown(array: _Array, size: int) -> _Array:
    """The array, or a copy twice as large as needed when `size` entries no longer fit."""
    if size <= len(array):
        return array
    bigger = np.zeros(max(size, 2 * len(array)), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger

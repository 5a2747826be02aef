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
from operator import methodcaller
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
_spaces = methodcaller("count", " ")
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
        self._slots = _Slots()
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
        if not texts:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64)
        # Every text's words, one split of them all: a text's words are its split at spaces, so joined by spaces the
        # texts split into their words one text after another (an empty text is one empty word either way).
        counts = np.fromiter(map(_spaces, texts), dtype=np.int64, count=len(texts)) + 1
        flat = " ".join(texts).split(" ")
        if len(self._slots) > MAX_CACHED_WORDS:
            self._reset()
        # A word seen for the first time gets its slot during this lookup (_Slots), and its ids just after.
        slots = np.fromiter(map(self._slots.__getitem__, flat), dtype=np.int64, count=len(flat))
        if self._slots.new:
            try:
                self._learn(*self._slots.taken())
            except BaseException:  # the new words hold slots without ids: start over rather than answer wrong
                self._reset()
                raise
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

    def _learn(self, first_slot: int, words: list[str]) -> None:
        """Tokenize the new words `_Slots` gave the slots from `first_slot` on, in order."""
        ids, lengths = self._tokenize_words(words) if words else (np.zeros(0, np.int32), np.zeros(0, np.int64))
        first_id = self._used_ids
        self._used_slots = first_slot + len(words)
        self._used_ids += len(ids)
        self._starts = _grown(self._starts, self._used_slots)
        self._lengths = _grown(self._lengths, self._used_slots)
        self._ids = _grown(self._ids, self._used_ids)
        self._ids[first_id : self._used_ids] = ids
        self._lengths[first_slot : self._used_slots] = lengths
        self._starts[first_slot : self._used_slots] = first_id + np.cumsum(lengths) - lengths

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


class _Slots(dict[str, int]):
    """Each word's slot; a word asked for the first time gets the next free slot (`_UNSAFE` for one the cache cannot
    answer for: empty, or holding a "▁" or a "<"), and waits in `new` until `taken` (its ids are then learnt). Found
    during the one lookup of a batch's words: no set of the batch's words to tell the new ones first."""

    def __init__(self) -> None:
        super().__init__()
        self.new: list[str] = []
        self.first_new = 1  # the slot of new[0]; slot 0 is the empty word

    def __missing__(self, word: str) -> int:
        if not word or SPACE_MARK in word or "<" in word:
            self[word] = _UNSAFE
            return _UNSAFE
        slot = self[word] = self.first_new + len(self.new)
        self.new.append(word)
        return slot

    def taken(self) -> tuple[int, list[str]]:
        """The new words and the slot of the first of them; the next new word's slot follows theirs."""
        first, words = self.first_new, self.new
        self.first_new, self.new = first + len(words), []
        return first, words


def _grown(array: _Array, size: int) -> _Array:
    """The array, or a copy twice as large as needed when `size` entries no longer fit."""
    if size <= len(array):
        return array
    bigger = np.zeros(max(size, 2 * len(array)), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger

"""The numpy sub-word splitter of the segment builds finds what the regex finds: `_SUBWORD_RE.findall` of each word
(lower-cased, with its word) and `words_index_tokens` of identifiers, over random words of the characters that
decide a cut (both cases, digits, `_`, `$`) and words chosen to break it."""

from __future__ import annotations

import random

from maguyva_lsp.index.subword_split import index_tokens_of, split_words
from maguyva_lsp.tokens import _SUBWORD_RE, words_index_tokens

ODD = [
    "HTTPServer", "parseConfig2", "ABC123def", "getHTTPResponseCode", "A", "a", "_", "__init__", "x1y2Z3", "ABc",
    "AB", "Ab", "aB", "a1B", "A1b", "_12", "12ab", "utf8Decoder", "XMLHttpRequest2", "IOError", "$jq", "a$B",
]  # fmt: skip


def _cases() -> list[list[str]]:
    rng = random.Random(12)
    alphabet = "aAbZz09_$"
    cases = [ODD, [], ["a"], ["_"], ["_", "__"]]
    for _ in range(400):
        cases.append(
            ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14))) for _ in range(rng.randint(1, 25))]
        )
    return cases


def test_split_words_finds_what_the_regex_finds_in_each_word() -> None:
    for words in _cases():
        split = split_words(words)
        assert split.strings() == [p.lower() for w in words for p in _SUBWORD_RE.findall(w)], words
        assert split.word_of.tolist() == [i for i, w in enumerate(words) for _ in _SUBWORD_RE.findall(w)], words


def test_index_tokens_of_identifiers_are_words_index_tokens() -> None:
    for words in _cases():
        identifiers = [w.replace("$", "q") for w in words if not w[0].isdigit()]
        tokens, counts = index_tokens_of(identifiers)
        expected, expected_counts = words_index_tokens(identifiers)
        assert tokens == expected, identifiers
        assert counts.tolist() == expected_counts.tolist(), identifiers

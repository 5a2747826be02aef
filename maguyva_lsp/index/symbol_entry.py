"""What the symbol table ranks a definition by (its static tie-break key: kind, path class, declaration file,
qualified-name length, position) and the keys it files it under (separator-free name, sub-words of name, parent and
signature), computed per distinct string when a segment's symbol part is built."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.subword_split import split_words
from maguyva_lsp.index.symbol_query import _WORD_RE, subwords_of  # _WORD_RE: what words_of finds
from maguyva_lsp.model import Definition, PathClass

I64 = npt.NDArray[np.int64]

# Tie-break 1, kind: what go-to-definition usually wants (types and callables) before values. Other kinds sit in
# the middle: a constant, or an `impl` block (it extends a type defined elsewhere: the type itself comes first),
# before a plain variable, which is often a local alias of the real thing.
PRIMARY_KINDS: frozenset[str] = frozenset(
    {"class", "interface", "struct", "enum", "trait", "union", "type", "typedef", "protocol", "record", "object",
     "function", "method", "constructor", "macro", "module", "namespace"}
)  # fmt: skip
VALUE_KINDS: frozenset[str] = frozenset({"variable", "var", "local", "parameter"})
KIND_RANK_PRIMARY, KIND_RANK_OTHER, KIND_RANK_VALUE = 0, 1, 2
# Tie-break 2, path class: source before tests before generated, vendored and archived copies.
PATH_CLASS_RANK: dict[PathClass, int] = {
    PathClass.SOURCE: 0,
    PathClass.TEST: 1,
    PathClass.BUILD: 2,
    PathClass.VENDOR: 3,
    PathClass.ARCHIVE: 4,
}
# Tie-break 3, declaration files: a TypeScript declaration file or a Python stub declares what another file
# implements; the implementation comes first.
DECLARATION_FILE_SUFFIXES: tuple[str, ...] = (".d.ts", ".d.mts", ".d.cts", ".pyi")
# Signature words this short ("x", "i") carry no meaning for a term search and would only bloat the postings; so do
# the keywords that fill signatures (`def`, `self`, `pub fn`) and say nothing about what the definition is about.
SIGNATURE_MIN_WORD = 2
SIGNATURE_NOISE_WORDS: frozenset[str] = frozenset(
    "def self cls fn func function pub async await static public private protected final const let var void "
    "export default override virtual inline extern unsafe mut this return".split()
)
# Mentions of a name, best first: calls and base classes say more about a symbol than plain uses, imports least.
MENTION_KINDS: tuple[str, ...] = ("call", "inherit", "reference", "import")
# The first four tie-breaks packed into one integer per definition (kind, path class and declaration in the high
# bits, the qualified name's length in the low ones): comparing the integers compares the tuples.
_QUALIFIED_LEN_BITS = 32
_PATH_CLASS_SLOTS = 8  # more than len(PATH_CLASS_RANK) + 1


# The ASCII characters that are not letters or digits (str.isalnum), deleted by str.translate.
_ASCII_NOT_ALNUM = str.maketrans("", "", "".join(c for c in map(chr, range(128)) if not c.isalnum()))


def compact_name(name: str) -> str:
    """The name lower-cased with everything but letters and digits dropped (the lower name when nothing is left)."""
    lower = name.lower()
    # An ASCII name (nearly all) in one C call; the character test only for the others.
    compact = lower.translate(_ASCII_NOT_ALNUM) if lower.isascii() else "".join(ch for ch in lower if ch.isalnum())
    return compact or lower


def name_subwords(name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(subwords_of(name)))


def parent_subwords(parent: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(subwords_of(parent or "")))


def signature_words(signature: str) -> tuple[str, ...]:
    """The signature's sub-words worth filing (the definition's own name words are removed per definition)."""
    words = subwords_of(signature, min_length=SIGNATURE_MIN_WORD)
    return tuple(dict.fromkeys(w for w in words if w not in SIGNATURE_NOISE_WORDS))


class SubwordTables:
    """`name_subwords`, `parent_subwords` and `signature_words` of the many strings of one segment's build, as CSR
    rows of sub-word ids, in bulk: each text's words found by one findall per text (mapped in C), every distinct word
    numbered by a dictionary whose factory counts and split once for the whole build (the words not met before split
    together with numpy), each text's sub-words then expanded, filtered and deduplicated
    (first occurrence kept) with numpy. The same sub-words in the same order as the one-string definitions, without
    a Python step per text or per word."""

    def __init__(self) -> None:
        self._word_ids: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self._part_ids: defaultdict[str, int] = defaultdict(itertools.count().__next__)
        self._parts: list[I64] = []  # each word's sub-word ids one after the other, in word id order (in pieces)
        self._counts: list[I64] = []  # how many each word has

    def strings(self) -> list[str]:
        """Every sub-word met so far, by id."""
        return list(self._part_ids)

    def rows(self, texts: Sequence[str], *, signature: bool = False) -> tuple[I64, I64]:
        """Each text's distinct sub-words as ids (CSR offsets, values): `name_subwords`, or `signature_words` with
        `signature`."""
        found = list(map(_WORD_RE.findall, texts))  # words_of, without a Python call per text
        sizes = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        known = len(self._word_ids)
        occurrences = np.fromiter(
            map(self._word_ids.__getitem__, chain.from_iterable(found)), dtype=np.int64, count=int(sizes.sum())
        )
        self._split(list(itertools.islice(self._word_ids, known, None)))
        parts, counts = self._table()
        starts = np.cumsum(counts) - counts
        per = counts[occurrences]
        total = int(per.sum())
        # each occurrence expanded into its word's sub-words: position in `parts` = word's start + rank in the word
        into = np.repeat(starts[occurrences] - (np.cumsum(per) - per), per) + np.arange(total, dtype=np.int64)
        values = parts[into]
        rows = np.repeat(np.repeat(np.arange(len(texts), dtype=np.int64), sizes), per)
        if signature:
            strings = self.strings()
            kept = np.fromiter(
                (len(w) >= SIGNATURE_MIN_WORD and w not in SIGNATURE_NOISE_WORDS for w in strings),
                dtype=np.bool_,
                count=len(strings),
            )[values]
            values, rows = values[kept], rows[kept]
        # a text's first occurrence of each sub-word, in order (rows ascend, so the positions sort row by row)
        width = max(len(self._part_ids), 1)
        first = np.sort(np.unique(rows * width + values, return_index=True)[1])
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows[first], minlength=len(texts)), out=offsets[1:])
        return offsets, values[first]

    def names(self, texts: list[str]) -> list[tuple[str, ...]]:
        """`name_subwords` (and `parent_subwords`) of each text, as strings."""
        return self._tuples(*self.rows(texts))

    def signatures(self, texts: list[str]) -> list[tuple[str, ...]]:
        """`signature_words` of each text, as strings."""
        return self._tuples(*self.rows(texts, signature=True))

    def _tuples(self, offsets: I64, values: I64) -> list[tuple[str, ...]]:
        strings = self.strings()
        flat = [strings[v] for v in values.tolist()]
        return [tuple(flat[s:e]) for s, e in itertools.pairwise(offsets.tolist())]

    def _split(self, words: list[str]) -> None:
        """`word_parts` of the words not met before, as sub-word ids: the ASCII ones split together with numpy
        (subword_split.py); another word is its own lower case."""
        if not words:
            return
        ascii_words = [w if w.isascii() else "" for w in words]
        split = split_words(ascii_words)
        ids = np.fromiter(map(self._part_ids.__getitem__, split.strings()), dtype=np.int64, count=split.starts.size)
        counts = np.bincount(split.word_of, minlength=len(words))
        other = [i for i, w in enumerate(ascii_words) if not w and words[i]]
        if other:  # non-ASCII words: one sub-word each, placed among the others in word order
            counts[other] = 1
            out = np.empty(int(counts.sum()), dtype=np.int64)
            at = np.cumsum(counts) - counts
            single = np.zeros(len(words), dtype=np.bool_)
            single[other] = True
            mask = np.ones(out.size, dtype=np.bool_)
            mask[at[single]] = False
            out[at[single]] = np.fromiter(
                (self._part_ids[words[i].lower()] for i in other), dtype=np.int64, count=len(other)
            )
            out[mask] = ids
            ids = out
        self._parts.append(ids)
        self._counts.append(counts.astype(np.int64))

    def _table(self) -> tuple[I64, I64]:
        if len(self._parts) != 1:
            self._parts = [np.concatenate(self._parts)] if self._parts else [np.zeros(0, dtype=np.int64)]
            self._counts = [np.concatenate(self._counts)] if self._counts else [np.zeros(0, dtype=np.int64)]
        return self._parts[0], self._counts[0]


def kind_rank(kind: str) -> int:
    if kind in PRIMARY_KINDS:
        return KIND_RANK_PRIMARY
    return KIND_RANK_VALUE if kind in VALUE_KINDS else KIND_RANK_OTHER


def path_class_rank(path_class: PathClass) -> int:
    return PATH_CLASS_RANK.get(path_class, len(PATH_CLASS_RANK))


def is_declaration_file(path: str) -> bool:
    return path.lower().endswith(DECLARATION_FILE_SUFFIXES)


def qualified_length(name: str, parent: str | None) -> int:
    return len(name) + (len(parent) + 1 if parent else 0)


def rank_head(kind_rank_: int, path_rank: int, declaration: bool, qualified_len: int) -> int:
    """The first four tie-breaks as one integer, ordered as their tuple."""
    return ((kind_rank_ * _PATH_CLASS_SLOTS + path_rank) * 2 + int(declaration)) << _QUALIFIED_LEN_BITS | qualified_len


def rank_heads(
    kind_ranks: npt.NDArray[np.int64],
    path_ranks: npt.NDArray[np.int64],
    declarations: npt.NDArray[np.bool_],
    qualified_lens: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    """`rank_head` of many definitions at once (int64: the packed values fit)."""
    high = (kind_ranks * _PATH_CLASS_SLOTS + path_ranks) * 2 + declarations.astype(np.int64)
    out: npt.NDArray[np.int64] = (high << _QUALIFIED_LEN_BITS) | qualified_lens
    return out


def rank_key(d: Definition, path_class: PathClass) -> tuple[Any, ...]:
    """Tie-breaks after the match score: kind, path class, implementation before declaration file, shorter
    qualified name, then path and position (and name, parent and kind, so that the order is total and a fresh build
    ranks exactly like an incremental one). The symbol part stores this order as one integer per definition
    (`symbol_part`); this tuple is its definition."""
    return (
        kind_rank(d.kind),
        path_class_rank(path_class),
        is_declaration_file(d.path),
        qualified_length(d.name, d.parent),
        d.path,
        d.name_span.start_line,
        d.name_span.start_col,
        d.name,
        d.parent or "",
        d.kind,
    )

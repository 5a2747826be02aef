"""What the symbol table ranks a definition by (its static tie-break key: kind, path class, declaration file,
qualified-name length, position) and the keys it files it under (separator-free name, sub-words of name, parent and
signature), computed per distinct string when a segment's symbol part is built."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.symbol_query import subwords_of, word_parts, words_of
from maguyva_lsp.model import Definition, PathClass

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


class _PerWord(dict[str, tuple[str, ...]]):
    """A word's sub-words as one field files them, made on first use (a C lookup after that)."""

    def __init__(self, make: Callable[[str], tuple[str, ...]]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, word: str) -> tuple[str, ...]:
        value = self[word] = self._make(word)
        return value


class SubwordTables:
    """`name_subwords`, `parent_subwords` and `signature_words` for the many strings of one segment's build, each
    distinct word split and filtered once for the whole build (not through a bounded cache): the same tuples, for
    dictionary lookups instead of a generator step per sub-word (~1 s CPU less on the stdlib's builds)."""

    def __init__(self) -> None:
        self._names = _PerWord(word_parts)
        self._signatures = _PerWord(self._signature_parts)

    def names(self, texts: list[str]) -> list[tuple[str, ...]]:
        """`name_subwords` (and `parent_subwords`) of each text."""
        return [self._joined(self._names, text) for text in texts]

    def signatures(self, texts: list[str]) -> list[tuple[str, ...]]:
        """`signature_words` of each text."""
        return [self._joined(self._signatures, text) for text in texts]

    def _signature_parts(self, word: str) -> tuple[str, ...]:
        # split through the names' table: a word of both is split once
        return tuple(w for w in self._names[word] if len(w) >= SIGNATURE_MIN_WORD and w not in SIGNATURE_NOISE_WORDS)

    @staticmethod
    def _joined(table: _PerWord, text: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(chain.from_iterable(map(table.__getitem__, words_of(text)))))


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

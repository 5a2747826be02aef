"""What the symbol table keeps per definition (its static tie-break key: kind, path class, declaration file,
qualified-name length, position) and the keys it files it under (separator-free name, sub-words of name, parent and
signature)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from maguyva_lsp.index.symbol_query import subwords_of
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


@dataclass(frozen=True, slots=True)
class Entry:
    """A definition with its static tie-break key and the sub-words that sub-word matching checks candidates
    against; its other index keys are recomputed by `index_keys` when it is removed."""

    definition: Definition
    compact_len: int  # length of the separator-free name, for the length penalty
    name_subwords: tuple[str, ...]  # interned: shared with the postings' keys
    parent_subwords: tuple[str, ...]
    rank: tuple[Any, ...]  # lower first


@dataclass(frozen=True, slots=True)
class IndexKeys:
    """The keys a definition is filed under in the symbol table's postings."""

    compact: str  # lower-case, separators dropped: `parse_config` and `parseConfig` both give `parseconfig`
    name_subwords: tuple[str, ...]
    parent_subwords: tuple[str, ...]
    signature_subwords: tuple[str, ...]  # those not already among the name's


def compact_name(name: str) -> str:
    """The name lower-cased with everything but letters and digits dropped (the lower name when nothing is left)."""
    return "".join(ch for ch in name.lower() if ch.isalnum()) or name.lower()


def index_keys(d: Definition) -> IndexKeys:
    name_subwords = tuple(dict.fromkeys(subwords_of(d.name)))
    skip = SIGNATURE_NOISE_WORDS.union(name_subwords)
    signature = subwords_of(d.signature, min_length=SIGNATURE_MIN_WORD)
    return IndexKeys(
        compact=compact_name(d.name),
        name_subwords=name_subwords,
        parent_subwords=tuple(dict.fromkeys(subwords_of(d.parent or ""))),
        signature_subwords=tuple(dict.fromkeys(w for w in signature if w not in skip)),
    )


def kind_rank(kind: str) -> int:
    if kind in PRIMARY_KINDS:
        return KIND_RANK_PRIMARY
    return KIND_RANK_VALUE if kind in VALUE_KINDS else KIND_RANK_OTHER


def is_declaration_file(path: str) -> bool:
    return path.lower().endswith(DECLARATION_FILE_SUFFIXES)


def rank_key(d: Definition, path_class: PathClass) -> tuple[Any, ...]:
    """Tie-breaks after the match score: kind, path class, implementation before declaration file, shorter
    qualified name, then path and position (and name, parent and kind, so that the order is total and a fresh build
    ranks exactly like an incremental one)."""
    qualified_len = len(d.name) + (len(d.parent) + 1 if d.parent else 0)
    return (
        kind_rank(d.kind),
        PATH_CLASS_RANK.get(path_class, len(PATH_CLASS_RANK)),
        is_declaration_file(d.path),
        qualified_len,
        d.path,
        d.name_span.start_line,
        d.name_span.start_col,
        d.name,
        d.parent or "",
        d.kind,
    )


def make_entry(d: Definition, path_class: PathClass, keys: IndexKeys) -> Entry:
    return Entry(
        definition=d,
        compact_len=len(keys.compact),
        name_subwords=keys.name_subwords,
        parent_subwords=keys.parent_subwords,
        rank=rank_key(d, path_class),
    )

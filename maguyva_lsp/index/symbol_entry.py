"""What the symbol table keeps per definition: its index keys and its static tie-break key (kind, path class,
qualified-name length, position), computed once when the definition is added."""

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
# Signature words this short ("x", "i") carry no meaning for a term search and would only bloat the postings.
SIGNATURE_MIN_WORD = 2


@dataclass(frozen=True, slots=True)
class Entry:
    """A definition with everything the indexes and the ranking need."""

    definition: Definition
    lower: str
    compact: str  # lower-case, separators dropped: `parse_config` and `parseConfig` both give `parseconfig`
    name_subwords: tuple[str, ...]
    parent_subwords: tuple[str, ...]
    signature_subwords: tuple[str, ...]
    rank: tuple[Any, ...]  # the static tie-break key: lower first


def compact_name(name: str) -> str:
    """The name lower-cased with everything but letters and digits dropped (the lower name when nothing is left)."""
    return "".join(ch for ch in name.lower() if ch.isalnum()) or name.lower()


def kind_rank(kind: str) -> int:
    if kind in PRIMARY_KINDS:
        return KIND_RANK_PRIMARY
    return KIND_RANK_VALUE if kind in VALUE_KINDS else KIND_RANK_OTHER


def rank_key(definition: Definition, path_class: PathClass) -> tuple[Any, ...]:
    """Tie-breaks after the match score: kind, path class, shorter qualified name, then path and position (and
    name and kind, so that the order is total and a fresh build ranks exactly like an incremental one)."""
    d = definition
    return (
        kind_rank(d.kind),
        PATH_CLASS_RANK.get(path_class, len(PATH_CLASS_RANK)),
        len(d.qualified_name),
        d.path,
        d.name_span.start_line,
        d.name_span.start_col,
        d.qualified_name,
        d.kind,
    )


def make_entry(definition: Definition, path_class: PathClass) -> Entry:
    d = definition
    return Entry(
        definition=d,
        lower=d.name.lower(),
        compact=compact_name(d.name),
        name_subwords=tuple(dict.fromkeys(subwords_of(d.name))),
        parent_subwords=tuple(dict.fromkeys(subwords_of(d.parent or ""))),
        signature_subwords=tuple(dict.fromkeys(subwords_of(d.signature, min_length=SIGNATURE_MIN_WORD))),
        rank=rank_key(d, path_class),
    )

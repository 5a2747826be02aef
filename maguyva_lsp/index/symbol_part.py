"""The symbol part of a segment: the symbol table's lookup structures, derived from the segment's core columns and
stored beside them (index/segment_parts.py is the contract).

Definitions are the core's `def.*` rows (a definition's id is its row). The part adds, all as plain arrays:

    key.*     the separator-free lower-case names, sorted (a vocabulary, postings/postings_off → definitions),
              with each name's length and letter set (fuzzy matching)
    word.*    the sub-words of names, parents and signatures, sorted, with one posting list per field
    nm.*      per distinct name: its text, key, sub-words (CSR) and, for the few names whose lower case is not the
              ASCII lower case of their bytes (a non-ASCII capital), that lower case (nm.lower.rows, ascending)
    pr.*      per distinct parent: its sub-words (CSR)
    def.*     per definition: its name and parent (nm / pr rows), file, rank (its place in the segment's order of
              `symbol_entry.rank_key`, source order within a file breaking exact ties) and, per file, the source
              order of its definitions (def.order)
    ment.*    the names mentioned by references (calls, bases, uses, imports), sorted, each with its single-line
              references (core `ref.*` rows) in ranking order: kind, path class, path, position

Building (symbol_build.py) costs one pass of Python per distinct string (a name or a signature shared by a thousand
definitions is split once); the rest is numpy. A merged segment's part is assembled from its sources' parts instead
(symbol_merge.py: the same arrays), or built when a source lacks the part at this version.

Stored narrow (a reader accepts exactly the dtypes below, check_symbol_arrays): CSR offsets int32 while the last one
fits, lengths uint16 while the longest fits; the lower case of names is derived (postings.FoldedSpellings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.segment_parts import PartSource
from maguyva_lsp.index.symbol_build import build_symbol_arrays
from maguyva_lsp.index.symbol_merge import merged_symbol_arrays
from maguyva_lsp.index.symbol_segment import SymbolSegment
from maguyva_lsp.store.container import STRING_OFFSET_DTYPES, Array

SYMBOL_PART = "symbols"
# 1: keys, words (name / parent / signature postings), names, parents, ranks, mentions.
# 2: mentions without their files and kinds (read from the core's reference columns).
# 3: CSR offsets int32 and lengths uint16 when they fit; only the lower case of names that ASCII folding misses.
# 4: def.file uint16 when the segment's file count fits (readers only index with it and convert it to ints).
SYMBOL_PART_VERSION = 4

_I32, _I64, _U8, _U16, _U64 = (np.dtype(t) for t in (np.int32, np.int64, np.uint8, np.uint16, np.uint64))
OFFSET_DTYPES = (_I32, _I64)
LENGTH_DTYPES = (_U16, _I32)
FILE_DTYPES = (_U16, _I32)  # a definition's file row: uint16 while the segment's files fit
_CSR_OFFSETS = (
    "key.post_off",
    "word.name_off",
    "word.parent_off",
    "word.sig_off",
    "nm.words_off",
    "pr.words_off",
    "ment.rows_off",
)
_LENGTHS = ("key.len", "word.len", "nm.clen")
_VOCABULARIES = ("key", "word", "ment")
_STRING_COLUMNS = ("nm", "nm.lower")
_INT32_COLUMNS = (
    "key.post",
    "word.name",
    "word.parent",
    "word.sig",
    "nm.key",
    "nm.lower.rows",
    "nm.words",
    "pr.words",
    "def.nm",
    "def.pr",
    "def.rank",
    "def.order",
    "ment.rows",
)


def expected_dtypes() -> dict[str, tuple[np.dtype[Any], ...]]:
    """Every array of the part with the dtypes a reader accepts for it."""
    out: dict[str, tuple[np.dtype[Any], ...]] = {"key.mask": (_U64,), "def.head": (_I64,), "def.file": FILE_DTYPES}
    out.update({name: OFFSET_DTYPES for name in _CSR_OFFSETS})
    out.update({name: LENGTH_DTYPES for name in _LENGTHS})
    out.update({name: (_I32,) for name in _INT32_COLUMNS})
    for name in _VOCABULARIES:
        out.update({f"{name}.blob": (_U8,), f"{name}.off": STRING_OFFSET_DTYPES, f"{name}.head": (_U64,)})
    for name in _STRING_COLUMNS:
        out.update({f"{name}.blob": (_U8,), f"{name}.off": STRING_OFFSET_DTYPES})
    return out


def check_symbol_arrays(arrays: Mapping[str, Array]) -> None:
    """Refuse a symbol part with an array missing or of a dtype this reader does not expect (reads no data)."""
    for name, allowed in expected_dtypes().items():
        array = arrays.get(name)
        if array is None or array.dtype not in allowed or array.ndim != 1:
            raise ValueError(f"symbol part: array {name} missing or of the wrong type")


class SymbolPart:
    """Builds and opens the symbol part of every segment."""

    name = SYMBOL_PART
    version = SYMBOL_PART_VERSION

    def build(self, core: CoreColumns) -> dict[str, Array]:
        return build_symbol_arrays(core)

    def merge(self, sources: Sequence[PartSource], merged: CoreColumns) -> dict[str, Array]:
        """The part of a merged segment from its sources' parts (the same arrays `build(merged)` gives)."""
        return merged_symbol_arrays(sources, merged)

    def open(self, arrays: Mapping[str, Array], core: CoreColumns) -> SymbolSegment:
        check_symbol_arrays(arrays)
        return SymbolSegment(arrays, core)

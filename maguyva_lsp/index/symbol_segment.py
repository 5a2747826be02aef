"""The reader of one segment's symbol part: its vocabularies and posting lists over the mapped arrays, the live view
of one snapshot (which definitions belong to live files), and definitions rebuilt as values only when asked for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.index.analysis_columns import REFERENCE_KINDS, CoreColumns
from maguyva_lsp.index.postings import (
    ASCII_LOWER,
    EMPTY_IDS,
    I32,
    I64,
    Bools,
    FoldedSpellings,
    Spellings,
    Vocabulary,
    live_counts,
)
from maguyva_lsp.index.symbol_entry import MENTION_KINDS
from maguyva_lsp.model import Definition, Span
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS, Array

# A reference's kind (its index in REFERENCE_KINDS) → its mention kind (an index in MENTION_KINDS).
MENTION_KIND_OF_REFERENCE = np.array([MENTION_KINDS.index(k) for k in REFERENCE_KINDS], dtype=np.int64)
Field = Literal["name", "parent", "sig"]
FIELDS: tuple[Field, ...] = ("name", "parent", "sig")
DECODED_CACHE_SIZE = 4096  # strings kept decoded per column of a segment


class Decoder:
    """Strings of a blob and its offsets, decoded on demand; recent ones are kept (a bounded cache: definitions
    asked for again, the kinds and languages every answer repeats)."""

    __slots__ = ("_blob", "_cache", "_off")

    def __init__(self, blob: npt.NDArray[np.uint8], offsets: I64) -> None:
        self._blob = blob
        self._off = offsets
        self._cache: dict[int, str] = {}

    def get(self, index: int) -> str:
        text = self._cache.get(index)
        if text is None:
            start, end = self._off[index : index + 2].tolist()
            text = self._blob[start:end].tobytes().decode(ENCODING, ENCODING_ERRORS)
            if len(self._cache) >= DECODED_CACHE_SIZE:
                self._cache.clear()
            self._cache[index] = text
        return text


class Live:
    """One segment as one snapshot sees it: which files and definitions are alive, and per key how many live
    definitions it has (computed on first use; None masks mean everything is alive, the common case)."""

    __slots__ = ("_counts", "def_count", "defs", "files", "segment")

    def __init__(self, segment: SymbolSegment, files: Bools) -> None:
        self.segment = segment
        self.files = files
        everything = bool(files.all())
        self.defs: Bools | None = None if everything else files[segment.def_file]
        self.def_count = segment.def_count if self.defs is None else int(np.count_nonzero(self.defs))
        self._counts: dict[str, I64] = {}

    def keep(self, ids: I32) -> I32:
        """The live ones of these definitions."""
        return ids if self.defs is None or ids.size == 0 else ids[self.defs[ids]]

    def key_counts(self) -> I64:
        """Live definitions per separator-free name."""
        return self._count("key", self.segment.key_off, self.segment.key_post)

    def word_counts(self, field: Field) -> I64:
        """Live definitions per sub-word in one field."""
        seg = self.segment
        return self._count(field, seg.field_off[field], seg.field_ids[field])

    def key_present(self) -> Bools | None:
        """Which names some live definition has (None: all of them)."""
        return None if self.defs is None else self.key_counts() > 0

    def _count(self, name: str, offsets: I64, ids: I32) -> I64:
        found = self._counts.get(name)
        if found is None:
            found = np.diff(offsets) if self.defs is None else live_counts(offsets, ids, self.defs)
            self._counts[name] = found
        return found


class SymbolSegment:
    """The symbol part of one segment (see symbol_part.py for its arrays)."""

    def __init__(self, arrays: Mapping[str, Array], core: CoreColumns) -> None:
        a: Any = arrays
        self.core = core
        self.keys = Vocabulary.of(a, "key")
        self.key_len: I32 = a["key.len"]
        self.key_mask: npt.NDArray[np.uint64] = a["key.mask"]
        self.key_off: I64 = a["key.post_off"]
        self.key_post: I32 = a["key.post"]
        self.words = Vocabulary.of(a, "word")
        self.word_len: I32 = a["word.len"]
        self.field_off: dict[Field, I64] = {f: a[f"word.{f}_off"] for f in FIELDS}
        self.field_ids: dict[Field, I32] = {f: a[f"word.{f}"] for f in FIELDS}
        self.nm_key: I32 = a["nm.key"]
        self.nm_clen: I32 = a["nm.clen"]
        self.spellings = Spellings(a["nm.blob"], a["nm.off"])  # the names as written, compared as bytes
        self.lower_spellings = FoldedSpellings(  # their lower case, derived (symbol_part.lower_exceptions)
            Spellings(a["nm.blob"], a["nm.off"], ASCII_LOWER),
            a["nm.lower.rows"],
            Spellings(a["nm.lower.blob"], a["nm.lower.off"]),
        )
        self.nm_words_off: I64 = a["nm.words_off"]
        self.nm_words: I32 = a["nm.words"]
        self.pr_words_off: I64 = a["pr.words_off"]
        self.pr_words: I32 = a["pr.words"]
        self.def_nm: I32 = a["def.nm"]
        self.def_pr: I32 = a["def.pr"]
        self.def_file: npt.NDArray[Any] = a["def.file"]  # uint16 or int32: only indexes and converts to ints
        self.def_head: I64 = a["def.head"]
        self.def_rank: I32 = a["def.rank"]
        self.def_order: I32 = a["def.order"]
        self.mentions = Vocabulary.of(a, "ment")
        self.mention_off: I64 = a["ment.rows_off"]
        self.mention_rows: I32 = a["ment.rows"]
        self._ref_kind: npt.NDArray[np.uint8] = core.arrays["ref.kind"]
        self._file_refs: I64 = np.asarray(core.arrays["file.refs"])
        self.file_defs: I64 = np.asarray(core.arrays["file.defs"])
        self._pool = Decoder(core.arrays["pool.blob"], core.arrays["pool.off"])
        self._names = Decoder(a["nm.blob"], a["nm.off"])
        self._paths = Decoder(core.arrays["file.path.blob"], core.arrays["file.path.off"])
        self._def_columns = tuple(
            np.asarray(core.arrays[f"def.{c}"]) for c in ("kind", "signature", "parent", "language")
        )
        self._def_spans = (np.asarray(core.arrays["def.span"]), np.asarray(core.arrays["def.name_span"]))
        self.def_count = int(self.def_nm.size)
        self._live: tuple[Bools, Live] | None = None
        self._made: dict[int, Definition] = {}

    def mention_files(self, rows: slice | I64) -> I64:
        """The local file of mention rows (the file whose reference rows hold each one's reference)."""
        return np.searchsorted(self._file_refs, self.mention_rows[rows], side="right") - 1

    def mention_kinds(self, rows: slice | I64) -> I64:
        """The mention kind (an index in MENTION_KINDS) of mention rows."""
        return MENTION_KIND_OF_REFERENCE[self._ref_kind[self.mention_rows[rows]]]

    @property
    def nbytes(self) -> int:
        arrays = [v for v in vars(self).values() if isinstance(v, np.ndarray)]
        return int(sum(x.nbytes for x in arrays))

    def live(self, files: Bools) -> Live:
        """The live view for a snapshot's `alive` flags (the last one is kept: snapshots change one at a time)."""
        cached = self._live
        if cached is not None and np.array_equal(cached[0], files):
            return cached[1]
        view = Live(self, files)
        self._live = (files.copy(), view)
        return view

    # ---- posting lists ---------------------------------------------------------------------------------------

    def key_ids(self, key: int) -> I32:
        return self.key_post[self.key_off[key] : self.key_off[key + 1]] if key >= 0 else EMPTY_IDS

    def word_ids(self, field: Field, word: int) -> I32:
        if word < 0:
            return EMPTY_IDS
        offsets = self.field_off[field]
        return self.field_ids[field][offsets[word] : offsets[word + 1]]

    def union(self, field: Field, words: npt.NDArray[Any] | list[int]) -> I32:
        groups = [self.word_ids(field, int(w)) for w in words]
        if len(groups) <= 1:
            return groups[0] if groups else EMPTY_IDS
        return unique(np.concatenate(groups))

    def file_rows(self, local: int) -> I32:
        """A file's definitions in source order."""
        return self.def_order[self.file_defs[local] : self.file_defs[local + 1]]

    # ---- values ----------------------------------------------------------------------------------------------

    def spelled(self, nm: int) -> str:
        """The text of a distinct name (an `nm` row)."""
        return self._names.get(nm)

    def name(self, row: int) -> str:
        return self._names.get(int(self.def_nm[row]))

    def path(self, row: int) -> str:
        return self._paths.get(int(self.def_file[row]))

    def file_path(self, local: int) -> str:
        return self._paths.get(local)

    def parent(self, row: int) -> str | None:
        index = int(self._def_columns[2][row])
        return self._pool.get(index) if index >= 0 else None

    def definition(self, row: int) -> Definition:
        return self.definitions([row])[0]

    def definitions(self, rows: Sequence[int]) -> list[Definition]:
        """The definitions of these rows, as values (what a query returns; the recent ones are kept, since
        type-ahead asks for much the same ones keystroke after keystroke)."""
        made = self._made
        missing = [row for row in dict.fromkeys(rows) if row not in made]
        if missing:
            if len(made) + len(missing) > DECODED_CACHE_SIZE:
                made.clear()
                missing = list(dict.fromkeys(rows))
            made.update(zip(missing, self._make(missing), strict=True))
        return [made[row] for row in rows]

    def _make(self, rows: list[int]) -> list[Definition]:
        index = np.asarray(rows, dtype=np.int64)
        kinds, signatures, parents, languages = (column[index].tolist() for column in self._def_columns)
        spans, name_spans = (spans[index].tolist() for spans in self._def_spans)
        text, names, paths = self._pool.get, self._names.get, self._paths.get
        return [
            Definition(
                names(nm), text(kind), paths(file), Span(*span), Span(*name_span), text(signature),
                text(parent) if parent >= 0 else None, text(language) if language >= 0 else None,
            )
            for nm, file, kind, signature, parent, language, span, name_span in zip(
                self.def_nm[index].tolist(), self.def_file[index].tolist(), kinds, signatures, parents, languages,
                spans, name_spans, strict=True,
            )
        ]  # fmt: skip

    def innermost(self, local: int, line: int, col: int) -> int:
        """The row of the innermost definition of a file whose span holds the position (the last one in source
        order, since that order is by start), or -1."""
        rows = self.file_rows(local)
        if rows.size == 0:
            return -1
        s = self._def_spans[0][rows]
        after_start = (s[:, 0] < line) | ((s[:, 0] == line) & (s[:, 1] <= col))
        before_end = (line < s[:, 2]) | ((line == s[:, 2]) & (col <= s[:, 3]))
        holding = np.flatnonzero(after_start & before_end)
        return int(rows[holding[-1]]) if holding.size else -1

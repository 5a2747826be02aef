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

Building costs one pass of Python per distinct string (a name or a signature shared by a thousand definitions is
split once); the rest is numpy.

Stored narrow (a reader accepts exactly the dtypes below, check_symbol_arrays): CSR offsets int32 while the last one
fits, lengths uint16 while the longest fits; the lower case of names is derived (postings.FoldedSpellings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.analysis_columns import PATH_CLASSES, CoreColumns
from maguyva_lsp.index.fuzzy import letter_masks
from maguyva_lsp.index.postings import I32, I64, Bools, csr_from_pairs, csr_rows, vocabulary_arrays
from maguyva_lsp.index.symbol_entry import (
    SubwordTables,
    compact_name,
    is_declaration_file,
    kind_rank,
    path_class_rank,
    rank_heads,
)
from maguyva_lsp.index.symbol_segment import MENTION_KIND_OF_REFERENCE, SymbolSegment
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS, STRING_OFFSET_DTYPES, Array, string_arrays

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


def narrow_offsets(offsets: I64) -> Array:
    """CSR offsets as stored: int32 when the last (largest) fits, else int64 (readers index with either)."""
    if offsets.size and int(offsets[-1]) > np.iinfo(np.int32).max:
        return offsets.astype(np.int64)
    return offsets.astype(np.int32)


def narrow_lengths(lengths: Sequence[int]) -> Array:
    """String lengths as stored: uint16 when the longest fits, else int32 (readers widen before subtracting)."""
    if lengths and max(lengths) > np.iinfo(np.uint16).max:
        return np.array(lengths, dtype=np.int32)
    return np.array(lengths, dtype=np.uint16)


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


def lower_exceptions(names: Sequence[str]) -> dict[str, Array]:
    """The names whose lower case is not the ASCII lower case of their UTF-8 (a non-ASCII capital), with it."""
    rows, lowers = [], []
    for row, name in enumerate(names):
        if name.isascii():  # str.lower of ASCII is bytes.lower: no exception, no encoding needed
            continue
        lower = name.lower()
        if lower.encode(ENCODING, ENCODING_ERRORS) != name.encode(ENCODING, ENCODING_ERRORS).lower():
            rows.append(row)
            lowers.append(lower)
    return {"nm.lower.rows": np.array(rows, dtype=np.int32), **string_arrays("nm.lower", lowers)}


class _PoolStrings:
    """Decodes chosen pool ids of a core (never the whole pool: it also holds texts and hashes)."""

    def __init__(self, core: CoreColumns) -> None:
        self._blob = np.asarray(core.arrays["pool.blob"])
        self._off = np.asarray(core.arrays["pool.off"])

    def lengths(self, ids: npt.NDArray[Any]) -> I64:
        """The encoded length of each string."""
        index = np.asarray(ids, dtype=np.int64)
        return self._off[index + 1].astype(np.int64) - self._off[index].astype(np.int64)

    def strings(self, ids: npt.NDArray[Any]) -> list[str]:
        index = np.asarray(ids, dtype=np.int64)
        starts, lengths = self._off[index].astype(np.int64), self.lengths(index)
        bounds = np.zeros(index.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=bounds[1:])
        # The chosen strings' bytes gathered and decoded at once; when they are all ASCII a byte offset is a
        # character offset, so slicing the one text gives each string (nearly always: names and signatures).
        picked = self._blob[np.repeat(starts - bounds[:-1], lengths) + np.arange(int(bounds[-1]), dtype=np.int64)]
        joined = picked.tobytes()
        cuts = bounds.tolist()
        if joined.isascii():
            text = joined.decode("ascii")
            return [text[s:e] for s, e in pairwise(cuts)]
        return [joined[s:e].decode(ENCODING, ENCODING_ERRORS) for s, e in pairwise(cuts)]


def _csr(rows: Sequence[Sequence[str]], index: Mapping[str, int]) -> tuple[I64, I32]:
    """Each row's strings as their ids in `index`, CSR."""
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, rows), dtype=np.int64, count=len(rows)), out=offsets[1:])
    flat = np.fromiter(map(index.__getitem__, chain.from_iterable(rows)), dtype=np.int32, count=int(offsets[-1]))
    return offsets, flat


def _ranks(strings: Sequence[str]) -> I64:
    """Each string's position in sorted order (equal strings cannot occur: pool strings are unique)."""
    order = sorted(range(len(strings)), key=strings.__getitem__)
    out = np.empty(len(strings), dtype=np.int64)
    out[np.asarray(order, dtype=np.int64)] = np.arange(len(strings), dtype=np.int64)
    return out


def _dense_rank(columns: Sequence[npt.NDArray[Any]]) -> I64:
    """Rows ranked by the columns (the last one first), equal rows sharing a rank."""
    n = columns[0].size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(columns)
    changed = np.zeros(n, dtype=np.bool_)
    for column in columns:
        ordered = column[order]
        changed[1:] |= ordered[1:] != ordered[:-1]
    out = np.empty(n, dtype=np.int64)
    out[order] = np.cumsum(changed)
    return out


def _sorted_members(values: I64, candidates: I64) -> Bools:
    """Which of `values` are among `candidates` (np.isin's answer, by a sort and a binary search)."""
    if values.size == 0 or candidates.size == 0:
        return np.zeros(values.size, dtype=np.bool_)
    ordered = np.sort(candidates)
    at = np.minimum(np.searchsorted(ordered, values), ordered.size - 1)
    return np.asarray(ordered[at] == values)


def build_symbol_arrays(core: CoreColumns) -> dict[str, Array]:
    """The symbol part of a segment (every file, dead or alive: the segment's `alive` flags mask at query time)."""
    a = core.arrays
    pool = _PoolStrings(core)
    n_files = core.file_count
    def_off = np.asarray(a["file.defs"], dtype=np.int64)
    n_defs = int(def_off[-1])
    def_file = np.repeat(np.arange(n_files, dtype=np.int32), np.diff(def_off))
    paths = core.paths.to_list()

    # Distinct names, parents, signatures and kinds, each handled once.
    name_ids, def_nm = np.unique(np.asarray(a["def.name"]), return_inverse=True)
    names = pool.strings(name_ids)
    parent_pid = np.asarray(a["def.parent"])
    has_parent = parent_pid >= 0
    parent_ids, parent_inverse = np.unique(parent_pid[has_parent], return_inverse=True)
    parents = pool.strings(parent_ids)
    def_pr = np.full(n_defs, -1, dtype=np.int32)
    def_pr[has_parent] = parent_inverse
    sig_ids, def_sg = np.unique(np.asarray(a["def.signature"]), return_inverse=True)
    kind_ids, def_kd = np.unique(np.asarray(a["def.kind"]), return_inverse=True)
    kinds = pool.strings(kind_ids)

    compacts = [compact_name(s) for s in names]
    keys = sorted(set(compacts))
    key_index = {k: i for i, k in enumerate(keys)}
    nm_key = np.fromiter(map(key_index.__getitem__, compacts), dtype=np.int32, count=len(compacts))
    tables = SubwordTables()
    nm_word_lists = tables.names(names)
    pr_word_lists = tables.names(parents)
    sg_word_lists = tables.signatures(pool.strings(sig_ids))
    words = sorted(set(chain.from_iterable(chain(nm_word_lists, pr_word_lists, sg_word_lists))))
    word_index = {w: i for i, w in enumerate(words)}
    nm_words_off, nm_words = _csr(nm_word_lists, word_index)
    pr_words_off, pr_words = _csr(pr_word_lists, word_index)
    sg_words_off, sg_words = _csr(sg_word_lists, word_index)

    # Postings: separator-free name → definitions; each field's sub-words → definitions.
    all_defs = np.arange(n_defs, dtype=np.int32)
    key_off, key_post = csr_from_pairs(nm_key[def_nm], all_defs, len(keys))
    owner, name_vals = csr_rows(nm_words_off, nm_words, def_nm)
    name_off, name_post = csr_from_pairs(name_vals, owner, len(words))
    with_parent = np.flatnonzero(has_parent)
    owner_p, parent_vals = csr_rows(pr_words_off, pr_words, def_pr[with_parent])
    parent_off, parent_post = csr_from_pairs(parent_vals, with_parent[owner_p], len(words))
    owner_s, sig_vals = csr_rows(sg_words_off, sg_words, def_sg)
    width = max(len(words), 1)
    own_name = _sorted_members(owner_s * width + sig_vals, owner * width + name_vals)  # a name's own words: not filed
    sig_off, sig_post = csr_from_pairs(sig_vals[~own_name], owner_s[~own_name], len(words))

    # The rank of each definition in the order of `symbol_entry.rank_key`, ties broken by source order.
    file_classes = np.asarray(a["file.class"])
    file_path_rank = np.array([path_class_rank(PATH_CLASSES[int(c)]) for c in file_classes], dtype=np.int64)
    file_declaration = np.array([is_declaration_file(p) for p in paths], dtype=np.bool_)
    kind_rank_of = np.array([kind_rank(k) for k in kinds], dtype=np.int64)
    name_len = np.array([len(s) for s in names], dtype=np.int64)
    own_parent_len = np.zeros(n_defs, dtype=np.int64)
    if parents:
        own_parent_len[has_parent] = np.array([len(p) for p in parents], dtype=np.int64)[parent_inverse]
    qualified = name_len[def_nm] + np.where(own_parent_len > 0, own_parent_len + 1, 0)
    heads = rank_heads(kind_rank_of[def_kd], file_path_rank[def_file], file_declaration[def_file], qualified)
    # `rank_key` compares `parent or ""`: no parent and an empty one are equal.
    parent_order = {p: i for i, p in enumerate(sorted({"", *parents}))}
    parent_rank = np.full(n_defs, parent_order[""], dtype=np.int64)
    if parents:
        parent_rank[has_parent] = np.array([parent_order[p] for p in parents], dtype=np.int64)[parent_inverse]
    name_span = np.asarray(a["def.name_span"]).reshape(-1, 4)
    span = np.asarray(a["def.span"]).reshape(-1, 4)
    tied = _dense_rank(
        [_ranks(kinds)[def_kd], parent_rank, _ranks(names)[def_nm], name_span[:, 1], name_span[:, 0], def_file, heads]
    )
    source_order = np.lexsort((all_defs, tied, span[:, 1], span[:, 0], def_file)).astype(np.int32)
    source_pos = np.empty(n_defs, dtype=np.int64)
    source_pos[source_order] = np.arange(n_defs, dtype=np.int64)
    def_rank = np.empty(n_defs, dtype=np.int32)
    def_rank[np.lexsort((source_pos, tied))] = np.arange(n_defs, dtype=np.int32)

    key_arrays = vocabulary_arrays("key", keys)
    return {
        **key_arrays,
        "key.len": narrow_lengths([len(k) for k in keys]),
        "key.mask": letter_masks(key_arrays["key.blob"], key_arrays["key.off"]),
        "key.post_off": narrow_offsets(key_off),
        "key.post": key_post,
        **vocabulary_arrays("word", words),
        "word.len": narrow_lengths([len(w) for w in words]),
        "word.name_off": narrow_offsets(name_off),
        "word.name": name_post,
        "word.parent_off": narrow_offsets(parent_off),
        "word.parent": parent_post,
        "word.sig_off": narrow_offsets(sig_off),
        "word.sig": sig_post,
        **string_arrays("nm", names),
        "nm.key": nm_key,
        "nm.clen": narrow_lengths([len(c) for c in compacts]),
        **lower_exceptions(names),
        "nm.words_off": narrow_offsets(nm_words_off),
        "nm.words": nm_words,
        "pr.words_off": narrow_offsets(pr_words_off),
        "pr.words": pr_words,
        "def.nm": def_nm.astype(np.int32),
        "def.pr": def_pr,
        "def.file": def_file.astype(np.uint16) if n_files <= 1 << 16 else def_file,
        "def.head": heads,
        "def.rank": def_rank,
        "def.order": source_order,
        **_mention_arrays(core, pool, file_path_rank),
    }


def _mention_arrays(core: CoreColumns, pool: _PoolStrings, file_path_rank: I64) -> dict[str, Array]:
    """Names mentioned on a single line, each with its references in ranking order."""
    a = core.arrays
    ref_off = np.asarray(a["file.refs"], dtype=np.int64)
    ref_file = np.repeat(np.arange(core.file_count, dtype=np.int32), np.diff(ref_off))
    spans = np.asarray(a["ref.span"]).reshape(-1, 4)
    name_pid = np.asarray(a["ref.name"])
    rows = np.flatnonzero((spans[:, 0] == spans[:, 2]) & (name_pid >= 0))
    ids, inverse = np.unique(name_pid[rows], return_inverse=True)
    named = pool.lengths(ids) > 0  # an empty name is no mention
    keep = named[inverse] if ids.size else np.zeros(0, dtype=np.bool_)
    rows, inverse = rows[keep], inverse[keep]
    texts_kept = pool.strings(ids[named])
    remap = np.cumsum(named) - 1  # old name index → index among the kept names
    rank = _ranks(texts_kept)
    name_rank = rank[remap[inverse]] if rows.size else np.zeros(0, dtype=np.int64)
    kinds = MENTION_KIND_OF_REFERENCE[np.asarray(a["ref.kind"])[rows]]
    files = ref_file[rows]
    s = spans[rows]
    order = np.lexsort((s[:, 3], s[:, 1], s[:, 0], files, file_path_rank[files], kinds, name_rank))
    ordered_names = np.asarray(name_rank)[order]
    offsets = np.zeros(len(texts_kept) + 1, dtype=np.int64)
    np.cumsum(np.bincount(ordered_names, minlength=len(texts_kept)), out=offsets[1:])
    in_order = np.empty(len(texts_kept), dtype=np.int64)
    in_order[rank] = np.arange(len(texts_kept), dtype=np.int64)
    return {
        **vocabulary_arrays("ment", [texts_kept[i] for i in in_order.tolist()]),
        "ment.rows_off": narrow_offsets(offsets),
        "ment.rows": rows[order].astype(np.int32),
    }


class SymbolPart:
    """Builds and opens the symbol part of every segment."""

    name = SYMBOL_PART
    version = SYMBOL_PART_VERSION

    def build(self, core: CoreColumns) -> dict[str, Array]:
        return build_symbol_arrays(core)

    def open(self, arrays: Mapping[str, Array], core: CoreColumns) -> SymbolSegment:
        check_symbol_arrays(arrays)
        return SymbolSegment(arrays, core)

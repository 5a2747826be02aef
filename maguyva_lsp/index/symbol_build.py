"""Building a segment's symbol part (symbol_part.py describes its arrays) from its core columns: the distinct
names, parents and signatures split once each (`build_symbol_arrays`), then array work shared with the merge
(`symbol_arrays`; symbol_merge.py takes the per-string facts from the merged segments' parts instead)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
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
from maguyva_lsp.index.symbol_segment import MENTION_KIND_OF_REFERENCE
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS, Array, string_arrays

_PACKED_BITS = 63  # bits of a packed sort word (int64, kept non-negative)
_INT64_MAX = int(np.iinfo(np.int64).max)


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


class Strings:
    """Decodes chosen strings of a blob and its offsets (a core's pool: never the whole of it, it also holds texts
    and hashes; a vocabulary of a part)."""

    def __init__(self, blob: Array, offsets: Array) -> None:
        self._blob = np.asarray(blob)
        self._off = np.asarray(offsets)

    @classmethod
    def pool(cls, core: CoreColumns) -> Strings:
        return cls(core.arrays["pool.blob"], core.arrays["pool.off"])

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
    order = lexsort_packed(columns)
    changed = np.zeros(n, dtype=np.bool_)
    for column in columns:
        ordered = column[order]
        changed[1:] |= ordered[1:] != ordered[:-1]
    out = np.empty(n, dtype=np.int64)
    out[order] = np.cumsum(changed)
    return out


def lexsort_packed(keys: Sequence[npt.NDArray[Any]]) -> I64:
    """`np.lexsort(keys)` (the last key first, ties in input order), with the keys packed into as few int64 words as
    their value ranges fit: comparing the packed words compares the keys in order, so the (stable) sort of the words
    is the same permutation, for one or two sorting passes instead of one per key."""
    if keys[0].size == 0:
        return np.lexsort(keys)
    words: list[I64] = []
    word, used = np.zeros(keys[0].size, dtype=np.int64), 0
    for key in reversed(keys):  # the first key sorted by takes the highest bits
        low, high = int(key.min()), int(key.max())
        bits = (high - low).bit_length()
        if bits > _PACKED_BITS or high > _INT64_MAX or low < -_INT64_MAX:  # a key that fits no word: sort as given
            return np.lexsort(keys)
        if used + bits > _PACKED_BITS and used:
            words.append(word)
            word, used = np.zeros(keys[0].size, dtype=np.int64), 0
        word = (word << bits) | (key.astype(np.int64) - low)
        used += bits
    words.append(word)
    if len(words) == 1:
        return np.argsort(words[0], kind="stable")
    return np.lexsort(words[::-1])


def _sorted_members(values: I64, candidates: I64) -> Bools:
    """Which of `values` are among `candidates` (np.isin's answer, by a sort and a binary search)."""
    if values.size == 0 or candidates.size == 0:
        return np.zeros(values.size, dtype=np.bool_)
    ordered = np.sort(candidates)
    at = np.minimum(np.searchsorted(ordered, values), ordered.size - 1)
    return np.asarray(ordered[at] == values)


@dataclass(frozen=True, slots=True)
class Distinct:
    """A core's definitions with their distinct names, parents and kinds (rows in pool-id order), each definition's
    row among them (`def_pr` -1 without a parent) and its file."""

    pool: Strings
    def_file: I32
    names: list[str]
    def_nm: I64
    parents: list[str]
    has_parent: Bools
    parent_inverse: I64
    def_pr: I32
    kinds: list[str]
    def_kd: I64

    @classmethod
    def of(cls, core: CoreColumns) -> Distinct:
        a = core.arrays
        pool = Strings.pool(core)
        def_off = np.asarray(a["file.defs"], dtype=np.int64)
        def_file = np.repeat(np.arange(core.file_count, dtype=np.int32), np.diff(def_off))
        name_ids, def_nm = np.unique(np.asarray(a["def.name"]), return_inverse=True)
        parent_pid = np.asarray(a["def.parent"])
        has_parent = parent_pid >= 0
        parent_ids, parent_inverse = np.unique(parent_pid[has_parent], return_inverse=True)
        def_pr = np.full(def_file.size, -1, dtype=np.int32)
        def_pr[has_parent] = parent_inverse
        kind_ids, def_kd = np.unique(np.asarray(a["def.kind"]), return_inverse=True)
        return cls(
            pool, def_file, pool.strings(name_ids), def_nm, pool.strings(parent_ids), has_parent, parent_inverse,
            def_pr, pool.strings(kind_ids), def_kd,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Filed:
    """What the distinct strings are filed under: each name's separator-free key (a row of the sorted `keys`) and
    its length, the sub-words (rows of the sorted `words`) of each name and parent, and the signature postings
    (sub-word → definitions, a name's own words left out)."""

    keys: list[str]
    nm_key: I32
    nm_clen: list[int]
    words: list[str]
    nm_words: tuple[I64, I32]
    pr_words: tuple[I64, I32]
    sig: tuple[I64, I32]


def build_symbol_arrays(core: CoreColumns) -> dict[str, Array]:
    """The symbol part of a segment (every file, dead or alive: the segment's `alive` flags mask at query time)."""
    d = Distinct.of(core)
    # One pass of Python per distinct name, parent and signature.
    compacts = [compact_name(s) for s in d.names]
    keys = sorted(set(compacts))
    key_index = {k: i for i, k in enumerate(keys)}
    nm_key = np.fromiter(map(key_index.__getitem__, compacts), dtype=np.int32, count=len(compacts))
    sig_ids, def_sg = np.unique(np.asarray(core.arrays["def.signature"]), return_inverse=True)
    tables = SubwordTables()
    nm_rows = tables.rows(d.names)
    pr_rows = tables.rows(d.parents)
    sg_rows = tables.rows(d.pool.strings(sig_ids), signature=True)
    # the sub-words filed, sorted, and each row's sub-word ids turned into ranks among them
    parts = tables.strings()
    used = np.unique(np.concatenate((nm_rows[1], pr_rows[1], sg_rows[1])))
    used_strings = [parts[i] for i in used.tolist()]
    order = sorted(range(len(used_strings)), key=used_strings.__getitem__)
    words = [used_strings[i] for i in order]
    rank = np.zeros(len(parts), dtype=np.int32)
    rank[used[np.asarray(order, dtype=np.int64)]] = np.arange(len(order), dtype=np.int32)
    nm_words_off, nm_words = nm_rows[0], rank[nm_rows[1]]
    sg_words_off, sg_words = sg_rows[0], rank[sg_rows[1]]
    # A signature's words → definitions, but not the definition's own name words.
    owner, name_vals = csr_rows(nm_words_off, nm_words, d.def_nm)
    owner_s, sig_vals = csr_rows(sg_words_off, sg_words, def_sg)
    width = max(len(words), 1)
    own_name = _sorted_members(owner_s * width + sig_vals, owner * width + name_vals)
    sig = csr_from_pairs(sig_vals[~own_name], owner_s[~own_name], len(words))
    filed = Filed(
        keys, nm_key, [len(c) for c in compacts], words, (nm_words_off, nm_words), (pr_rows[0], rank[pr_rows[1]]), sig
    )
    return symbol_arrays(core, d, filed)


def symbol_arrays(core: CoreColumns, d: Distinct, filed: Filed) -> dict[str, Array]:
    """The symbol part of a core from its distinct strings and what they are filed under (built or merged): the
    rest is numpy and a sort of the names, parents and kinds."""
    a = core.arrays
    n_files, n_defs, words = core.file_count, d.def_file.size, filed.words
    def_file, def_nm, def_pr, has_parent = d.def_file, d.def_nm, d.def_pr, d.has_parent
    nm_words_off, nm_words = filed.nm_words
    pr_words_off, pr_words = filed.pr_words

    # Postings: separator-free name → definitions; each field's sub-words → definitions.
    all_defs = np.arange(n_defs, dtype=np.int32)
    key_off, key_post = csr_from_pairs(filed.nm_key[def_nm], all_defs, len(filed.keys))
    owner, name_vals = csr_rows(nm_words_off, nm_words, def_nm)
    name_off, name_post = csr_from_pairs(name_vals, owner, len(words))
    with_parent = np.flatnonzero(has_parent)
    owner_p, parent_vals = csr_rows(pr_words_off, pr_words, def_pr[with_parent])
    parent_off, parent_post = csr_from_pairs(parent_vals, with_parent[owner_p], len(words))
    sig_off, sig_post = filed.sig

    # The rank of each definition in the order of `symbol_entry.rank_key`, ties broken by source order.
    file_classes = np.asarray(a["file.class"])
    file_path_rank = np.array([path_class_rank(PATH_CLASSES[int(c)]) for c in file_classes], dtype=np.int64)
    file_declaration = np.array([is_declaration_file(p) for p in core.paths.to_list()], dtype=np.bool_)
    kind_rank_of = np.array([kind_rank(k) for k in d.kinds], dtype=np.int64)
    name_len = np.array([len(s) for s in d.names], dtype=np.int64)
    own_parent_len = np.zeros(n_defs, dtype=np.int64)
    if d.parents:
        own_parent_len[has_parent] = np.array([len(p) for p in d.parents], dtype=np.int64)[d.parent_inverse]
    qualified = name_len[def_nm] + np.where(own_parent_len > 0, own_parent_len + 1, 0)
    heads = rank_heads(kind_rank_of[d.def_kd], file_path_rank[def_file], file_declaration[def_file], qualified)
    # `rank_key` compares `parent or ""`: no parent and an empty one are equal.
    parent_order = {p: i for i, p in enumerate(sorted({"", *d.parents}))}
    parent_rank = np.full(n_defs, parent_order[""], dtype=np.int64)
    if d.parents:
        parent_rank[has_parent] = np.array([parent_order[p] for p in d.parents], dtype=np.int64)[d.parent_inverse]
    name_span = np.asarray(a["def.name_span"]).reshape(-1, 4)
    span = np.asarray(a["def.span"]).reshape(-1, 4)
    tied = _dense_rank(
        [_ranks(d.kinds)[d.def_kd], parent_rank, _ranks(d.names)[def_nm], name_span[:, 1], name_span[:, 0], def_file,
         heads]
    )  # fmt: skip
    source_order = np.lexsort((all_defs, tied, span[:, 1], span[:, 0], def_file)).astype(np.int32)
    source_pos = np.empty(n_defs, dtype=np.int64)
    source_pos[source_order] = np.arange(n_defs, dtype=np.int64)
    def_rank = np.empty(n_defs, dtype=np.int32)
    def_rank[np.lexsort((source_pos, tied))] = np.arange(n_defs, dtype=np.int32)

    key_arrays = vocabulary_arrays("key", filed.keys)
    return {
        **key_arrays,
        "key.len": narrow_lengths([len(k) for k in filed.keys]),
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
        **string_arrays("nm", d.names),
        "nm.key": filed.nm_key,
        "nm.clen": narrow_lengths(filed.nm_clen),
        **lower_exceptions(d.names),
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
        **_mention_arrays(core, d.pool, file_path_rank),
    }


def _mention_arrays(core: CoreColumns, pool: Strings, file_path_rank: I64) -> dict[str, Array]:
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
    order = lexsort_packed((s[:, 3], s[:, 1], s[:, 0], files, file_path_rank[files], kinds, name_rank))
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

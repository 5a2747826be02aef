"""The text part of a merged segment from the text parts of the segments it unites, instead of from its text.

Both halves of the text part are per-file (trigrams) or per-chunk (BM25 terms and frequencies) facts, so the merged
postings are the live rows of the sources' postings with their ids renumbered: the same arrays a build from the
merged core gives (tests compare them), for array work instead of a pass of Python over every chunk's words. On the
stdlib's cold merge the build took ~4.5 s CPU and ~400 MB above the core (the chunks' texts, their words and
tokens as Python objects); this takes ~0.5 s and a few arrays of the postings' size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import run_starts
from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.bm25 import bm25_tail_arrays
from maguyva_lsp.index.segment_parts import PartSource
from maguyva_lsp.index.text_postings import I64, PostingLists
from maguyva_lsp.store.container import Array, StringColumn, string_arrays


def merged_text_arrays(sources: Sequence[PartSource], merged: CoreColumns) -> dict[str, Array]:
    """The text part of `merged` (the core `merge_core` made of the sources' live files)."""
    position = {path: i for i, path in enumerate(merged.paths.to_list())}
    file_maps = [live_file_map(s, position) for s in sources]
    return {**_trigram_arrays(sources, file_maps), **_bm25_arrays(sources, file_maps, merged)}


def live_file_map(source: PartSource, position: Mapping[str, int]) -> I64:
    """Each local file's id in the merged segment (`position`: its row by path), -1 for a dead one."""
    out = np.full(source.core.file_count, -1, dtype=np.int64)
    paths = source.core.paths
    for local in np.flatnonzero(source.alive).tolist():
        out[local] = position[paths[local]]
    return out


_LOW = np.uint64(0xFFFFFFFF)


def _pairs(keys: npt.NDArray[Any], ids: I64) -> npt.NDArray[np.uint64]:
    """(key, id) pairs as one sortable number each: key in the high 32 bits, id in the low."""
    out: npt.NDArray[np.uint64] = (keys.astype(np.uint64) << np.uint64(32)) | ids.astype(np.uint64)
    return out


def _grouped(pairs: npt.NDArray[np.uint64], values: npt.NDArray[np.float32] | None) -> PostingLists:
    """Sorted (key, id) pairs, each once (and their values, in the same order), as posting lists."""
    if pairs.size == 0:
        return PostingLists.empty(values is not None)
    sorted_keys = (pairs >> np.uint64(32)).astype(np.uint32)
    starts = run_starts(sorted_keys)
    return PostingLists(
        keys=sorted_keys[starts],
        offsets=np.append(starts, np.int64(sorted_keys.size)).astype(np.int64),
        ids=(pairs & _LOW).astype(np.uint32),
        values=values,
    )


def _list_starts(offsets: I64) -> tuple[I64, I64]:
    """Each list's size, and for every position the start of its list."""
    sizes = np.diff(offsets)
    return sizes, np.repeat(offsets[:-1], sizes)


def _trigram_arrays(sources: Sequence[PartSource], file_maps: Sequence[I64]) -> dict[str, Array]:
    pairs: list[npt.NDArray[np.uint64]] = []
    folding: list[I64] = []
    for source, file_map in zip(sources, file_maps, strict=True):
        postings = PostingLists.from_arrays(source.arrays, "tri")
        assert postings.gaps is not None and postings.keys is not None, "trigram ids are gap-coded"
        offsets = np.asarray(postings.offsets, dtype=np.int64)
        sums = postings.gaps.narrow.astype(np.int64)
        sums[postings.gaps.at.astype(np.int64)] = postings.gaps.full
        # within a list the gaps sum to id + 1 (the first gap is the first id + 1)
        np.cumsum(sums, out=sums)
        sizes, starts = _list_starts(offsets)
        sums -= np.concatenate(([0], sums))[starts] + 1
        new = file_map[sums] if sums.size else sums
        del sums, starts
        live = new >= 0
        pairs.append(_pairs(np.repeat(postings.keys, sizes)[live], new[live]))
        del new, live
        fold = file_map[np.asarray(source.arrays["tri.fold"], dtype=np.int64)]
        folding.append(fold[fold >= 0])
    joined = _joined(pairs, np.uint64)
    del pairs
    joined.sort()
    return {
        **_grouped(joined, None).to_arrays("tri", id_gaps=np.uint8),
        "tri.fold": np.sort(_joined(folding, np.int64)).astype(np.uint32),
    }


def _bm25_arrays(sources: Sequence[PartSource], file_maps: Sequence[I64], merged: CoreColumns) -> dict[str, Array]:
    source_terms = [StringColumn(s.arrays["bm25.terms.blob"], s.arrays["bm25.terms.off"]).to_list() for s in sources]
    every = sorted(set().union(*source_terms))
    term_index = {term: i for i, term in enumerate(every)}
    merged_offsets = np.asarray(merged.arrays["file.chunks"], dtype=np.int64)
    lengths = np.zeros(int(merged_offsets[-1]), dtype=np.float32)
    keys: list[npt.NDArray[np.uint32]] = []
    rows: list[I64] = []
    values: list[npt.NDArray[np.float32]] = []
    for source, file_map, terms in zip(sources, file_maps, source_terms, strict=True):
        row_map = _chunk_map(source.core, file_map, merged_offsets)
        source_lengths = np.asarray(source.arrays["bm25.len"]).astype(np.float32)
        kept = row_map >= 0
        lengths[row_map[kept]] = source_lengths[kept]
        postings = PostingLists.from_arrays(source.arrays, "bm25")
        offsets = np.asarray(postings.offsets, dtype=np.int64)
        sizes, starts = _list_starts(offsets)
        local = _split_ids(postings, offsets, starts)
        new = row_map[local] if local.size else local
        live = new >= 0
        ranks = np.fromiter(map(term_index.__getitem__, terms), dtype=np.uint32, count=len(terms))
        keys.append(np.repeat(ranks, sizes)[live])
        rows.append(new[live])
        values.append(_values(postings)[live])
    # terms only dead chunks held are gone: the keys are the ranks of the terms left, 0..n-1
    held = np.zeros(len(every), dtype=np.int64)
    for k in keys:
        held += np.bincount(k, minlength=len(every))
    used = np.flatnonzero(held)
    rank = np.cumsum(held > 0) - 1
    ranked = [rank[k] for k in keys]
    del keys
    grouped = _counted(ranked, rows, values, held[used])
    if grouped is None:
        grouped = _sorted_pairs(ranked, rows, values)
    del ranked, rows, values
    return {
        **grouped.to_arrays("bm25", split_ids=True, dense_keys=True),
        **string_arrays("bm25.terms", [every[i] for i in used.tolist()]),
        **bm25_tail_arrays(lengths, merged),
    }


def _counted(
    keys: Sequence[I64], rows: Sequence[I64], values: Sequence[npt.NDArray[np.float32]], per_key: I64
) -> PostingLists | None:
    """The sources' postings (each ordered by key, then row) merged into one ordered by key, then row, without a
    sort: a counting sort by key that keeps the sources' order within a key. That order is the row order when the
    sources' rows do not interleave within a key (a cold build's sources are consecutive files); None when they do
    (or a source is not ordered by key)."""
    offsets = np.zeros(per_key.size + 1, dtype=np.int64)
    np.cumsum(per_key, out=offsets[1:])
    total = int(offsets[-1])
    out_rows = np.empty(total, dtype=np.int64)
    out_values = np.empty(total, dtype=np.float32)
    before = offsets[:-1].copy()  # where each key's next source block goes
    for k, r, v in zip(keys, rows, values, strict=True):
        if k.size == 0:
            continue
        if bool(np.any(k[1:] < k[:-1])):
            return None
        counts = np.bincount(k, minlength=per_key.size)
        block = np.zeros(per_key.size, dtype=np.int64)  # each key's first position in this source
        np.cumsum(counts[:-1], out=block[1:])
        at = (before - block)[k] + np.arange(k.size, dtype=np.int64)
        out_rows[at] = r
        out_values[at] = v
        before += counts
    key_of = np.repeat(np.arange(per_key.size, dtype=np.int64), per_key)
    if total > 1 and not bool(np.all((key_of[1:] != key_of[:-1]) | (out_rows[1:] > out_rows[:-1]))):
        return None
    return PostingLists(
        keys=np.arange(per_key.size, dtype=np.uint32),
        offsets=offsets,
        ids=out_rows.astype(np.uint32),
        values=out_values,
    )


def _sorted_pairs(keys: Sequence[I64], rows: Sequence[I64], values: Sequence[npt.NDArray[np.float32]]) -> PostingLists:
    """The sources' postings merged by sorting their (key, row) pairs."""
    pairs = _pairs(_joined(list(keys), np.int64), _joined(list(rows), np.int64))
    order = np.argsort(pairs)
    return _grouped(pairs[order], _joined(list(values), np.float32)[order])


def _chunk_map(core: CoreColumns, file_map: I64, merged_offsets: I64) -> I64:
    """Each chunk row's row in the merged segment (its file's chunks keep their order there), -1 for a dead file's."""
    offsets = np.asarray(core.arrays["file.chunks"], dtype=np.int64)
    owner = np.repeat(np.arange(core.file_count, dtype=np.int64), np.diff(offsets))
    new_file = file_map[owner]
    out = np.full(owner.size, -1, dtype=np.int64)
    live = new_file >= 0
    rows = np.flatnonzero(live)
    out[rows] = merged_offsets[new_file[live]] + rows - offsets[owner[live]]
    return out


def _split_ids(postings: PostingLists, offsets: I64, starts: I64) -> I64:
    """Every stored id of split postings (low halves plus the steps of their high halves), as `ids_of` reads them."""
    low = np.asarray(postings.ids).astype(np.int64)
    if postings.steps is None:
        return low
    steps = np.cumsum(np.bincount(np.asarray(postings.steps, dtype=np.int64), minlength=low.size)[: low.size])
    before = np.concatenate(([0], steps))[starts]  # the steps of earlier lists
    out: I64 = low + ((steps - before) << 16)
    return out


def _values(postings: PostingLists) -> npt.NDArray[np.float32]:
    assert postings.values is not None, "BM25 postings carry term frequencies"
    out = np.asarray(postings.values).astype(np.float32)
    aside = postings.value_aside
    if aside is not None:
        out[aside.at.astype(np.int64)] = aside.full
    return out


_N = TypeVar("_N", bound=np.generic)


def _joined(parts: list[npt.NDArray[_N]], dtype: type[_N]) -> npt.NDArray[_N]:
    """The parts one after another; an empty array of `dtype` when there are none (a merge of no sources)."""
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)

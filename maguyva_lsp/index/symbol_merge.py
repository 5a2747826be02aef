"""The symbol part of a merged segment from the symbol parts of the segments it unites, instead of from its strings.

What a build spends its Python on is per distinct string: each name's separator-free key, the sub-words of names,
parents and signatures. Those are facts of the string alone, so a merge takes them from the sources' parts (the
key and sub-words of each live name and parent, a signature's postings of each live definition), renumbered into
the merged segment's definitions and into vocabularies united over what live definitions still use; then it runs
the build's own array work (symbol_build.symbol_arrays: postings, ranks, mentions) over the merged core. The arrays
are the ones a build from the merged core gives (tests compare them): on the stdlib's cold merge ~0.4 s CPU instead
of ~1.1 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.postings import I32, I64, csr_from_pairs, csr_rows
from maguyva_lsp.index.segment_parts import PartSource
from maguyva_lsp.index.symbol_build import Distinct, Filed, Strings, symbol_arrays
from maguyva_lsp.index.text_merge import live_file_map
from maguyva_lsp.store.container import Array


def merged_symbol_arrays(sources: Sequence[PartSource], merged: CoreColumns) -> dict[str, Array]:
    """The symbol part of `merged` (the core `merge_core` made of the sources' live files)."""
    d = Distinct.of(merged)
    origin = _Origins.of(sources, merged)
    # A representative definition of each distinct name and parent: its source part holds the string's facts.
    _, nm_rep = np.unique(d.def_nm, return_index=True)
    with_parent = np.flatnonzero(d.has_parent)
    _, pr_first = np.unique(d.def_pr[with_parent], return_index=True)
    nm_src, nm_row = origin.rows_in(sources, nm_rep, "def.nm")
    pr_src, pr_row = origin.rows_in(sources, with_parent[pr_first], "def.pr")

    keys, key_maps = _united(sources, "key", [np.asarray(s.arrays["nm.key"])[nm_row[nm_src == i]]
                                             for i, s in enumerate(sources)])  # fmt: skip
    nm_key = np.zeros(nm_src.size, dtype=np.int32)
    nm_clen = np.zeros(nm_src.size, dtype=np.int64)
    for i, source in enumerate(sources):
        mine = nm_src == i
        nm_key[mine] = key_maps[i][np.asarray(source.arrays["nm.key"])[nm_row[mine]]]
        nm_clen[mine] = np.asarray(source.arrays["nm.clen"])[nm_row[mine]]

    # The sub-words still used: by a live name or parent, or by a live definition's signature.
    sig_pairs = [_live_postings(s, origin.def_maps[i]) for i, s in enumerate(sources)]
    used = [
        np.concatenate((
            csr_rows(_offsets(s, "nm.words_off"), np.asarray(s.arrays["nm.words"]), nm_row[nm_src == i])[1],
            csr_rows(_offsets(s, "pr.words_off"), np.asarray(s.arrays["pr.words"]), pr_row[pr_src == i])[1],
            sig_pairs[i][0],
        ))
        for i, s in enumerate(sources)
    ]  # fmt: skip
    words, word_maps = _united(sources, "word", used)
    sig_words = [word_maps[i][w] for i, (w, _) in enumerate(sig_pairs)]
    sig_defs = [defs for _, defs in sig_pairs]
    filed = Filed(
        keys=keys,
        nm_key=nm_key,
        nm_clen=nm_clen.tolist(),
        words=words,
        nm_words=_gathered(sources, nm_src, nm_row, "nm.words", word_maps),
        pr_words=_gathered(sources, pr_src, pr_row, "pr.words", word_maps),
        sig=csr_from_pairs(_joined(sig_words), _joined(sig_defs), len(words)),
    )
    return symbol_arrays(merged, d, filed)


@dataclass(frozen=True, slots=True)
class _Origins:
    """Where each definition of the merged core comes from: its source and its row there; and per source, each
    definition's row in the merged core (-1 for a dead file's)."""

    source: I32
    row: I64
    def_maps: list[I64]

    @classmethod
    def of(cls, sources: Sequence[PartSource], merged: CoreColumns) -> _Origins:
        position = {path: i for i, path in enumerate(merged.paths.to_list())}
        merged_offsets = np.asarray(merged.arrays["file.defs"], dtype=np.int64)
        n_defs = int(merged_offsets[-1])
        source_of = np.full(n_defs, -1, dtype=np.int32)
        row_of = np.full(n_defs, -1, dtype=np.int64)
        def_maps: list[I64] = []
        for i, source in enumerate(sources):
            file_map = live_file_map(source, position)
            offsets = np.asarray(source.core.arrays["file.defs"], dtype=np.int64)
            owner = np.repeat(np.arange(source.core.file_count, dtype=np.int64), np.diff(offsets))
            new_file = file_map[owner]
            def_map = np.full(owner.size, -1, dtype=np.int64)
            rows = np.flatnonzero(new_file >= 0)  # a file's definitions keep their order in the merged core
            def_map[rows] = merged_offsets[new_file[rows]] + rows - offsets[owner[rows]]
            source_of[def_map[rows]] = i
            row_of[def_map[rows]] = rows
            def_maps.append(def_map)
        if n_defs and int(source_of.min()) < 0:
            raise ValueError("a merged definition has no source definition")
        return cls(source_of, row_of, def_maps)

    def rows_in(self, sources: Sequence[PartSource], defs: I64, column: str) -> tuple[I32, I64]:
        """For merged definitions: their source, and the row their `column` (def.nm, def.pr) names there."""
        src = self.source[defs]
        out = np.zeros(defs.size, dtype=np.int64)
        for i, source in enumerate(sources):
            mine = src == i
            out[mine] = np.asarray(source.arrays[column])[self.row[defs[mine]]]
        return src, out


def _offsets(source: PartSource, name: str) -> I64:
    return np.asarray(source.arrays[name], dtype=np.int64)


def _united(sources: Sequence[PartSource], vocabulary: str, used: Sequence[npt.NDArray[np.integer]]) -> tuple[
    list[str], list[I64]
]:  # fmt: skip
    """The sorted union of the vocabulary strings each source still uses (`used`: their ids there, repeats
    allowed), and per source each of its ids' row in the union (-1 for one no longer used)."""
    picked = [np.unique(np.asarray(ids, dtype=np.int64)) for ids in used]
    texts = [
        Strings(s.arrays[f"{vocabulary}.blob"], s.arrays[f"{vocabulary}.off"]).strings(ids)
        for s, ids in zip(sources, picked, strict=True)
    ]
    union = sorted(set().union(*texts))
    index = {text: i for i, text in enumerate(union)}
    maps: list[I64] = []
    for source, ids, strings in zip(sources, picked, texts, strict=True):
        row_map = np.full(np.asarray(source.arrays[f"{vocabulary}.off"]).size - 1, -1, dtype=np.int64)
        row_map[ids] = np.fromiter(map(index.__getitem__, strings), dtype=np.int64, count=len(strings))
        maps.append(row_map)
    return union, maps


def _live_postings(source: PartSource, def_map: I64) -> tuple[I64, I64]:
    """A source's signature postings of live definitions, as (its word id, merged definition) pairs."""
    offsets = _offsets(source, "word.sig_off")
    owner = np.repeat(np.arange(offsets.size - 1, dtype=np.int64), np.diff(offsets))
    defs = def_map[np.asarray(source.arrays["word.sig"], dtype=np.int64)]
    live = defs >= 0
    return owner[live], defs[live]


def _gathered(
    sources: Sequence[PartSource], src: I32, rows: I64, column: str, value_maps: Sequence[I64]
) -> tuple[I64, I32]:
    """A CSR column (nm.words, pr.words) for rows that each come from one source's row, values renumbered."""
    lengths = np.zeros(src.size, dtype=np.int64)
    for i, source in enumerate(sources):
        offsets = _offsets(source, f"{column}_off")
        mine = src == i
        lengths[mine] = offsets[rows[mine] + 1] - offsets[rows[mine]]
    out_off = np.zeros(src.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=out_off[1:])
    flat = np.zeros(int(out_off[-1]), dtype=np.int32)
    for i, source in enumerate(sources):
        at = np.flatnonzero(src == i)
        owner, values = csr_rows(_offsets(source, f"{column}_off"), np.asarray(source.arrays[column]), rows[at])
        if owner.size:
            before = np.zeros(at.size + 1, dtype=np.int64)  # each row's start among this source's values
            np.cumsum(lengths[at], out=before[1:])
            spot = out_off[at][owner] + np.arange(owner.size, dtype=np.int64) - before[owner]
            flat[spot] = value_maps[i][np.asarray(values, dtype=np.int64)]
    return out_off, flat


def _joined(parts: list[I64]) -> I64:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

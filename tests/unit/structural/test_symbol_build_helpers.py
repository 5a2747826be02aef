"""The symbol part's build does per-string work in bulk (symbol_entry.SubwordTables, fuzzy.letter_masks,
postings.heads_of, symbol_entry.rank_heads, the ASCII path of compact_name): each gives what its one-string
definition gives, over the names, parents and signatures of real files and strings chosen to break them (non-ASCII
capitals, lone surrogates, empty strings, noise words, repeated sub-words)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from maguyva_lsp.index.analysis_columns import CoreColumns, encode_analyses
from maguyva_lsp.index.fuzzy import letter_mask, letter_masks
from maguyva_lsp.index.postings import head_of, heads_of
from maguyva_lsp.index.symbol_build import build_symbol_arrays, lexsort_packed
from maguyva_lsp.index.symbol_entry import (
    SubwordTables,
    compact_name,
    name_subwords,
    parent_subwords,
    rank_head,
    rank_heads,
    signature_words,
)
from maguyva_lsp.index.symbol_part import check_symbol_arrays
from maguyva_lsp.model import SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS, encode_strings

ROOT = Path(__file__).resolve().parents[3]
ODD = [
    "", "_", "__init__", "HTTPServer", "parseConfig2", "self", "def self(cls, x): return X", "Ärger", "ΣIGMA_Total",
    "İstanbul", "Straße", "\u212akelvin", "a\udc80b", "fn pub async f(mut x: &Self) -> i32", "getValue getValue",
    "x.y.z", "$jq", "日本語_名前", "ABC123def", "—", "a-b-c", "  ",
]  # fmt: skip


def _real_strings() -> list[str]:
    out: list[str] = []
    for p in sorted((ROOT / "maguyva_lsp" / "index").glob("symbol_*.py")):
        rel = f"pkg/{p.name}"
        file = SourceFile(rel, f"/ws/{rel}", language_for_path(rel), classify_path(rel), p.stat().st_size, 1)
        analysis = analyze_file(file, p.read_bytes())
        for d in analysis.definitions:
            out.extend([d.name, d.parent or "", d.signature])
    assert len(out) > 100
    return out


def _one_by_one_compact(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum()) or name.lower()


def test_the_bulk_helpers_give_what_their_one_string_definitions_give() -> None:
    strings = [*ODD, *_real_strings()]
    tables = SubwordTables()
    assert tables.names(strings) == [name_subwords(s) for s in strings]
    assert tables.names(strings) == [parent_subwords(s or None) for s in strings]
    assert tables.signatures(strings) == [signature_words(s) for s in strings]
    assert [compact_name(s) for s in strings] == [_one_by_one_compact(s) for s in strings]
    for column in (strings, [], [""], sorted(set(strings))):
        blob, offsets = encode_strings(column)
        heads = heads_of(blob, offsets)
        assert heads.dtype == np.uint64
        assert heads.tolist() == [head_of(s.encode(ENCODING, ENCODING_ERRORS)) for s in column]
        masks = letter_masks(blob, offsets)
        assert masks.dtype == np.uint64
        assert masks.tolist() == [letter_mask(s) for s in column]


def test_rank_heads_packs_as_rank_head() -> None:
    rng = np.random.default_rng(3)
    kinds, paths = rng.integers(0, 3, 500), rng.integers(0, 6, 500)
    declarations, lengths = rng.random(500) < 0.3, rng.integers(0, 1 << 20, 500)
    packed = rank_heads(kinds, paths, declarations, lengths)
    assert packed.dtype == np.int64
    rows = zip(kinds.tolist(), paths.tolist(), declarations.tolist(), lengths.tolist(), strict=True)
    expected = [rank_head(*row) for row in rows]
    assert packed.tolist() == expected


def test_a_core_with_no_definitions_builds_an_empty_part() -> None:
    rel = "pkg/empty.py"
    file = SourceFile(rel, f"/ws/{rel}", language_for_path(rel), classify_path(rel), 0, 1)
    arrays = build_symbol_arrays(CoreColumns(encode_analyses([analyze_file(file, b"")])))
    check_symbol_arrays(arrays)
    assert arrays["def.rank"].size == 0 and arrays["key.mask"].size == 0


def test_the_packed_lexsort_is_numpys_lexsort() -> None:
    rng = np.random.default_rng(11)
    n = 3000
    cases: list[list[np.ndarray]] = [
        [rng.integers(0, 3, n), rng.integers(0, 5, n)],  # one word, many ties (stability)
        [rng.integers(0, 1 << 40, n), rng.integers(-5, 5, n), rng.integers(0, 1 << 30, n)],  # two words
        [rng.integers(0, 2, n).astype(np.uint16), rng.integers(0, 1 << 62, n), rng.integers(0, 7, n)],
        [np.full(n, 7, dtype=np.uint8), rng.integers(0, 4, n)],  # a constant key (no bits)
        [np.array([1 << 63, 0, 5] * 1000, dtype=np.uint64), rng.integers(0, 3, n)],  # beyond int64: numpy's own
        [np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)],
    ]
    for keys in cases:
        assert np.array_equal(lexsort_packed(keys), np.lexsort(keys))

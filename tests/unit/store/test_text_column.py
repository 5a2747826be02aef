"""The core's compressed source text: every file reads back byte for byte (directly, through the search cache, after a
merge), line starts found in the text equal those of a scan, the search cache stays within its budget and forgets a
column nobody holds, and damaged or foreign columns are refused."""

from __future__ import annotations

import bisect
import gc
import random

import numpy as np
import pytest

from maguyva_lsp.index import text_column
from maguyva_lsp.index.analysis_columns import CoreColumns, encode_analyses, merge_core
from maguyva_lsp.index.text_column import TextColumn, line_starts, text_arrays
from maguyva_lsp.index.text_views import FileView
from maguyva_lsp.model import FileAnalysis, PathClass, SourceFile
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS, ContainerError

TEXTS = ["", "one", "a\nb", "a\nb\n", "\n\n", "x\r\ny\r\n", "é\nü\n\ud800z", "def f():\n    return 1\n" * 300]


def _analysis(path: str, text: str) -> FileAnalysis:
    return FileAnalysis(SourceFile(path, "/" + path, None, PathClass.SOURCE, len(text), 0), text, "h", (), (), ())


def _core(texts: list[str], prefix: str = "f") -> CoreColumns:
    return CoreColumns(encode_analyses([_analysis(f"{prefix}{i}.txt", t) for i, t in enumerate(texts)]))


def _scanned_starts(data: bytes) -> list[int]:
    return [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]


def test_every_file_reads_back_byte_for_byte_and_its_line_starts_are_a_scans() -> None:
    core = _core(TEXTS)
    for i, text in enumerate(TEXTS):
        local = core.local_id(f"f{i}.txt")
        data = text.encode(ENCODING, ENCODING_ERRORS)
        assert core.text_bytes(local) == data
        assert core.search_bytes(local) == data
        assert core.text(local) == text
        assert core.text_size(local) == len(data)
        assert core.line_starts(local).tolist() == _scanned_starts(data)
        assert core.line_starts(local).dtype == np.uint32
        assert core.line_count(local) == len(_scanned_starts(data))
    assert core.text_sizes().tolist() == [len(core.text_bytes(local)) for local in range(core.file_count)]


def test_source_text_is_stored_compressed() -> None:
    arrays = encode_analyses([_analysis("big.py", TEXTS[-1])])
    assert "text" not in arrays and "lines" not in arrays  # neither the raw text nor the line starts are stored
    assert arrays["textz"].size * 10 < len(TEXTS[-1])


def test_a_merge_keeps_every_files_text() -> None:
    first, second = _core(TEXTS[:4], "a"), _core(TEXTS[4:], "b")
    alive_first = np.array([True, False, True, True])
    merged = CoreColumns(merge_core([(first, alive_first), (second, np.ones(4, dtype=bool))]))
    kept = [(f"a{i}.txt", t) for i, t in enumerate(TEXTS[:4]) if alive_first[i]]
    kept += [(f"b{i}.txt", t) for i, t in enumerate(TEXTS[4:])]
    assert merged.file_count == len(kept)
    for path, text in kept:
        local = merged.local_id(path)
        assert merged.text(local) == text
        assert merged.line_count(local) == text.count("\n") + 1


def test_line_starts_of_bytes() -> None:
    for data in (b"", b"\n", b"a", b"ab\ncd\n\nx"):
        assert line_starts(data).tolist() == _scanned_starts(data)


def test_the_search_cache_stays_within_its_budget_least_recent_out() -> None:
    cache = text_column._Cache(budget=100)
    cache.put((1, 0, 0), b"a" * 10)
    cache.put((1, 1, 0), b"b" * 10)
    cache.put((1, 2, 0), b"c" * 50)  # over an eighth of the budget: decoded each time, never kept
    assert cache.get((1, 2, 0)) is None
    for local in range(2, 10):
        assert cache.get((1, 0, 0)) is not None  # read again and again: kept while others come and go
        cache.put((1, local, 0), bytes([local]) * 12)
    assert cache.size <= 100
    assert cache.get((1, 0, 0)) == b"a" * 10
    assert cache.get((1, 1, 0)) is None  # the least recently read went first
    cache.forget(1)
    assert cache.size == 0 and cache.get((1, 0, 0)) is None


def test_a_scan_larger_than_the_cache_still_hits_what_it_keeps() -> None:
    # A broad literal reads the same files in the same order query after query. Plain LRU would evict each just
    # before its next read (no hit ever once they exceed the budget); the full cache's least-recent insertion keeps
    # most of what it held and lets the overflow pass through one slot.
    cache = text_column._Cache(budget=1000)
    files = [(1, local, 0) for local in range(200)]  # 2,000 bytes: twice the budget
    hits = []
    for _ in range(5):
        found = 0
        for key in files:
            if cache.get(key) is not None:
                found += 1
            else:
                cache.put(key, b"x" * 10)
        hits.append(found)
        assert cache.size <= 1000
    assert hits[0] == 0
    assert min(hits[1:]) >= 90  # of the 100 files that fit; LRU: 0


def test_a_full_cache_still_takes_in_what_searches_read_now() -> None:
    # One new file in _FULL_MRU_EVERY goes in as most recent: a cache filled by old reads turns over to a new set of
    # files read again and again (a new question), instead of keeping the old set for ever.
    cache = text_column._Cache(budget=1000)
    for local in range(100):
        cache.put((1, local, 0), b"o" * 10)
    new = [(2, local, 0) for local in range(50)]
    for _ in range(200):
        for key in new:
            if cache.get(key) is None:
                cache.put(key, b"n" * 10)
    assert all(cache.get(key) is not None for key in new)
    assert cache.size <= 1000


def test_a_column_nobody_holds_leaves_the_cache() -> None:
    arrays = text_arrays([b"x" * 100, b"y" * 100])
    column = TextColumn(arrays["textz"], arrays["file.textz"], arrays["file.text"])
    token = column._token
    assert column.cached(0) == b"x" * 100 and column.cached(1) == b"y" * 100
    assert column.cached_line_starts(1).tolist() == [0]
    kept = [(token, 0, text_column.TEXT), (token, 1, text_column.TEXT), (token, 1, text_column.LINE_STARTS)]
    assert [text_column.CACHE.get(key) is not None for key in kept] == [True, True, True]
    del column
    gc.collect()
    assert [text_column.CACHE.get(key) for key in kept] == [None, None, None]


@pytest.mark.parametrize("damage", ["frame dtype", "offset dtype", "offsets short", "frames cut", "wrong size"])
def test_damaged_or_foreign_text_columns_are_refused(damage: str) -> None:
    arrays = encode_analyses([_analysis(f"f{i}.txt", t) for i, t in enumerate(TEXTS)])
    if damage == "frame dtype":
        arrays["textz"] = arrays["textz"].astype(np.uint16)
    elif damage == "offset dtype":
        arrays["file.textz"] = arrays["file.textz"].astype(np.int32)
    elif damage == "offsets short":
        arrays["file.text"] = arrays["file.text"][:-1]
    elif damage == "frames cut":
        arrays["textz"] = arrays["textz"][:-3]
    if damage != "wrong size":
        with pytest.raises(ContainerError):
            CoreColumns(arrays)
        return
    arrays["file.text"] = arrays["file.text"].copy()
    arrays["file.text"][-1] += 1  # the last file recorded one byte longer than its frame holds
    core = CoreColumns(arrays)
    with pytest.raises(ContainerError):
        core.text_bytes(core.file_count - 1)


def test_a_views_line_of_any_offset_in_any_order_is_a_scans() -> None:
    rng = random.Random(3)
    text = "".join(rng.choice(["a", "b", "\n", "é", "\r\n"]) for _ in range(400))
    core = _core([text])
    data = core.text_bytes(0)
    view = FileView(0, core, 0, size=len(data), class_rank=0, path_rank=0, folding=False)
    starts = _scanned_starts(data)
    offsets = list(range(len(data))) + [rng.randrange(len(data)) for _ in range(300)]
    for offset in offsets:  # ascending first, then back and forth
        line = bisect.bisect_right(starts, offset) - 1
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(data)
        assert view.line_of(offset) == (line, starts[line], end), offset

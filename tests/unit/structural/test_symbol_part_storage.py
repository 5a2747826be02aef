"""The symbol part on disk: a real segment's part survives a container round trip with the narrow dtypes it was
built with, the derived lower case of names answers as `str.lower` does (non-ASCII capitals included), the dtype of
offsets and lengths widens only when a value needs it, and a reader refuses a dtype it does not expect."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.index.analysis_columns import CoreColumns, encode_analyses
from maguyva_lsp.index.symbol_build import narrow_lengths, narrow_offsets
from maguyva_lsp.index.symbol_part import SYMBOL_PART, SymbolPart, check_symbol_arrays, expected_dtypes
from maguyva_lsp.model import FileAnalysis, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.store.container import StringColumn, open_container, write_container

ROOT = Path(__file__).resolve().parents[3]
# Names whose lower case ASCII folding gets right, and some it does not (a non-ASCII capital, one that lengthens).
NAMES_FILE = """\
class HTTPServer:
    def GetValue(self): ...
    def Ärger(self): ...


def Straße(): ...
def ΣIGMA_Total(): ...
def İstanbul(): ...
def plain_name(): ...
def ÉCOLE(): ...
"""


def _analysis(rel: str, data: bytes) -> FileAnalysis:
    file = SourceFile(rel, f"/ws/{rel}", language_for_path(rel), classify_path(rel), len(data), 1)
    return analyze_file(file, data)


@pytest.fixture(scope="module")
def core() -> CoreColumns:
    index = ROOT / "maguyva_lsp" / "index"
    analyses = [_analysis(f"pkg/{p.name}", p.read_bytes()) for p in sorted(index.glob("*.py"))]
    analyses.append(_analysis("app/names.py", NAMES_FILE.encode()))
    return CoreColumns(encode_analyses(analyses))


def test_the_part_round_trips_through_a_container_with_its_narrow_dtypes(core: CoreColumns, tmp_path: Path) -> None:
    built = SymbolPart().build(core)
    assert set(built) == set(expected_dtypes())
    check_symbol_arrays(built)
    for name in ("key.post_off", "word.sig_off", "nm.words_off", "ment.rows_off"):
        assert built[name].dtype == np.int32
    for name in ("key.len", "word.len", "nm.clen", "def.file"):
        assert built[name].dtype == np.uint16
    assert "nm.lower.rows" in built and built["nm.lower.rows"].size >= 3  # Ärger, ΣIGMA_Total, İstanbul, ÉCOLE
    path = tmp_path / f"00000000-{SYMBOL_PART}.mgv"
    write_container(path, built, {"part": SYMBOL_PART})
    stored = open_container(path)
    assert set(stored.arrays) == set(built)
    for name, array in built.items():
        assert stored.arrays[name].dtype == array.dtype, name
        assert np.array_equal(stored.arrays[name], array), name
    SymbolPart().open(stored.arrays, core)  # accepted as stored


def test_the_derived_lower_case_answers_as_str_lower(core: CoreColumns) -> None:
    arrays = SymbolPart().build(core)
    segment = SymbolPart().open(arrays, core)
    texts = list(StringColumn(arrays["nm.blob"], arrays["nm.off"]))
    rows = np.arange(len(texts), dtype=np.int64)
    assert {"Ärger", "ΣIGMA_Total", "İstanbul", "ÉCOLE", "HTTPServer"} <= set(texts)
    for text in [*texts, "httpserver", "ärger", "σigma_total", "i̇stanbul", "école", "straße", "ecole"]:
        lower = text.lower()
        expected = [t.lower() == lower for t in texts]
        assert segment.lower_spellings.equal_to(rows, lower).tolist() == expected, text
        for cut in (1, 3, len(lower)):
            prefix = lower[:cut]
            expected = [t.lower().startswith(prefix) for t in texts]
            assert segment.lower_spellings.starting_with(rows, prefix).tolist() == expected, prefix


def test_offsets_and_lengths_widen_only_when_a_value_needs_it() -> None:
    small = np.array([0, 5, 2**31 - 1], dtype=np.int64)
    assert narrow_offsets(small).dtype == np.int32
    assert narrow_offsets(np.array([0, 2**31], dtype=np.int64)).dtype == np.int64
    assert narrow_offsets(np.zeros(1, dtype=np.int64)).dtype == np.int32
    assert narrow_lengths([1, 65535]).dtype == np.uint16
    assert narrow_lengths([65536]).dtype == np.int32
    assert narrow_lengths([]).dtype == np.uint16
    assert narrow_offsets(np.array([0, 2**31], dtype=np.int64)).tolist() == [0, 2**31]


@pytest.mark.parametrize(
    ("name", "dtype"),
    [("key.post_off", np.int16), ("key.post_off", np.float64), ("def.rank", np.int64), ("nm.clen", np.uint8),
     ("def.head", np.int32), ("nm.lower.rows", np.int64), ("def.file", np.int64)],
)  # fmt: skip
def test_a_reader_refuses_an_unexpected_dtype(core: CoreColumns, name: str, dtype: type) -> None:
    arrays = dict(SymbolPart().build(core))
    arrays[name] = arrays[name].astype(dtype)
    with pytest.raises(ValueError, match=name):
        SymbolPart().open(arrays, core)
    del arrays[name]
    with pytest.raises(ValueError, match=name):
        check_symbol_arrays(arrays)

"""The graph's stored columns in their narrow forms: spans and file rows as uint16 unless a value needs int32, weights
as codes into the exact float64 values, degrees as narrow as they fit, the string table without its CRC-32s; every
form reads back exactly, is chosen by the values, and a reader refuses any other dtype."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from graph_project import analyze_path, write_tree
from test_persist import Store, _answers, _fresh

from maguyva_lsp.graph.centrality import narrowest_degrees
from maguyva_lsp.graph.persist import GRAPH_FORMAT, export_base, open_chain
from maguyva_lsp.graph.segment import WEIGHT_CODE, WEIGHT_VALUES, GraphSegment, narrowed, weight_columns
from maguyva_lsp.graph.strings import StringTable
from maguyva_lsp.model import ChangeBatch
from maguyva_lsp.retrieve.graph import GraphRetriever

SMALL = {
    "pkg/__init__.py": "",
    "pkg/util.py": "def helper(x):\n    return x\n\nclass Base:\n    def seal(self):\n        return helper(1)\n",
    "app.py": "from pkg.util import helper, Base\n\nclass App(Base):\n    def run(self):\n        return helper(2)\n",
}


def _segment_arrays(root: Path) -> dict[str, np.ndarray]:
    graph = _fresh(root).graph
    arrays, _meta = export_base(graph.state, graph.scores)
    return arrays


def test_narrowed_picks_uint16_until_a_value_needs_more() -> None:
    assert narrowed(np.array([0, 65_535], dtype=np.int32)).dtype == np.uint16
    assert narrowed(np.array([0, 65_536], dtype=np.int32)).dtype == np.int32
    assert narrowed(np.zeros(0, dtype=np.int32)).dtype == np.uint16
    wide = np.array([3, 70_000, 5], dtype=np.int64)
    assert narrowed(wide).tolist() == wide.tolist()


def test_weights_are_codes_into_their_exact_values() -> None:
    weights = np.array([1.0, 0.25, 1 / 3, 0.25, 1 / 14, 1.0])
    columns = weight_columns(weights)
    assert columns[WEIGHT_CODE].dtype == np.uint8
    assert columns[WEIGHT_VALUES].dtype == np.float64
    assert np.array_equal(columns[WEIGHT_VALUES][columns[WEIGHT_CODE]], weights)  # bit for bit
    many = weight_columns(1.0 / np.arange(1, 258, dtype=np.float64))
    assert many[WEIGHT_CODE].dtype == np.uint16
    assert np.array_equal(many[WEIGHT_VALUES][many[WEIGHT_CODE]], 1.0 / np.arange(1, 258, dtype=np.float64))


def test_degrees_are_stored_as_narrow_as_they_fit() -> None:
    assert narrowest_degrees(np.array([0, 65_535], dtype=np.int64)).dtype == np.uint16
    assert narrowest_degrees(np.array([65_536], dtype=np.int64)).dtype == np.uint32
    assert narrowest_degrees(np.array([1 << 33], dtype=np.int64)).dtype == np.int64


def test_a_small_project_is_stored_narrow(tmp_path: Path) -> None:
    write_tree(tmp_path, SMALL)
    arrays = _segment_arrays(tmp_path)
    for name in ("nodes.span", "nodes.name_span", "refs.span", "sites.span", "sites.file", "nodes.file"):
        assert arrays[f"segment.{name}"].dtype == np.uint16, name
    assert arrays[f"segment.{WEIGHT_CODE}"].dtype == np.uint8
    assert "strings.hashes" not in arrays and arrays["strings.offsets"].dtype == np.uint32
    assert arrays["scores.in_degree"].dtype == np.uint16


def test_a_line_past_uint16_keeps_int32_spans_and_the_same_answers(tmp_path: Path) -> None:
    long_file = "# far away\n" + "\n" * 70_000 + "from pkg.util import helper\n\ndef far():\n    return helper(3)\n"
    write_tree(tmp_path / "project", {**SMALL, "far.py": long_file})
    arrays = _segment_arrays(tmp_path / "project")
    assert arrays["segment.sites.span"].dtype == np.int32
    assert arrays["segment.nodes.span"].dtype == np.int32
    assert int(arrays["segment.sites.span"][:, 0].max()) > 70_000
    graph = GraphRetriever()
    store = Store(tmp_path / "index", graph)
    _fresh(tmp_path / "project", graph)
    store.commit()
    opened = store.reopen()
    assert _answers(opened) == _answers(graph)
    assert opened.graph.state.segments[0].arrays["sites.span"].dtype == np.int32
    store.close()


def test_a_reader_refuses_columns_of_another_dtype(tmp_path: Path) -> None:
    write_tree(tmp_path, SMALL)
    base = _segment_arrays(tmp_path)
    segment = {k.removeprefix("segment."): v for k, v in base.items() if k.startswith("segment.")}
    GraphSegment.from_arrays(segment)  # as written: accepted
    bad = {
        "a span as int64": {**segment, "sites.span": segment["sites.span"].astype(np.int64)},
        "file rows as int16": {**segment, "nodes.file": segment["nodes.file"].astype(np.int16)},
        "weights as float32": {**segment, WEIGHT_VALUES: segment[WEIGHT_VALUES].astype(np.float32)},
        "a code past the table": {**segment, WEIGHT_CODE: segment[WEIGHT_CODE] + np.uint8(100)},
        "index starts as uint16": {**segment, "index.target.starts": segment["index.target.starts"].astype(np.uint16)},
    }
    for reason, arrays in bad.items():
        with pytest.raises(ValueError, match="graph segment"):
            GraphSegment.from_arrays(arrays)
        assert reason
    strings = {k.removeprefix("strings."): v for k, v in base.items() if k.startswith("strings.")}
    with pytest.raises(ValueError):
        StringTable.from_arrays({**strings, "offsets": strings["offsets"].astype(np.int32)})
    count = len(strings["offsets"]) - 1
    metas = [{"kind": "base", "format": GRAPH_FORMAT, "files": 3, "strings": count, "scores": True}]
    with pytest.raises(ValueError):
        open_chain([{**base, "scores.values": base["scores.values"].astype(np.float32)}], metas)


def test_a_stored_string_table_finds_and_extends_like_the_one_written() -> None:
    texts = [f"pkg/m{i}.py::f{i}" for i in range(500)] + ["", "é\udcff", "py\x1epkg"]
    table = StringTable.build(texts)
    stored = StringTable.from_arrays(table.stored_arrays())
    assert [stored.text(i) for i in range(len(texts))] == texts
    assert all(stored.find(t) == i for i, t in enumerate(texts))
    assert stored.find("absent") == -1
    for t in ("new", "pkg/m1.py::f1"):
        assert stored.intern(t) == table.intern(t)
    frozen = stored.frozen()  # recomputes the CRC-32s the stored form left out
    assert all(frozen.find(t) == i for i, t in enumerate([*texts, "new"]))
    assert np.array_equal(frozen.arrays()["hashes"], table.frozen().arrays()["hashes"])


def test_strings_added_unprobed_get_the_ids_interning_gives() -> None:
    texts = [f"pkg/m{i}.py" for i in range(300)]
    base = StringTable.build(texts)
    interned = StringTable.from_arrays(base.arrays())
    interned.intern("over")
    added = interned.with_new(["a", "b::c", "é"])  # what the join of the workers' parts does
    assert len(interned) == 301 and interned.find("a") == -1  # its overlay is copied, not shared
    for t in ("a", "b::c", "é"):
        interned.intern(t)
    assert len(added) == len(interned) == 304
    assert [added.text(i) for i in range(304)] == [interned.text(i) for i in range(304)]
    assert added.texts_from(300) == ["over", "a", "b::c", "é"]
    frozen = added.frozen()
    assert all(frozen.find(t) == interned.find(t) for t in [*texts, "over", "a", "b::c", "é"])
    assert frozen.find("absent") == -1


def test_lookups_through_the_distinct_keys_match_a_scan(tmp_path: Path) -> None:
    write_tree(tmp_path, SMALL)
    graph = GraphRetriever()
    graph.apply(ChangeBatch(updated=tuple(analyze_path(tmp_path, f) for f in SMALL)))
    segment = graph.graph.state.segments[0]
    targets = segment.arrays["sites.target"]
    for key in [*np.unique(targets).tolist(), 10_000_000]:
        assert sorted(segment.lookup("target", key).tolist()) == np.flatnonzero(targets == key).tolist()
    keys = np.array([int(targets[0]), 10_000_000, int(targets[-1]), int(targets[0])], dtype=np.int32)
    expected = [r for k in keys.tolist() for r in np.flatnonzero(targets == k).tolist()]
    assert sorted(segment.lookup_many("target", keys).tolist()) == sorted(expected)


def test_node_ids_are_stored_as_their_path_and_qualified_name() -> None:
    texts = ["pkg/a.py", "Config.load", "pkg/a.py::Config.load", "a::b::c", "a", "b::c", "::x", "x", "x::", ""]
    texts += ["a:::x", ":x", "pkg/a.py::missing", "é\udcff", "é\udcff::x"]
    table = StringTable.build(texts)
    stored = table.stored_arrays()
    joined = dict(zip(stored["joins"].tolist(), map(tuple, stored["join_parts"].tolist()), strict=True))
    ids = {t: i for i, t in enumerate(texts)}
    # head::tail with both strings of the table (and no "::" in either) becomes the pair; the rest stay bytes
    assert joined == {
        ids["pkg/a.py::Config.load"]: (ids["pkg/a.py"], ids["Config.load"]),
        ids["::x"]: (ids[""], ids["x"]),
        ids["x::"]: (ids["x"], ids[""]),
        ids["a:::x"]: (ids["a"], ids[":x"]),
        ids["é\udcff::x"]: (ids["é\udcff"], ids["x"]),
    }
    assert b"Config.load" in stored["blob"].tobytes() and b"pkg/a.py::Config" not in stored["blob"].tobytes()
    opened = StringTable.from_arrays(stored)
    assert [opened.text(i) for i in range(len(texts))] == texts
    assert all(opened.find(t) == i for i, t in enumerate(texts))
    again = StringTable.from_arrays(opened.extended(["pkg/a.py::x"]).stored_arrays())  # joined anew, same ids
    assert [again.text(i) for i in range(len(texts) + 1)] == [*texts, "pkg/a.py::x"]
    with pytest.raises(ValueError, match="joined"):
        StringTable.from_arrays({**stored, "join_parts": stored["join_parts"] + np.int32(1000)})

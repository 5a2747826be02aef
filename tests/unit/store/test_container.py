"""Containers: arrays round-trip mapped and read-only, damage of every kind is detected, writes are atomic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from maguyva_lsp.store.container import (
    ContainerError,
    StringColumn,
    encode_strings,
    open_container,
    string_arrays,
    write_container,
)


def test_arrays_round_trip_mapped_and_read_only(tmp_path: Path) -> None:
    arrays = {
        "ids": np.arange(10, dtype=np.uint32),
        "spans": np.arange(12, dtype=np.int32).reshape(3, 4),
        "empty": np.zeros(0, dtype=np.int64),
        "flags": np.array([True, False]),
        **string_arrays("names", ["b", "a", "ünï", "\ud800"]),
    }
    record = write_container(tmp_path / "x.mgv", arrays, {"kind": "test", "n": 3})
    assert record.size == (tmp_path / "x.mgv").stat().st_size
    opened = open_container(tmp_path / "x.mgv", record)
    assert opened.meta == {"kind": "test", "n": 3}
    for name, value in arrays.items():
        assert opened[name].dtype == value.dtype
        assert np.array_equal(opened[name], value)
        assert not opened[name].flags.writeable
    assert list(opened.strings("names")) == ["b", "a", "ünï", "\ud800"]
    opened.verify(record)


def test_offsets_are_aligned_for_every_array(tmp_path: Path) -> None:
    arrays = {f"a{i}": np.arange(i + 1, dtype=np.uint8) for i in range(7)}
    write_container(tmp_path / "x.mgv", arrays, {})
    opened = open_container(tmp_path / "x.mgv")
    for array in opened.arrays.values():
        if array.size:
            assert array.__array_interface__["data"][0] % 64 == 0


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: data[:40], "bytes, the manifest says|truncated|outside"),
        (lambda data: b"NOTOURS!" + data[8:], "not a Maguyva index file"),
        (lambda data: data[:30] + bytes([data[30] ^ 0xFF]) + data[31:], "damaged header"),
    ],
)
def test_damage_is_detected_at_open(tmp_path: Path, damage: object, message: str) -> None:
    path = tmp_path / "x.mgv"
    record = write_container(path, {"a": np.arange(1000, dtype=np.int64)}, {"m": 1})
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    expected = record if "manifest" in message else None
    with pytest.raises(ContainerError, match=message):
        open_container(path, expected)


def test_a_flipped_data_byte_is_caught_by_verify(tmp_path: Path) -> None:
    path = tmp_path / "x.mgv"
    record = write_container(path, {"a": np.arange(1000, dtype=np.int64)}, {})
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x01
    path.write_bytes(bytes(data))
    opened = open_container(path, record)  # the size is right: opening is cheap and does not read the data
    with pytest.raises(ContainerError, match="checksum"):
        opened.verify(record)


def test_missing_file_is_a_container_error(tmp_path: Path) -> None:
    with pytest.raises(ContainerError, match="missing"):
        open_container(tmp_path / "nope.mgv")


def test_object_arrays_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot be stored"):
        write_container(tmp_path / "x.mgv", {"o": np.array(["a", None], dtype=object)}, {})
    assert not list(tmp_path.iterdir()), "a failed write leaves no file behind"


def test_rewrite_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / "x.mgv"
    write_container(path, {"a": np.arange(3)}, {"v": 1})
    old = open_container(path)
    write_container(path, {"a": np.arange(5)}, {"v": 2})
    assert list(old["a"]) == [0, 1, 2], "a reader of the old file keeps its content"
    assert open_container(path).meta["v"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["x.mgv"]


def test_sorted_string_column_search() -> None:
    words = sorted(["alpha", "alphabet", "beta", "betamax", "gamma", "é", "zeta"])
    column = StringColumn.of(words)
    assert len(column) == len(words)
    for i, word in enumerate(words):
        assert column.find(word) == i
    assert column.find("alp") == -1
    assert column.find("") == -1
    lo, hi = column.prefix_range("alpha")
    assert [column[i] for i in range(lo, hi)] == ["alpha", "alphabet"]
    lo, hi = column.prefix_range("bet")
    assert [column[i] for i in range(lo, hi)] == ["beta", "betamax"]
    assert column.prefix_range("x") == (column.prefix_range("x")[0],) * 2
    assert column.prefix_range("") == (0, len(words))
    assert StringColumn.of([]).find("a") == -1


def test_string_offsets_are_stored_as_uint32_and_int64_ones_still_read() -> None:
    strings = ["", "a", "é\ud800", "zz" * 40]
    blob, offsets = encode_strings(strings)
    assert offsets.dtype == np.uint32
    for column in (StringColumn(blob, offsets), StringColumn(blob, offsets.astype(np.int64))):
        assert list(column) == strings and column.to_list() == strings
        assert [column[i] for i in range(len(strings))] == strings
        assert column.lengths.tolist() == [len(s.encode("utf-8", "surrogatepass")) for s in strings]

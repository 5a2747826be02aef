"""One immutable file of named numpy arrays, opened by mapping it: the unit every persisted index is written in.

Layout (little-endian): an 8-byte magic, the header's length (u64) and CRC-32 (u32), 4 reserved bytes, the header
(JSON: format, meta, and per array its dtype, shape and offset), then each array's raw bytes at a 64-byte aligned
offset. Opening reads the header and maps the file once; every array is a read-only view into that one mapping, so
opening costs the same whatever the file's size, and pages are read only when a query touches them.

Writes go to a temporary file in the same folder, are fsynced, renamed over the final name and the folder fsynced:
a crash leaves the old file or the new one. The whole file's CRC-32 is returned to the caller (the manifest keeps
it); `verify` recomputes it (a full read, so it runs in the background or before a merge reads the file).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import mmap
import os
import struct
import tempfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

MAGIC = b"MGVCNT01"
CONTAINER_FORMAT = 1
ALIGNMENT = 64
_PREFIX = struct.Struct("<8sQII")  # magic, header length, header CRC-32, reserved
# Checksums are computed over blocks of this size (a bounded buffer whatever the file's size).
CRC_BLOCK_BYTES = 1 << 22
ENCODING = "utf-8"
ENCODING_ERRORS = "surrogatepass"  # decoded source may hold lone surrogates: they must survive a round trip
# The dtypes of a string column's offsets (encode_strings).
STRING_OFFSET_DTYPES = (np.dtype(np.uint32), np.dtype(np.int64))

Array = npt.NDArray[Any]


class ContainerError(Exception):
    """A container file is missing, truncated, damaged or not one of ours; the message says which."""


@dataclass(frozen=True, slots=True)
class ContainerRecord:
    """What the manifest keeps of a container: its file name (in the store's data folder), size and CRC-32."""

    name: str
    size: int
    crc32: int

    def to_json(self) -> list[object]:
        return [self.name, self.size, self.crc32]

    @staticmethod
    def from_json(value: object) -> ContainerRecord:
        if not (isinstance(value, list) and len(value) == 3):
            raise ValueError(f"container record {value!r}")
        name, size, crc = value
        if not (isinstance(name, str) and isinstance(size, int) and isinstance(crc, int)):
            raise ValueError(f"container record {value!r}")
        return ContainerRecord(name, size, crc)


def _aligned(offset: int) -> int:
    return -(-offset // ALIGNMENT) * ALIGNMENT


def _check_dtype(name: str, array: Array) -> np.dtype[Any]:
    dtype = array.dtype
    if dtype.hasobject or dtype.fields is not None:
        raise ValueError(f"array {name!r} of dtype {dtype} cannot be stored (plain numeric or bytes dtypes only)")
    return dtype.newbyteorder("<") if dtype.byteorder == ">" else dtype


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable (POSIX; Windows has no folder handles to fsync and makes renames durable itself)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_container(path: Path, arrays: Mapping[str, Array], meta: Mapping[str, object]) -> ContainerRecord:
    """Write the arrays and the JSON-able meta as one container at `path`, atomically; returns its record."""
    entries: dict[str, dict[str, object]] = {}
    prepared: list[tuple[int, Array]] = []
    # The header's length decides where data starts; offsets are relative to the data start, so one pass suffices.
    offset = 0
    for name, value in arrays.items():
        array = np.ascontiguousarray(value)
        dtype = _check_dtype(name, array)
        array = array.astype(dtype, copy=False)
        offset = _aligned(offset)
        entries[name] = {"dtype": dtype.str, "shape": list(array.shape), "offset": offset}
        prepared.append((offset, array))
        offset += array.nbytes
    header = json.dumps(
        {"format": CONTAINER_FORMAT, "meta": dict(meta), "arrays": entries}, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    data_start = _aligned(_PREFIX.size + len(header))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    crc = 0
    size = 0
    try:
        with os.fdopen(fd, "wb") as handle:

            def put(chunk: bytes | memoryview) -> None:
                nonlocal crc, size
                handle.write(chunk)
                crc = zlib.crc32(chunk, crc)
                size += len(chunk)

            put(_PREFIX.pack(MAGIC, len(header), zlib.crc32(header), 0))
            put(header)
            for relative, array in prepared:
                gap = data_start + relative - size
                if gap:
                    put(b"\0" * gap)
                raw = memoryview(array.reshape(-1).view(np.uint8).data) if array.size else memoryview(b"")
                for start in range(0, len(raw), CRC_BLOCK_BYTES):
                    put(raw[start : start + CRC_BLOCK_BYTES])
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(path.parent)
    return ContainerRecord(path.name, size, crc)


class Container:
    """An opened container: `arrays` are read-only views into one mapping of the file, `meta` its JSON metadata.

    The mapping lives as long as any array taken from it (numpy keeps it referenced); nothing needs closing."""

    __slots__ = ("_map", "arrays", "meta", "path", "size")

    def __init__(
        self, path: Path, mapping: mmap.mmap | None, size: int, arrays: dict[str, Array], meta: dict[str, Any]
    ):
        self.path = path
        self._map = mapping
        self.size = size
        self.arrays: Mapping[str, Array] = arrays
        self.meta = meta

    def __getitem__(self, name: str) -> Array:
        try:
            return self.arrays[name]
        except KeyError:
            raise ContainerError(f"{self.path.name}: no array {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self.arrays

    def strings(self, name: str) -> StringColumn:
        """A string column stored with `string_arrays(name, ...)`."""
        return StringColumn(self[f"{name}.blob"], self[f"{name}.off"])

    def crc32(self) -> int:
        """The CRC-32 of the whole file, recomputed from its bytes."""
        if self._map is None:
            return zlib.crc32(self.path.read_bytes())
        crc = 0
        view = memoryview(self._map)
        try:
            for start in range(0, len(view), CRC_BLOCK_BYTES):
                crc = zlib.crc32(view[start : start + CRC_BLOCK_BYTES], crc)
        finally:
            view.release()
        return crc

    def verify(self, expected: ContainerRecord) -> None:
        """Raise ContainerError unless the file's size and CRC-32 are what the manifest recorded."""
        if self.size != expected.size:
            raise ContainerError(f"{self.path.name}: {self.size} bytes, the manifest says {expected.size}")
        actual = self.crc32()
        if actual != expected.crc32:
            raise ContainerError(f"{self.path.name}: checksum {actual:08x}, the manifest says {expected.crc32:08x}")


def open_container(path: Path, expected: ContainerRecord | None = None) -> Container:
    """Map a container. Checks the magic, the header's own checksum, the size the manifest recorded and that every
    array lies inside the file (cheap, O(header)); the full checksum is `Container.verify`'s job."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below; the mapping keeps its own handle
    except FileNotFoundError:
        raise ContainerError(f"{path.name}: missing") from None
    except OSError as exc:
        raise ContainerError(f"{path.name}: unreadable ({exc.strerror or exc})") from exc
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if expected is not None and size != expected.size:
            raise ContainerError(f"{path.name}: {size} bytes, the manifest says {expected.size}")
        if size < _PREFIX.size:
            raise ContainerError(f"{path.name}: truncated ({size} bytes)")
        try:
            mapping = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:
            raise ContainerError(f"{path.name}: cannot be mapped ({exc})") from exc
    magic, header_len, header_crc, _ = _PREFIX.unpack_from(mapping, 0)
    if magic != MAGIC:
        raise ContainerError(f"{path.name}: not a Maguyva index file (magic {magic!r})")
    header_end = _PREFIX.size + header_len
    if header_end > size:
        raise ContainerError(f"{path.name}: truncated header")
    header_bytes = mapping[_PREFIX.size : header_end]
    if zlib.crc32(header_bytes) != header_crc:
        raise ContainerError(f"{path.name}: damaged header (checksum)")
    try:
        header = json.loads(header_bytes)
        if header.get("format") != CONTAINER_FORMAT:
            raise ContainerError(f"{path.name}: container format {header.get('format')!r}, not {CONTAINER_FORMAT}")
        data_start = _aligned(header_end)
        arrays: dict[str, Array] = {}
        for name, entry in header["arrays"].items():
            dtype = np.dtype(entry["dtype"])
            shape = tuple(int(n) for n in entry["shape"])
            count = int(np.prod(shape, dtype=np.int64)) if shape else 1
            start = data_start + int(entry["offset"])
            if start < data_start or start + count * dtype.itemsize > size:
                raise ContainerError(f"{path.name}: array {name!r} lies outside the file")
            if count == 0:
                array: Array = np.empty(shape, dtype=dtype)
                array.flags.writeable = False
            else:
                array = np.frombuffer(mapping, dtype=dtype, count=count, offset=start).reshape(shape)
            arrays[name] = array
        meta = header.get("meta", {})
        if not isinstance(meta, dict):
            raise ContainerError(f"{path.name}: meta is not an object")
    except ContainerError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise ContainerError(f"{path.name}: unreadable header ({exc})") from exc
    return Container(path, mapping, size, arrays, meta)


# -- string columns ---------------------------------------------------------------------------------------------------


def encode_strings(strings: Sequence[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Strings → one UTF-8 blob and the offsets of each string in it (n + 1 of them): uint32 when the blob is under
    4 GiB (always, in practice), else int64. Readers take either (STRING_OFFSET_DTYPES)."""
    encoded = [s.encode(ENCODING, ENCODING_ERRORS) for s in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    if encoded:
        np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), string_offsets(offsets)


def string_offsets(offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """A string column's offsets as stored: uint32 when the last (largest) fits, else int64."""
    if offsets.size and int(offsets[-1]) > np.iinfo(np.uint32).max:
        return offsets
    return offsets.astype(np.uint32)  # read like int64 by every reader


def encode_ascii_strings(strings: Sequence[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """`encode_strings` of strings known to be ASCII (a character is a byte): one join and one encode, instead of an
    encode per string, the offsets summed from the strings' lengths. Checked: other strings take encode_strings."""
    joined = "".join(strings)
    if not joined.isascii():
        return encode_strings(strings)
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    if strings:
        np.cumsum(np.fromiter(map(len, strings), dtype=np.int64, count=len(strings)), out=offsets[1:])
    return np.frombuffer(joined.encode("ascii"), dtype=np.uint8), string_offsets(offsets)


def string_arrays(name: str, strings: Sequence[str], *, ascii: bool = False) -> dict[str, Array]:
    """The two arrays that store a string column under `name` in a container (`ascii`: the strings are expected to
    be ASCII, encoded at once)."""
    blob, offsets = (encode_ascii_strings if ascii else encode_strings)(strings)
    return {f"{name}.blob": blob, f"{name}.off": offsets}


class StringColumn(Sequence[str]):
    """Strings stored as a UTF-8 blob plus offsets (mapped or in memory); a string is decoded only when asked for.

    UTF-8 keeps code-point order, so a column written sorted can be binary-searched on its bytes (`find`, `prefix`)."""

    __slots__ = ("_blob", "_bytes", "_off")

    def __init__(self, blob: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> None:
        self._blob = blob
        self._off = offsets
        self._bytes = _BytesView(blob, offsets)

    @staticmethod
    def of(strings: Sequence[str]) -> StringColumn:
        blob, offsets = encode_strings(strings)
        return StringColumn(blob, offsets)

    def __len__(self) -> int:
        return max(int(self._off.size) - 1, 0)

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self.raw(index).decode(ENCODING, ENCODING_ERRORS)

    def raw(self, index: int) -> bytes:
        if index < 0:
            index += len(self)
        return self._blob[int(self._off[index]) : int(self._off[index + 1])].tobytes()

    def __iter__(self) -> Iterator[str]:
        data = self._blob.tobytes()
        offsets = self._off.tolist()
        for start, end in itertools.pairwise(offsets):
            yield data[start:end].decode(ENCODING, ENCODING_ERRORS)

    def to_list(self) -> list[str]:
        """Every string, decoded (O(column): for merges and rebuilds, never for a query)."""
        return list(self)

    @property
    def lengths(self) -> npt.NDArray[np.int64]:
        """The byte length of each string."""
        return np.diff(self._off)

    @property
    def arrays(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        return self._blob, self._off

    def find(self, text: str) -> int:
        """The index of `text` in a sorted column, or -1."""
        key = text.encode(ENCODING, ENCODING_ERRORS)
        view = self._bytes
        lo = _bisect_left(view, key, 0, len(view))
        return lo if lo < len(view) and view[lo] == key else -1

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the strings of a sorted column that start with `prefix`."""
        key = prefix.encode(ENCODING, ENCODING_ERRORS)
        view = self._bytes
        lo = _bisect_left(view, key, 0, len(view))
        # Every string with the prefix sorts before the prefix followed by the highest byte UTF-8 never uses.
        hi = _bisect_left(view, key + b"\xff", lo, len(view))
        return lo, hi


class _BytesView:
    """Index → the raw bytes of a string (what binary search compares)."""

    __slots__ = ("_blob", "_off")

    def __init__(self, blob: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> None:
        self._blob = blob
        self._off = offsets

    def __len__(self) -> int:
        return max(int(self._off.size) - 1, 0)

    def __getitem__(self, index: int) -> bytes:
        return self._blob[int(self._off[index]) : int(self._off[index + 1])].tobytes()


def _bisect_left(view: _BytesView, key: bytes, lo: int, hi: int) -> int:
    while lo < hi:
        mid = (lo + hi) // 2
        if view[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo

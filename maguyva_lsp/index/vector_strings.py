"""The row strings of a vector part that only a hit shows (its symbol, its snippet), stored as zstd frames of
BLOCK_ROWS rows each: a frame holds the rows' byte lengths (uint32) and then their UTF-8 (surrogatepass) bytes.

Why: the two columns were 5.1 MB of the stdlib's 28.7 MB vectors (offsets included) and compress to 1.6 MB in frames of
128 rows (level 3; 64 rows: 1.8 MB, 256: 1.5 MB). A query decodes only the frames of the rows it returns (a few
kilobytes each, microseconds); a merge decodes its parts' frames once and writes new ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import zstandard

from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS, STRING_OFFSET_DTYPES, string_offsets

BLOCK_ROWS = 128
COMPRESSION_LEVEL = 3
_LENGTH = np.dtype("<u4")

Array = npt.NDArray[Any]


def block_count(rows: int) -> int:
    return -(-rows // BLOCK_ROWS)


def block_arrays(name: str, strings: Sequence[str]) -> dict[str, Array]:
    """The arrays that store a string column under `name`: `.z` (the frames, concatenated) and `.zoff` (where each
    frame starts, one more)."""
    compressor = zstandard.ZstdCompressor(level=COMPRESSION_LEVEL)
    frames: list[bytes] = []
    for start in range(0, len(strings), BLOCK_ROWS):
        encoded = [s.encode(ENCODING, ENCODING_ERRORS) for s in strings[start : start + BLOCK_ROWS]]
        lengths = np.fromiter(map(len, encoded), dtype=_LENGTH, count=len(encoded))
        frames.append(compressor.compress(lengths.tobytes() + b"".join(encoded)))
    offsets = np.zeros(len(frames) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, frames), dtype=np.int64, count=len(frames)), out=offsets[1:])
    return {f"{name}.z": np.frombuffer(b"".join(frames), dtype=np.uint8), f"{name}.zoff": string_offsets(offsets)}


class BlockStrings:
    """A stored column of `rows` strings in frames (mapped or in memory); decodes the frames a read needs."""

    __slots__ = ("_frames", "_offsets", "rows")

    def __init__(self, frames: npt.NDArray[np.uint8], offsets: Array, rows: int) -> None:
        if frames.dtype != np.uint8 or offsets.dtype not in STRING_OFFSET_DTYPES:
            raise ValueError(f"string frames of dtypes {frames.dtype}, {offsets.dtype}")
        if offsets.shape != (block_count(rows) + 1,) or (len(offsets) and int(offsets[-1]) != len(frames)):
            raise ValueError(f"{len(offsets) - 1} string frames for {rows} rows")
        self._frames = frames
        self._offsets = offsets
        self.rows = rows

    def __len__(self) -> int:
        return self.rows

    def _frame(self, block: int, decompressor: zstandard.ZstdDecompressor) -> tuple[bytes, list[int]]:
        """A frame's bytes and where each of its strings starts (one more)."""
        start, end = int(self._offsets[block]), int(self._offsets[block + 1])
        data = decompressor.decompress(self._frames[start:end].tobytes())
        count = min(BLOCK_ROWS, self.rows - block * BLOCK_ROWS)
        bounds = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(np.frombuffer(data, dtype=_LENGTH, count=count), out=bounds[1:])
        return data, (bounds + count * _LENGTH.itemsize).tolist()

    def take(self, rows: Sequence[int] | Array) -> list[str]:
        """The strings of these rows, in their order (each frame decoded once, only the strings asked for)."""
        decompressor = zstandard.ZstdDecompressor()  # not shared: a decompressor is not safe across threads
        frames: dict[int, tuple[bytes, list[int]]] = {}
        out: list[str] = []
        for row in np.asarray(rows, dtype=np.int64).tolist():
            block, within = divmod(row, BLOCK_ROWS)
            frame = frames.get(block)
            if frame is None:
                frame = frames[block] = self._frame(block, decompressor)
            data, bounds = frame
            out.append(data[bounds[within] : bounds[within + 1]].decode(ENCODING, ENCODING_ERRORS))
        return out

    def to_list(self) -> list[str]:
        return self.take(range(self.rows))

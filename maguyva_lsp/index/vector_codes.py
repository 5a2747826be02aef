"""How a vector part stores its vectors: the binary codes (word-major) and, when the model gives floats, the int8
rescoring rows with their scales — and then the codes are not stored, since they are the rows' signs.

A code's bit is 1 where the float is > 0 (`embed.base.pack_signs`); the int8 row is round(float / scale), so a
positive int8 value has bit 1 and a negative one bit 0. Only a float that rounds to 0 leaves its bit unknown (about
1 % of the components on the stdlib): a 0 whose float was positive is stored as ZERO_UP (-128, which symmetric
quantization never gives: its values are -127…127), read as 0 when rescoring. The codes of such a part are derived
from its rows when first searched (one pass of numpy over the rows: ~25 ms for the stdlib's 70k rows) and kept.
Rows whose codes are not their signs (a model that binarizes otherwise) keep their codes stored.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

WORD_BITS = 64
BITS_PER_BYTE = 8
ZERO_UP = -128  # an int8 component 0 whose float was positive

Array = npt.NDArray[Any]
Words = npt.NDArray[np.uint64]
Int8Rows = npt.NDArray[np.int8]


def word_major(codes: npt.NDArray[np.uint8], dimension: int) -> Words:
    """Packed codes (n, dim/8) as (dim/64, n) words: one contiguous array per 64-bit word of the code."""
    if codes.shape[1:] != (dimension // BITS_PER_BYTE,):
        raise ValueError(f"codes of shape {codes.shape} for dimension {dimension}")
    return np.ascontiguousarray(np.ascontiguousarray(codes).view(np.uint64).T)


def row_codes(words: Words) -> npt.NDArray[np.uint8]:
    """Word-major codes back to packed rows (n, dim/8)."""
    return np.ascontiguousarray(words.T).view(np.uint8)


def derived_words(stored: Int8Rows) -> Words:
    """The codes of stored rows (ZERO_UP marking the positive zeros), word-major."""
    dimension = int(stored.shape[1])
    positive = (stored > 0) | (stored == ZERO_UP)
    return word_major(np.packbits(positive, axis=1), dimension)


def unmarked(stored: Int8Rows) -> Int8Rows:
    """Stored rows as the int8 vectors they stand for (ZERO_UP read as 0)."""
    rows: Int8Rows = np.where(stored == ZERO_UP, np.int8(0), stored).astype(np.int8, copy=False)
    return rows


def stored_vectors(
    words: Words, quantized: Int8Rows | None, scales: npt.NDArray[np.float32] | None
) -> dict[str, Array]:
    """The arrays that store these vectors: `words` alone without floats; else the marked rows and their scales,
    plus `words` only when the codes are not the rows' signs."""
    if quantized is None or scales is None:
        return {"words": words}
    if len(quantized) and int(quantized.min()) == ZERO_UP:
        raise ValueError("int8 rows of -128: not symmetric quantization (embed.base.quantize_int8)")
    bits = np.unpackbits(row_codes(words), axis=1).astype(bool) if len(quantized) else np.zeros(quantized.shape, bool)
    marked = np.where((quantized == 0) & bits, np.int8(ZERO_UP), quantized).astype(np.int8)
    arrays: dict[str, Array] = {"rescore": marked, "scales": np.ascontiguousarray(scales, dtype=np.float32)}
    if not np.array_equal(derived_words(marked), words):
        arrays["words"] = words
    return arrays

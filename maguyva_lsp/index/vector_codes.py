"""How a vector part stores its vectors: the binary codes word-major (so a Hamming scan reads contiguous memory) and,
when the model gives floats, the int8 rescoring rows with their scales.

The codes are the int8 rows' signs except where a float rounds to 0 (about 1 % of the components on the stdlib), so
they could be derived instead of stored (2.2 MB of the stdlib's vectors). Measured, that costs more than it saves:
deriving them maps every int8 row at the first search (+23 MB RSS in a warm `maguyva search`, +53 MB at peak, ~36 ms),
where a search otherwise reads the codes and only its candidates' rows. So both are stored.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

WORD_BITS = 64
BITS_PER_BYTE = 8

Array = npt.NDArray[Any]
Words = npt.NDArray[np.uint64]
Int8Rows = npt.NDArray[np.int8]
Scales = npt.NDArray[np.float32]


def word_major(codes: npt.NDArray[np.uint8], dimension: int) -> Words:
    """Packed codes (n, dim/8) as (dim/64, n) words: one contiguous array per 64-bit word of the code."""
    if codes.shape[1:] != (dimension // BITS_PER_BYTE,):
        raise ValueError(f"codes of shape {codes.shape} for dimension {dimension}")
    return np.ascontiguousarray(np.ascontiguousarray(codes).view(np.uint64).T)


def stored_vectors(words: Words, quantized: Int8Rows | None, scales: Scales | None) -> dict[str, Array]:
    """The arrays that store these vectors: the codes, and the int8 rows and their scales when there are floats."""
    if quantized is None or scales is None:
        return {"words": words}
    return {
        "words": words,
        "rescore": np.ascontiguousarray(quantized, dtype=np.int8),
        "scales": np.ascontiguousarray(scales, dtype=np.float32),
    }

"""The embedder interface: packed binary codes for Hamming search, plus optional float vectors for rescoring.

Bit order everywhere is numpy's `packbits` default (big-endian within a byte), which is also what Voyage's
`ubinary` output uses: bit i of a vector is bit (7 - i % 8) of byte i // 8.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

BITS_PER_BYTE = 8
INT8_MAX = 127

# What input suits a model (see embed/text.py): `words` for a static bag-of-tokens model, `code` for a contextual one.
TextStyle = Literal["words", "code"]


class EmbedderError(Exception):
    """An embedder could not embed; the message says why in words a user can act on (and never holds a key)."""


@dataclass(frozen=True, slots=True)
class Embeddings:
    """A batch of embeddings: one row per text.

    `codes` holds the packed sign bits (uint8, dimension/8 bytes a row). `floats`, when present, holds unit-length
    float32 vectors of the same dimension, used to rescore the Hamming candidates.
    """

    codes: NDArray[np.uint8]
    floats: NDArray[np.float32] | None = None

    def __post_init__(self) -> None:
        if self.codes.dtype != np.uint8 or self.codes.ndim != 2:
            raise ValueError(f"codes must be a 2-d uint8 array, got {self.codes.dtype} with {self.codes.ndim} dims")
        if self.floats is not None:
            if self.floats.dtype != np.float32 or self.floats.ndim != 2:
                raise ValueError("floats must be a 2-d float32 array")
            if self.floats.shape != (self.codes.shape[0], self.codes.shape[1] * BITS_PER_BYTE):
                raise ValueError(f"floats shape {self.floats.shape} does not match codes shape {self.codes.shape}")

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @property
    def dimension(self) -> int:
        return int(self.codes.shape[1]) * BITS_PER_BYTE

    def take(self, rows: Sequence[int] | NDArray[np.intp]) -> Embeddings:
        """A new Embeddings with only the given rows, in that order."""
        index = np.asarray(rows, dtype=np.intp)
        return Embeddings(self.codes[index], None if self.floats is None else self.floats[index])

    @staticmethod
    def empty(dimension: int, *, with_floats: bool = False) -> Embeddings:
        floats = np.zeros((0, dimension), dtype=np.float32) if with_floats else None
        return Embeddings(np.zeros((0, dimension // BITS_PER_BYTE), dtype=np.uint8), floats)

    @staticmethod
    def concat(parts: Sequence[Embeddings], dimension: int) -> Embeddings:
        """Rows of all parts in order; floats are kept only when every part has them."""
        if not parts:
            return Embeddings.empty(dimension)
        codes = np.concatenate([p.codes for p in parts])
        if all(p.floats is not None for p in parts):
            return Embeddings(codes, np.concatenate([p.floats for p in parts if p.floats is not None]))
        return Embeddings(codes)


def quantize_int8(floats: NDArray[np.float32]) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
    """Symmetric per-row int8 quantization: v ≈ q × scale with scale = max|v| / 127 (per row: a row's result does not
    depend on the others, so the vectors store and the embedding cache keep the same bytes for it)."""
    scales = (np.abs(floats).max(axis=1) / INT8_MAX).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
    quantized = np.rint(floats / safe[:, None]).astype(np.int8)
    return quantized, scales


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into Embeddings. Documents and queries may be embedded differently (asymmetric models)."""

    @property
    def name(self) -> str:
        """Identifies the model and everything that changes its output; part of the embedding cache key."""
        ...

    @property
    def dimension(self) -> int:
        """Bits per code (a multiple of 8)."""
        ...

    @property
    def remote(self) -> bool:
        """True when texts are sent off the machine."""
        ...

    @property
    def text_style(self) -> TextStyle:
        """Which input text suits the model."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Embeddings:
        """One row per text, in order. Raises EmbedderError."""
        ...

    def embed_query(self, text: str) -> Embeddings:
        """One row. Raises EmbedderError."""
        ...


def pack_signs(vectors: NDArray[np.float32]) -> NDArray[np.uint8]:
    """Binarize by sign: bit = 1 where the component is > 0, else 0 (zero counts as negative), then pack."""
    return np.packbits(vectors > 0, axis=1)


def unit_rows(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows scaled to unit length; all-zero rows (e.g. an empty text) stay zero instead of becoming NaN."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    np.maximum(norms, np.finfo(np.float32).tiny, out=norms)
    unit: NDArray[np.float32] = (vectors / norms).astype(np.float32, copy=False)
    return unit

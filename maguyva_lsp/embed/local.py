"""The offline default embedder: wordllama's static token embeddings, shipped inside its wheel, loaded with no network.

A static model's text vector is the mean of its token vectors, so instead of wordllama's padded dense batches we
tokenize without padding and pool through one sparse (texts × vocabulary) product: same vectors, far less memory.
The ids come through a per-word cache (embed/word_ids.py): the same ids as the tokenizer's, each word tokenized once.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from maguyva_lsp.embed.base import BITS_PER_BYTE, EmbedderError, Embeddings, TextStyle, pack_signs, unit_rows
from maguyva_lsp.embed.word_ids import WordIds, splits_at_spaces

if TYPE_CHECKING:
    from tokenizers import Tokenizer

log = logging.getLogger(__name__)

WORDLLAMA_PACKAGE = "wordllama"
WEIGHTS_FILE = "weights/l2_supercat_256.safetensors"
TOKENIZER_FILE = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR_KEY = "embedding.weight"  # the tensor name wordllama itself reads
LOCAL_DIMENSION = 256
# Bump when anything that changes the vectors of a given text changes (weights, pooling, binarization):
# it is part of the model name, hence of the embedding cache key.
LOCAL_MODEL_VERSION = 1
LOCAL_MODEL_NAME = f"wordllama-l2_supercat-{LOCAL_DIMENSION}-v{LOCAL_MODEL_VERSION}"

# Texts longer than this are cut before tokenizing: a mean of token vectors gains nothing from a huge text, and
# the cut bounds the tokenizer's memory. About 40 lines of code.
MAX_TEXT_CHARS = 4000
# Texts per tokenizer call: large enough to use the tokenizer's threads, small enough that the Encoding objects
# of one batch (ids, offsets, token strings) stay within a few tens of MB.
EMBED_BATCH_TEXTS = 512


def wordllama_dir() -> Path:
    """The installed wordllama package folder, found without importing it (its import configures root logging)."""
    spec = importlib.util.find_spec(WORDLLAMA_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            "the local embedder needs the 'wordllama' package (its wheel carries the model weights): "
            "pip install 'wordllama>=0.4,<0.5'"
        )
    return Path(next(iter(spec.submodule_search_locations)))


class LocalEmbedder:
    """Mean-pooled static token embeddings (wordllama l2_supercat, 256 dimensions), binarized by sign.

    Documents and queries are embedded alike (the model is symmetric). Floats are unit length; codes are the signs
    of the same pooled vectors (normalisation does not change a sign).
    """

    def __init__(self, package_dir: Path | None = None) -> None:
        """Finds the model's files; they are read at the first embedding (a process that only answers name or text
        queries never pays the ~0.3 s and 32 MB of loading them). A missing file is an error here, a damaged one at
        that first embedding (an EmbedderError with the reason either way)."""
        self._root = package_dir or wordllama_dir()
        for path in (self._root / WEIGHTS_FILE, self._root / TOKENIZER_FILE):
            if not path.is_file():
                raise EmbedderError(f"cannot load the local embedding model from {self._root}: {path} is missing")
        self._model: tuple[NDArray[np.float32], Tokenizer] | None = None
        self._word_ids: WordIds | None = None  # None: a tokenizer whose ids are not its words' (asked text by text)
        self._load_lock = threading.Lock()
        self._lock = threading.Lock()  # one tokenizer call at a time: its own thread pool already uses the cores

    def worker_factory(self) -> Callable[[], LocalEmbedder]:
        """How a worker process makes the same embedder (picklable: the model's folder; the worker loads it once)."""
        return functools.partial(LocalEmbedder, self._root)

    def load(self) -> None:
        """Read the model now (a long-lived process does it in the background, so its first question does not)."""
        self._loaded()

    def _loaded(self) -> tuple[NDArray[np.float32], Tokenizer]:
        """The weights (float32) and the tokenizer, read on first use."""
        with self._load_lock:
            if self._model is None:
                self._model = _load_model(self._root)
                tokenizer = self._model[1]
                self._word_ids = WordIds(tokenizer) if splits_at_spaces(tokenizer) else None
            return self._model

    @property
    def name(self) -> str:
        return LOCAL_MODEL_NAME

    @property
    def dimension(self) -> int:
        return LOCAL_DIMENSION

    @property
    def text_style(self) -> TextStyle:
        return "words"

    @property
    def remote(self) -> bool:
        return False

    def embed_documents(self, texts: Sequence[str]) -> Embeddings:
        return self._embed(texts)

    def embed_query(self, text: str) -> Embeddings:
        return self._embed([text])

    def _embed(self, texts: Sequence[str]) -> Embeddings:
        if not texts:
            return Embeddings.empty(LOCAL_DIMENSION, with_floats=True)
        # Filled batch by batch: the only full-size buffers are the results themselves.
        floats = np.empty((len(texts), LOCAL_DIMENSION), dtype=np.float32)
        codes = np.empty((len(texts), LOCAL_DIMENSION // BITS_PER_BYTE), dtype=np.uint8)
        for start in range(0, len(texts), EMBED_BATCH_TEXTS):
            pooled = self.pool(texts[start : start + EMBED_BATCH_TEXTS])
            stop = start + len(pooled)
            codes[start:stop] = pack_signs(pooled)
            floats[start:stop] = unit_rows(pooled)
        return Embeddings(codes, floats)

    def pool(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """The mean of each text's token vectors (wordllama's `embed(texts, norm=False)`), one row per text."""
        from scipy.sparse import csr_matrix

        matrix, tokenizer = self._loaded()
        capped = [text[:MAX_TEXT_CHARS] for text in texts]
        with self._lock:
            if self._word_ids is not None:
                ids, lengths = self._word_ids.token_ids(capped)
            else:
                encodings = tokenizer.encode_batch(capped, add_special_tokens=False)
                lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
                ids = np.fromiter((i for e in encodings for i in e.ids), dtype=np.int32, count=int(lengths.sum()))
                del encodings
        # wordllama clamps ids outside the matrix the same way.
        np.clip(ids, 0, matrix.shape[0] - 1, out=ids)
        indptr = np.zeros(len(capped) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # Weight 1/len per token makes the product the mean; an empty text keeps a zero row (wordllama divides by
        # max(len, 1) too).
        weights = np.repeat((1.0 / np.maximum(lengths, 1)).astype(np.float32), lengths)
        bag = csr_matrix((weights, ids, indptr), shape=(len(capped), matrix.shape[0]))
        return np.asarray(bag @ matrix, dtype=np.float32)


def _load_model(root: Path) -> tuple[NDArray[np.float32], Tokenizer]:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    weights_path, tokenizer_path = root / WEIGHTS_FILE, root / TOKENIZER_FILE
    try:
        tensors = load_file(str(weights_path))
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
    except Exception as exc:  # a damaged file of the wheel: say which
        raise EmbedderError(f"cannot load the local embedding model from {root}: {exc}") from exc
    if TENSOR_KEY not in tensors:
        raise EmbedderError(f"{weights_path} has no tensor {TENSOR_KEY!r}")
    matrix = tensors[TENSOR_KEY]
    if matrix.ndim != 2 or matrix.shape[1] != LOCAL_DIMENSION:
        raise EmbedderError(f"{weights_path}: unexpected weights shape {matrix.shape}")
    tokenizer.no_padding()
    tokenizer.no_truncation()
    # float32 once at load (the file holds float16): sparse products need it, and it is only 32 MB.
    return np.ascontiguousarray(matrix, dtype=np.float32), tokenizer

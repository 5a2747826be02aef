"""Voyage AI embedder (voyage-code-3 by default) through the official client: bit-packed codes, batched within the
API's per-request limits, with our own retries and backoff. Code leaves the machine only through this module, and
only when the user chose Voyage. The API key is never logged, shown in a repr, or put in an error message.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Literal

import numpy as np

from maguyva_lsp.config import SecretStr
from maguyva_lsp.embed.base import BITS_PER_BYTE, EmbedderError, Embeddings, TextStyle, unit_rows

log = logging.getLogger(__name__)

DEFAULT_MODEL = "voyage-code-3"
VOYAGE_DIMENSIONS: tuple[int, ...] = (256, 512, 1024, 2048)
# Per-request limits of the embeddings endpoint (https://docs.voyageai.com/reference/embeddings-api): "The maximum
# length of the list is 1,000. The total number of tokens in the list is at most 1M for voyage-4-lite and
# voyage-3.5-lite; 320K for voyage-4, voyage-3.5 and voyage-2; and 120K for voyage-4-large, voyage-3-large,
# voyage-code-3, voyage-finance-2, and voyage-law-2."
MAX_TEXTS_PER_REQUEST = 1000
TOKENS_PER_REQUEST: dict[str, int] = {
    "voyage-4-lite": 1_000_000,
    "voyage-3.5-lite": 1_000_000,
    "voyage-4": 320_000,
    "voyage-3.5": 320_000,
    "voyage-2": 320_000,
}
DEFAULT_TOKENS_PER_REQUEST = 120_000  # voyage-code-3 and every model not listed: the smallest published limit
# Token estimate without the model's tokenizer (it downloads from the network): a byte-fallback BPE token covers at
# least one UTF-8 byte, so bytes are an upper bound; add room for the retrieval prompt that `input_type` prepends
# ("Represent the document for retrieval: ") and special tokens.
PROMPT_TOKENS = 16
# Texts are cut here before sending: ~4K+ tokens, well within the 32K context; `truncation=True` covers the rest.
MAX_TEXT_CHARS = 16_000
REQUEST_TIMEOUT_SECONDS = 60.0
DOCUMENT_ATTEMPTS = 6  # background indexing can wait out a rate limit: 1+2+4+8+16 s of backoff
QUERY_ATTEMPTS = 2  # a search cannot: one retry, then the error goes to the user
BACKOFF_BASE_SECONDS = 1.0
BACKOFF_MAX_SECONDS = 30.0
BACKOFF_JITTER = 0.25  # ± this fraction, so that parallel clients do not retry in lockstep
# The query is also requested as float, to rescore the Hamming candidates (asymmetric: float query against the
# documents' ±1 bits). Documents are requested as bits only: a float copy of every chunk would cost twice.
RESCORE_WITH_FLOAT_QUERY = True

InputType = Literal["document", "query"]
OutputDtype = Literal["ubinary", "float"]


def estimate_tokens(text: str) -> int:
    """An upper bound of the tokens of one text (see PROMPT_TOKENS)."""
    return len(text.encode("utf-8", "surrogatepass")) + PROMPT_TOKENS


def request_batches(texts: Sequence[str], max_texts: int, max_tokens: int) -> Iterator[tuple[int, int]]:
    """[start, stop) ranges of texts, in order, each within both per-request limits (a single text always fits:
    texts are cut to MAX_TEXT_CHARS first)."""
    start, tokens = 0, 0
    for i, text in enumerate(texts):
        cost = estimate_tokens(text)
        if i > start and (i - start >= max_texts or tokens + cost > max_tokens):
            yield start, i
            start, tokens = i, 0
        tokens += cost
    if start < len(texts):
        yield start, len(texts)


class VoyageEmbedder:
    """Embeds through `voyageai.Client` with `output_dtype="ubinary"`; documents and queries use their own
    `input_type` (Voyage prepends a different prompt to each)."""

    def __init__(
        self,
        api_key: SecretStr | str,
        model: str = DEFAULT_MODEL,
        dimension: int = 1024,
        *,
        timeout: float = REQUEST_TIMEOUT_SECONDS,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        key = api_key if isinstance(api_key, SecretStr) else SecretStr(api_key)
        if not key.get().strip():
            raise EmbedderError(
                "no Voyage API key: set the voyageApiKey setting or the VOYAGE_API_KEY environment variable"
            )
        if dimension not in VOYAGE_DIMENSIONS:
            raise EmbedderError(f"Voyage output dimension must be one of {VOYAGE_DIMENSIONS}, got {dimension}")
        try:
            import voyageai.error
            from voyageai.client import Client
        except ImportError as exc:
            raise EmbedderError("the Voyage embedder needs the 'voyageai' package: pip install voyageai") from exc
        self._key = SecretStr(key.get().strip())
        self._model = model
        self._dimension = dimension
        self._sleep = sleep
        self._errors = voyageai.error
        # max_retries=0: retries are ours (the client's retry neither 5xx nor connection errors, nor honours
        # Retry-After); the key goes to the client object only, never to module globals.
        self._client: Any = Client(api_key=self._key.get(), max_retries=0, timeout=timeout)
        self._max_tokens = TOKENS_PER_REQUEST.get(model, DEFAULT_TOKENS_PER_REQUEST)
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="voyage-query")

    def __repr__(self) -> str:
        return f"VoyageEmbedder(model={self._model!r}, dimension={self._dimension})"

    @property
    def name(self) -> str:
        return f"voyage/{self._model}"

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def text_style(self) -> TextStyle:
        return "code"

    @property
    def remote(self) -> bool:
        return True

    def embed_documents(self, texts: Sequence[str]) -> Embeddings:
        capped = [text[:MAX_TEXT_CHARS] for text in texts]
        parts: list[np.ndarray[Any, np.dtype[np.uint8]]] = []
        for start, stop in request_batches(capped, MAX_TEXTS_PER_REQUEST, self._max_tokens):
            rows = self._embed(capped[start:stop], "document", "ubinary", DOCUMENT_ATTEMPTS)
            parts.append(self._codes(rows))
        if not parts:
            return Embeddings.empty(self._dimension)
        return Embeddings(np.concatenate(parts))

    def embed_query(self, text: str) -> Embeddings:
        texts = [text[:MAX_TEXT_CHARS]]
        if not RESCORE_WITH_FLOAT_QUERY:
            return Embeddings(self._codes(self._embed(texts, "query", "ubinary", QUERY_ATTEMPTS)))
        # Both forms at once: the search waits for one round trip, not two.
        bits = self._pool.submit(self._embed, texts, "query", "ubinary", QUERY_ATTEMPTS)
        floats = self._pool.submit(self._embed, texts, "query", "float", QUERY_ATTEMPTS)
        wait((bits, floats))  # both settle before either error is raised: no request outlives the search
        return Embeddings(self._codes(bits.result()), self._floats(floats.result()))

    def close(self) -> None:
        self._pool.shutdown(wait=False)

    def _codes(self, rows: list[Any]) -> np.ndarray[Any, np.dtype[np.uint8]]:
        width = self._dimension // BITS_PER_BYTE
        try:
            codes = np.asarray(rows, dtype=np.int64)
        except (TypeError, ValueError) as exc:
            raise EmbedderError(f"Voyage returned malformed binary embeddings ({type(exc).__name__})") from exc
        if codes.ndim != 2 or codes.shape[1] != width or codes.min(initial=0) < 0 or codes.max(initial=0) > 255:
            raise EmbedderError(f"Voyage returned binary embeddings of shape {codes.shape}, expected (n, {width})")
        return codes.astype(np.uint8)

    def _floats(self, rows: list[Any]) -> np.ndarray[Any, np.dtype[np.float32]]:
        try:
            floats = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbedderError(f"Voyage returned malformed float embeddings ({type(exc).__name__})") from exc
        if floats.shape != (1, self._dimension) or not np.isfinite(floats).all():
            raise EmbedderError(f"Voyage returned float embeddings of shape {floats.shape}")
        return unit_rows(floats)

    def _embed(self, texts: list[str], input_type: InputType, dtype: OutputDtype, attempts: int) -> list[Any]:
        """One request's embeddings, retried with exponential backoff on rate limits, 5xx, timeouts, connection
        errors; a rejected key or a bad request fails at once."""
        errors = self._errors
        for attempt in range(1, attempts + 1):
            try:
                result = self._client.embed(
                    texts,
                    model=self._model,
                    input_type=input_type,
                    truncation=True,
                    output_dtype=dtype,
                    output_dimension=self._dimension,
                )
                embeddings = list(result.embeddings)
            except errors.VoyageError as exc:
                status = exc.http_status
                if isinstance(exc, errors.AuthenticationError) or status in (401, 403):
                    raise EmbedderError(
                        f"Voyage rejected the API key (HTTP {status}): check the voyageApiKey setting or VOYAGE_API_KEY"
                    ) from None
                retryable = isinstance(
                    exc,
                    errors.RateLimitError
                    | errors.ServiceUnavailableError
                    | errors.ServerError
                    | errors.Timeout
                    | errors.APIConnectionError,
                ) or (isinstance(status, int) and status >= 500)
                reason = self._scrub(f"{type(exc).__name__}{f' (HTTP {status})' if status else ''}: {exc}")
                if not retryable:
                    raise EmbedderError(f"Voyage API error: {reason}") from None
                if attempt == attempts:
                    raise EmbedderError(f"Voyage API failed after {attempts} attempts: {reason}") from None
                delay = self._backoff(attempt, exc)
                log.warning("Voyage request failed (%s); retry %d/%d in %.1f s", reason, attempt, attempts - 1, delay)
                self._sleep(delay)
                continue
            except Exception as exc:  # the client parsing an answer that is not what the API documents
                raise EmbedderError(f"Voyage returned an unusable answer ({type(exc).__name__})") from None
            if len(embeddings) != len(texts):
                raise EmbedderError(f"Voyage returned {len(embeddings)} embeddings for {len(texts)} texts")
            return embeddings
        raise EmbedderError("Voyage request was not attempted")  # attempts < 1

    def _backoff(self, attempt: int, exc: Any) -> float:
        """Retry-After when the server sent one, else BASE × 2^(attempt-1) with jitter; capped."""
        headers = getattr(exc, "headers", None) or {}
        try:
            retry_after = float(str(headers.get("retry-after")))
        except ValueError:
            retry_after = -1.0
        if retry_after >= 0:
            return min(retry_after, BACKOFF_MAX_SECONDS)
        delay: float = BACKOFF_BASE_SECONDS * 2 ** (attempt - 1)
        delay *= 1 + random.uniform(-BACKOFF_JITTER, BACKOFF_JITTER)
        return min(delay, BACKOFF_MAX_SECONDS)

    def _scrub(self, message: str) -> str:
        """The message with the key masked, should an error ever echo it."""
        key = self._key.get()
        return message.replace(key, "********") if key else message

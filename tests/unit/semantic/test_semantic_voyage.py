"""The Voyage embedder through the real `voyageai` client, with the HTTP layer mocked by `responses`."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import requests
import responses

from maguyva_lsp.config import SecretStr
from maguyva_lsp.embed import voyage
from maguyva_lsp.embed.base import EmbedderError
from maguyva_lsp.embed.voyage import (
    DOCUMENT_ATTEMPTS,
    MAX_TEXTS_PER_REQUEST,
    QUERY_ATTEMPTS,
    VoyageEmbedder,
    estimate_tokens,
    request_batches,
)

URL = "https://api.voyageai.com/v1/embeddings"
KEY = "pa-test-SECRET-key-0123456789"
DIM = 1024


def _vector(text: str, dtype: str, dim: int) -> str:
    """A deterministic embedding of a text, base64-encoded as the API sends it."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    rng = np.random.default_rng(seed)
    if dtype == "ubinary":
        raw = rng.integers(0, 256, dim // 8, dtype=np.uint8).tobytes()
    else:
        floats = rng.standard_normal(dim).astype(np.float32)
        raw = (floats / np.linalg.norm(floats)).astype(np.float32).tobytes()
    return base64.b64encode(raw).decode()


class FakeVoyage:
    """Answers embedding requests like the API, after a scripted list of failures."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.failures: list[tuple[int, str, dict[str, str]]] = []

    def __call__(self, request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
        body = json.loads(request.body or b"{}")
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.failures:
            return self.failures.pop(0)
        dtype = body.get("output_dtype") or "float"
        dim = body.get("output_dimension") or DIM
        data = [
            {"object": "embedding", "embedding": _vector(text, dtype, dim), "index": i}
            for i, text in enumerate(body["input"])
        ]
        payload = {"object": "list", "data": data, "model": body["model"], "usage": {"total_tokens": 7}}
        return 200, {"Content-Type": "application/json"}, json.dumps(payload)


@pytest.fixture
def api() -> Iterator[FakeVoyage]:
    fake = FakeVoyage()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add_callback(responses.POST, URL, callback=fake)
        yield fake


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def embedder(sleeps: list[float]) -> VoyageEmbedder:
    return VoyageEmbedder(SecretStr(KEY), dimension=DIM, sleep=sleeps.append)


def test_documents_request_ubinary_codes_with_the_document_input_type(
    api: FakeVoyage, embedder: VoyageEmbedder
) -> None:
    result = embedder.embed_documents(["def a(): pass", "class B: ..."])
    assert result.codes.shape == (2, DIM // 8) and result.floats is None
    [body] = api.requests
    assert body["model"] == "voyage-code-3"
    assert body["input_type"] == "document"
    assert body["output_dtype"] == "ubinary"
    assert body["output_dimension"] == DIM
    assert body["truncation"] is True
    expected = np.frombuffer(base64.b64decode(_vector("def a(): pass", "ubinary", DIM)), dtype=np.uint8)
    assert np.array_equal(result.codes[0], expected)
    assert api.headers[0]["Authorization"] == f"Bearer {KEY}"


def test_query_asks_for_bits_and_floats_with_the_query_input_type(api: FakeVoyage, embedder: VoyageEmbedder) -> None:
    result = embedder.embed_query("how does auth work")
    assert result.codes.shape == (1, DIM // 8)
    assert result.floats is not None and np.isclose(np.linalg.norm(result.floats[0]), 1.0)
    assert sorted(b["output_dtype"] for b in api.requests) == ["float", "ubinary"]
    assert {b["input_type"] for b in api.requests} == {"query"}


def test_batches_split_by_text_count(api: FakeVoyage, embedder: VoyageEmbedder) -> None:
    texts = [f"t{i}" for i in range(MAX_TEXTS_PER_REQUEST * 2 + 5)]
    result = embedder.embed_documents(texts)
    assert [len(b["input"]) for b in api.requests] == [MAX_TEXTS_PER_REQUEST, MAX_TEXTS_PER_REQUEST, 5]
    assert len(result) == len(texts)
    # Order is kept across requests.
    last = np.frombuffer(base64.b64decode(_vector(texts[-1], "ubinary", DIM)), dtype=np.uint8)
    assert np.array_equal(result.codes[-1], last)


def test_batches_split_by_estimated_tokens(api: FakeVoyage, embedder: VoyageEmbedder) -> None:
    texts = [chr(ord("a") + i % 26) * 10_000 for i in range(25)]
    embedder.embed_documents(texts)
    sizes = [len(b["input"]) for b in api.requests]
    per_request = voyage.DEFAULT_TOKENS_PER_REQUEST // estimate_tokens(texts[0])
    assert sizes == [per_request, per_request, 25 - 2 * per_request]
    for body in api.requests:
        assert sum(estimate_tokens(t) for t in body["input"]) <= voyage.DEFAULT_TOKENS_PER_REQUEST


def test_request_batches_bounds() -> None:
    assert list(request_batches([], 10, 100)) == []
    assert list(request_batches(["x" * 500], 10, 100)) == [(0, 1)], "an oversized text still goes, alone"
    assert list(request_batches(["a"] * 5, 2, 10_000)) == [(0, 2), (2, 4), (4, 5)]
    # Non-ASCII text counts its UTF-8 bytes.
    assert estimate_tokens("é") == estimate_tokens("ab")


def test_rate_limit_then_success_waits_and_retries(
    api: FakeVoyage, embedder: VoyageEmbedder, sleeps: list[float]
) -> None:
    api.failures.append((429, {"Content-Type": "application/json"}, json.dumps({"detail": "rate limited"})))
    api.failures.append((429, {"Content-Type": "application/json", "Retry-After": "3"}, '{"detail": "slow down"}'))
    result = embedder.embed_documents(["a", "b"])
    assert len(result) == 2
    assert len(api.requests) == 3
    assert len(sleeps) == 2
    assert voyage.BACKOFF_BASE_SECONDS * 0.7 <= sleeps[0] <= voyage.BACKOFF_BASE_SECONDS * 1.3
    assert sleeps[1] == 3.0, "Retry-After is honoured"


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_retried(api: FakeVoyage, embedder: VoyageEmbedder, status: int) -> None:
    api.failures.append((status, {"Content-Type": "application/json"}, '{"detail": "oops"}'))
    assert len(embedder.embed_documents(["a"])) == 1
    assert len(api.requests) == 2


def test_persistent_failure_gives_up_after_the_attempt_budget(
    api: FakeVoyage, embedder: VoyageEmbedder, sleeps: list[float]
) -> None:
    api.failures.extend([(503, {}, "unavailable")] * 20)
    with pytest.raises(EmbedderError, match=f"after {DOCUMENT_ATTEMPTS} attempts"):
        embedder.embed_documents(["a"])
    assert len(api.requests) == DOCUMENT_ATTEMPTS
    assert all(delay <= voyage.BACKOFF_MAX_SECONDS for delay in sleeps)
    api.requests.clear()
    api.failures[:] = [(503, {}, "unavailable")] * 20
    with pytest.raises(EmbedderError):
        embedder.embed_query("q")
    assert len(api.requests) == 2 * QUERY_ATTEMPTS  # bits and floats, each with the short query budget


@pytest.mark.parametrize("status", [401, 403])
def test_a_rejected_key_fails_at_once_with_a_clear_message(
    api: FakeVoyage, embedder: VoyageEmbedder, status: int
) -> None:
    api.failures.append(
        (status, {"Content-Type": "application/json"}, json.dumps({"detail": "Provided API key is invalid."}))
    )
    with pytest.raises(EmbedderError, match=f"rejected the API key \\(HTTP {status}\\)"):
        embedder.embed_documents(["a"])
    assert len(api.requests) == 1, "a rejected key is not retried"


def test_a_bad_request_is_not_retried(api: FakeVoyage, embedder: VoyageEmbedder) -> None:
    api.failures.append((400, {"Content-Type": "application/json"}, '{"detail": "input too long"}'))
    with pytest.raises(EmbedderError, match="input too long"):
        embedder.embed_documents(["a"])
    assert len(api.requests) == 1


def test_connection_errors_and_timeouts_are_retried(embedder: VoyageEmbedder, sleeps: list[float]) -> None:
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, URL, body=requests.exceptions.ConnectTimeout("slow"))
        mock.add(responses.POST, URL, body=requests.exceptions.ConnectionError("refused"))
        fake = FakeVoyage()
        mock.add_callback(responses.POST, URL, callback=fake)
        assert len(embedder.embed_documents(["a"])) == 1
    assert len(sleeps) == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("this is not json", "Voyage"),
        (json.dumps({"object": "list", "data": [], "usage": {"total_tokens": 1}}), "0 embeddings for 2 texts"),
        (json.dumps({"unexpected": True}), "unusable answer"),
        (
            json.dumps({"data": [{"embedding": [1, 2, 3]}, {"embedding": [1, 2, 3]}], "usage": {"total_tokens": 1}}),
            "shape",
        ),
        (
            json.dumps({"data": [{"embedding": "not base64!"}, {"embedding": 5}], "usage": {"total_tokens": 1}}),
            "Voyage",
        ),
    ],
)
def test_malformed_answers_are_embedder_errors(
    api: FakeVoyage, embedder: VoyageEmbedder, body: str, message: str
) -> None:
    api.failures.append((200, {"Content-Type": "application/json"}, body))
    with pytest.raises(EmbedderError, match=message):
        embedder.embed_documents(["a", "b"])
    assert len(api.requests) == 1


def test_a_missing_key_makes_no_request(api: FakeVoyage, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    for key in ("", "   ", SecretStr("")):
        with pytest.raises(EmbedderError, match="no Voyage API key"):
            VoyageEmbedder(key)
    assert api.requests == []


def test_dimension_must_be_one_voyage_offers() -> None:
    with pytest.raises(EmbedderError, match="dimension"):
        VoyageEmbedder(KEY, dimension=300)


def test_the_key_never_reaches_logs_reprs_or_errors(
    api: FakeVoyage, embedder: VoyageEmbedder, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    import voyageai

    monkey_log = voyageai.log
    voyageai.log = "debug"  # the client's most talkative mode
    try:
        with caplog.at_level(logging.DEBUG):
            api.failures.append((429, {"Content-Type": "application/json"}, '{"detail": "slow"}'))
            embedder.embed_documents(["a"])
            embedder.embed_query("q")
            api.failures.append((401, {"Content-Type": "application/json"}, '{"detail": "bad key"}'))
            with pytest.raises(EmbedderError) as rejected:
                embedder.embed_documents(["b"])
    finally:
        voyageai.log = monkey_log
    captured = capsys.readouterr()
    for text in (caplog.text, captured.out, captured.err, repr(embedder), str(embedder), str(rejected.value)):
        assert KEY not in text
    assert KEY not in repr(SecretStr(KEY))


def test_identity() -> None:
    embedder = VoyageEmbedder(KEY, model="voyage-code-3", dimension=512)
    assert embedder.name == "voyage/voyage-code-3"
    assert embedder.dimension == 512 and embedder.remote and embedder.text_style == "code"
    assert embedder.embed_documents([]).floats is None  # no text, no request, no floats for documents
    embedder.close()

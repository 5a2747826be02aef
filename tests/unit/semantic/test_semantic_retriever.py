"""The semantic retriever over real analyses: incremental embedding, the cache across restarts, failures."""

from __future__ import annotations

import base64
import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import requests
import responses

from maguyva_lsp.config import SecretStr
from maguyva_lsp.embed.voyage import VoyageEmbedder
from maguyva_lsp.index.segment_set import Segments
from maguyva_lsp.model import ChangeBatch, Classification, Hit, Intent, RetrievalQuery, Span
from maguyva_lsp.retrieve import semantic
from maguyva_lsp.retrieve.base import Retriever, RetrieverError
from maguyva_lsp.retrieve.semantic import SemanticRetriever
from maguyva_lsp.store.embedding_cache import CACHE_FILE, EmbeddingCache
from maguyva_lsp.store.segment_store import SegmentStore

MAIL = '''"""Outgoing mail."""

import smtplib


def send_email_message(recipient, subject, body):
    """Deliver an email message to the recipient through the SMTP server."""
    server = smtplib.SMTP("localhost")
    server.sendmail("noreply@example.com", [recipient], f"Subject: {subject}\\n\\n{body}")
    server.quit()


def compute_checksum(data):
    """Return the CRC32 checksum of a byte string."""
    import zlib
    return zlib.crc32(data) & 0xFFFFFFFF


class ConfigLoader:
    """Reads settings from an INI file."""

    def read_config_file(self, path):
        """Parse the configuration file and return its sections."""
        import configparser
        parser = configparser.ConfigParser()
        parser.read(path)
        return {name: dict(parser[name]) for name in parser.sections()}
'''


def _query(text: str, intent: Intent = Intent.UNDERSTAND_CODE, target: str | None = None) -> RetrievalQuery:
    return RetrievalQuery(Classification(text, intent, 0.75, "test", target if target is not None else text))


def _stored(folder: Path, embedder: Any) -> tuple[SemanticRetriever, Segments]:
    """A retriever whose vectors are a chain of the segment store in `folder`, the embedding cache beside it."""
    segments = Segments(SegmentStore(folder, "schema", "fingerprint"))
    retriever = SemanticRetriever(embedder, cache=EmbeddingCache(folder / "semantic" / CACHE_FILE))
    segments.attach_chain(retriever.chain)
    return retriever, segments


def test_it_is_a_retriever_and_finds_code_by_meaning(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    assert isinstance(retriever, Retriever) and retriever.name == "semantic"
    assert retriever.search(_query("anything"), 5) == []
    retriever.apply(ChangeBatch(updated=(analyse("app/mail.py", MAIL),)))
    hits = retriever.search(_query("how are emails sent to a recipient"), 3)
    assert hits[0].symbol == "send_email_message" and hits[0].kind == "function"
    assert hits[0].path == "app/mail.py"
    assert hits[0].span.start_line == 5 and hits[0].span.end_line == 9
    assert hits[0].span.end_col == len("    server.quit()")
    assert hits[0].snippet.startswith("def send_email_message(")
    assert hits[0].score >= hits[1].score
    top = retriever.search(_query("how is the configuration file parsed"), 1)[0]
    assert top.symbol == "ConfigLoader.read_config_file" and top.kind == "method"
    assert retriever.status().available


def test_find_similar_embeds_the_snippet(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(ChangeBatch(updated=(analyse("app/mail.py", MAIL),)))
    snippet = "crc = zlib.crc32(payload) & 0xFFFFFFFF  # checksum of the bytes"
    hits = retriever.search(_query(f"similar: {snippet}", Intent.FIND_SIMILAR, snippet), 1)
    assert hits[0].symbol == "compute_checksum"


def test_a_pasted_function_is_answered_by_functions_only(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(ChangeBatch(updated=(analyse("app/mail.py", MAIL),)))
    # Its words are the class header's (settings, INI file): a class chunk would be nearest, but it is a function.
    snippet = 'find code similar to:\ndef f(self):\n    """Reads settings from an INI file."""\n    return ini_settings'
    hits = retriever.search(_query(snippet, Intent.FIND_SIMILAR, snippet), 5)
    assert hits and {h.kind for h in hits} <= {"function", "method"}
    loose = retriever.search(_query("settings from an INI file", Intent.FIND_SIMILAR, "Reads settings from INI"), 5)
    assert "class" in {h.kind for h in loose}  # loose lines may be any chunk


def test_a_question_ranks_files_by_their_best_chunks_together() -> None:
    def h(path: str, score: float) -> Hit:
        return Hit(path, Span(0, 0, 0, 1), score, "f")

    hits = [h("one.py", 0.80), h("many.py", 0.78), h("many.py", 0.70), h("other.py", 0.6), h("many.py", 0.65)]
    ranked = semantic.by_file_support(hits)
    # many.py: 0.78 + 0.3 × (0.70 + 0.65) = 1.185 > one.py's 0.80 > other.py's 0.6
    assert [(x.path, x.score) for x in ranked] == [
        ("many.py", 0.78), ("many.py", 0.70), ("many.py", 0.65), ("one.py", 0.80), ("other.py", 0.6)
    ]  # fmt: skip
    assert semantic.by_file_support([]) == []


def test_only_questions_are_ranked_by_file(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(ChangeBatch(updated=(analyse("app/mail.py", MAIL), analyse("app/crc.py", "def crc(): pass\n"))))
    question = retriever.search(_query("how are configuration files parsed"), 10)
    paths = [x.path for x in question]
    assert paths == sorted(paths, key=paths.index)  # each file's hits together
    similar = retriever.search(_query("x", Intent.FIND_SIMILAR, "crc = zlib.crc32(data)"), 10)
    assert [x.score for x in similar] == sorted((x.score for x in similar), reverse=True)


def test_an_edit_to_one_function_embeds_only_that_chunk_across_edits_and_restarts(
    counting_embedder: Any, analyse: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "index"
    retriever, segments = _stored(folder, counting_embedder)
    first = analyse("app/mail.py", MAIL)
    retriever.apply(ChangeBatch(updated=(first,)))
    chunks = len(first.chunks)
    assert counting_embedder.texts_embedded == chunks

    # Edit the body of one function: exactly one chunk is embedded again.
    edited = analyse("app/mail.py", MAIL.replace("& 0xFFFFFFFF", "& 0xFFFF  # truncated"))
    assert len(edited.chunks) == chunks
    retriever.apply(ChangeBatch(updated=(edited,)))
    assert counting_embedder.texts_embedded == chunks + 1
    assert counting_embedder.batches[-1] and len(counting_embedder.batches[-1]) == 1
    assert "truncated" in counting_embedder.batches[-1][0]

    # Lines shift above every function: new chunk ids, same texts, nothing embedded.
    shifted = analyse("app/mail.py", "\n\n" + MAIL.replace("& 0xFFFFFFFF", "& 0xFFFF  # truncated"))
    retriever.apply(ChangeBatch(updated=(shifted,)))
    assert counting_embedder.texts_embedded == chunks + 1
    hit = retriever.search(_query("deliver email through smtp"), 1)[0]
    assert hit.symbol == "send_email_message" and hit.span.start_line == 7
    segments.commit_chains()
    retriever.close()
    segments.close()

    # Restart: the vectors come back from the store; re-applying the same analysis embeds nothing.
    restarted, segments = _stored(folder, counting_embedder)
    assert restarted.chunk_count == len(shifted.chunks)
    assert restarted.search(_query("deliver email through smtp"), 1)[0].span.start_line == 7
    restarted.apply(ChangeBatch(updated=(shifted,)))
    assert counting_embedder.texts_embedded == chunks + 1
    restarted.close()
    segments.close()

    # The vectors are lost: the cache dropped what the commits stored (no second copy), so every chunk is embedded
    # again, to the same vectors.
    rebuilt = SemanticRetriever(counting_embedder, cache=EmbeddingCache(folder / "semantic" / CACHE_FILE))
    assert rebuilt.chunk_count == 0
    rebuilt.apply(ChangeBatch(updated=(shifted,)))
    assert counting_embedder.texts_embedded == 2 * chunks + 1
    assert rebuilt.search(_query("deliver email through smtp"), 1)[0].span.start_line == 7
    assert rebuilt.chunk_count == len(shifted.chunks)
    rebuilt.close()


def test_removed_files_leave_the_index(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(
        ChangeBatch(updated=(analyse("a/mail.py", MAIL), analyse("b/other.py", "def helper():\n    pass\n")))
    )
    retriever.apply(ChangeBatch(removed=("a/mail.py",)))
    assert {hit.path for hit in retriever.search(_query("send email"), 10)} == {"b/other.py"}
    retriever.apply(ChangeBatch(removed=("b/other.py", "never/indexed.py")))
    assert retriever.search(_query("send email"), 10) == []


def test_searches_run_while_batches_are_applied(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(ChangeBatch(updated=(analyse("app/mail.py", MAIL),)))
    versions = [analyse(f"gen/m{i}.py", MAIL.replace("compute_checksum", f"checksum_{i}")) for i in range(6)]
    errors: list[BaseException] = []
    done = threading.Event()

    def reader() -> None:
        try:
            while not done.is_set():
                assert retriever.search(_query("send an email"), 5)
        except BaseException as exc:  # collected for the main thread
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for thread in threads:
        thread.start()
    for version in versions:
        retriever.apply(ChangeBatch(updated=(version,)))
    done.set()
    for thread in threads:
        thread.join()
    assert errors == []


URL = "https://api.voyageai.com/v1/embeddings"
KEY = "pa-retriever-test-key"


def _voyage_answer(request: requests.PreparedRequest) -> tuple[int, dict[str, str], str]:
    body = json.loads(request.body or b"{}")
    dim = body["output_dimension"]
    data = []
    for i, text in enumerate(body["input"]):
        rng = np.random.default_rng(len(text))
        raw = (
            rng.integers(0, 256, dim // 8, dtype=np.uint8).tobytes()
            if body["output_dtype"] == "ubinary"
            else rng.standard_normal(dim).astype(np.float32).tobytes()
        )
        data.append({"object": "embedding", "embedding": base64.b64encode(raw).decode(), "index": i})
    return 200, {"Content-Type": "application/json"}, json.dumps({"data": data, "usage": {"total_tokens": 1}})


def test_embedder_failures_mark_the_retriever_unavailable_and_heal(analyse: Any, tmp_path: Path) -> None:
    embedder = VoyageEmbedder(SecretStr(KEY), dimension=256, sleep=lambda _s: None)
    retriever = SemanticRetriever(embedder, cache=EmbeddingCache(tmp_path / "index" / CACHE_FILE))
    analysis = analyse("app/mail.py", MAIL)
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, URL, status=401, json={"detail": "Provided API key is invalid."})
        retriever.apply(ChangeBatch(updated=(analysis,)))
    status = retriever.status()
    assert not status.available and status.reason is not None
    assert "rejected the API key" in status.reason and KEY not in status.reason
    # Nothing indexed: the failure is the answer, without a request (the mock has no route to answer one).
    with responses.RequestsMock(), pytest.raises(RetrieverError, match="rejected the API key"):
        retriever.search(_query("send email"), 5)
    # The key works again: the next batch (even an unrelated one) brings the failed file in.
    with responses.RequestsMock() as mock:
        mock.add_callback(responses.POST, URL, callback=_voyage_answer)
        retriever.apply(ChangeBatch(updated=(analyse("b.py", "def b():\n    return 1\n"),)))
        assert retriever.status().available
        assert retriever.chunk_count == len(analysis.chunks) + 1
        hits = retriever.search(_query("send email"), 50)
    assert {hit.path for hit in hits} == {"app/mail.py", "b.py"}
    # The key is rejected while searching a populated index: the search fails with the reason.
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, URL, status=401, json={"detail": "Provided API key is invalid."})
        with pytest.raises(RetrieverError, match="rejected the API key"):
            retriever.search(_query("read config"), 5)
    retriever.close()


def test_memory_only_retriever_writes_nothing(counting_embedder: Any, analyse: Any, tmp_path: Path) -> None:
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(ChangeBatch(updated=(analyse("app/mail.py", MAIL),)))
    retriever.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]


def test_same_content_with_other_chunk_names_is_reindexed(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    analysis = analyse("app/mail.py", MAIL)
    retriever.apply(ChangeBatch(updated=(analysis,)))
    before = counting_embedder.texts_embedded
    retriever.apply(ChangeBatch(updated=(analysis,)))
    assert counting_embedder.texts_embedded == before, "an unchanged file is skipped"
    # Same bytes, but the chunker named a chunk differently (e.g. a newer grammar): its row is rebuilt.
    renamed = tuple(
        dataclasses.replace(c, symbol="deliver_mail") if c.symbol == "send_email_message" else c
        for c in analysis.chunks
    )
    retriever.apply(ChangeBatch(updated=(dataclasses.replace(analysis, chunks=renamed),)))
    assert counting_embedder.texts_embedded == before + 1
    assert retriever.search(_query("deliver mail to a recipient"), 1)[0].symbol == "deliver_mail"


def test_empty_and_huge_queries(counting_embedder: Any, analyse: Any) -> None:
    retriever = SemanticRetriever(counting_embedder)
    retriever.apply(ChangeBatch(updated=(analyse("app/mail.py", MAIL),)))
    assert retriever.search(_query("   "), 5) == []
    assert retriever.search(_query("send email " * 100_000), 1)[0].symbol == "send_email_message"
    assert retriever.search(_query("send email"), 0) == []

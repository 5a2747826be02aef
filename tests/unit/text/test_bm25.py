"""BM25 over chunks: the formula, identifier-aware matching, and each hit at the chunk's best line."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from text_corpus import build, write_tree

from maguyva_lsp.index.bm25 import BM25_B, BM25_K1, MAX_QUERY_TERMS, idf, query_terms, term_scores
from maguyva_lsp.retrieve.text import TextRetriever
from maguyva_lsp.tokens import index_tokens, words_index_tokens


def test_formula_matches_a_hand_computation() -> None:
    n_chunks, df, tf, length, avgdl = 100, 10.0, 3.0, 50.0, 40.0
    expected_idf = math.log(1 + (n_chunks - df + 0.5) / (df + 0.5))
    assert idf(np.array([df]), n_chunks)[0] == expected_idf
    expected = expected_idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avgdl))
    got = term_scores(np.array([tf], dtype=np.float32), np.array([length], dtype=np.float32), avgdl, expected_idf)
    assert math.isclose(float(got[0]), expected, rel_tol=1e-9)


def test_idf_stays_positive_for_common_terms() -> None:
    assert float(idf(np.array([99.0]), 100)[0]) > 0


def test_query_terms_split_identifiers_and_drop_stopwords() -> None:
    assert query_terms("how does parse config work") == ["parse", "config", "parse_config", "parseconfig"]
    assert query_terms("parseConfig") == ["parse", "config", "parseconfig", "parse_config"]
    assert query_terms("what is this") == ["what", "is", "this"]  # only stopwords: kept
    assert query_terms("a b") == []  # single letters are no terms


def test_a_parse_config_definition_ranks_first(retriever: TextRetriever) -> None:
    hits = retriever.find_text("parse config", limit=10)
    assert hits, "BM25 found nothing"
    assert hits[0].symbol in {"parse_config", "parseConfig"}
    assert hits[0].detail["match"] == "bm25"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_the_chunk_defining_parse_config_beats_its_callers_and_tests(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "app/config.py": (
                "import json\n\n\ndef parse_config(path):\n    with open(path) as f:\n        return json.load(f)\n"
            ),
            "app/main.py": (
                "from app.config import parse_config\n\n\ndef main(argv):\n    config = parse_config(argv[1])\n"
                "    backup = parse_config(argv[2])\n    print('parse the config and run', config, backup)\n"
            ),
            "tests/test_config.py": (
                "from app.config import parse_config\n\n\ndef test_parse_config(tmp_path):\n"
                "    assert parse_config(tmp_path / 'c.json') == {}\n    assert parse_config(tmp_path / 'd.json')\n"
            ),
            "docs/guide.md": "# Guide\n\nTo parse a file, write the config first. The config is parsed on start.\n",
        },
    )
    hits = build(tmp_path).find_text("parse config", limit=10)
    assert (hits[0].path, hits[0].symbol, hits[0].span.start_line) == ("app/config.py", "parse_config", 3)


def test_camel_case_is_found_by_words(retriever: TextRetriever) -> None:
    hits = retriever.find_text("parse config", limit=20)
    assert "src/app.js" in {h.path for h in hits}  # parseConfig


def test_hit_points_at_the_best_line_and_identifier(tmp_path: Path) -> None:
    source = "def unrelated():\n    x = 1\n    y = 2\n    return open_socket_connection(x, y)\n"
    write_tree(tmp_path, {"a.py": source})
    (hit,) = build(tmp_path).find_text("socket connection", limit=5)
    assert hit.span.start_line == 3
    assert hit.snippet == "    return open_socket_connection(x, y)"
    assert (hit.span.start_col, hit.span.end_col) == (11, 11 + len("open_socket_connection"))


def test_unknown_words_find_nothing(retriever: TextRetriever) -> None:
    assert retriever.find_text("zebra quantum", limit=5) == []
    assert retriever.find_text("", limit=5) == []


def test_huge_query_keeps_the_most_specific_terms(retriever: TextRetriever) -> None:
    words = "ECONNREFUSED " + " ".join(f"word{i}" for i in range(5000))
    hits = retriever.find_text(words * 20, limit=5)  # about 700 KB: cut, not hung
    assert hits and hits[0].detail["terms"] == ["econnrefused"]
    assert len(query_terms(words)) > MAX_QUERY_TERMS


def test_file_without_chunks_still_searchable(tmp_path: Path) -> None:
    write_tree(tmp_path, {"notes.txt": "line one\nthe frobnicator widget lives here\n"})
    hits = build(tmp_path).find_text("frobnicator widget", limit=5)
    assert [(h.path, h.span.start_line) for h in hits] == [("notes.txt", 1)]


def test_accept_keeps_only_the_chunks_it_takes_in_score_order(retriever: TextRetriever) -> None:
    bm25 = retriever._state.bm25
    everything = bm25.search("parse config", 50)
    kept = bm25.search("parse config", 2, accept=lambda chunk: chunk.kind == "function")
    assert [s.chunk for s in kept] == [s.chunk for s in everything if s.chunk.kind == "function"][:2]
    assert bm25.search("parse config", 5, accept=lambda chunk: False) == []


def _naive_frequencies(texts: list[str], symbols: list[str | None]) -> dict[tuple[str, int], int]:
    """tf by the definition: each chunk's index tokens counted, its symbol's SYMBOL_TOKEN_BOOST times more."""
    from maguyva_lsp.index import bm25

    out: Counter[tuple[str, int]] = Counter()
    for row, (text, symbol) in enumerate(zip(texts, symbols, strict=True)):
        for token in index_tokens(text):
            out[token, row] += 1
        for token in index_tokens(symbol or ""):
            out[token, row] += bm25.SYMBOL_TOKEN_BOOST
    return dict(out)


def test_chunk_term_postings_match_the_definition_in_any_batching(monkeypatch: pytest.MonkeyPatch) -> None:
    """The array build gives each chunk's term frequencies as counting its tokens does, ordered by term then row,
    whatever the batch size (words and terms met again in a later batch keep their ids)."""
    from maguyva_lsp.index import bm25

    texts = [f"def parse_config_{i % 7}(value):\n    return loadConfig(value) + helper_{i % 3}\n" for i in range(23)]
    texts += ["", "x = 1", "class Widget:\n    pass\n", "HTTPServer utf8 parse2Config a_b ab_c __init__ 12abc café_x"]
    symbols = [None if i % 4 else f"parse_config_{i % 7}" for i in range(len(texts))]
    symbols[-1] = "NewName.with_parts"  # words only its symbol holds
    expected = _naive_frequencies(texts, symbols)
    for batch in (4096, 5, 1):
        monkeypatch.setattr(bm25, "WORD_BATCH_CHUNKS", batch)
        built = bm25.chunk_term_postings(texts, symbols)
        assert built.terms == sorted({term for term, _ in expected})
        got = {(built.terms[k], r): int(f) for k, r, f in zip(built.keys, built.rows, built.tf, strict=True)}
        assert got == expected
        order = list(zip(built.keys.tolist(), built.rows.tolist(), strict=True))
        assert order == sorted(order)
        lengths = [sum(f for (_, r), f in expected.items() if r == row) for row in range(len(texts))]
        assert built.lengths.tolist() == lengths
    # a batch (or a segment) whose words have no terms at all: single letters only
    monkeypatch.setattr(bm25, "WORD_BATCH_CHUNKS", 1)
    built = bm25.chunk_term_postings(["a = b", "parse_config", "x"], [None, None, "y"])
    assert built.terms == ["config", "parse", "parse_config"]
    assert built.rows.tolist() == [1, 1, 1] and built.lengths.tolist() == [0, 3, 0]
    nothing = bm25.chunk_term_postings(["a = b", ""], ["c", None])
    assert nothing.terms == [] and nothing.keys.size == 0 and nothing.lengths.tolist() == [0, 0]


def test_words_index_tokens_equal_index_tokens_word_by_word() -> None:
    words = ["a", "ab_c", "a_b", "HTTPServer", "parse2Config", "utf8", "abc123def", "_", "__init__", "X", "A1b", "x2"]
    words += ["XMLHttpRequest2", "SCREAMING_CASE", "camelCaseWord", "snake_case_word", "ab", "Ab", "AB"]
    flat, counts = words_index_tokens(words)
    at = 0
    for word, count in zip(words, counts.tolist(), strict=True):
        assert flat[at : at + count] == index_tokens(word), word
        at += count
    assert at == len(flat)
    empty, no_counts = words_index_tokens([])
    assert empty == [] and no_counts.size == 0

"""TextRetriever as the engine sees it: the Retriever protocol, routing by intent, status, bad and huge input."""

from __future__ import annotations

from pathlib import Path

import pytest
from text_corpus import build, write_tree

from maguyva_lsp.model import ChangeBatch, Classification, Intent, RetrievalQuery
from maguyva_lsp.retrieve.base import Retriever, RetrieverError
from maguyva_lsp.retrieve.text import MAX_PATTERN_CHARS, TextRetriever


def ask(
    intent: Intent, target: str, query: str | None = None, *, literal: bool = False, regex: bool = False
) -> RetrievalQuery:
    classification = Classification(query or target, intent, 0.9, "test", target, literal)
    return RetrievalQuery(classification, case_sensitive=False, regex=regex)


def test_it_is_a_retriever_named_text() -> None:
    retriever = TextRetriever()
    assert isinstance(retriever, Retriever)
    assert retriever.name == "text"


def test_status_before_and_after_apply() -> None:
    retriever = TextRetriever()
    assert not retriever.status().available
    assert retriever.status().reason
    retriever.apply(ChangeBatch())
    assert retriever.status().available
    assert retriever.document_count == 0
    assert retriever.search(ask(Intent.EXACT_MATCH, "anything"), 10) == []


def test_exact_match_is_a_literal_search(retriever: TextRetriever) -> None:
    hits = retriever.search(ask(Intent.EXACT_MATCH, "econnrefused", '"econnrefused"', literal=True), 50)
    assert {h.path for h in hits} == {"src/app.js", "src/server.go", "src/long.js"}
    assert all(h.detail["match"] == "literal, ignoring case" for h in hits)


def test_regex_query_uses_the_pattern(retriever: TextRetriever) -> None:
    hits = retriever.search(ask(Intent.EXACT_MATCH, r"ECONN\w+", regex=True), 50)
    assert hits and all(h.detail["match"] == "regex, ignoring case" for h in hits)
    with pytest.raises(RetrieverError, match="position"):
        retriever.search(ask(Intent.EXACT_MATCH, "ECONN(", regex=True), 10)


@pytest.mark.parametrize("intent", [Intent.FIND_DEFINITION, Intent.FIND_REFERENCES, Intent.IMPACT_ANALYSIS])
def test_identifier_intents_search_the_whole_word(retriever: TextRetriever, intent: Intent) -> None:
    hits = retriever.search(ask(intent, "parseConfig", f"who calls parseConfig ({intent})"), 50)
    assert hits[0].detail["match"] == "identifier"
    assert (hits[0].path, hits[0].span.start_line) == ("src/app.js", 3)  # function parseConfig(text)
    assert all("parseConfigs" not in h.snippet for h in hits)


def test_identifier_found_nowhere_falls_back_to_bm25(retriever: TextRetriever) -> None:
    hits = retriever.search(ask(Intent.FIND_DEFINITION, "ParseConfigLoader", "ParseConfigLoader"), 10)
    assert hits and hits[0].detail["match"] == "bm25"


@pytest.mark.parametrize("intent", [Intent.UNDERSTAND_CODE, Intent.FIND_SIMILAR])
def test_other_intents_use_bm25(retriever: TextRetriever, intent: Intent) -> None:
    hits = retriever.search(ask(intent, "how is the config parsed", "how is the config parsed"), 10)
    assert hits and all(h.detail["match"] == "bm25" for h in hits)


def test_non_identifier_target_of_definition_intent_uses_bm25(retriever: TextRetriever) -> None:
    hits = retriever.search(ask(Intent.FIND_DEFINITION, "parse config", "where is parse config"), 10)
    assert hits and hits[0].detail["match"] == "bm25"


def test_zero_limit_and_empty_target(retriever: TextRetriever) -> None:
    assert retriever.search(ask(Intent.EXACT_MATCH, "config"), 0) == []
    assert retriever.search(ask(Intent.EXACT_MATCH, ""), 10) == []


def test_huge_literal_is_refused_quickly(retriever: TextRetriever) -> None:
    huge = "x" * 100_000
    with pytest.raises(RetrieverError, match="too long"):
        retriever.search(ask(Intent.EXACT_MATCH, huge, literal=True), 10)
    with pytest.raises(RetrieverError, match="too long"):
        retriever.find_regex(huge)
    assert retriever.find_literal("y" * MAX_PATTERN_CHARS).hits == ()


def test_scan_note_reaches_the_hits(retriever: TextRetriever) -> None:
    hits = retriever.search(ask(Intent.EXACT_MATCH, "==", literal=True), 5)
    assert hits and "no trigram" in str(hits[0].detail["note"])


def test_memory_is_reported(retriever: TextRetriever) -> None:
    assert retriever.memory_bytes > 0
    assert retriever.chunk_count > retriever.document_count > 0


def test_quoted_literal_ranks_the_exact_case_first(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a_first.py": "HEADERS = {'content-type': 'text/plain'}\n",
            "b_second.py": "HEADERS = {'Content-Type': 'text/plain'}\nOTHER = 'CONTENT-TYPE'\n",
        },
    )
    retriever = build(tmp_path)
    hits = retriever.search(ask(Intent.EXACT_MATCH, "Content-Type", '"Content-Type"', literal=True), 10)
    assert [(h.path, h.span.start_line) for h in hits] == [("b_second.py", 0), ("a_first.py", 0), ("b_second.py", 1)]


QUALIFIED_TREE = {
    # `close` is defined in both files; only b_sockets.py holds the class the question names
    "a_files.py": "class FileListener:\n    def close(self):\n        pass\n",
    "b_sockets.py": "import os\n\nclass SocketListener:\n    def close(self):\n        os.close(self.fd)\n",
    "c_use.py": "from b_sockets import SocketListener\nSocketListener.close(listener)\n",
}


def test_a_qualified_definition_question_finds_the_last_part_in_the_files_of_its_scope_first(tmp_path: Path) -> None:
    write_tree(tmp_path, QUALIFIED_TREE)
    retriever = build(tmp_path)
    hits = retriever.search(ask(Intent.FIND_DEFINITION, "SocketListener.close", "SocketListener.close"), 10)
    assert [(h.path, h.span.start_line) for h in hits[:2]] == [("b_sockets.py", 3), ("a_files.py", 1)]
    assert hits[0].detail["match"] == "identifier, files with SocketListener first"


def test_a_qualified_use_question_takes_the_whole_name_where_it_is_written(tmp_path: Path) -> None:
    write_tree(tmp_path, QUALIFIED_TREE)
    retriever = build(tmp_path)
    hits = retriever.search(ask(Intent.FIND_REFERENCES, "SocketListener.close", "who calls SocketListener.close"), 10)
    assert [(h.path, h.span.start_line, h.detail["match"]) for h in hits] == [("c_use.py", 1, "identifier")]
    # written nowhere whole: its last part, the scope's files first
    hits = retriever.search(ask(Intent.FIND_REFERENCES, "FileListener.close", "who calls FileListener.close"), 10)
    got = [(h.path, h.span.start_line) for h in hits]
    assert got == [("a_files.py", 1), ("b_sockets.py", 3), ("c_use.py", 1), ("b_sockets.py", 4)]
    assert hits[0].detail["match"] == "identifier, files with FileListener first"


CASES_TREE = {
    "a_lower.py": "def setup():\n    h = {'content-type': 'x'}\n    return h['content-type']\n",
    "b_mixed.py": (
        "class Headers:\n    KEY = 'Content-Type'\n\n"
        "    def get(self):\n        return 'CONTENT-TYPE', 'Content-Type'\n"
        "\n\ndef other():\n    return 'content-TYPE' + 'Content-Types'\n"
    ),
    "c_exact.py": "TYPE = 'Content-Type'\n" * 3,
    "tests/test_headers.py": "def test_it():\n    assert 'Content-Type' != 'content-type'\n",
}


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 8, 13, 60])
def test_a_quoted_literal_is_its_exact_case_hits_then_the_other_casings_in_their_order(
    tmp_path: Path, limit: int
) -> None:
    """The merged list, made without hits for the exact case's places in the second search, is what merging the two
    whole searches gives: the exact case's hits, then those of the case-insensitive search at other places."""
    write_tree(tmp_path, CASES_TREE)
    retriever = build(tmp_path)
    got = retriever.search(ask(Intent.EXACT_MATCH, "Content-Type", '"Content-Type"', literal=True), limit)
    exact = retriever.find_literal("Content-Type", case_sensitive=True, limit=limit)
    loose = retriever.find_literal("Content-Type", case_sensitive=False, limit=limit)
    if len(exact.hits) >= limit:
        expected = list(exact.hits)
    else:
        seen = {(h.path, h.span.start_line, h.span.start_col) for h in exact.hits}
        expected = [*exact.hits, *(h for h in loose.hits if (h.path, h.span.start_line, h.span.start_col) not in seen)]
    assert [(h.path, h.span, h.symbol, h.kind, h.snippet, h.detail) for h in got] == [
        (h.path, h.span, h.symbol, h.kind, h.snippet, h.detail) for h in expected[:limit]
    ]
    assert len(got) == min(limit, 12)  # every place once: 7 in the exact case (`Content-Types` too), 5 in others


def test_a_hit_is_named_by_the_innermost_definition_chunk_holding_its_line(retriever: TextRetriever) -> None:
    """`enclosing_symbol` (read from the chunk columns, by bisection over a file's disjoint chunks) against every
    line of every file, and the chunks the index holds."""
    from maguyva_lsp.index.text_results import enclosing_symbol

    docs = list(retriever._state.trigrams.docs.values())
    named = 0
    for doc in docs:
        chunks = [c for c in doc.chunks if c.symbol is not None]
        for line in range(doc.text.count("\n") + 2):
            holding = [c for c in chunks if c.start_line <= line <= c.end_line]
            best = min(holding, key=lambda c: c.end_line - c.start_line, default=None)
            assert enclosing_symbol(doc, line) == ((best.symbol, best.kind) if best else (None, None)), (doc.path, line)
            named += best is not None
    assert len(docs) > 5 and named > 20

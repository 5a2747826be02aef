"""The graph retriever: ranked lists per intent, the server's direct questions, and searching while indexing."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from graph_project import analyze_files, analyze_path, write_tree

from maguyva_lsp.graph.resolve import MAX_CANDIDATES
from maguyva_lsp.model import ChangeBatch, Classification, Intent, RetrievalQuery
from maguyva_lsp.retrieve.base import Retriever
from maguyva_lsp.retrieve.graph import GraphRetriever

PROJECT = {
    "auth/tokens.py": """
        def parse_token(raw):
            return raw.split(".")

        def check_token(raw):
            return bool(parse_token(raw))
        """,
    "auth/session.py": """
        from auth.tokens import check_token, parse_token

        class Session:
            def open(self, raw):
                if check_token(raw):
                    return parse_token(raw)

        def login(raw):
            return Session().open(raw)
        """,
    "web.py": """
        from auth.session import login

        def handle(request):
            return login(request)
        """,
}


def _query(intent: Intent, target: str, text: str | None = None) -> RetrievalQuery:
    return RetrievalQuery(Classification(text or target, intent, 0.9, "test", target))


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> GraphRetriever:
    graph = GraphRetriever()
    graph.apply(ChangeBatch(updated=tuple(analyze_files(tmp_path_factory.mktemp("r"), PROJECT))))
    return graph


def test_is_a_retriever(retriever: GraphRetriever) -> None:
    assert isinstance(retriever, Retriever)
    assert retriever.name == "graph"
    assert retriever.status().available


def test_find_references_lists_call_sites_then_imports(retriever: GraphRetriever) -> None:
    hits = retriever.search(_query(Intent.FIND_REFERENCES, "parse_token"), 10)
    assert [(h.path, h.span.start_line, h.detail["edge"]) for h in hits] == [
        ("auth/session.py", 5, "calls"),
        ("auth/tokens.py", 4, "calls"),
        ("auth/session.py", 0, "imports"),
    ]
    assert hits[0].symbol == "Session.open"
    assert retriever.search(_query(Intent.FIND_REFERENCES, "parse_token"), 1) == hits[:1]


def test_impact_analysis_hits_carry_depth_and_path(retriever: GraphRetriever) -> None:
    hits = retriever.search(_query(Intent.IMPACT_ANALYSIS, "check_token"), 20)
    by_symbol = {h.symbol: h for h in hits}
    assert by_symbol["Session.open"].detail["depth"] == 1
    assert by_symbol["handle"].detail["depth"] == 3
    assert by_symbol["handle"].detail["path"] == ["check_token", "Session.open", "login", "handle"]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_other_intents_rank_matching_definitions_by_centrality(retriever: GraphRetriever) -> None:
    hits = retriever.search(_query(Intent.FIND_DEFINITION, "parse_token"), 5)
    assert hits[0].symbol == "parse_token" and hits[0].path == "auth/tokens.py"
    understand = retriever.search(_query(Intent.UNDERSTAND_CODE, "how does token checking work"), 5)
    assert {h.symbol for h in understand} >= {"parse_token", "check_token"}
    assert [h.score for h in understand] == sorted((h.score for h in understand), reverse=True)
    assert retriever.search(_query(Intent.UNDERSTAND_CODE, "zzz qqq"), 5) == []
    assert retriever.search(_query(Intent.FIND_DEFINITION, "parse_token"), 0) == []


def test_server_questions(retriever: GraphRetriever) -> None:
    uses = retriever.references_at("web.py", 3, 12)  # on `login(request)`
    assert [(u.path, u.site.span.start_line) for u in uses] == [("web.py", 3), ("web.py", 0)]
    assert {u.source for u in retriever.callers("parse_token")} == {
        "auth/session.py::Session.open",
        "auth/tokens.py::check_token",
    }
    assert {u.target for u in retriever.callees("login")} >= {"auth/session.py::Session.open"}
    result = retriever.impact(path="auth/tokens.py", line=0, column=5)
    assert result.symbol == "parse_token"
    first = result.impacted[0]
    assert first.depth == 1 and first.via[0] == "parse_token"
    assert retriever.impact("no_such_symbol").impacted == ()
    assert retriever.stats()["files"] == 3


def test_centrality_for_fusion(retriever: GraphRetriever) -> None:
    assert retriever.centrality("auth/tokens.py", "parse_token") > retriever.centrality("web.py", "handle")
    assert retriever.centrality("auth/session.py", "Session.open") > 0
    assert retriever.centrality("auth/session.py", "open") == retriever.centrality("auth/session.py", "Session.open")
    assert retriever.centrality("auth/tokens.py") == retriever.file_centrality("auth/tokens.py") > 0
    assert retriever.centrality("nowhere.py", "x") == 0.0
    assert retriever.file_centrality("nowhere.py") == 0.0


def test_searches_run_while_batches_apply(tmp_path: Path) -> None:
    retriever = GraphRetriever()
    retriever.apply(ChangeBatch(updated=tuple(analyze_files(tmp_path, PROJECT))))
    write_tree(
        tmp_path,
        {
            f"extra/e{i}.py": f"from auth.tokens import parse_token\n\ndef e{i}():\n    return parse_token('{i}')\n"
            for i in range(30)
        },
    )
    extras = [analyze_path(tmp_path, f"extra/e{i}.py") for i in range(30)]
    errors: list[BaseException] = []
    stop = threading.Event()

    def search() -> None:
        try:
            while not stop.is_set():
                hits = retriever.search(_query(Intent.FIND_REFERENCES, "parse_token"), 100)
                assert len(hits) >= 3
                retriever.centrality("auth/tokens.py", "parse_token")
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)

    readers = [threading.Thread(target=search) for _ in range(3)]
    for reader in readers:
        reader.start()
    for extra in extras:
        retriever.apply(ChangeBatch(updated=(extra,)))
    retriever.apply(ChangeBatch(removed=tuple(e.path for e in extras[:10])))
    stop.set()
    for reader in readers:
        reader.join()
    assert errors == []
    assert len(retriever.search(_query(Intent.FIND_REFERENCES, "parse_token"), 100)) == 3 + 2 * 20


def test_impact_says_when_uses_by_a_crowded_name_cannot_be_attributed(tmp_path: Path) -> None:
    # MAX_CANDIDATES + 1 classes define `reset`: `obj.reset()` resolves to none of them, and impact says so
    classes = {
        f"codecs_{i}.py": f"""
            class Decoder{i}:
                def reset(self):
                    return {i}
            """
        for i in range(MAX_CANDIDATES + 1)
    }
    use = {"user.py": "def restart(decoder):\n    decoder.reset()\n"}
    graph = GraphRetriever()
    graph.apply(ChangeBatch(updated=tuple(analyze_files(tmp_path, {**classes, **use}))))
    result = graph.impact("Decoder0.reset")
    assert result.symbol == "Decoder0.reset" and result.impacted == ()
    assert result.note == (
        f"{MAX_CANDIDATES + 1} definitions are named reset: a use by that name alone (obj.reset(...)) cannot be told"
        " to mean this one, so such uses are not listed; search the name as text to see them all"
    )


def test_impact_of_a_name_few_share_has_no_note(tmp_path: Path) -> None:
    files = {
        "a.py": "class A:\n    def reset(self):\n        return 1\n",
        "b.py": "class B:\n    def reset(self):\n        return 2\n",
        "user.py": "def restart(decoder):\n    decoder.reset()\n",
    }
    graph = GraphRetriever()
    graph.apply(ChangeBatch(updated=tuple(analyze_files(tmp_path, files))))
    result = graph.impact("A.reset")
    assert result.note is None
    # a guess split two ways is below impact's threshold: weak, but not unknowable (no note)
    assert result.impacted == ()

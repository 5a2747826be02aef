"""The structural retriever on hand-made analyses: identifier queries (definitions before mentions), natural-language
queries (sub-word overlap), literals, incremental batches and go-to-definition."""

from __future__ import annotations

from maguyva_lsp.model import (
    ChangeBatch,
    Classification,
    Definition,
    FileAnalysis,
    Intent,
    PathClass,
    Reference,
    RetrievalQuery,
    SourceFile,
    Span,
)
from maguyva_lsp.retrieve.base import Retriever
from maguyva_lsp.retrieve.structural import MENTION_SCORE, StructuralRetriever


def defn(name: str, path: str, line: int, kind: str = "function", parent: str | None = None) -> Definition:
    return Definition(
        name=name,
        kind=kind,
        path=path,
        span=Span(line, 0, line + 3, 0),
        name_span=Span(line, 4, line, 4 + len(name)),
        signature=f"def {name}(text)",
        parent=parent,
        language="python",
    )


def ref(name: str, path: str, line: int, kind: str = "call") -> Reference:
    return Reference(name=name, kind=kind, path=path, span=Span(line, 8, line, 8 + len(name)))  # type: ignore[arg-type]


def analysis(
    path: str,
    definitions: list[Definition],
    references: list[Reference] = (),  # type: ignore[assignment]
    path_class: PathClass = PathClass.SOURCE,
) -> FileAnalysis:
    file = SourceFile(path=path, abs_path=f"/ws/{path}", language="python", path_class=path_class, size=1, mtime_ns=1)
    return FileAnalysis(
        file=file, text="", content_hash=path, definitions=tuple(definitions), references=tuple(references), chunks=()
    )


def ask(target: str, intent: Intent, query: str | None = None) -> RetrievalQuery:
    return RetrievalQuery(Classification(query=query or target, intent=intent, confidence=0.9, rule="t", target=target))


def workspace() -> StructuralRetriever:
    retriever = StructuralRetriever()
    retriever.apply(
        ChangeBatch(
            updated=(
                analysis(
                    "src/config.py",
                    [
                        defn("Config", "src/config.py", 0, "class"),
                        defn("parse", "src/config.py", 2, "method", "Config"),
                    ],
                    [ref("parse_config", "src/config.py", 2)],
                ),
                analysis(
                    "src/loader.py",
                    [defn("parse_config", "src/loader.py", 10), defn("parse_config_file", "src/loader.py", 20)],
                    [ref("parse_config", "src/loader.py", 22), ref("parse_config", "src/loader.py", 0, "import")],
                ),
                analysis(
                    "tests/test_loader.py",
                    [defn("test_parse_config", "tests/test_loader.py", 0)],
                    [ref("parse_config", "tests/test_loader.py", 1)],
                    PathClass.TEST,
                ),
            )
        )
    )
    return retriever


def test_it_is_the_structural_retriever() -> None:
    retriever = StructuralRetriever()
    assert isinstance(retriever, Retriever)
    assert retriever.name == "structural" and retriever.status().available


def test_identifier_queries_put_definitions_before_mentions_and_mentions_before_prefix_matches() -> None:
    hits = workspace().search(ask("parseConfig", Intent.FIND_REFERENCES, "who calls parseConfig"), 10)
    got = [(h.path, h.span.start_line, h.kind, h.detail["match"]) for h in hits]
    assert got == [
        ("src/loader.py", 10, "function", "normalized"),
        # uses of `parse_config`, the name the query meant: calls (source, then tests), then imports
        ("src/config.py", 2, "call", "mention"),
        ("src/loader.py", 22, "call", "mention"),
        ("tests/test_loader.py", 1, "call", "mention"),
        ("src/loader.py", 0, "import", "mention"),
        ("src/loader.py", 20, "function", "separator_prefix"),
        ("tests/test_loader.py", 0, "function", "subword"),
        ("src/config.py", 2, "method", "subword_qualified"),
    ]
    top = hits[0]
    assert (top.symbol, top.snippet, top.span) == ("parse_config", "def parse_config(text)", Span(10, 0, 13, 0))
    assert [h.score for h in hits[1:5]] == [MENTION_SCORE] * 4 and hits[0].score > MENTION_SCORE > hits[5].score


def test_a_definition_question_that_finds_a_definition_gets_no_mentions() -> None:
    hits = workspace().search(ask("parseConfig", Intent.FIND_DEFINITION, "where is parseConfig defined"), 10)
    got = [(h.path, h.span.start_line, h.kind, h.detail["match"]) for h in hits]
    assert got == [
        ("src/loader.py", 10, "function", "normalized"),
        ("src/loader.py", 20, "function", "separator_prefix"),
        ("tests/test_loader.py", 0, "function", "subword"),
        ("src/config.py", 2, "method", "subword_qualified"),
    ]


def test_a_definition_question_without_a_definition_of_the_name_gets_its_mentions() -> None:
    retriever = StructuralRetriever()
    retriever.apply(ChangeBatch(updated=(analysis("src/app.py", [], [ref("requests_get", "src/app.py", 4)]),)))
    hits = retriever.search(ask("requests_get", Intent.FIND_DEFINITION, "where is requests_get defined"), 10)
    assert [(h.path, h.span.start_line, h.detail["match"]) for h in hits] == [("src/app.py", 4, "mention")]


def test_mentions_say_where_they_are() -> None:
    hits = workspace().search(ask("parse_config", Intent.FIND_REFERENCES, "who calls parse_config"), 3)
    assert [h.detail["match"] for h in hits] == ["exact", "mention", "mention"]
    call_in_method, call_in_function = hits[1], hits[2]
    assert call_in_method.snippet == "call of parse_config in Config.parse"
    assert call_in_method.span == Span(2, 8, 2, 20) and call_in_method.symbol == "parse_config"
    assert call_in_function.snippet == "call of parse_config in parse_config_file"


def test_natural_language_queries_rank_by_subword_overlap() -> None:
    hits = workspace().search(ask("how does parsing the config file work", Intent.UNDERSTAND_CODE), 10)
    assert [h.symbol for h in hits][:2] == ["parse_config_file", "parse_config"]
    assert all(h.detail["match"] == "terms" for h in hits)
    assert hits[0].score > hits[1].score


def test_a_question_naming_identifiers_gets_their_definitions_then_their_uses_then_its_words() -> None:
    question = "Fixed parse_config not reading `Config.parse` results for requests_get"
    hits = workspace().search(ask("parse_config", Intent.UNDERSTAND_CODE, question), 20)
    got = [(h.path, h.span.start_line, h.detail["match"]) for h in hits]
    assert got[:2] == [("src/loader.py", 10, "exact"), ("src/config.py", 2, "exact")]  # parse_config, Config.parse
    mentions = [g for g in got if g[2] == "mention"]
    assert mentions[0] == ("src/config.py", 2, "mention") and got.index(mentions[0]) == 2
    assert got[2 + len(mentions) :] and all(g[2] == "terms" for g in got[2 + len(mentions) :])
    assert len(got) == len(set(got))  # a location once, though its definition matches the words too
    plain = workspace().search(ask("how does parsing the config file work", Intent.UNDERSTAND_CODE), 10)
    assert all(h.detail["match"] == "terms" for h in plain)  # no identifier named: the words alone


def test_a_literal_that_is_no_name_gets_nothing_and_an_identifier_literal_gets_definitions() -> None:
    retriever = workspace()
    assert retriever.search(ask("connection refused", Intent.EXACT_MATCH), 10) == []
    assert retriever.search(ask("Config", Intent.EXACT_MATCH), 1)[0].symbol == "Config"
    assert retriever.search(ask("Config", Intent.FIND_DEFINITION), 0) == []


def test_qualified_targets_find_the_member_first() -> None:
    hits = workspace().search(ask("Config.parse", Intent.FIND_DEFINITION), 5)
    assert (hits[0].symbol, hits[0].detail["match"]) == ("Config.parse", "qualified")


def test_batches_replace_and_remove_files_like_a_fresh_build() -> None:
    retriever = workspace()
    retriever.apply(
        ChangeBatch(
            updated=(analysis("src/loader.py", [defn("load_config", "src/loader.py", 3)]),),
            removed=("tests/test_loader.py",),
        )
    )
    fresh = StructuralRetriever()
    fresh.apply(
        ChangeBatch(
            updated=(
                analysis(
                    "src/config.py",
                    [
                        defn("Config", "src/config.py", 0, "class"),
                        defn("parse", "src/config.py", 2, "method", "Config"),
                    ],
                    [ref("parse_config", "src/config.py", 2)],
                ),
                analysis("src/loader.py", [defn("load_config", "src/loader.py", 3)]),
            )
        )
    )
    for target, intent in (
        ("parse_config", Intent.FIND_REFERENCES),
        ("load", Intent.FIND_DEFINITION),
        ("config loading", Intent.UNDERSTAND_CODE),
    ):
        assert retriever.search(ask(target, intent), 10) == fresh.search(ask(target, intent), 10)
    assert retriever.table.stats() == fresh.table.stats()


def test_a_definition_filed_under_another_path_is_dropped_not_fatal() -> None:
    retriever = StructuralRetriever()
    stray = defn("stray", "src/elsewhere.py", 0)
    retriever.apply(ChangeBatch(updated=(analysis("src/a.py", [defn("ok", "src/a.py", 0), stray]),)))
    assert [d.name for d in retriever.goto_definition("ok")] == ["ok"]
    assert retriever.goto_definition("stray") == []


def test_goto_definition_prefers_the_file_asked_from() -> None:
    retriever = StructuralRetriever()
    retriever.apply(
        ChangeBatch(
            updated=(
                analysis("src/a.py", [defn("helper", "src/a.py", 0)]),
                analysis("src/b.py", [defn("helper", "src/b.py", 0)]),
            )
        )
    )
    assert [d.path for d in retriever.goto_definition("helper")] == ["src/a.py", "src/b.py"]
    assert [d.path for d in retriever.goto_definition("helper", from_path="src/b.py")] == ["src/b.py", "src/a.py"]
    assert retriever.goto_definition("nothing") == []

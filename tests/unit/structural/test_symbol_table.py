"""The symbol table on hand-made definitions: match types and their order, tie-breaks, qualified queries,
incremental maintenance, per-file questions, bad input and concurrent use."""

from __future__ import annotations

import threading

import pytest

from maguyva_lsp.index.symbols import (
    CASE_INSENSITIVE,
    EXACT,
    NORMALIZED,
    PREFIX,
    SymbolTable,
)
from maguyva_lsp.model import Definition, PathClass, Span


def defn(
    name: str,
    path: str = "src/a.py",
    *,
    line: int = 0,
    kind: str = "function",
    parent: str | None = None,
    end_line: int | None = None,
    signature: str | None = None,
) -> Definition:
    end = line + 2 if end_line is None else end_line
    return Definition(
        name=name,
        kind=kind,
        path=path,
        span=Span(line, 0, end, 0),
        name_span=Span(line, 4, line, 4 + len(name)),
        signature=signature if signature is not None else f"def {name}()",
        parent=parent,
        language="python",
    )


def table_of(*defs: Definition, classes: dict[str, PathClass] | None = None) -> SymbolTable:
    table = SymbolTable()
    by_path: dict[str, list[Definition]] = {}
    for d in defs:
        by_path.setdefault(d.path, []).append(d)
    classes = classes or {}
    table.apply([(p, ds, classes.get(p, PathClass.SOURCE)) for p, ds in by_path.items()])
    return table


def names(table: SymbolTable, query: str, limit: int = 20) -> list[str]:
    return [m.definition.qualified_name for m in table.search(query, limit)]


def test_match_types_rank_in_tier_order() -> None:
    table = table_of(
        defn("parseConfig", "src/a.py"),
        defn("parseconfig", "src/b.py"),
        defn("parse_config", "src/c.py"),
        defn("ParseConfig", "src/d.py", kind="class"),
        defn("parseConfigFile", "src/e.py"),
        defn("parse", "src/f.py", kind="method", parent="ConfigParser"),
        defn("unrelated", "src/g.py"),
    )
    matches = table.search("parseConfig", 10)
    assert [(m.definition.qualified_name, m.match) for m in matches] == [
        ("parseConfig", "exact"),
        ("parseconfig", "case_insensitive"),
        ("ParseConfig", "case_insensitive"),
        ("parse_config", "normalized"),
        ("parseConfigFile", "prefix"),
        ("ConfigParser.parse", "subword_qualified"),
    ]
    assert [m.score for m in matches[:4]] == [EXACT, CASE_INSENSITIVE, CASE_INSENSITIVE, NORMALIZED]
    assert PREFIX - 1 < matches[4].score < PREFIX


def test_parse_config_is_found_from_camel_case_and_the_other_way_round() -> None:
    table = table_of(defn("parse_config"), defn("ParseConfig", "src/b.py", kind="class"))
    assert set(names(table, "parseConfig")) == {"parse_config", "ParseConfig"}
    assert names(table, "PARSE_CONFIG") == ["parse_config", "ParseConfig"]  # case-insensitive, then normalized
    assert names(table, "parse-config") == ["ParseConfig", "parse_config"]  # both normalized: the shorter first


def test_a_method_named_parse_ranks_below_an_exact_top_level_parse() -> None:
    table = table_of(
        defn("parse", "src/config.py", kind="method", parent="ConfigParser"),
        defn("parse", "src/z.py"),
        defn("parser", "src/p.py"),
    )
    assert names(table, "parse") == ["parse", "ConfigParser.parse", "parser"]
    assert names(table, "parseConfig") == ["ConfigParser.parse"]


def test_prefix_prefers_the_closest_name_and_case_sensitive_prefix_over_separator_prefix() -> None:
    table = table_of(
        defn("parse_configuration_file", "src/a.py"),
        defn("parseConfiguration", "src/b.py"),
        defn("parseConf", "src/c.py"),
    )
    assert names(table, "parseConf") == ["parseConf", "parseConfiguration", "parse_configuration_file"]
    kinds = [m.match for m in table.search("parseconf", 5)]
    assert kinds == ["case_insensitive", "prefix", "separator_prefix"]


def test_subword_subword_prefix_and_fuzzy_matches() -> None:
    table = table_of(defn("parse_config_file"), defn("read_settings", "src/b.py"))
    assert [(m.definition.name, m.match) for m in table.search("configParse", 5)] == [("parse_config_file", "subword")]
    assert [(m.definition.name, m.match) for m in table.search("parsConf", 5)] == [
        ("parse_config_file", "subword_prefix")
    ]
    assert [(m.definition.name, m.match) for m in table.search("rdsttngs", 5)] == [("read_settings", "fuzzy")]
    assert table.search("zzzq", 5) == []


def test_lower_tiers_are_not_computed_once_the_top_is_full() -> None:
    table = table_of(*(defn("run", f"src/m{i}.py") for i in range(5)), defn("runner", "src/r.py"))
    assert [m.match for m in table.search("run", 5)] == ["exact"] * 5
    assert [m.match for m in table.search("run", 6)][-1] == "prefix"


def test_tie_breaks_kind_then_path_class_then_length_then_position() -> None:
    table = table_of(
        defn("Thing", "src/vars.py", kind="variable"),
        defn("Thing", "tests/test_x.py", kind="class"),
        defn("Thing", "src/b.py", kind="class", line=7),
        defn("Thing", "src/b.py", kind="class", line=3),
        defn("Thing", "lib/a.py", kind="method", parent="Holder"),
        defn("Thing", "vendor/v.py", kind="class"),
        defn("Thing", "src/const.py", kind="constant"),
        classes={"tests/test_x.py": PathClass.TEST, "vendor/v.py": PathClass.VENDOR},
    )
    got = [(m.definition.path, m.definition.name_span.start_line) for m in table.search("Thing", 10)]
    assert got == [
        ("src/b.py", 3),
        ("src/b.py", 7),
        ("lib/a.py", 0),  # Holder.Thing: a longer qualified name
        ("tests/test_x.py", 0),
        ("vendor/v.py", 0),
        ("src/const.py", 0),  # constants after types and callables
        ("src/vars.py", 0),  # plain variables last
    ]


def test_qualified_queries_by_parent_module_package_and_path() -> None:
    table = table_of(
        defn("parse", "src/config.py", kind="method", parent="Config"),
        defn("parse", "src/other.py", kind="method", parent="Other"),
        defn("loads", "lib/json/__init__.py"),
        defn("loads", "lib/pickle.py"),
        defn("Open", "pkg/osutil/file.go"),
        defn("new", "src/lib.rs", kind="method", parent="Parser"),
    )
    first = table.search("Config.parse", 5)
    assert (first[0].definition.path, first[0].match, first[0].score) == ("src/config.py", "qualified", EXACT)
    assert first[1].definition.path == "src/other.py" and first[1].score < CASE_INSENSITIVE
    assert table.search("config.parse", 5)[0].definition.path == "src/config.py"
    assert table.search("json.loads", 5)[0].definition.path == "lib/json/__init__.py"
    assert table.search("pickle.loads", 5)[0].definition.path == "lib/pickle.py"
    assert table.search("osutil.Open", 5)[0].match == "qualified"
    assert table.search("Parser::new", 5)[0].definition.qualified_name == "Parser.new"
    assert table.search("src/other.py:parse", 5)[0].definition.path == "src/other.py"
    assert table.search("other:Other.parse", 5)[0].definition.path == "src/other.py"
    assert table.search("Config.parse()", 5)[0].definition.path == "src/config.py"


def test_lookup_is_exact_and_qualified_names_narrow_it() -> None:
    table = table_of(
        defn("parse", "src/config.py", kind="method", parent="Config"),
        defn("parse", "src/other.py", kind="method", parent="Other"),
        defn("Parse", "src/p.py"),
    )
    assert [d.path for d in table.lookup("parse")] == ["src/other.py", "src/config.py"]  # `Other.parse` is shorter
    assert [d.path for d in table.lookup("Other.parse")] == ["src/other.py"]
    assert table.lookup("Missing.parse") == []
    assert table.lookup("   ") == []


def test_non_identifier_and_unicode_queries() -> None:
    table = table_of(defn("parse_config"), defn("café_menu", "src/c.py"))
    assert names(table, "parse config") == ["parse_config"]
    assert names(table, "café") == ["café_menu"]
    assert names(table, "") == []
    assert table.search("parse", 0) == []
    assert names(table, "((*") == []


def test_huge_queries_get_a_sane_answer() -> None:
    table = table_of(defn("parse_config"), defn("load", "src/b.py", signature="def load(config_file)"))
    assert table.search("parse_config" * 100, 5) == []
    assert table.search("p" * 400, 5) == []
    snippet = " ".join(f"word{i}" for i in range(500)) + " config"
    assert [m.definition.name for m in table.search_terms(snippet.split(), 5)] == []  # `config` is word 501
    assert [m.definition.name for m in table.search_terms(["config", *snippet.split()], 5)] == ["parse_config", "load"]


def test_definitions_in_and_definition_at_the_innermost_definition() -> None:
    outer = defn("Outer", kind="class", line=0, end_line=10)
    method = defn("method", kind="method", parent="Outer", line=2, end_line=6)
    inner = defn("inner", parent="Outer.method", line=3, end_line=4)
    after = defn("after", line=12, end_line=14)
    table = table_of(after, inner, method, outer)
    assert [d.name for d in table.definitions_in("src/a.py")] == ["Outer", "method", "inner", "after"]
    assert table.definition_at("src/a.py", 3, 5) == inner
    assert table.definition_at("src/a.py", 5, 0) == method
    assert table.definition_at("src/a.py", 8, 0) == outer
    assert table.definition_at("src/a.py", 11, 0) is None
    assert table.definition_at("src/missing.py", 0, 0) is None
    assert table.definitions_in("src/missing.py") == []


def test_incremental_updates_equal_a_fresh_build() -> None:
    v1 = {
        "src/a.py": [defn("alpha", "src/a.py"), defn("shared", "src/a.py", line=5)],
        "src/b.py": [defn("beta", "src/b.py"), defn("Shared", "src/b.py", kind="class")],
        "tests/test_c.py": [defn("shared", "tests/test_c.py")],
    }
    v2 = {
        "src/a.py": [defn("alpha2", "src/a.py"), defn("shared", "src/a.py", line=9)],
        "src/d.py": [defn("delta", "src/d.py", parent="Box"), defn("shared_thing", "src/d.py")],
        "tests/test_c.py": [defn("shared", "tests/test_c.py")],
    }
    classes = {"tests/test_c.py": PathClass.TEST}
    incremental = SymbolTable()
    incremental.apply([(p, ds, classes.get(p, PathClass.SOURCE)) for p, ds in v1.items()])
    incremental.replace_file("src/a.py", v2["src/a.py"])
    incremental.remove_file("src/b.py")
    incremental.replace_file("src/d.py", v2["src/d.py"])
    incremental.remove_file("src/never-indexed.py")
    fresh = SymbolTable()
    fresh.apply([(p, ds, classes.get(p, PathClass.SOURCE)) for p, ds in v2.items()])
    assert incremental.stats() == fresh.stats()
    assert incremental.paths() == fresh.paths()
    for query in ("shared", "Shared", "alpha", "alpha2", "beta", "sh", "Box.delta", "shrd", "thing"):
        assert incremental.search(query, 10) == fresh.search(query, 10), query
    for path in v2:
        assert incremental.definitions_in(path) == fresh.definitions_in(path)
    assert incremental.search_terms(["shared", "box"], 10) == fresh.search_terms(["shared", "box"], 10)
    assert incremental.lookup("beta") == []


def test_many_new_names_in_one_batch_keep_prefix_search_sorted() -> None:
    table = SymbolTable()
    table.apply([(f"src/m{i}.py", [defn(f"name{i:04d}", f"src/m{i}.py")], PathClass.SOURCE) for i in range(700)])
    table.apply([(f"src/n{i}.py", [defn(f"late{i}", f"src/n{i}.py")], PathClass.SOURCE) for i in range(3)])
    table.remove_file("src/m5.py")
    matches = table.search("name000", 20)
    assert [m.definition.name for m in matches] == [f"name{i:04d}" for i in range(10) if i != 5]
    assert {m.match for m in matches} == {"prefix"}  # enough found: no fuzzy scan
    assert names(table, "late") == ["late0", "late1", "late2"]


def test_a_definition_filed_under_another_path_is_refused_without_changing_anything() -> None:
    table = table_of(defn("keep", "src/a.py"))
    with pytest.raises(ValueError, match="filed under"):
        table.apply([("src/a.py", [defn("x", "src/a.py"), defn("y", "src/other.py")], PathClass.SOURCE)])
    assert names(table, "keep") == ["keep"] and names(table, "x") == []


def test_term_search_ranks_by_weighted_overlap_with_stems() -> None:
    table = table_of(
        defn("parse_config_file", "src/a.py", signature="def parse_config_file(path)"),
        defn("read", "src/b.py", kind="method", parent="ConfigFile", signature="def read(self)"),
        defn("load", "src/c.py", signature="def load(config_file)"),
        defn("Parser", "src/d.py", kind="class", signature="class Parser"),
        defn("unrelated", "src/e.py"),
    )
    got = [m.definition.qualified_name for m in table.search_terms(["config", "file"], 10)]
    assert got == ["parse_config_file", "ConfigFile.read", "load"]
    scores = [m.score for m in table.search_terms(["config", "file"], 10)]
    assert scores[0] == pytest.approx(1.0) and scores[0] > scores[1] > scores[2] > 0
    stemmed = [m.definition.name for m in table.search_terms(["parsing"], 10)]
    assert stemmed == ["Parser", "parse_config_file"]  # equal stem matches: the shorter name first
    assert table.search_terms(["nothing"], 5) == [] and table.search_terms([], 5) == []


def test_searches_run_alongside_a_writer() -> None:
    table = table_of(*(defn(f"stable{i}", f"src/s{i}.py") for i in range(50)))
    old = [defn("flip", "src/flip.py", line=i) for i in range(20)]
    new = [defn("flop", "src/flip.py", line=i) for i in range(30)]
    errors: list[BaseException] = []
    stop = threading.Event()

    def write() -> None:
        for n in range(200):
            table.replace_file("src/flip.py", old if n % 2 else new)
        stop.set()

    def read() -> None:
        try:
            while not stop.is_set():
                for m in table.search("fl", 100):
                    assert m.definition.name in ("flip", "flop")
                assert len(table.search("stable", 100)) == 50
                got = {d.name for d in table.definitions_in("src/flip.py")}
                assert len(got) <= 1
        except BaseException as exc:
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(3)]
    writer = threading.Thread(target=write)
    for t in (*readers, writer):
        t.start()
    for t in (*readers, writer):
        t.join()
    assert errors == []
    assert {d.name for d in table.definitions_in("src/flip.py")} == {"flip"}


def test_an_implementation_ranks_before_its_declaration_file() -> None:
    table = table_of(
        defn("parseConfig", "types/config.d.ts"),
        defn("parseConfig", "src/config.ts", line=40),
        defn("load_settings", "pkg/config.pyi"),
        defn("load_settings", "pkg/zconfig.py", line=9),
    )
    assert [m.definition.path for m in table.search("parseConfig", 10)] == ["src/config.ts", "types/config.d.ts"]
    assert [m.definition.path for m in table.search("load_settings", 10)] == ["pkg/zconfig.py", "pkg/config.pyi"]

"""The structural retriever over real files of six languages, analysed by tree-sitter through `analyze_file`."""

from __future__ import annotations

from pathlib import Path

import pytest

from maguyva_lsp.model import ChangeBatch, Classification, FileAnalysis, Intent, PathClass, RetrievalQuery, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.retrieve.structural import StructuralRetriever

FILES: dict[str, str] = {
    "app/config.py": """\
class ConfigParser:
    def parse(self, text):
        return parse_config(text)


def parse_config(text):
    return {}
""",
    "web/src/config.ts": """\
export interface Settings {
  name: string;
}

export class ConfigLoader {
  loadConfig(path: string): Settings {
    return parseConfig(path);
  }
}

export function parseConfig(text: string): Settings {
  return { name: text };
}
""",
    "pkg/config/config.go": """\
package config

type Config struct {
\tName string
}

func (c *Config) Parse(text string) error {
\treturn nil
}

func ParseConfig(text string) (*Config, error) {
\treturn &Config{Name: text}, nil
}
""",
    "src/config.rs": """\
pub struct Config {
    name: String,
}

impl Config {
    pub fn parse(text: &str) -> Config {
        parse_config(text)
    }
}

pub fn parse_config(text: &str) -> Config {
    Config { name: text.to_string() }
}
""",
    "src/main/java/demo/ConfigParser.java": """\
package demo;

public class ConfigParser {
    public Config parse(String text) {
        return parseConfig(text);
    }

    static Config parseConfig(String text) {
        return new Config();
    }
}
""",
    "src/config.c": """\
#define MAX_NAME 64

struct config {
    char name[MAX_NAME];
};

int parse_config(const char *text, struct config *out) {
    return 0;
}
""",
}


def analyse(root: Path, rel: str) -> FileAnalysis:
    path = root / rel
    stat = path.stat()
    language = language_for_path(rel)
    file = SourceFile(rel, str(path), language, PathClass.SOURCE, stat.st_size, stat.st_mtime_ns)
    return analyze_file(file, path.read_bytes())


def index(root: Path) -> StructuralRetriever:
    retriever = StructuralRetriever()
    retriever.apply(ChangeBatch(updated=tuple(analyse(root, rel) for rel in sorted(FILES))))
    return retriever


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def ask(target: str, intent: Intent = Intent.FIND_DEFINITION) -> RetrievalQuery:
    return RetrievalQuery(Classification(target, intent, 0.8, "test", target))


def test_every_language_yields_its_definitions(workspace: Path) -> None:
    retriever = index(workspace)
    for rel in FILES:
        assert retriever.table.definitions_in(rel), rel
    assert retriever.table.stats()["files"] == len(FILES)
    assert retriever.symbol_count == sum(len(retriever.table.definitions_in(rel)) for rel in FILES) >= 3 * len(FILES)


def test_parse_config_across_languages_exact_then_case_then_spelling(workspace: Path) -> None:
    hits = index(workspace).search(ask("parseConfig"), 20)
    top = [(h.path, h.symbol, h.detail["match"]) for h in hits[:6]]
    assert top == [
        ("web/src/config.ts", "parseConfig", "exact"),
        ("src/main/java/demo/ConfigParser.java", "ConfigParser.parseConfig", "exact"),
        ("pkg/config/config.go", "ParseConfig", "case_insensitive"),
        ("app/config.py", "parse_config", "normalized"),
        ("src/config.c", "parse_config", "normalized"),
        ("src/config.rs", "parse_config", "normalized"),
    ]
    # methods named `parse` of a class named for config: found, below every function of the name itself
    members = [h.symbol for h in hits if h.detail["match"] == "subword_qualified"]
    assert {"ConfigParser.parse", "Config.parse", "Config.Parse"} <= set(members)
    assert all(h.score < hits[5].score for h in hits[6:])


def test_a_type_comes_before_its_impl_block_and_other_spellings(workspace: Path) -> None:
    hits = index(workspace).search(ask("Config"), 4)
    assert [(h.path, h.kind, h.detail["match"]) for h in hits] == [
        ("pkg/config/config.go", "struct", "exact"),
        ("src/config.rs", "struct", "exact"),
        ("src/config.rs", "impl", "exact"),
        ("src/config.c", "struct", "case_insensitive"),
    ]


def test_qualified_names_by_class_module_and_package(workspace: Path) -> None:
    retriever = index(workspace)
    both = retriever.search(ask("ConfigParser.parse"), 2)
    assert {(h.path, h.detail["match"]) for h in both} == {
        ("src/main/java/demo/ConfigParser.java", "qualified"),
        ("app/config.py", "qualified"),
    }
    assert retriever.search(ask("config.ParseConfig"), 1)[0].path == "pkg/config/config.go"  # Go package
    assert retriever.search(ask("app.config.parse_config"), 1)[0].path == "app/config.py"  # Python module
    assert retriever.search(ask("Config::parse"), 1)[0].path == "src/config.rs"
    assert retriever.search(ask("src/config.c:parse_config"), 1)[0].path == "src/config.c"


def test_goto_definition_and_the_enclosing_definition(workspace: Path) -> None:
    retriever = index(workspace)
    assert [d.path for d in retriever.goto_definition("parse_config", from_path="src/config.rs")] == [
        "src/config.rs",
        "app/config.py",
        "src/config.c",
    ]
    inner = retriever.table.definition_at("app/config.py", 2, 8)
    assert inner is not None and inner.qualified_name == "ConfigParser.parse"
    in_impl = retriever.table.definition_at("src/config.rs", 6, 8)
    assert in_impl is not None and in_impl.qualified_name == "Config.parse"
    assert retriever.table.definition_at("src/config.c", 3, 4) is not None
    assert [d.name for d in retriever.table.definitions_in("web/src/config.ts")] == [
        "Settings",
        "ConfigLoader",
        "loadConfig",
        "parseConfig",
    ]


def test_natural_language_finds_the_definition_whose_words_match(workspace: Path) -> None:
    hits = index(workspace).search(ask("how are settings loaded from the config", Intent.UNDERSTAND_CODE), 5)
    assert hits[0].symbol == "ConfigLoader.loadConfig"
    assert hits[0].snippet == "loadConfig(path: string): Settings"


def test_editing_a_file_equals_a_fresh_build(workspace: Path) -> None:
    retriever = index(workspace)
    edited = FILES["app/config.py"].replace("parse_config", "load_config")
    (workspace / "app/config.py").write_text(edited)
    (workspace / "src/config.c").unlink()
    retriever.apply(ChangeBatch(updated=(analyse(workspace, "app/config.py"),), removed=("src/config.c",)))
    fresh = StructuralRetriever()
    fresh.apply(ChangeBatch(updated=tuple(analyse(workspace, rel) for rel in sorted(FILES) if rel != "src/config.c")))
    for target in ("parse_config", "load_config", "Config", "cfg", "ConfigParser.parse"):
        assert retriever.search(ask(target), 20) == fresh.search(ask(target), 20), target
    assert retriever.table.stats() == fresh.table.stats()
    assert [d.path for d in retriever.goto_definition("parse_config")] == ["src/config.rs"]

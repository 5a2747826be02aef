"""The symbol table over segments: a corpus of real files split over several segments, with stale versions
tombstoned, removed and re-added files and merges, answers every question exactly as one segment of the same files
does; and the stored order of ties is the one `rank_key` defines."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from maguyva_lsp.index.analysis_columns import CoreColumns, encode_analyses
from maguyva_lsp.index.symbol_entry import rank_key
from maguyva_lsp.index.symbol_part import SymbolPart
from maguyva_lsp.model import ChangeBatch, Classification, FileAnalysis, Intent, RetrievalQuery, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.retrieve.structural import StructuralRetriever
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.tokens import split_identifier

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "tests" / "unit" / "parse" / "samples"
LIMITS = (1, 20, 100)
# A file whose names every tier matches for the fixed queries below, whatever the package's own sources hold.
TIERS_FILE = """\
class ConfigParser:
    def parse(self, text):
        return parse_config(text)


def parseConfig(text): ...
def parseconfig(text): ...
def parse_config(text): ...
def parseConfigFile(path): ...
def parse_config_file(path): ...
def read_settings(path): ...
"""
TIER_QUERIES = ["parseConfig", "PARSE_CONFIG", "parseConf", "parse_conf", "configParse", "parsConf", "rdsttngs",
                "ConfigParser.parse", "configparser.parse", "app/tiers.py:parse"]  # fmt: skip


def _analysis(rel: str, data: bytes) -> FileAnalysis:
    file = SourceFile(rel, f"/ws/{rel}", language_for_path(rel), classify_path(rel), len(data), 1)
    return analyze_file(file, data)


@pytest.fixture(scope="module")
def corpus() -> list[FileAnalysis]:
    """The package's own sources, some of its tests (a test path class), every language sample, and a stub file."""
    package = ROOT / "maguyva_lsp"
    out = [_analysis(f"pkg/{p.relative_to(package).as_posix()}", p.read_bytes()) for p in sorted(package.rglob("*.py"))]
    out += [_analysis(f"tests/{p.name}", p.read_bytes()) for p in sorted((ROOT / "tests/unit/rank").glob("*.py"))]
    out += [_analysis(f"samples/{p.name}", p.read_bytes()) for p in sorted(SAMPLES.iterdir())]
    out.append(_analysis("pkg/symbols.pyi", (ROOT / "maguyva_lsp" / "index" / "symbols.py").read_bytes()))
    out.append(_analysis("app/tiers.py", TIERS_FILE.encode()))
    return out


def _moved(analysis: FileAnalysis, path: str) -> FileAnalysis:
    """The analysis of another file's content under `path` (a stale version of `path`)."""
    return dataclasses.replace(
        analysis,
        file=dataclasses.replace(analysis.file, path=path, abs_path=f"/ws/{path}"),
        definitions=tuple(dataclasses.replace(d, path=path) for d in analysis.definitions),
        references=tuple(dataclasses.replace(r, path=path) for r in analysis.references),
    )


def _split(corpus: list[FileAnalysis]) -> StructuralRetriever:
    """The corpus fed in many batches: stale versions first, ghosts added and removed, files removed and re-added,
    and the last batches replacing files of earlier segments, so that tombstones survive the merges."""
    retriever = StructuralRetriever()
    n = len(corpus)
    stale = [_moved(corpus[(i + 7) % n], corpus[i].path) for i in range(0, n, 5)]
    retriever.apply(ChangeBatch(updated=tuple(stale)))
    groups = [corpus[i::6] for i in range(6)]
    for k, group in enumerate(groups):
        ghosts = tuple(_moved(a, f"ghost/{k}/{a.path}") for a in group[:3])
        retriever.apply(ChangeBatch(updated=(*group, *ghosts)))
        retriever.apply(ChangeBatch(removed=(*(g.path for g in ghosts), group[0].path)))
        retriever.apply(ChangeBatch(updated=(group[0],)))
    retriever.apply(ChangeBatch(updated=tuple(_moved(a, a.path) for a in corpus[1::9])))
    return retriever


@pytest.fixture(scope="module")
def split_retriever(corpus: list[FileAnalysis]) -> StructuralRetriever:
    return _split(corpus)


@pytest.fixture(scope="module")
def one_retriever(corpus: list[FileAnalysis]) -> StructuralRetriever:
    retriever = StructuralRetriever()
    retriever.apply(ChangeBatch(updated=tuple(corpus)))
    return retriever


def _name_queries(corpus: list[FileAnalysis]) -> list[str]:
    definitions = [d for a in corpus for d in a.definitions]
    rng = random.Random(12)
    out: list[str] = ["", "x", "zzzq", "((*", "init", "__init__", "test", "Parse", "parse config", "café"]
    out += TIER_QUERIES
    for d in rng.sample(definitions, 40):
        name = d.name
        words = split_identifier(name)
        out += [name, name.lower(), name.upper(), name[:1], name[:2], name[:3], name[: max(len(name) // 2, 1)]]
        out.append(name[0] + "".join(c for c in name[1:] if c.lower() not in "aeiou_"))
        if len(words) > 1:
            out += ["".join(w.title() for w in reversed(words)), "".join(w[:3].title() for w in words)]
            out += ["_".join(words[1:]) + "_" + words[0]]
        if d.parent:
            out += [f"{d.parent}.{name}", f"{d.parent.lower()}.{name}", f"{d.parent}::{name}()"]
        out += [f"{Path(d.path).stem}.{name}", f"{d.path}:{name}"]
    return list(dict.fromkeys(out))


def test_the_split_corpus_has_segments_with_dead_files(split_retriever: StructuralRetriever) -> None:
    segments = split_retriever.table.snapshot().segments.segments
    assert len(segments) >= 3
    assert any(not s.alive.all() for s in segments)


def test_every_name_query_answers_as_one_segment_does(
    corpus: list[FileAnalysis], split_retriever: StructuralRetriever, one_retriever: StructuralRetriever
) -> None:
    split, one = split_retriever.table.snapshot(), one_retriever.table.snapshot()
    assert len(one.segments.segments) == 1
    assert split.stats() == one.stats()
    assert split.paths() == one.paths()
    tiers: set[str] = set()
    for query in _name_queries(corpus):
        for limit in LIMITS:
            got = split.search(query, limit)
            assert got == one.search(query, limit), (query, limit)
            tiers.update(m.match for m in got)
        assert split.lookup(query) == one.lookup(query), query
    assert tiers >= {"exact", "case_insensitive", "normalized", "prefix", "separator_prefix", "subword",
                     "subword_prefix", "subword_qualified", "fuzzy", "qualified"}  # fmt: skip


def test_term_searches_answer_as_one_segment_does(
    corpus: list[FileAnalysis], split_retriever: StructuralRetriever, one_retriever: StructuralRetriever
) -> None:
    split, one = split_retriever.table.snapshot(), one_retriever.table.snapshot()
    rng = random.Random(5)
    words = sorted({w for a in corpus for d in a.definitions for w in split_identifier(d.name) if len(w) > 2})
    queries = [["parsing", "config"], ["segments"], ["index", "test"], ["self"], []]
    queries += [rng.sample(words, k) for k in (1, 2, 3, 5) for _ in range(6)]
    for words_asked in queries:
        for limit in (1, 5, 20):
            assert split.search_terms(words_asked, limit) == one.search_terms(words_asked, limit), words_asked


def test_files_and_mentions_answer_as_one_segment_does(
    corpus: list[FileAnalysis], split_retriever: StructuralRetriever, one_retriever: StructuralRetriever
) -> None:
    split, one = split_retriever.table.snapshot(), one_retriever.table.snapshot()
    for analysis in corpus:
        assert split.definitions_in(analysis.path) == one.definitions_in(analysis.path)
        for d in analysis.definitions[:5]:
            line, col = d.span.start_line + 1, 4
            assert split.definition_at(analysis.path, line, col) == one.definition_at(analysis.path, line, col)
    assert split.definitions_in("ghost/0/x.py") == [] and split.definition_at("nowhere.py", 0, 0) is None
    names = sorted({r.name for a in corpus for r in a.references})
    for name in random.Random(3).sample(names, 40):
        for intent in (Intent.FIND_REFERENCES, Intent.FIND_DEFINITION, Intent.UNDERSTAND_CODE, Intent.FIND_SIMILAR):
            query = RetrievalQuery(Classification(name, intent, 0.9, "t", name))
            assert split_retriever.search(query, 20) == one_retriever.search(query, 20), (name, intent)


def test_the_stored_orders_are_those_of_rank_key_and_source_order(corpus: list[FileAnalysis]) -> None:
    core = CoreColumns(encode_analyses(corpus))
    part = SymbolPart()
    segment = part.open(part.build(core), core)
    classes = {a.path: a.file.path_class for a in corpus}
    keys, source_index = {}, {}
    for local in range(core.file_count):
        rows = segment.file_rows(local).tolist()
        definitions = [segment.definition(r) for r in rows]
        for position, (row, d) in enumerate(zip(rows, definitions, strict=True)):
            keys[row], source_index[row] = rank_key(d, classes[d.path]), position
        # A file's definitions in source order: by start, then rank (a stable sort keeps the analysis order).
        ordered = sorted(definitions, key=lambda d: (d.span.start_line, d.span.start_col, rank_key(d, classes[d.path])))
        assert definitions == ordered
    by_key = sorted(keys, key=lambda r: (keys[r], source_index[r]))
    assert [int(segment.def_rank[r]) for r in by_key] == list(range(segment.def_count))

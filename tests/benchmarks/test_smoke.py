"""The benchmark command's code paths on a tiny project, so that it cannot rot: every phase runs (child-process
indexing, ground truth from ctags, jedi and grep, every system on every intent, edits in process and through the real
server) and the report has sane values. Speeds are not asserted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks import report
from benchmarks.cases import Case, GrepSpec, Target, score_case
from benchmarks.evaluation_set import Sizes
from benchmarks.run import Options, run_benchmark
from benchmarks.truth_ctags import TagsFile, build_tags_file, python_tags
from tests.benchmarks.tiny_project import CONFIG_PY, write_project

TINY = Sizes(definitions=4, references=3, impact=2, exact=3, similar=2, symbol_candidates=8, edits=2, server_edits=1)
INTENTS = {"find_definition", "find_references", "impact_analysis", "exact_match", "find_similar", "understand_code"}


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("bench")
    project, questions = write_project(root)
    work = root / "work"
    work.mkdir()
    options = Options(
        corpus=project,
        sizes=TINY,
        quick=True,
        jedi_cache=root / "jedi.json",
        jedi_budget_s=120,
        questions=questions,
        classifier_rounds=2,
    )
    return run_benchmark(options, work, log=lambda _line: None)


@pytest.mark.e2e
def test_every_intent_is_evaluated_against_every_alternative(result: dict[str, Any]) -> None:
    intents = {item["intent"]: item for item in result["quality"]["intents"]}
    assert set(intents) == INTENTS
    for item in intents.values():
        systems = {row["system"] for row in item["rows"]}
        assert {"maguyva standard", "maguyva thorough", "ripgrep", "BM25 (bm25s)", "BM25+dense RRF"} <= systems
        assert {"structural alone", "text alone", "graph alone", "semantic alone"} <= systems
        assert 0.0 <= item["classification_accuracy"] <= 1.0
        for row in item["rows"]:
            assert row["cases"] > 0
            for metric in ("hit@1", "mrr@10", "recall@10", "zero_rate"):
                assert 0.0 <= row[metric] <= 1.0
            assert row["hit@1"] <= row["mrr@10"]
            assert 0.0 < row["p50_ms"] <= row["p95_ms"]
    assert "maguyva references/impact API" in {r["system"] for r in intents["find_references"]["rows"]}
    # On a five-file project the engine finds the exact strings and the definitions.
    exact = next(r for r in intents["exact_match"]["rows"] if r["system"] == "maguyva standard")
    assert exact["recall@10"] == 1.0
    assert intents["exact_match"]["classification_accuracy"] == 1.0
    assert len(result["quality"]["verdicts"]) == len(INTENTS)


@pytest.mark.e2e
def test_speed_incremental_and_components_have_figures(result: dict[str, Any]) -> None:
    cold, warm = result["index"]["cold"], result["index"]["warm"]
    assert cold["files"] == warm["files"] == result["corpus"]["files"] == 5
    assert cold["analyzed"] == 5 and warm["reused"] == 5
    assert cold["peak_rss_mb"] > 0 and cold["index_dir_mb"] > 0 and cold["files_per_s"] > 0
    assert set(result["speed"]["latency_by_intent"]) == INTENTS
    tasks = {row["task"] for row in result["speed"]["head_to_head"]}
    assert {"exact string", "natural language", "definition (search)"} <= tasks
    for name, edits in result["incremental"].items():
        assert edits["edits"] >= 1 and edits["not_found_in_time"] == 0, name
        assert edits["p50_ms"] > 0
    assert "server watcher + maguyva/search" in result["incremental"]
    components = result["components"]
    assert components["classifier"]["mean_us"] > 0
    assert components["graph"]["stats"]["edges"] > 0 and "build" in components["graph"]
    assert components["definition_lookup"]["names_found"] == components["definition_lookup"]["names"]
    assert components["hamming"] and all(row["numpy_search_ms"] > 0 for row in components["hamming"])
    assert result["evaluation"]["jedi"]["missing_after_run"] == 0


@pytest.mark.e2e
def test_tables_render(result: dict[str, Any]) -> None:
    text = report.render(result)
    for heading in ("Indexing", "Search latency per intent", "Head to head", "Retrieval quality", "Verdict",
                    "Save to searchable", "Components"):  # fmt: skip
        assert heading in text


def test_scores_follow_the_ranked_list() -> None:
    case = Case("find_references", "who calls f", "file", (Target("a.py"), Target("b.py")), GrepSpec(("f",)), "f")
    assert score_case(case, []).zero
    second = score_case(case, [("c.py", 0, 0), ("a.py", 3, 3), ("a.py", 9, 9)])
    assert (second.hit1, second.rr, second.recall) == (0.0, 0.5, 0.5)
    definition = Case("find_definition", "def f", "definition", (Target("a.py", 10, 10),), GrepSpec(("f",)), "f")
    assert score_case(definition, [("a.py", 8, 30)]).hit1 == 1.0  # decorators before the def line
    assert score_case(definition, [("a.py", 0, 30)]).hit1 == 0.0  # an enclosing class is not the definition


def test_tags_file_lookup_matches_ctags(tmp_path: Path) -> None:
    project, _ = write_project(tmp_path)
    files = sorted(p.relative_to(project).as_posix() for p in project.rglob("*.py"))
    build_tags_file(project, files, tmp_path / "tags")
    tags = TagsFile(tmp_path / "tags")
    assert [path for path, _ in tags.lookup("parse_config")] == ["app/config.py"]
    assert tags.lookup("no_such_name") == []
    by_name = {t.name: t for t in python_tags(project, files)}
    assert by_name["evict_oldest"].query_name == "LruCache.evict_oldest"
    assert by_name["parse_config"].line == CONFIG_PY.split("\n").index("def parse_config(text):")

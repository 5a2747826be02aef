"""The dev-set harness end to end on a tiny dev set of the same layout: the archive is unpacked, the real server is
started over stdio and asked every question, the alternatives run over the same index, and the figures follow the
README's metrics on questions whose answers are known (including one no system can answer)."""

from __future__ import annotations

import json
import statistics
import tarfile
from pathlib import Path
from typing import Any

import pytest

from benchmarks import devset_compare, devset_report
from benchmarks.devset import run_devset
from tests.benchmarks.tiny_project import write_project

IMPOSSIBLE = "exact_match / impossible"


def _line(project: Path, path: str, text: str) -> int:
    """The 1-based line of the first line of path holding text."""
    lines = (project / path).read_text().split("\n")
    return next(i for i, line in enumerate(lines, 1) if text in line)


def _questions(project: Path) -> list[dict[str, Any]]:
    config, server, cache = "app/config.py", "app/server.py", "app/cache.py"
    parse_line = _line(project, config, "def parse_config(")
    load_line = _line(project, config, "def load_config(")
    message = "configuration file is missing a section"
    merge = (
        "find code similar to:\ndef func(a1, a2):\n    v1 = dict(a1)\n    v2 = []\n    for v3, v4 in a2.items():\n"
        "        if v1.get(v3) != v4:\n            v2.append(v3)\n        v1[v3] = v4\n"
        '    v5 = ", ".join(sorted(v2))\n    return v1, v5\n'
    )
    out: list[dict[str, Any]] = [
        {"family": "find_definition", "phrasing": "where_defined", "query": "where is parse_config defined",
         "symbol": "parse_config", "gold": [{"path": config, "line": parse_line}]},
        {"family": "find_definition", "phrasing": "keyword", "query": "class LruCache", "symbol": "LruCache",
         "gold": [{"path": cache, "line": _line(project, cache, "class LruCache")}]},
        {"family": "find_references", "phrasing": "who_calls", "query": "who calls load_config",
         "symbol": "load_config", "gold": [{"path": server, "line": _line(project, server, "load_config(path)")}]},
        {"family": "impact_analysis", "phrasing": "what_breaks", "query": "what breaks if I change parse_config",
         "symbol": "parse_config", "gold": [{"path": config, "line": load_line}]},
        {"family": "exact_match", "phrasing": "quoted", "query": f'"{message}"', "literal": message, "word": False,
         "gold": [{"path": config, "line": _line(project, config, message)}]},
        # a question no system can answer: its gold line is in a file that does not exist
        {"family": "exact_match", "phrasing": "impossible", "query": '"not anywhere at all"',
         "literal": "not anywhere at all", "word": False, "gold": [{"path": "nowhere.py", "line": 1}]},
        {"family": "understand_code", "query": "how does the cache evict old entries", "gold": [{"path": cache}]},
        {"family": "find_similar", "query": merge,
         "gold": [{"path": config, "line": _line(project, config, "def merge_settings(")}]},
    ]  # fmt: skip
    for number, item in enumerate(out, 1):
        item.update(id=f"tiny/{number:03d}", repo="tiny", intent=item["family"])
    return out


def write_devset(root: Path) -> Path:
    """A dev set folder with one corpus, `tiny`, laid out as ../shared/devset is."""
    staging = root / "staging"
    project, _ = write_project(staging)
    tiny = project.rename(staging / "tiny")
    devset = root / "devset"
    (devset / "corpora").mkdir(parents=True)
    (devset / "queries").mkdir()
    with tarfile.open(devset / "corpora" / "tiny.tar.gz", "w:gz") as tar:
        tar.add(tiny, arcname="tiny")
    lines = [json.dumps(q) for q in _questions(tiny)]
    (devset / "queries" / "tiny.jsonl").write_text("\n".join(lines) + "\n")
    manifest = {"schema_version": 1, "repos": {"tiny": {"language": "python", "queries": len(lines)}}}
    (devset / "queries" / "manifest.json").write_text(json.dumps(manifest))
    return devset


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("devset")
    devset = write_devset(root)
    scratch = root / "scratch"
    scratch.mkdir()
    return run_devset(devset, ["tiny"], ["standard"], scratch, log=lambda _line: None)


@pytest.mark.e2e
def test_the_server_answers_the_known_questions(summary: dict[str, Any]) -> None:
    families = summary["families"]["maguyva standard"]
    assert set(families) == {"find_definition", "find_references", "impact_analysis", "exact_match",
                             "understand_code", "find_similar"}  # fmt: skip
    assert families["find_definition"]["lMRR"] == 1.0
    assert families["find_references"]["lMRR"] == 1.0
    assert families["understand_code"]["fMRR"] == 1.0 and families["understand_code"]["lMRR"] is None
    # one exact question answered at rank 1, one impossible: exactly 0.5, for every system that finds the first
    assert families["exact_match"]["lMRR"] == 0.5 and families["exact_match"]["n"] == 2
    assert summary["families"]["ripgrep"]["exact_match"]["lMRR"] == 0.5
    assert summary["forms"]["maguyva standard"]["exact_match"]["impossible"]["lMRR"] == 0.0
    assert summary["families"]["workspace/symbol"]["find_definition"]["lMRR"] == 1.0
    assert summary["corpora"]["tiny"]["files"] == 5
    assert not summary["errors"] and not summary["degraded"]


@pytest.mark.e2e
def test_every_system_is_scored_and_the_figures_are_the_means_of_the_questions(summary: dict[str, Any]) -> None:
    assert set(summary["systems"]) == {"maguyva standard", "workspace/symbol", "ripgrep", "BM25", "dense",
                                       "BM25+dense RRF"}  # fmt: skip
    rows = summary["queries"]
    assert len(rows) == 8
    for system, families in summary["families"].items():
        for family, cell in families.items():
            mine = [r["systems"][system] for r in rows if r["family"] == family and system in r["systems"]]
            assert cell["n"] == len(mine)
            key = "frr" if family == "understand_code" else "lrr"
            metric = "fMRR" if family == "understand_code" else "lMRR"
            assert cell[metric] == pytest.approx(statistics.fmean(m[key] for m in mine), abs=1e-4)
            for name in ("lMRR", "lR@20", "fMRR", "fR@10"):
                assert cell[name] is None or 0.0 <= cell[name] <= 1.0
            assert 0.0 < cell["p50_ms"] <= cell["p95_ms"]


@pytest.mark.e2e
def test_intents_and_their_confusion_matrix(summary: dict[str, Any]) -> None:
    intents = summary["intents"]["maguyva standard"]
    matrix = intents["confusion"]
    assert sum(sum(row.values()) for row in matrix.values()) == 8
    right = sum(row.get(family, 0) for family, row in matrix.items())
    assert intents["accuracy"] == pytest.approx(right / 8)
    assert matrix["exact_match"] == {"exact_match": 2}
    assert matrix["find_references"] == {"find_references": 1}


@pytest.mark.e2e
def test_tables_render(summary: dict[str, Any]) -> None:
    text = devset_report.render(summary, misses=2)
    for heading in ("per family", "per query form", "per corpus", "find_definition per language",
                    "Intent confusion", "Latency", "Misses of maguyva standard", IMPOSSIBLE):  # fmt: skip
        assert heading in text


@pytest.mark.e2e
def test_two_runs_compare_question_by_question(summary: dict[str, Any]) -> None:
    same = devset_compare.render(summary, summary, "maguyva standard", changed=10)
    assert "exact_match" in same and "/ impossible" in same
    table = same.split("\n", 1)[1]  # below the title, which explains the marks
    assert "▲" not in table and "▼" not in table and "(0 shown)" in same
    worse = json.loads(json.dumps(summary))
    worse["families"]["maguyva standard"]["exact_match"]["lMRR"] = 0.25
    row = next(r for r in worse["queries"] if r["form"] == "quoted")
    row["systems"]["maguyva standard"]["lrr"] = 0.0
    text = devset_compare.render(summary, worse, "maguyva standard", changed=10)
    assert "0.500 → 0.250 ▼" in text and f"{row['id']} " in text and "(1 shown)" in text

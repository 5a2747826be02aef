"""The command line end to end: index, search (text and JSON), impact, status, and its errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.lsp_session import write_workspace

pytestmark = pytest.mark.e2e


def maguyva(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "maguyva_lsp.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    return write_workspace(tmp_path / "ws"), str(tmp_path / "idx")


def test_index_then_search_json_explain(project: tuple[Path, str]) -> None:
    root, index_dir = project
    indexed = maguyva("index", str(root), "--index-dir", index_dir)
    assert indexed.returncode == 0, indexed.stderr
    assert "5 files" in indexed.stdout and "5 analysed" in indexed.stdout
    again = maguyva("index", str(root), "--index-dir", index_dir)
    assert "0 analysed, 5 reused from the store" in again.stdout

    found = maguyva(
        "search", str(root), "how is the configuration loaded", "--json", "--explain", "--index-dir", index_dir
    )
    assert found.returncode == 0, found.stderr
    payload = json.loads(found.stdout)
    assert set(payload) >= {"intent", "confidence", "target", "fusion_strategy", "modalities", "results", "elapsed_ms"}
    assert payload["intent"] == "understand_code" and payload["fusion_strategy"] == "rrf"
    first = payload["results"][0]
    assert set(first) >= {"uri", "range", "symbol", "kind", "score", "snippet", "modalities"}
    assert first["range"]["start"].keys() == {"line", "character"}
    for part in first["modalities"].values():
        assert part.keys() >= {"rank", "contribution"}


def test_human_output_impact_and_status(project: tuple[Path, str]) -> None:
    root, index_dir = project
    text = maguyva("search", str(root), "who calls load_config", "--index-dir", index_dir, "--explain")
    assert text.returncode == 0, text.stderr
    assert "find_references (0.90)" in text.stdout and "strategy=direct" in text.stdout
    assert "app/server.py:6 Server.__init__" in text.stdout
    assert "graph: rank 0" in text.stdout

    impact = maguyva("impact", str(root), "parse_config", "--index-dir", index_dir, "--json")
    assert impact.returncode == 0, impact.stderr
    depths = {i["symbol"]: i["depth"] for i in json.loads(impact.stdout)["impacted"]}
    assert depths["load_config"] == 1 and depths["Server.__init__"] == 2

    status = json.loads(maguyva("status", str(root), "--index-dir", index_dir).stdout)
    assert status["files"] == 5 and status["folders"][0]["modalities"]["semantic"]["available"]

    definition = maguyva("definition", str(root), "--at", "app/server.py:6:25", "--index-dir", index_dir)
    assert definition.returncode == 0, definition.stderr
    assert definition.stdout.strip() == "app/config.py:19:5"
    refs = maguyva("references", str(root), "load_config", "--index-dir", index_dir, "--json")
    assert {
        (loc["uri"].rsplit("/", 1)[-1], loc["range"]["start"]["line"]) for loc in json.loads(refs.stdout)["locations"]
    } == {("server.py", 0), ("server.py", 5)}


def test_errors_are_clear(project: tuple[Path, str], tmp_path: Path) -> None:
    root, index_dir = project
    not_a_folder = maguyva("search", str(tmp_path / "nope"), "x")
    assert not_a_folder.returncode == 2 and "is not a folder" in not_a_folder.stderr
    bad_regex = maguyva("search", str(root), "def (", "--regex", "--index-dir", index_dir)
    assert bad_regex.returncode == 2 and "invalid regular expression at position" in bad_regex.stderr
    # The contract's checks and messages, before anything is indexed.
    bad_preset = maguyva("search", str(root), "x", "--preset", "turbo")
    assert bad_preset.returncode == 2
    assert bad_preset.stderr.strip() == "maguyva: 'preset' must be one of quick, standard, thorough, got 'turbo'"
    zero = maguyva("search", str(root), "x", "--limit", "0")
    assert zero.returncode == 2 and "'limit' must be a whole number from 1 to 1000, got 0" in zero.stderr
    deep = maguyva("impact", str(root), "parse_config", "--depth", "11")
    assert deep.returncode == 2 and "'maxDepth' must be a whole number from 1 to 10, got 11" in deep.stderr
    nowhere = maguyva("definition", str(root), "--at", "app/server.py:x", "--index-dir", index_dir)
    assert nowhere.returncode == 2 and "'line' must be a whole number, got string 'x'" in nowhere.stderr
    # Nothing found is an answer, said plainly, with exit code 1.
    unknown = maguyva("impact", str(root), "no_such_symbol_anywhere", "--index-dir", index_dir)
    assert unknown.returncode == 1 and "no symbol named 'no_such_symbol_anywhere'" in unknown.stdout


def test_voyage_without_key_falls_back_and_key_is_never_printed(project: tuple[Path, str]) -> None:
    root, index_dir = project
    env = {"VOYAGE_API_KEY": ""}
    fallback = maguyva("search", str(root), "config", "--embedder", "voyage", "--index-dir", index_dir, "-vv", env=env)
    assert fallback.returncode == 0
    assert "local" in fallback.stderr.lower() and "key" in fallback.stderr.lower()
    secret = "pa-test-secret-key-0123456789"
    # A key in the environment alone is not consent: the local model answers and nothing mentions the key.
    local = maguyva("search", str(root), "config", "--index-dir", index_dir, "-vv", env={"VOYAGE_API_KEY": secret})
    assert local.returncode == 0
    assert secret not in local.stdout + local.stderr
    status = json.loads(maguyva("status", str(root), "--index-dir", index_dir, env={"VOYAGE_API_KEY": secret}).stdout)
    assert status["embedder"].startswith("wordllama")
    for path in Path(index_dir).rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes()


def test_batch_answers_each_line_with_json_and_sees_edits_between_requests(project: tuple[Path, str]) -> None:
    root, index_dir = project
    session = subprocess.Popen(
        [sys.executable, "-m", "maguyva_lsp.cli", "batch", str(root), "--index-dir", index_dir, "--limit", "5"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert session.stdin is not None and session.stdout is not None

    def ask(line: str) -> dict[str, Any]:
        assert session.stdin is not None and session.stdout is not None
        session.stdin.write(line + "\n")
        session.stdin.flush()
        answer: dict[str, Any] = json.loads(session.stdout.readline())
        return answer

    try:
        found = ask("who calls load_config")
        assert found["intent"] == "find_references" and len(found["results"]) <= 5
        assert any(r["symbol"] == "Server.__init__" for r in found["results"])
        # a JSON request: its own options, and its id comes back
        explained = ask(json.dumps({"id": "q2", "query": "parse_config", "limit": 1, "explain": True}))
        assert explained["id"] == "q2" and len(explained["results"]) == 1 and "explain" in explained
        impact = ask(json.dumps({"method": "impact", "symbol": "parse_config", "maxDepth": 1}))
        assert {i["symbol"] for i in impact["impacted"]} == {"load_config"}
        # bad requests are answered with an error, and the session goes on
        assert "invalid regular expression" in ask(json.dumps({"query": "foo(", "regex": True}))["error"]
        assert ask(json.dumps({"query": "x", "limit": "3"})) == {
            "error": "'limit' must be a whole number, got string '3'",
            "field": "limit",
        }
        assert ask(json.dumps({"query": "x", "limit": 0}))["error"] == (
            "'limit' must be a whole number from 1 to 1000, got 0"
        )
        assert ask("{not json")["error"].startswith("not a JSON object")
        assert ask(json.dumps({"method": "impact", "symbol": "parse_config", "maxDepth": 0}))["field"] == "maxDepth"
        assert ask(json.dumps({"id": 9, "bogus": 1})) == {
            "id": 9,
            "error": "'bogus' is not a field of this request (fields: query, preset, limit, explain, regex, "
            "caseSensitive)",
            "field": "bogus",
        }
        # a file written between two requests is searched by the next one
        (root / "app" / "cache.py").write_text("def expire_entries(cache):\n    cache.clear()\n")
        fresh = ask("where is expire_entries defined")
        assert [(r["symbol"], r["uri"].endswith("/app/cache.py")) for r in fresh["results"]] == [
            ("expire_entries", True)
        ]
        assert ask(json.dumps({"method": "status"}))["files"] == 6
    finally:
        session.stdin.close()
        session.wait(timeout=60)
    assert session.returncode == 1  # some requests failed: said by the exit code too

"""The contract's answers to the requests the VS Code extension makes itself (maguyva/search, maguyva/impact,
maguyva/status) as JSON fixtures for its test (vscode-extension/test/contract.test.ts),
which fails when its protocol types (src/core/protocol.ts) and these answers disagree.

The fixtures are real answers of a real index on a small workspace (paths and timings normalised). This test fails
when the answers' shape (fields and their JSON types) no longer matches the committed fixtures: regenerate them with
`MAGUYVA_UPDATE_FIXTURES=1 .venv/bin/pytest tests/unit/api/test_contract_fixtures.py`, then let the TypeScript test
say whether protocol.ts still fits.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from maguyva_lsp.api import ImpactRequest, SearchRequest, SearchResponse, StatusRequest
from maguyva_lsp.config import Settings
from maguyva_lsp.store.segment_store import default_index_dir
from maguyva_lsp.workspace import WorkspaceSet
from tests.e2e.lsp_session import write_workspace

FIXTURES = Path(__file__).resolve().parents[3] / "vscode-extension" / "test" / "fixtures" / "contract"
UPDATE = os.environ.get("MAGUYVA_UPDATE_FIXTURES") == "1"
WORKSPACE_URI = "file:///workspace"


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("contract")
    root = write_workspace(base / "ws").resolve()
    workspaces = WorkspaceSet(Settings(index_dir=str(base / "idx")))
    engine = workspaces.add(root)
    assert engine is not None
    engine.index()
    try:
        explained = workspaces.handle(SearchRequest("how is the configuration loaded", "thorough", 3, explain=True))
        assert isinstance(explained, SearchResponse)
        # A search that lost a retriever and fell back, as the server reports one (the reasons are real ones).
        degraded = dataclasses.replace(
            explained,
            modalities_skipped={"semantic": "the embedding model is still loading", "graph": "timed out after 30 s"},
            notes=("structural found nothing; fell back to fused search over semantic, text",),
            partial=True,
        )
        raw = {
            "search": workspaces.handle(SearchRequest("where is parse_config defined")).to_json(),
            "search_explain": explained.to_json(),
            "search_degraded": degraded.to_json(),
            # An exact search whose top (one result) is ranked without counting every match: counts cut short.
            "search_literal": workspaces.handle(SearchRequest('"config"', limit=1)).to_json(),
            "impact": workspaces.handle(ImpactRequest("parse_config")).to_json(),
            "impact_unknown": workspaces.handle(ImpactRequest("no_such_symbol")).to_json(),
            "status": workspaces.handle(StatusRequest()).to_json(),
        }
        yield {name: _normalised(value, root, base) for name, value in raw.items()}
    finally:
        workspaces.close()


def _normalised(value: Any, root: Path, base: Path) -> Any:
    """Machine-independent values: paths under /workspace, timings fixed."""
    if isinstance(value, dict):
        return {
            k: (1.0 if k in ("elapsed_ms", "last_index_seconds") else _normalised(v, root, base))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_normalised(v, root, base) for v in value]
    if isinstance(value, str):
        # The store folder's name carries a digest of the workspace's (temporary) path: fixed, as the paths are.
        value = value.replace(str(default_index_dir(root, str(base / "idx"))), "/tmp/idx/ws-workspace")
        return value.replace(root.as_uri(), WORKSPACE_URI).replace(str(root), "/workspace").replace(str(base), "/tmp")
    return value


def shape(value: Any) -> Any:
    """A JSON value's skeleton: object fields and the JSON types of their values (an array: the distinct shapes it
    holds, in a fixed order, so that a reordering of results is not a change of shape)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        distinct = {json.dumps(shape(item), sort_keys=True) for item in value}
        return ["array", *sorted(distinct)]
    if isinstance(value, bool) or value is None:
        return {True: "boolean", False: "boolean", None: "null"}[value]
    return {int: "number", float: "number", str: "string"}[type(value)]


def test_fixtures_show_the_answers_as_the_server_sends_them(answers: dict[str, Any]) -> None:
    if UPDATE:
        FIXTURES.mkdir(parents=True, exist_ok=True)
        for name, value in answers.items():
            (FIXTURES / f"{name}.json").write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    stale = []
    for name, value in answers.items():
        path = FIXTURES / f"{name}.json"
        committed = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        if committed is None or shape(committed) != shape(value):
            stale.append(name)
    assert not stale, f"answers changed shape: {stale}; regenerate with MAGUYVA_UPDATE_FIXTURES=1 (see the docstring)"


def test_fixtures_cover_what_the_extension_reads(answers: dict[str, Any]) -> None:
    """The fixtures hold the cases whose types matter: skipped modalities as objects, an explained result, a note."""
    assert answers["search_degraded"]["modalities_skipped"][0] == {
        "modality": "semantic",
        "reason": "the embedding model is still loading",
    }
    assert "explain" in answers["search_explain"]["results"][0]
    literal = answers["search_literal"]["text_matches"]
    assert literal["truncated"] and literal["files_not_shown"] >= 1 and literal["files"] >= 2
    assert answers["search_explain"]["text_matches"] is None  # no exact text search in a fused question
    assert answers["impact_unknown"]["note"] and answers["impact_unknown"]["impacted"] == []
    assert answers["impact"]["impacted"] and answers["status"]["folders"]

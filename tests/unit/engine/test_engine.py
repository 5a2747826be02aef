"""The engine facade on real folders: full index, incremental equivalence, warm start, bad input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine, IndexProgress
from maguyva_lsp.indexer import Skipped, read_and_analyze
from maguyva_lsp.model import PathClass
from maguyva_lsp.scan.skips import SkipReason
from maguyva_lsp.scan.walker import WorkspaceScanner
from maguyva_lsp.store.manifest import MANIFEST_NAME
from maguyva_lsp.store.segment_store import DATA_DIR

FILES: dict[str, str] = {
    "app/__init__.py": "",
    "app/config.py": (
        '"""Configuration."""\nimport json\n\n\nclass ConfigError(Exception):\n    pass\n\n\n'
        "def parse_config(text):\n    return json.loads(text)\n\n\n"
        "def load_config(path):\n    with open(path) as f:\n        return parse_config(f.read())\n"
    ),
    "app/server.py": (
        "from app.config import load_config\n\n\nclass Server:\n    def __init__(self, path):\n"
        "        self.config = load_config(path)\n\n    def start(self):\n        return self.listen(80)\n\n"
        "    def listen(self, port):\n        return port\n"
    ),
    "web/routes.ts": (
        'import { handle } from "./handler";\n\nexport function route(path: string): number {\n'
        "  return handle(path);\n}\n"
    ),
    "web/handler.ts": "export function handle(path: string): number {\n  return path.length;\n}\n",
    "vendor/lib/util.py": "def parse_config(text):\n    return text\n",
    "README.md": "# Demo\n\nThe server reads its configuration with ECONNREFUSED handling.\n",
}

QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("where is parse_config defined", {}),
    ("who calls load_config", {}),
    ("what breaks if I change parse_config", {}),
    ('"ECONNREFUSED"', {}),
    ("how is the configuration loaded", {}),
    ("route", {"preset": "thorough"}),
    ("handle path length", {"preset": "quick"}),
    (r"def \w+_config", {"regex": True}),
]


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def rounded(value: Any) -> Any:
    """Floats to 9 places: PageRank sums in another node order differ in the last bits, not in any ranking."""
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value


def snapshot(engine: Engine) -> list[Any]:
    """Everything a user can observe, minus timings."""
    out: list[Any] = []
    for query, options in QUERIES:
        payload = engine.search(query, explain=True, **options).to_json()
        payload.pop("elapsed_ms")
        out.append(payload)
    status = engine.status()
    out.append({k: status[k] for k in ("files", "chunks", "symbols", "edges", "nodes")})
    impact = engine.impact("parse_config")
    out.append([(i.node.node_id, i.depth, i.via) for i in impact.impacted] if impact else None)
    return rounded(out)


def new_engine(root: Path, tmp_path: Path, name: str = "idx", **settings: Any) -> Engine:
    return Engine(root, Settings(index_dir=str(tmp_path / name), **settings))


def test_full_index_answers_every_intent(tmp_path: Path) -> None:
    write_tree(tmp_path / "ws", FILES)
    engine = new_engine(tmp_path / "ws", tmp_path, persist_ok := "idx")
    try:
        engine.index()
        assert engine.status()["files"] == len(FILES)
        assert engine.path_class("vendor/lib/util.py") is PathClass.VENDOR
        found = engine.search("where is parse_config defined").to_json()
        # The vendored copy is demoted below the project's own definition.
        assert found["results"][0]["uri"].endswith("app/config.py")
        callers = engine.search("who calls load_config").to_json()
        assert callers["results"][0]["symbol"] == "Server.__init__"
        assert callers["results"][0]["snippet"] == "self.config = load_config(path)"  # the call site's own line
        literal = engine.search('"ECONNREFUSED"').to_json()
        assert [r["uri"].rsplit("/", 1)[-1] for r in literal["results"]] == ["README.md"]
        assert engine.definition("app/server.py", 5, 24) == [
            ("app/config.py", engine.analysis("app/config.py").definitions[2].name_span)
        ]  # type: ignore[union-attr]
    finally:
        engine.close()
    assert persist_ok


def test_incremental_updates_equal_a_fresh_build(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    engine = new_engine(root, tmp_path)
    engine.index()
    # Edit, add, delete, move, and make a file ignored.
    (root / "app" / "config.py").write_text(FILES["app/config.py"] + "\n\ndef save_config(path, data):\n    pass\n")
    (root / "app" / "metrics.py").write_text(
        "from app.config import parse_config\n\ndef count():\n    return parse_config('1')\n"
    )
    (root / "web" / "handler.ts").unlink()
    (root / "web" / "routes.ts").rename(root / "web" / "router.ts")
    (root / ".gitignore").write_text("vendor/\n")
    engine.update(["app/config.py", "app/metrics.py", "web/handler.ts", "web/routes.ts", "web/router.ts", ".gitignore"])
    engine.update(["vendor"])  # a folder: its files are now ignored
    incremental = snapshot(engine)
    engine.close()
    fresh = new_engine(root, tmp_path, "fresh")
    fresh.index()
    try:
        assert incremental == snapshot(fresh)
    finally:
        fresh.close()


def test_remove_then_restore_equals_fresh(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    engine = new_engine(root, tmp_path)
    engine.index()
    before = snapshot(engine)
    saved = (root / "app" / "config.py").read_text()
    (root / "app" / "config.py").unlink()
    engine.remove(["app/config.py"])
    assert engine.search("where is parse_config defined").to_json()["results"][0]["uri"].endswith("vendor/lib/util.py")
    (root / "app" / "config.py").write_text(saved)
    engine.update(["app/config.py"])
    try:
        assert snapshot(engine) == before
    finally:
        engine.close()


def test_warm_start_reuses_the_store(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    first = new_engine(root, tmp_path)
    first.index()
    expected = snapshot(first)
    first.close()
    second = new_engine(root, tmp_path)
    counters = second.index()
    assert (counters.analyzed, counters.reused) == (0, len(FILES))
    assert snapshot(second) == expected
    second.close()
    (root / "app" / "server.py").write_text(FILES["app/server.py"] + "\n# touched\n")
    third = new_engine(root, tmp_path)
    counters = third.index()
    assert (counters.analyzed, counters.reused) == (1, len(FILES) - 1)
    third.close()


def test_corrupt_store_is_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    first = new_engine(root, tmp_path)
    first.index()
    store_dir = first.index_dir
    first.close()
    (store_dir / MANIFEST_NAME).write_bytes(b"\x00garbage" * 1000)
    second = new_engine(root, tmp_path)
    try:
        assert any("rebuilt the index store" in m for m in second.messages)
        counters = second.index()
        assert counters.analyzed == len(FILES)
        assert second.search("where is parse_config defined").to_json()["results"]
    finally:
        second.close()


def test_a_damaged_segment_is_said_and_its_files_analysed_again(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    first = new_engine(root, tmp_path)
    first.index()
    store_dir = first.index_dir
    first.close()
    for container in (store_dir / DATA_DIR).iterdir():
        data = bytearray(container.read_bytes())
        data[16] ^= 0xFF  # the header's checksum
        container.write_bytes(bytes(data))
    second = new_engine(root, tmp_path)
    try:
        assert any("unusable" in m and "analysed anew" in m for m in second.messages)
        counters = second.index()
        assert counters.analyzed == len(FILES) and counters.reused == 0
        assert second.search("where is parse_config defined").to_json()["results"]
    finally:
        second.close()
    third = new_engine(root, tmp_path)
    try:
        assert not any("unusable" in m for m in third.messages)
        assert third.index().reused == len(FILES)
    finally:
        third.close()


def test_bad_input_is_skipped_or_answered_never_crashes(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, {"ok.py": "def fine():\n    return 1\n", "broken.py": "def (((:\n  ]]] class\n" * 50})
    (root / "blob.txt").write_bytes(b"text\x00with\x00nul" * 100)
    (root / "latin1.py").write_bytes(b"name = '\xe9t\xe9'\ndef accented():\n    pass\n")
    engine = new_engine(root, tmp_path)
    try:
        engine.index()
        status = engine.status()
        assert status["files"] == 3  # the binary file is skipped, with its reason
        assert engine.skipped["blob.txt"].reason is SkipReason.BINARY
        assert engine.search("def accented").to_json()["results"][0]["uri"].endswith("latin1.py")
        assert engine.search('"]]] class"').to_json()["results"][0]["uri"].endswith("broken.py")
        with pytest.raises(ValueError, match="invalid regular expression at position"):
            engine.search("def (oops", regex=True)
        with pytest.raises(ValueError, match="unknown preset"):
            engine.search("fine", preset="turbo")
        assert engine.search("x" * 200_000).to_json()["intent"]
    finally:
        engine.close()


def test_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    engine = new_engine(tmp_path / "empty", tmp_path)
    try:
        engine.index()
        assert engine.status()["files"] == 0
        assert engine.search("how does anything work").to_json()["results"] == []
    finally:
        engine.close()


def test_file_deleted_between_scan_and_read(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, {"gone.py": "def vanishing():\n    pass\n"})
    (scanned,) = WorkspaceScanner(root, max_file_size=1 << 20).scan().files
    os.unlink(root / "gone.py")
    result = read_and_analyze(scanned, chunk_lines=40)
    assert isinstance(result, Skipped) and result.skip.reason is SkipReason.VANISHED and "vanished" in result.reason


def test_open_buffer_wins_until_closed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    engine = new_engine(root, tmp_path)
    try:
        engine.index()
        text = FILES["app/server.py"] + "\ndef unsaved_helper():\n    pass\n"
        assert engine.set_buffer("app/server.py", text)
        assert engine.search("def unsaved_helper").to_json()["results"][0]["uri"].endswith("app/server.py")
        engine.update(["app/server.py"])  # a disk event does not override the open buffer
        assert engine.search("def unsaved_helper").to_json()["results"]
        engine.close_buffer("app/server.py")
        assert not any(
            r["symbol"] == "unsaved_helper" for r in engine.search("def unsaved_helper").to_json()["results"]
        )
    finally:
        engine.close()


def test_text_and_structural_are_complete_before_the_graph_catches_up(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    engine = new_engine(root, tmp_path)
    seen: list[tuple[str, tuple[str, ...], dict[str, bool]]] = []

    def progress(p: Any) -> None:
        partial = {name: m["partial"] for name, m in engine.status()["modalities"].items()}
        seen.append((p.phase, p.ready, partial))

    try:
        engine.index(progress)
        phases = [phase for phase, _, _ in seen]
        assert phases.index("indexed") < phases.index("resolving graph") < phases.index("done")
        _, ready, partial = seen[phases.index("resolving graph")]
        assert ready == ("text", "structural")
        assert partial["graph"] and not partial["text"] and not partial["structural"]
        assert not any(engine.status()["modalities"][m]["partial"] for m in ("text", "structural", "graph"))
        assert engine.search("who calls load_config").to_json()["results"], "the graph answers once caught up"
    finally:
        engine.close()


def test_progress_lines_say_which_modalities_are_ready() -> None:
    assert IndexProgress("analyzing", 3, 10).describe() == "analyzing 3/10 files"
    line = IndexProgress("resolving graph", 0, 10, ready=("text", "structural")).describe()
    assert line == "resolving graph 0/10 files; text, structural ready"
    assert IndexProgress("done", 0, 0, ready=("text",)).describe() == "done"


def test_a_warm_start_gives_the_graph_only_what_it_lacks(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    first = new_engine(root, tmp_path)
    first.index()
    before = snapshot(first)
    first.close()
    (root / "app" / "config.py").write_text(FILES["app/config.py"] + "\n\ndef reload_config():\n    return 1\n")
    second = new_engine(root, tmp_path)
    fed: list[int] = []
    original = second.graph.apply
    second.graph.apply = lambda batch: (fed.append(len(batch.updated)), original(batch))[1]  # type: ignore[method-assign]
    try:
        second.index()
        # The edited file (and README.md, a file the graph holds nothing of) reach the graph; the rest comes from
        # its stored chain.
        assert len(fed) == 1 and fed[0] <= 2
        assert second.search("who calls load_config").to_json()["results"]
    finally:
        second.close()
    (root / "app" / "config.py").write_text(FILES["app/config.py"])
    third = new_engine(root, tmp_path)
    try:
        third.index()
        assert snapshot(third) == before
    finally:
        third.close()


def test_a_warm_start_reuses_every_stored_vector(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write_tree(root, FILES)
    first = new_engine(root, tmp_path)
    first.index()
    first.close()
    (root / "app" / "server.py").write_text(FILES["app/server.py"] + "\n\ndef stop_server():\n    return 0\n")
    second = new_engine(root, tmp_path)
    applied: list[list[str]] = []
    original = second.semantic.apply
    second.semantic.apply = lambda batch: (  # type: ignore[method-assign]
        applied.append(sorted(a.path for a in batch.updated)),
        original(batch),
    )[1]
    try:
        second.index()
        assert [p for paths in applied for p in paths] == ["app/server.py"], "only the edited file is embedded"
        assert second.semantic.embedded_texts <= 3
        found = second.search("stop the server", preset="quick").to_json()["results"]
        assert any(r["uri"].endswith("app/server.py") for r in found)
    finally:
        second.close()

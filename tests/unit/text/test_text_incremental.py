"""Incremental maintenance: updating and removing files gives exactly what a fresh build of the final tree gives,
with and without merging the delta into the base; readers during a write see the old or the new state."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from text_corpus import ALL, FILES, analyze_path, analyze_tree, build, write_tree

from maguyva_lsp.index import segment_set
from maguyva_lsp.model import ChangeBatch, Hit
from maguyva_lsp.retrieve.text import TextRetriever

LITERALS = ["parse_config", "ECONNREFUSED", "config", "==", "é", "retry", "brand_new_symbol", "ab"]
REGEXES = [r"def \w+", r"retry_\w+", r"^\s*return", r"Config\b"]
IDENTIFIERS = ["parse_config", "retry_count", "brand_new_symbol", "Config"]
NATURAL = ["parse config", "connection refused", "brand new symbol", "retry count"]


def _key(hits: tuple[Hit, ...] | list[Hit]) -> list[tuple[str, int, int, int, int]]:
    return sorted((h.path, h.span.start_line, h.span.start_col, h.span.end_line, h.span.end_col) for h in hits)


def snapshot(retriever: TextRetriever) -> dict[str, object]:
    """Every query's full answer, in a form two builds of the same tree must agree on."""
    out: dict[str, object] = {"documents": retriever.document_count, "chunks": retriever.chunk_count}
    for literal in LITERALS:
        for case_sensitive in (True, False):
            out[f"lit:{literal}:{case_sensitive}"] = _key(
                retriever.find_literal(literal, case_sensitive=case_sensitive, limit=ALL).hits
            )
    for pattern in REGEXES:
        out[f"re:{pattern}"] = _key(retriever.find_regex(pattern, limit=ALL).hits)
    for name in IDENTIFIERS:
        out[f"id:{name}"] = _key(retriever.find_identifier(name, limit=ALL).hits)
    for query in NATURAL:
        out[f"bm25:{query}"] = sorted(
            (h.path, h.span.start_line, round(h.score, 9)) for h in retriever.find_text(query, limit=50)
        )
    return out


EDITS: dict[str, str] = {
    "src/config.py": FILES["src/config.py"].replace("def load(", "def brand_new_symbol(") + "\n# retry later\n",
    "src/new_module.py": "from src.config import parse_config\n\nbrand_new_symbol = parse_config('x')\n",
    "docs/notes.md": "# Notes\n\nNothing about cafés any more. retry_count lives elsewhere.\n",
}
REMOVED = ["src/app.js", "src/tiny.txt"]


@pytest.mark.parametrize("merge_every_time", [False, True])
def test_updates_equal_a_fresh_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, merge_every_time: bool) -> None:
    if merge_every_time:
        monkeypatch.setattr(segment_set, "MAX_SEGMENTS", 1)
    root = tmp_path / "ws"
    write_tree(root, FILES)
    incremental = build(root)

    write_tree(root, EDITS)
    for rel in REMOVED:
        (root / rel).unlink()
    # one batch with updates and removals, then one file at a time, then a re-apply of an unchanged file
    incremental.apply(ChangeBatch(updated=(analyze_path(root, "src/config.py"),), removed=("src/app.js",)))
    incremental.apply(ChangeBatch(updated=(analyze_path(root, "src/new_module.py"),)))
    incremental.apply(ChangeBatch(updated=(analyze_path(root, "docs/notes.md"),), removed=("src/tiny.txt",)))
    incremental.apply(ChangeBatch(updated=(analyze_path(root, "src/util.c"),)))
    incremental.apply(ChangeBatch(removed=("does/not/exist.py",)))

    assert snapshot(incremental) == snapshot(build(root))


def test_remove_everything_then_add_back(tmp_path: Path) -> None:
    write_tree(tmp_path, FILES)
    retriever = build(tmp_path)
    retriever.apply(ChangeBatch(removed=tuple(FILES)))
    assert retriever.document_count == 0
    assert retriever.find_literal("config", limit=ALL).hits == ()
    assert retriever.find_text("parse config", limit=10) == []
    retriever.apply(ChangeBatch(updated=tuple(analyze_tree(tmp_path))))
    assert snapshot(retriever) == snapshot(build(tmp_path))


def test_same_path_twice_in_a_batch_keeps_the_last(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.py": "first_version = 1\n"})
    first = analyze_path(tmp_path, "a.py")
    write_tree(tmp_path, {"a.py": "second_version = 2\n"})
    second = analyze_path(tmp_path, "a.py")
    retriever = TextRetriever()
    retriever.apply(ChangeBatch(updated=(first, second)))
    assert retriever.document_count == 1
    assert retriever.find_literal("first_version").hits == ()
    assert len(retriever.find_literal("second_version").hits) == 1


def test_readers_see_the_old_or_the_new_state(tmp_path: Path) -> None:
    versions = {}
    for marker in ("alpha", "beta"):
        write_tree(tmp_path, {"flip.py": f"STATE_{marker} = 1\nshared_marker = '{marker}'\n"})
        versions[marker] = analyze_path(tmp_path, "flip.py")
    write_tree(tmp_path, {"stable.py": "shared_marker = 'stable'\n"})
    retriever = TextRetriever()
    retriever.apply(ChangeBatch(updated=(versions["alpha"], analyze_path(tmp_path, "stable.py"))))
    errors: list[str] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            hits = retriever.find_literal("shared_marker", limit=ALL).hits
            states = retriever.find_regex(r"STATE_\w+", limit=ALL).hits
            if len(hits) != 2 or len(states) != 1:
                errors.append(f"{len(hits)} shared, {len(states)} states")

    readers = [threading.Thread(target=read) for _ in range(2)]
    for reader in readers:
        reader.start()
    for i in range(60):
        retriever.apply(ChangeBatch(updated=(versions["beta" if i % 2 == 0 else "alpha"],)))
    stop.set()
    for reader in readers:
        reader.join()
    assert errors == []

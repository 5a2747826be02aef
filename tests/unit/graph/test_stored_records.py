"""A cold build's workers make every stored file's record straight from the core columns (`StoredGraphFiles.records`,
no Definition per row): the very record `build_record` makes of the file's GraphInput (its definitions and outward
references read from the same columns), and None for the files the graph does not hold."""

from __future__ import annotations

import sysconfig
from pathlib import Path

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.graph.inputs import GraphInput
from maguyva_lsp.graph.records import build_record
from maguyva_lsp.graph.segment import OUTWARD_REFERENCE_KINDS
from maguyva_lsp.index.graph_inputs import stored_graph_files
from tests.unit.engine.test_engine import FILES, write_tree


def test_records_from_the_columns_equal_build_record_of_the_inputs(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    files = dict(FILES)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for package in ("json", "email"):  # classes, methods, nested definitions, imports, base lists
        for p in sorted((stdlib / package).glob("*.py")):
            files[f"lib/{package}/{p.name}"] = p.read_text(encoding="utf-8")
    files["notes/readme.md"] = "# prose: the graph does not hold it\n"
    write_tree(root, files)
    engine = Engine(root, Settings(index_dir=str(tmp_path / "index"), workers=1))
    try:
        engine.index()
        paths = sorted(engine.segments.stored_files())
        stored = stored_graph_files(engine.segments, paths)
        assert stored is not None
        held = nodes = 0
        for path, content_hash, record in stored.records(paths):
            segment, local = engine.segments.current.where(path) or (None, -1)
            assert segment is not None
            core = segment.core
            expected = GraphInput(
                path,
                core.language(local),
                core.content_hash(local),
                core.line_count(local) - 1,
                core.definitions(local),
                core.references(local, OUTWARD_REFERENCE_KINDS),
                complete=False,
            )
            assert content_hash == expected.content_hash
            belongs = expected.belongs or core.reference_count(local) > 0
            if not belongs:
                assert record is None, path
                continue
            assert record == build_record(expected), path
            held += 1
            nodes += len(record.symbols)
        assert held > 20 and nodes > 500 and held < len(paths)
    finally:
        engine.close()

"""Every reference extracted from the sample files and the golden project, pinned: a faster extraction must give
the same values.

The snapshot (`snapshots/references.json`) was written by the extraction before its hot loops were rewritten for
speed; on the stdlib and the dev-set corpora the two agreed on every reference too (docs/design.md).
Run with MAGUYVA_UPDATE_SNAPSHOT=1 to rewrite it after a deliberate change (review the diff before committing).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from maguyva_lsp.model import PathClass, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path

SAMPLES = Path(__file__).parent / "samples"
PROJECT = Path(__file__).parents[2] / "golden" / "project"  # a small multi-language project
SNAPSHOT = Path(__file__).parent / "snapshots" / "references.json"
# What the samples lack: non-ASCII text before and inside uses (code-point columns), receivers spread over lines
# or spaced out (their whitespace is dropped), locals shadowing imports, typed receivers, `self` members.
EXTRA_PYTHON = '''\
"""Modul für Prüfungen — ünïcödé before the code."""
import os.path as osp
from collections import OrderedDict as OD, defaultdict
from . import sibling

größe = osp.join("ä", "b")


class Prüfer(OD):
    zähler: defaultdict

    def __init__(self, pfad: osp.PathLike) -> None:
        self.box = sibling.Box(pfad)
        self.zähler = defaultdict(int)

    def prüfe(self, wert):
        os = "shadowed"
        ergebnis = (self
            .box
            .öffne(wert))
        tab	=	self . box . schließe()
        return os, ergebnis, tab, größe, Prüfer.prüfe, [w for w in wert if w], lambda x: x + wert


def ohne(): return OD().items(), sibling.Box().öffne()
'''


def _references() -> dict[str, list[list[object]]]:
    sources = {p.name: p.read_bytes() for p in sorted(SAMPLES.iterdir()) if p.is_file()}
    sources.update(
        (p.relative_to(PROJECT).as_posix(), p.read_bytes()) for p in sorted(PROJECT.rglob("*")) if p.is_file()
    )
    sources["extra_unicode.py"] = EXTRA_PYTHON.encode("utf-8")
    out: dict[str, list[list[object]]] = {}
    for name, data in sources.items():
        file = SourceFile(name, name, language_for_path(name), PathClass.SOURCE, len(data), 0)
        analysis = analyze_file(file, data)
        out[name] = [
            [r.name, r.kind, [r.span.start_line, r.span.start_col, r.span.end_line, r.span.end_col], r.enclosing,
             r.receiver, r.module, r.alias]
            for r in analysis.references
        ]  # fmt: skip
    return out


def test_references_match_the_snapshot() -> None:
    found = _references()
    if os.environ.get("MAGUYVA_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(found, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(expected)
    for name, rows in expected.items():
        assert found[name] == rows, name
    assert sum(len(rows) for rows in expected.values()) > 250  # the files give hundreds: an empty run fails
    assert any(row[1] == "import" for row in expected["extra_unicode.py"])

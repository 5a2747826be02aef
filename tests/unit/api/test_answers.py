"""Typed answers: status totals (skips by reason over folders) and multi-root merging on typed values."""

from __future__ import annotations

from maguyva_lsp.api import ImpactAnswer, ImpactedItem, Location, LocationsAnswer, StatusAnswer
from maguyva_lsp.api.merge import merge_impact, merge_locations
from maguyva_lsp.model import Span

SPAN = Span(0, 0, 0, 3)


def test_status_totals_skips_by_reason_with_examples_named_by_folder() -> None:
    folders = (
        {"root": "/w/a", "files": 2, "skipped": 2, "skips": {"unreadable": {"count": 2, "problem": True,
                                                                             "examples": ["p.py", "q.py"]}}},
        {"root": "/w/b", "files": 1, "skipped": 3, "skips": {
            "unreadable": {"count": 1, "problem": True, "examples": ["r.py"]},
            "too_large": {"count": 2, "problem": False, "examples": ["s.bin", "t.bin"]},
        }},
    )  # fmt: skip
    answer = StatusAnswer(False, folders).to_json()
    assert answer["files"] == 3 and answer["skipped"] == 5
    assert answer["skips"] == {
        "unreadable": {"count": 3, "problem": True, "examples": ["a/p.py", "a/q.py", "b/r.py"]},
        "too_large": {"count": 2, "problem": False, "examples": ["b/s.bin", "b/t.bin"]},
    }
    one = StatusAnswer(False, folders[:1]).to_json()
    assert one["skips"]["unreadable"]["examples"] == ["p.py", "q.py"]  # one folder: paths as they are


def test_impact_merges_the_folders_that_know_the_symbol_nearest_first() -> None:
    def item(path: str, depth: int) -> ImpactedItem:
        return ImpactedItem(f"file:///{path}", path, SPAN, path, "function", depth, ("f",), 1.0)

    unknown = ImpactAnswer(None, (), "no symbol named 'f' in the index")
    merged = merge_impact([ImpactAnswer("f", (item("a", 2),)), unknown, ImpactAnswer("f", (item("b", 1),), "n")])
    assert [i.path for i in merged.impacted] == ["b", "a"] and merged.symbol == "f" and merged.note == "n"
    assert merge_impact([unknown, unknown]) == unknown


def test_locations_merge_once_each_and_keep_a_note_only_when_none_was_found() -> None:
    here = Location("file:///a", "a", SPAN)
    merged = merge_locations([LocationsAnswer((here,)), LocationsAnswer((here,)), LocationsAnswer((), "none")])
    assert merged == LocationsAnswer((here,), None)
    assert merge_locations([LocationsAnswer((), "none")]).note == "none"

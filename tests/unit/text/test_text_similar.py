"""The text retriever's answer to a pasted snippet: whole chunks of the snippet's unit, its near-copies only."""

from __future__ import annotations

from pathlib import Path

from text_corpus import build, write_tree

from maguyva_lsp.model import Classification, Intent, RetrievalQuery
from maguyva_lsp.retrieve.text import SIMILAR_SCORE_SHARE, TextRetriever

STORE = '''class Inventory:
    """Stock levels per warehouse, reserved and released by orders."""

    warehouse = "main"
    reserved_quantity = 0

    def reserve(self, sku, quantity):
        level = self.levels[sku]
        if level.available < quantity:
            raise OutOfStock(sku, level.available)
        level.available -= quantity
        self.reserved_quantity += quantity
        return level

    def release(self, sku, quantity):
        self.levels[sku].available += quantity
        self.reserved_quantity -= quantity
'''
OTHER = """def restock(levels, sku, quantity):
    levels[sku].available += quantity
"""


def ask(snippet: str) -> RetrievalQuery:
    return RetrievalQuery(Classification(snippet, Intent.FIND_SIMILAR, 0.9, "test", snippet))


def built(tmp_path: Path) -> TextRetriever:
    write_tree(
        tmp_path,
        {"shop/inventory.py": STORE, "shop/restock.py": OTHER, "README.md": "reserve available quantity sku levels\n"},
    )
    return build(tmp_path)


def test_a_pasted_function_gets_whole_function_chunks(tmp_path: Path) -> None:
    pasted = (
        "find code similar to:\ndef f(self, a1, a2):\n    v1 = self.levels[a1]\n    if v1.available < a2:\n"
        "        raise OutOfStock(a1, v1.available)\n    v1.available -= a2\n    self.reserved_quantity += a2\n"
        "    return v1\n"
    )
    hits = built(tmp_path).search(ask(pasted), 20)
    first = hits[0]
    assert (first.path, first.span.start_line, first.span.end_line) == ("shop/inventory.py", 6, 12)
    assert first.span.end_col == len("        return level")
    assert (first.symbol, first.kind, first.snippet) == (
        "Inventory.reserve",
        "method",
        "def reserve(self, sku, quantity):",
    )
    assert all(h.kind in ("function", "method") for h in hits)  # never the class header, never the README
    assert all(h.score >= SIMILAR_SCORE_SHARE * first.score for h in hits)


def test_weak_matches_are_left_out(tmp_path: Path) -> None:
    hits = built(tmp_path).search(
        ask("def f(a1, a2):\n    a1.levels[a2].available += 1\n    raise OutOfStock(a2)\n"), 20
    )
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert hits[0].symbol == "Inventory.reserve"  # the only chunk that also raises OutOfStock
    assert "restock" not in {h.symbol for h in hits}


def test_loose_lines_match_any_chunk(tmp_path: Path) -> None:
    hits = built(tmp_path).search(ask('warehouse = "main"\nreserved_quantity = 0\n'), 20)
    assert (hits[0].symbol, hits[0].kind) == ("Inventory", "class")


def test_a_function_with_no_function_to_match_falls_back_to_every_chunk(tmp_path: Path) -> None:
    write_tree(tmp_path, {"notes.md": "The reserve step checks available stock per warehouse.\n"})
    hits = build(tmp_path).search(ask("def reserve(warehouse):\n    return available_stock(warehouse)\n"), 5)
    assert [h.path for h in hits] == ["notes.md"]

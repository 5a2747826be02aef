"""Property-style checks with seeded random documents: every literal search equals brute force over the texts."""

from __future__ import annotations

import random
import re
from pathlib import Path

from text_corpus import ALL, analyze_path, build, write_tree

from maguyva_lsp.index.trigram import ASCII_FOLDING_CHARS
from maguyva_lsp.model import ChangeBatch
from maguyva_lsp.retrieve.text import TextRetriever

# Letters in two cases, the characters that fold onto ASCII (Kelvin sign, long s, dotted/dotless i), other
# non-ASCII letters of 2, 3 and 4 UTF-8 bytes, punctuation, CR and LF.
ALPHABET = "aAbBkKsSiI\u212a\u017f\u0130\u0131éÉωΩ日🙂_.( )=\r\n"


def brute_force(texts: dict[str, str], needle: str, case_sensitive: bool) -> set[tuple[str, int, int]]:
    """(path, line, column) of every non-overlapping occurrence, found by Python's re over the whole text."""
    pattern = re.compile(re.escape(needle), 0 if case_sensitive else re.IGNORECASE)
    out: set[tuple[str, int, int]] = set()
    for path, text in texts.items():
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start())
            column = m.start() - (text.rfind("\n", 0, m.start()) + 1)
            out.add((path, line, column))
    return out


def found(retriever: TextRetriever, needle: str, case_sensitive: bool) -> set[tuple[str, int, int]]:
    result = retriever.find_literal(needle, case_sensitive=case_sensitive, limit=ALL)
    assert result.complete
    return {(h.path, h.span.start_line, h.span.start_col) for h in result.hits}


def test_random_literals_equal_brute_force(tmp_path: Path) -> None:
    rng = random.Random(8675309)
    texts = {f"d{i}.txt": "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 400))) for i in range(40)}
    write_tree(tmp_path, texts)
    retriever = build(tmp_path)
    indexed = {path: retriever._state.trigrams.document(path) for path in texts}
    texts = {path: doc.text for path, doc in indexed.items() if doc is not None}  # as analysed (same text here)
    needles: list[str] = []
    for _ in range(300):
        source = rng.choice(list(texts.values()))
        if source and rng.random() < 0.7:
            start = rng.randrange(len(source))
            needles.append(source[start : start + rng.randint(1, 8)])
        else:
            needles.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 5))))
    for needle in needles:
        for case_sensitive in (True, False):
            expected = brute_force(texts, needle, case_sensitive)
            assert found(retriever, needle, case_sensitive) == expected, (needle, case_sensitive)


def test_random_edits_keep_literal_search_exact(tmp_path: Path) -> None:
    """The same property while files are replaced and removed one batch at a time (delta, tombstones, merges)."""
    rng = random.Random(42)
    retriever = TextRetriever()
    live: dict[str, str] = {}
    for step in range(30):
        updated = []
        removed = tuple(p for p in list(live) if rng.random() < 0.1)
        for path in removed:
            del live[path]
            (tmp_path / path).unlink()
        for _ in range(rng.randint(1, 4)):
            path = f"f{rng.randrange(12)}.txt"
            if path in removed:
                continue
            live[path] = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 200)))
            write_tree(tmp_path, {path: live[path]})
            updated.append(analyze_path(tmp_path, path))
        retriever.apply(ChangeBatch(updated=tuple(updated), removed=removed))
        texts = {path: doc.text for path in live if (doc := retriever._state.trigrams.document(path)) is not None}
        assert texts.keys() == live.keys(), step
        for needle in ("ab", "aab", "kKs", "é", "Ωω", "日🙂", "\r\n", "a.b", "( )"):
            for case_sensitive in (True, False):
                assert found(retriever, needle, case_sensitive) == brute_force(texts, needle, case_sensitive)


def test_ascii_folding_chars_are_exactly_those_python_folds_onto_ascii() -> None:
    every_non_ascii = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    assert set(re.findall(r"(?i)[\x00-\x7f]", every_non_ascii)) == ASCII_FOLDING_CHARS

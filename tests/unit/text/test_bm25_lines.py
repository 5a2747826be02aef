"""A BM25 hit's line: the fast search of index/bm25_lines.py against the plain line-by-line definition, on hand-made
edge cases and on real chunks of the standard library; and BM25 hits whose line is found only when read."""

from __future__ import annotations

import dataclasses
import random
import sysconfig
from collections.abc import Mapping
from pathlib import Path

import pytest

from maguyva_lsp.index.bm25 import best_line
from maguyva_lsp.index.bm25_lines import best_line_in
from maguyva_lsp.model import Hit
from maguyva_lsp.rank.fusion import fuse
from maguyva_lsp.retrieve.bm25_hits import LineOnDemandHit
from maguyva_lsp.retrieve.text import TextRetriever
from maguyva_lsp.tokens import IDENTIFIER_RE, index_tokens


def plain_best_line(text: str, term_idf: Mapping[str, float]) -> tuple[int, int, int, str]:
    """The definition, written the obvious way: every line, every identifier, its tokens."""
    best: tuple[float, int, int, int] = (-1.0, 0, 0, 0)
    lines = text.split("\n")
    for offset, line in enumerate(lines):
        seen: set[str] = set()
        first: tuple[int, int] | None = None
        for m in IDENTIFIER_RE.finditer(line):
            matched = [t for t in index_tokens(m.group()) if t in term_idf]
            if matched:
                seen.update(matched)
                first = first or m.span()
        weight = sum(term_idf[t] for t in seen)
        if first is not None and weight > best[0]:
            best = (weight, offset, first[0], first[1])
    _, offset, start_col, end_col = best
    return offset, start_col, end_col, lines[offset].removesuffix("\r")


@pytest.mark.parametrize(
    ("text", "terms", "expected"),
    [
        # The line with the most distinct weight wins; its first matching identifier gives the columns.
        ("x = 1\nsocket = open_socket_connection()\n", {"socket": 1.0, "connection": 2.0}, (1, 0, 6)),
        # Ties go to the first line.
        ("parse(a)\nparse(b)\n", {"parse": 1.0}, (0, 0, 5)),
        # camelCase and SCREAMING_CASE sub-words; the whole identifier lower-cased is a term too.
        ("a\nb = parseConfigFile(x)\n", {"config": 1.0}, (1, 4, 19)),
        ("MAX_RETRY_COUNT = 3\n", {"max_retry_count": 1.0}, (0, 0, 15)),
        # A term inside a word that does not split to it is no match ("connection" holds "connect" as a substring).
        ("connection = 1\nconnect()\n", {"connect": 1.0}, (1, 0, 7)),
        # Leading digits are not part of an identifier; a run of digits only is none.
        ("9socket = 1\n", {"socket": 1.0}, (0, 1, 7)),
        ("x = 2024\nyear_2024 = 1\n", {"2024": 1.0}, (1, 0, 9)),
        # Nothing matches: the first line at 0-0; CRLF endings are not part of the line text.
        ("alpha\r\nbeta\r\n", {"gamma": 1.0}, (0, 0, 0)),
        ("alpha\r\nbeta_gamma\r\n", {"gamma": 1.0}, (1, 0, 10)),
        # Non-ASCII: a character that lower-cases to several (İ) and one that lower-cases to ASCII (Kelvin sign K).
        ("İİİ = 1\nname_kelvin = \u212aelvin\n", {"kelvin": 1.0}, (1, 0, 11)),
        ("t = \u212aelvin\nkelvin = 2\n", {"kelvin": 1.0}, (1, 0, 6)),
        ("", {"x": 1.0}, (0, 0, 0)),
    ],
)
def test_edge_cases(text: str, terms: dict[str, float], expected: tuple[int, int, int]) -> None:
    got = best_line_in(text, terms)
    assert got == plain_best_line(text, terms)
    assert got[:3] == expected


def test_same_answer_as_the_plain_definition_on_real_chunks() -> None:
    rng = random.Random(13)
    files = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))
    assert len(files) > 100
    compared = 0
    for path in rng.sample(files, 120):
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        for start in range(0, len(lines), 40):
            chunk = "\n".join(lines[start : start + 40])
            tokens = sorted(set(index_tokens(chunk)))
            if not tokens:
                continue
            picked = rng.sample(tokens, min(rng.randint(1, 6), len(tokens)))
            terms = {t: rng.choice((1.0, 2.5, rng.random() * 5)) for t in picked}
            assert best_line_in(chunk, terms) == plain_best_line(chunk, terms), (path.name, start, terms)
            compared += 1
    assert compared > 500


def test_bm25_hits_find_their_line_when_read(retriever: TextRetriever) -> None:
    scored = retriever._state.bm25.search("parse config socket connect", 50)
    hits = [h for h in retriever.find_text("parse config socket connect", limit=50) if isinstance(h, LineOnDemandHit)]
    assert len(hits) == len(scored) > 3
    assert not any(h.resolved for h in hits)
    for hit, chunk in zip(hits, scored, strict=True):
        line, start_col, end_col, text = best_line(chunk)
        assert (hit.path, hit.symbol, hit.kind, hit.score) == (
            chunk.chunk.path,
            chunk.chunk.symbol,
            chunk.chunk.kind,
            chunk.score,
        )
        assert not hit.resolved  # path, symbol, kind, score and detail come from the chunk's head
        assert (hit.span.start_line, hit.span.start_col, hit.span.end_col, hit.snippet) == (
            line,
            start_col,
            end_col,
            text,
        )
        assert hit.resolved
        plain = Hit(hit.path, hit.span, hit.score, hit.symbol, hit.kind, hit.snippet, dict(hit.detail))
        assert hit == plain and plain == hit and dataclasses.replace(hit) == plain
        assert dataclasses.replace(hit, snippet="x").snippet == "x"


def test_fusion_reads_lines_only_of_the_hits_it_answers_with(retriever: TextRetriever) -> None:
    hits = [h for h in retriever.find_text("parse config socket connect", limit=50) if isinstance(h, LineOnDemandHit)]
    assert len(hits) > 3
    # Keyed by their chunk (chunk_line: the chunk's first line, known without the text), one list: no ties to break.
    fused = fuse({"text": hits}, {"text": 1.0}, 40, key_of=lambda h: f"{h.path}#{h.chunk_line}")
    assert not any(h.resolved for h in hits)
    assert fused[0].hit.span.start_line >= fused[0].hit.chunk_line  # read now, for the answer
    assert [h.resolved for h in hits].count(True) == 1

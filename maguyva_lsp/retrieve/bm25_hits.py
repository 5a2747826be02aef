"""BM25 hits of the text retriever whose line is found only when someone reads it.

A BM25 hit answers at its chunk's best-matching line (`index/bm25.py` `best_line`: the line holding the most query
weight), which costs a pass over the chunk's lines. A question asks each retriever for 6 × limit hits and the
pipeline keeps about `limit` of each list (search.py `question_depth`); fusion then reads every kept hit's span (its
chunk key, its tie-break) and the answer reads the snippets it shows. So the line is found when the hit's `span` or
`snippet` is first read, and never for the hits cut from a list: the same answers, without the per-hit work for the
tail nobody looks at.
"""

from __future__ import annotations

from typing import Any

from maguyva_lsp.index.bm25 import ScoredChunk, best_line
from maguyva_lsp.model import Hit, Span

# The slots that hold a hit's span and snippet (a slotted dataclass keeps them in member descriptors).
_SPAN_SLOT: Any = Hit.__dict__["span"]
_SNIPPET_SLOT: Any = Hit.__dict__["snippet"]


def _fields(hit: Hit) -> tuple[object, ...]:
    return (hit.path, hit.span, hit.score, hit.symbol, hit.kind, hit.snippet, hit.detail)


class LineOnDemandHit(Hit):
    """A BM25 hit whose span (its chunk's best line) and snippet (that line's text) are computed when first read.
    Everything else is set at once from the chunk's head, without decoding its text. A copy (`dataclasses.replace`)
    is an ordinary, resolved hit of this class."""

    __slots__ = ("_scored",)
    _scored: ScoredChunk

    @classmethod
    def of(cls, scored: ScoredChunk) -> LineOnDemandHit:
        head = scored.head
        hit = cls.__new__(cls)
        hit.path = head.path
        hit.score = scored.score
        hit.symbol = head.symbol
        hit.kind = head.kind
        hit.detail = {"match": "bm25", "chunk": head.chunk_id, "terms": sorted(scored.term_idf)}
        hit._scored = scored
        return hit

    def _resolve(self) -> None:
        line, start_col, end_col, text = best_line(self._scored)
        _SPAN_SLOT.__set__(self, Span(line, start_col, line, end_col))
        _SNIPPET_SLOT.__set__(self, text)

    @property
    def span(self) -> Span:
        try:
            span: Span = _SPAN_SLOT.__get__(self, LineOnDemandHit)
        except AttributeError:
            self._resolve()
            span = _SPAN_SLOT.__get__(self, LineOnDemandHit)
        return span

    @span.setter
    def span(self, value: Span) -> None:
        _SPAN_SLOT.__set__(self, value)

    @property
    def snippet(self) -> str:
        try:
            snippet: str = _SNIPPET_SLOT.__get__(self, LineOnDemandHit)
        except AttributeError:
            self._resolve()
            snippet = _SNIPPET_SLOT.__get__(self, LineOnDemandHit)
        return snippet

    @snippet.setter
    def snippet(self, value: str) -> None:
        _SNIPPET_SLOT.__set__(self, value)

    @property
    def chunk_line(self) -> int:
        """The chunk's first line: chunks never overlap, so it names the same chunk as the best line, which fusion
        then needs to compute only for the hits it answers with (or ties on)."""
        return self._scored.head.start_line if not self.resolved else self.span.start_line

    def __eq__(self, other: object) -> bool:
        """Equal to any hit with the same fields, of this class or a plain Hit (the line is found to compare)."""
        if not isinstance(other, Hit):
            return NotImplemented
        return _fields(self) == _fields(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like Hit

    @property
    def resolved(self) -> bool:
        """Whether the line has been found (for tests and profiling)."""
        try:
            _SPAN_SLOT.__get__(self, LineOnDemandHit)
        except AttributeError:
            return False
        return True

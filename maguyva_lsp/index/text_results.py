"""Run a matcher over candidate documents and turn its matches into ranked, line-precise hits.

Ranking of exact matches (literal, regex, identifier), and why: each file's best match first, files ordered by
 1. path class: source, then tests, then build/vendor, then archives (the fusion demotes the latter anyway);
 2. the better kind of match: a definition-looking line for an identifier, a whole-word occurrence for a literal
    (`ECONNREFUSED` as a word beats `WSAECONNREFUSED`);
 3. fewer matches in the file first: a literal mentioned once (where a message is raised, a constant defined) tells
    more than one repeated hundreds of times in a data table or a test;
 4. path, for a stable order.
Then second matches of each file in the same file order, and so on: the top of the list covers many files, which is
what a reader (and the fusion's dedup to one chunk per file) wants.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from maguyva_lsp.index.text_match import Deadline, Matcher
from maguyva_lsp.index.trigram import TextDocument
from maguyva_lsp.model import Hit, PathClass, Span

PATH_CLASS_RANK: dict[PathClass, int] = {
    PathClass.SOURCE: 0,
    PathClass.TEST: 1,
    PathClass.BUILD: 2,
    PathClass.VENDOR: 2,
    PathClass.ARCHIVE: 3,
}
# A snippet is the matched line; a longer line (minified code) is cut to a window around the match.
SNIPPET_MAX_CHARS = 240
SNIPPET_CONTEXT_CHARS = 80


@dataclass(frozen=True, slots=True)
class TextMatches:
    """The ranked hits of one exact search, and whether the search saw everything it should have."""

    hits: tuple[Hit, ...]
    files_matched: int
    total_matches: int
    candidates: int  # documents the index could not rule out (and verification read)
    complete: bool = True  # False: a scan cap or the time budget stopped it early; `note` says which
    note: str | None = None


def _snippet(text: str, line_start: int, line_end: int, start: int) -> str:
    """The line of a match, or a window of it around the match when the line is long (without copying the line)."""
    if text.endswith("\r", line_start, line_end):
        line_end -= 1
    if line_end - line_start <= SNIPPET_MAX_CHARS:
        return text[line_start:line_end]
    begin = max(line_start, min(start - SNIPPET_CONTEXT_CHARS, line_end - SNIPPET_MAX_CHARS))
    head = "…" if begin > line_start else ""
    tail = "…" if begin + SNIPPET_MAX_CHARS < line_end else ""
    return f"{head}{text[begin : begin + SNIPPET_MAX_CHARS]}{tail}"


def line_snippet(text: str, line: int) -> str:
    """The text of one 0-based line, cut like a match's snippet when it is long."""
    start = 0
    for _ in range(line):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    return _snippet(text, start, end, start)


class _Locator:
    """Character offsets → (line, column) in one text, counting newlines forward from the last position asked."""

    __slots__ = ("_line", "_pos", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._line = 0

    def line_of(self, pos: int) -> int:
        if pos < self._pos:
            self._pos, self._line = 0, 0
        self._line += self._text.count("\n", self._pos, pos)
        self._pos = pos
        return self._line

    def hit(self, doc: TextDocument, start: int, end: int, file_matches: int, kind: str) -> Hit:
        text = self._text
        line = self.line_of(start)
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        end_line = line + text.count("\n", start, end)
        end_col = end - (text.rfind("\n", 0, end) + 1) if end_line != line else end - line_start
        symbol, symbol_kind = enclosing_symbol(doc, line)
        return Hit(
            path=doc.path,
            span=Span(line, start - line_start, end_line, end_col),
            score=0.0,
            symbol=symbol,
            kind=symbol_kind,
            snippet=_snippet(text, line_start, line_end, start),
            detail={"match": kind, "file_matches": file_matches},
        )


def enclosing_symbol(doc: TextDocument, line: int) -> tuple[str | None, str | None]:
    """The innermost chunk of a named definition that holds the line."""
    best = None
    for chunk in doc.chunks:
        inside = chunk.symbol and chunk.start_line <= line <= chunk.end_line
        if inside and (best is None or chunk.end_line - chunk.start_line < best.end_line - best.start_line):
            best = chunk
    return (best.symbol, best.kind) if best else (None, None)


def scan_order(docs: Iterable[TextDocument]) -> list[TextDocument]:
    """The order an unnarrowed scan reads documents in, so that a cap cuts the least useful ones."""
    return sorted(docs, key=lambda d: (PATH_CLASS_RANK.get(d.path_class, 2), d.path))


def run_matcher(
    docs: list[TextDocument],
    matcher: Matcher,
    limit: int,
    deadline: Deadline,
    *,
    max_chars: int | None = None,
    scan_reason: str = "",
) -> TextMatches:
    """Verify each document, rank the files that match and return the top `limit` hits.

    `max_chars` bounds how much text an unnarrowed scan reads (`scan_reason` says why the scan happened).
    """
    counted: list[tuple[tuple[int, int, int, str], TextDocument, int]] = []
    read_chars = 0
    notes: list[str] = []
    complete = True
    for position, doc in enumerate(docs):
        if max_chars is not None and read_chars >= max_chars:
            complete = False
            notes.append(
                f"scanned {position} of {len(docs)} files ({read_chars:,} characters, the cap for a scan){scan_reason}"
            )
            break
        if deadline.passed():
            complete = False
            notes.append(f"stopped at the time budget after {position} of {len(docs)} candidate files")
            break
        read_chars += len(doc.text)
        count = matcher.count(doc, deadline)
        if count:
            key = (PATH_CLASS_RANK.get(doc.path_class, 2), matcher.preferred(doc), count, doc.path)
            counted.append((key, doc, count))
    else:
        if max_chars is not None and scan_reason:
            notes.append(f"scanned all {len(docs)} files{scan_reason}")
    counted.sort(key=lambda item: item[0])
    hits = _round_robin(counted, matcher, limit)
    return TextMatches(
        hits=tuple(hits),
        files_matched=len(counted),
        total_matches=sum(count for _, _, count in counted),
        candidates=len(docs),
        complete=complete,
        note="; ".join(notes) or None,
    )


def _round_robin(
    counted: list[tuple[tuple[int, int, int, str], TextDocument, int]], matcher: Matcher, limit: int
) -> list[Hit]:
    hits: list[Hit] = []
    active: list[tuple[TextDocument, int, Iterator[tuple[int, int]], _Locator]] = []
    pending = iter(counted)
    first_round = True
    while len(hits) < limit:
        still: list[tuple[TextDocument, int, Iterator[tuple[int, int]], _Locator]] = []
        source: Iterable[tuple[TextDocument, int, Iterator[tuple[int, int]], _Locator]]
        if first_round:
            source = ((doc, n, matcher.ordered(doc), _Locator(doc.text)) for _, doc, n in pending)
        else:
            source = active
        for doc, count, matches, locator in source:
            span = next(matches, None)
            if span is None:
                continue
            hit = locator.hit(doc, span[0], span[1], count, matcher.description)
            hit.score = 1.0 / (1 + len(hits))
            hits.append(hit)
            still.append((doc, count, matches, locator))
            if len(hits) >= limit:
                break
        if not still:
            break
        active, first_round = still, False
    return hits

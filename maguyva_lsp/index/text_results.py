"""Run a matcher over candidate files and turn its matches into ranked, line-precise hits, reading no more than the
top `limit` needs.

Ranking of exact matches (literal, regex, identifier), and why: each file's best match first, files ordered by
 1. path class: source, then tests, then build/vendor, then archives (the fusion demotes the latter anyway);
 2. the better kind of match: a definition-looking line for an identifier, a whole-word occurrence for a literal
    (`ECONNREFUSED` as a word beats `WSAECONNREFUSED`);
 3. fewer matches in the file first: a literal mentioned once (where a message is raised, a constant defined) tells
    more than one repeated hundreds of times in a data table or a test;
 4. path, for a stable order.
Then second matches of each file in the same file order, and so on: the top of the list covers many files, which is
what a reader (and the fusion's dedup to one chunk per file) wants.

Bounded work: the hits of the top `limit` are those of the `limit` best files (fewer files: all of them), so the search
keeps the best `limit` file keys seen so far and reads each further file only until its key is certain to rank below
the worst of them — after a few matches for a file that holds hundreds, after its first match for a file of a worse
path class. The hits are exactly those a full verification would rank first; only the totals are then lower bounds
(`truncated`), and say so. A rare literal, whose files all fit in the top, is counted exactly and completely.
While the top is not full a matching file is sure to enter it, and ranking lists its matches anyway: they are
listed once and their number is its count (`Matcher.lists_cheaply`), rather than counted, then listed.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Mapping, Set
from dataclasses import dataclass, field

from maguyva_lsp.index.text_match import Deadline, Matcher, Span
from maguyva_lsp.index.text_views import PATH_CLASS_RANK, ChunkSymbols, FileView, decode
from maguyva_lsp.index.trigram import TextDocument
from maguyva_lsp.model import Hit, MatchCounts
from maguyva_lsp.model import Span as LineSpan

__all__ = ["PATH_CLASS_RANK", "TextMatches", "enclosing_symbol", "line_snippet", "run_matcher"]

# A snippet is the matched line; a longer line (minified code) is cut to a window around the match.
SNIPPET_MAX_CHARS = 240
SNIPPET_CONTEXT_CHARS = 80


@dataclass(frozen=True, slots=True)
class TextMatches:
    """The ranked hits of one exact search, and what it found in all.

    `files_matched` and `total_matches` are exact unless `truncated`: then some files were read only as far as
    ranking them needed, and both are lower bounds (`files_matched` stays exact when every candidate was read at
    least to its first match, which only a time budget or a scan cap prevents: `unread` counts those files)."""

    hits: tuple[Hit, ...]
    files_matched: int
    total_matches: int
    candidates: int  # files the index could not rule out
    complete: bool = True  # False: a scan cap or the time budget stopped it early; `note` says which
    note: str | None = None
    truncated: bool = False
    unread: int = 0
    matched_ids: frozenset[int] = frozenset()  # the documents known to hold a match
    # Where the hits are: document id → the byte offsets where they start (`run_matcher`'s `shown` of a next search).
    starts: Mapping[int, frozenset[int]] = field(default_factory=dict)

    @property
    def counts(self) -> MatchCounts:
        return MatchCounts(
            matches=self.total_matches,
            files=self.files_matched,
            truncated=self.truncated or self.unread > 0 or not self.complete,
            files_unread=self.unread,
        )


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


def enclosing_symbol(doc: TextDocument, line: int) -> tuple[str | None, str | None]:
    """The innermost chunk of a named definition that holds the line."""
    return ChunkSymbols(doc.core, doc.local).at(line)


def _hit(view: FileView, span: Span, file_matches: int, kind: str, rank: int) -> Hit:
    """A hit at a match given in byte offsets: line and code-point columns, the line as snippet, the enclosing
    definition. Only the match's lines are decoded."""
    start, end = span
    line, line_start, line_end = view.line_of(start)
    raw = view.bytes_at(line_start, max(line_end, end))
    if raw.isascii():  # columns are byte offsets
        text = raw.decode("ascii")
        column = start - line_start
        matched = text[column : end - line_start]
    else:
        text = decode(raw)
        column = len(decode(raw[: start - line_start]))
        matched = decode(raw[start - line_start : end - line_start])
    newlines = matched.count("\n")
    end_col = len(matched) - matched.rfind("\n") - 1 if newlines else column + len(matched)
    own_line_end = text.find("\n")
    own_line_end = len(text) if own_line_end < 0 else own_line_end
    symbol, symbol_kind = view.chunk_symbols().at(line)
    return Hit(
        path=view.path,
        span=LineSpan(line, column, line + newlines, end_col),
        score=1.0 / (1 + rank),
        symbol=symbol,
        kind=symbol_kind,
        snippet=_snippet(text, 0, own_line_end, column),
        detail={"match": kind, "file_matches": file_matches},
    )


# A file's place in the ranking: (path class rank, kind of match, matches, place in path order).
_Key = tuple[int, int, int, int]


class _Top:
    """The best `limit` file keys seen so far, kept sorted (limit is small; insertion by bisection)."""

    __slots__ = ("keys", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.keys: list[_Key] = []

    @property
    def full(self) -> bool:
        return len(self.keys) >= self.limit

    @property
    def worst(self) -> _Key | None:
        return self.keys[-1] if self.full else None

    def add(self, key: _Key) -> _Key | None:
        """Keep the key; the one that falls out of the top, if any."""
        bisect.insort(self.keys, key)
        return self.keys.pop() if len(self.keys) > self.limit else None


def _spans(view: FileView, matcher: Matcher, deadline: Deadline) -> list[Span]:
    """Every match of a file that entered the top, found once: whether it holds a better one, then its hits in order,
    read the same list (a rare literal's files are large test modules as often as not: each pass reads them through)."""
    if view.spans is None:
        view.spans = list(matcher.matches(view, deadline))
    return view.spans


def _better_found(view: FileView, matcher: Matcher, deadline: Deadline) -> bool:
    return matcher.has_better and any(matcher.better(view, s) for s in _spans(view, matcher, deadline))


def _cap(view: FileView, matcher: Matcher, worst: _Key | None) -> int | None:
    """How many matches to count in a file before it is sure to rank below `worst` (None: all of them; 1: it cannot
    rank in the top whatever it holds, only whether it matches is read). A file's key only grows as more of it is
    read: more matches, and its kind of match is at best its floor."""
    if worst is None or view.class_rank < worst[0]:
        return None
    if view.class_rank > worst[0]:
        return 1
    floor = matcher.rank_floor(view)
    if floor != worst[1]:
        return None if floor < worst[1] else 1
    # As many matches as the worst and a later path (the reading order): below it. An earlier path: one more.
    return worst[2] if view.path_rank > worst[3] else worst[2] + 1


def _may_enter(top: _Top, view: FileView, count: int, cap: int | None) -> bool:
    """False when a file read through (fewer matches than its cap) still ranks below the worst of the top."""
    worst = top.worst
    return worst is None or cap is None or (view.class_rank, count, view.path_rank) < (worst[0], *worst[2:])


def run_matcher(
    views: list[FileView],
    matcher: Matcher,
    limit: int,
    deadline: Deadline,
    *,
    max_chars: int | None = None,
    scan_reason: str = "",
    known: frozenset[int] = frozenset(),
    shown: Mapping[int, Set[int]] | None = None,
) -> TextMatches:
    """Rank the candidate files and return the hits of the top `limit`, reading each file only as far as needed.

    `views` come in reading order (`candidate_views`: best path class first). `max_chars` bounds how many bytes an
    unnarrowed scan reads (`scan_reason` says why the scan happened). `limit` 0 only counts: each file is read to its
    first match, and the documents in `known` (already known to match) are not read at all; they count as matched
    files, their matches are the caller's to add. `shown`: matches another search of the same snapshot already
    answers with (document id → byte offsets where they start): they keep their places in the ranking, but no hit is
    made of them (the caller has them).
    """
    top = _Top(limit)
    chosen: dict[int, FileView] = {}  # the views of the files that entered the top
    matched: set[int] = set(known)
    total = 0
    truncated = bool(known)
    read_bytes = 0
    notes: list[str] = []
    complete = True
    unread = 0
    for position, view in enumerate(views):
        if max_chars is not None and read_bytes >= max_chars:
            complete = False
            unread = len(views) - position
            notes.append(
                f"scanned {position} of {len(views)} files ({read_bytes:,} bytes, the cap for a scan){scan_reason}"
            )
            break
        if deadline.passed():
            complete = False
            unread = len(views) - position
            notes.append(f"stopped at the time budget after {position} of {len(views)} candidate files")
            break
        if view.doc_id in known:
            continue
        cap = _cap(view, matcher, top.worst) if limit else 1
        if cap is None and not top.full and matcher.has_better and matcher.lists_cheaply(view):
            # Sure to enter the top if it matches, where ranking it lists its matches anyway: listed once, not
            # counted first (a rare literal's files were read twice per pass: 7 bytes.count of 60 us each).
            count = len(_spans(view, matcher, deadline))
        else:
            count = matcher.count(view, cap, deadline)
        read_bytes += view.size  # at most: a capped count stops early
        if count:
            matched.add(view.doc_id)
            total += count
            truncated = truncated or count == cap  # stopped at the cap: sure to rank below the top (or only counted)
        if count and count != cap and _may_enter(top, view, count, cap):
            key = (view.class_rank, matcher.rank(view, _better_found(view, matcher, deadline)), count, view.path_rank)
            if not top.full or key < top.keys[-1]:
                chosen[view.path_rank] = view
                out = top.add(key)
                if out is not None:
                    chosen.pop(out[3]).release()
                continue
        view.release()
    else:
        if max_chars is not None and scan_reason:
            notes.append(f"scanned all {len(views)} files{scan_reason}")
    ranked = [(chosen[key[3]], key[2]) for key in top.keys]
    hits, starts = _round_robin(ranked, matcher, limit, deadline, shown or {})
    return TextMatches(
        hits=tuple(hits),
        files_matched=len(matched),
        total_matches=total,
        candidates=len(views),
        complete=complete,
        note="; ".join(notes) or None,
        truncated=truncated,
        unread=unread,
        matched_ids=frozenset(matched),
        starts=starts,
    )


def _ordered(view: FileView, matcher: Matcher, deadline: Deadline) -> Iterator[Span]:
    """A file's matches, better ones first, each part in text order (lazily: a file shown once is read once)."""
    if not matcher.has_better:
        return matcher.matches(view, deadline)
    return _better_first(view, matcher, _spans(view, matcher, deadline))


def _better_first(view: FileView, matcher: Matcher, spans: list[Span]) -> Iterator[Span]:
    """The better spans in text order, then the others in text order, asking `better` once per span."""
    others: list[Span] = []
    for span in spans:
        if matcher.better(view, span):
            yield span
        else:
            others.append(span)
    yield from others


def _round_robin(
    ranked: list[tuple[FileView, int]],
    matcher: Matcher,
    limit: int,
    deadline: Deadline,
    shown: Mapping[int, Set[int]],
) -> tuple[list[Hit], dict[int, frozenset[int]]]:
    """The first `limit` matches taking one of each file in turn (best files first), as hits (but those in `shown`,
    which count as taken), and where the hits start (document id → byte offsets)."""
    hits: list[Hit] = []
    starts: dict[int, set[int]] = {}
    taken = 0
    active = [(view, count, _ordered(view, matcher, deadline)) for view, count in ranked]
    while active and taken < limit:
        still = []
        for view, count, spans in active:
            span = next(spans, None)
            if span is None:
                continue
            if span[0] not in shown.get(view.doc_id, ()):
                hits.append(_hit(view, span, count, matcher.description, taken))
                starts.setdefault(view.doc_id, set()).add(span[0])
            taken += 1
            still.append((view, count, spans))
            if taken >= limit:
                break
        active = still
    return hits, {doc: frozenset(found) for doc, found in starts.items()}

"""The text retriever: a trigram index for literals, regular expressions and whole identifiers (line-precise, never
losing a match that grep would find), and BM25 over chunks for natural-language queries.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Set
from dataclasses import dataclass

import numpy as np

from maguyva_lsp.config import DEFAULT_LIMIT
from maguyva_lsp.index.bm25 import Bm25Index, ScoredChunk
from maguyva_lsp.index.segment_set import Segments, SegmentSet
from maguyva_lsp.index.text_frames import frame_hits
from maguyva_lsp.index.text_match import (
    Deadline,
    IdentifierMatcher,
    LiteralMatcher,
    Matcher,
    RegexMatcher,
    error_token_tier,
)
from maguyva_lsp.index.text_message import (
    ANCHOR_SHARE,
    MAX_CANDIDATE_FILES,
    TRIGGER_ANCHORS,
    MessageSite,
    anchor_words,
    find_message_sites,
    site_snippet,
    site_symbol,
)
from maguyva_lsp.index.text_part import TEXT_PART, TextPart
from maguyva_lsp.index.text_postings import U32
from maguyva_lsp.index.text_regex import plan_regex
from maguyva_lsp.index.text_results import TextMatches, run_matcher
from maguyva_lsp.index.text_views import PathRanks, candidate_views, with_folding_holding
from maguyva_lsp.index.trigram import TRIGRAM_LEN, TrigramIndex, TrigramQuery, all_of, string_trigrams, utf8
from maguyva_lsp.model import (
    ChangeBatch,
    Hit,
    Intent,
    MatchCounts,
    Modality,
    PastedError,
    RankedHits,
    RetrievalQuery,
    RetrieverStatus,
    Span,
)
from maguyva_lsp.query.pasted import message_phrases, message_words
from maguyva_lsp.query.routing import IDENTIFIER_INTENTS
from maguyva_lsp.query.snippet import snippet_code, snippet_kinds
from maguyva_lsp.retrieve.base import RetrieverError
from maguyva_lsp.retrieve.bm25_hits import LineOnDemandHit
from maguyva_lsp.tokens import is_identifier

# A literal or a pattern longer than this is refused: nobody searches a 100 KB literal, and a pattern that long costs
# seconds to compile and analyse. (Queries are cut to config.MAX_QUERY_CHARS before they get here.)
MAX_PATTERN_CHARS = 8192
# Wall-clock budget for verifying one exact search; past it the results are cut and say so.
VERIFY_TIME_BUDGET_S = 2.0
# How many bytes of text a search that the index cannot narrow reads at most (a literal under 3 bytes, a regex
# without a required literal): all of a large workspace for a literal (found in the bytes at GB/s), less for a regex.
# A bounded search reads most files only to their first few matches, so it seldom comes near either.
LITERAL_SCAN_MAX_CHARS = 256 * 1024 * 1024
REGEX_SCAN_MAX_CHARS = 64 * 1024 * 1024
# An error token's occurrences are ranked from at most this many (definitions, raise sites, mentions).
MAX_ERROR_TOKEN_OCCURRENCES = 2000
# Error types every program raises: their name says nothing about where a message comes from.
GENERIC_ERROR_NAMES: frozenset[str] = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
) | frozenset(
    "Error TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError "  # JavaScript
    "RuntimeException IllegalArgumentException IllegalStateException NullPointerException IOException "  # Java
    "UnsupportedOperationException IndexOutOfBoundsException ArgumentException ArgumentNullException "  # Java, C#
    "InvalidOperationException ArgumentOutOfRangeException NotImplementedException".split()  # C#
)
# At most this many two-word phrases of a pasted message (the longest) find the files that may write it.
MAX_TRIGGER_PHRASES = 8
# The rarest phrases are used, at least MIN_TRIGGER_PHRASES of them, and more while the files they name stay under
# MAX_PHRASE_FILES.
MIN_TRIGGER_PHRASES = 2
MAX_PHRASE_FILES = 60
# A pasted message's sites at or above this recall come before the trace's frames; weaker sites come after them.
FULL_MESSAGE_RECALL = 0.99

# A pasted snippet's text list keeps the chunks scoring at least this share of the best BM25 score: its near-copies.
# (On the dev set's pasted functions the original scores first in 93 % of cases, the next chunk at a median 0.6 of it;
# 0.9 was chosen on two corpora and checked on the third — see notes/i13-rank.md.)
SIMILAR_SCORE_SHARE = 0.9

_NO_MATCHES = TextMatches(hits=(), files_matched=0, total_matches=0, candidates=0)


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """Everything a search reads, over one snapshot of the segments: a reader sees the old or the new state."""

    segments: SegmentSet
    trigrams: TrigramIndex
    bm25: Bm25Index
    paths: PathRanks


def _check_length(kind: str, text: str) -> None:
    if len(text) > MAX_PATTERN_CHARS:
        raise RetrieverError(
            f"{kind} of {len(text):,} characters is too long for text search (at most {MAX_PATTERN_CHARS:,})"
        )


class TextRetriever:
    """The `text` modality. `search` routes by intent:

    - a regex query (`query.regex`): the pattern, matched per line;
    - exact_match or a quoted literal: the literal target;
    - find_definition / find_references / impact_analysis with an identifier target: that identifier as a whole
      word, definition-looking lines first (BM25 when it occurs nowhere);
    - anything else: BM25 over the query, each hit at its chunk's best line.

    Partial results while the workspace is still being indexed are the engine's to report, not this retriever's.
    """

    def __init__(self, segments: Segments | None = None) -> None:
        """Over the engine's segments (their text part), or over segments of its own (then `apply` feeds them)."""
        self._owned = segments is None
        self._segments = segments if segments is not None else Segments(None, (TextPart(),))
        self._cached: _Snapshot | None = None

    @property
    def _state(self) -> _Snapshot:
        """The views of the current snapshot, made once per snapshot."""
        current = self._segments.current
        cached = self._cached
        if cached is None or cached.segments is not current:
            trigrams = TrigramIndex(current, TEXT_PART)
            cached = self._cached = _Snapshot(current, trigrams, Bm25Index(current, TEXT_PART), PathRanks(trigrams))
        return cached

    @property
    def name(self) -> Modality:
        return "text"

    @property
    def document_count(self) -> int:
        return self._state.trigrams.document_count

    @property
    def chunk_count(self) -> int:
        return self._state.bm25.chunk_count

    @property
    def memory_bytes(self) -> int:
        """Bytes of the postings (mapped from the store: resident only where queries touched them)."""
        state = self._state
        return state.trigrams.nbytes + state.bm25.nbytes

    def status(self) -> RetrieverStatus:
        if not self._segments.ready:
            return RetrieverStatus(available=False, reason="no files indexed yet")
        return RetrieverStatus(available=True)

    def apply(self, batch: ChangeBatch) -> None:
        """Index a batch, when the retriever keeps segments of its own; the engine's segments are fed by the engine
        (one segment per batch for every retriever that reads them), so this does nothing then."""
        if self._owned:
            self._segments.save(batch.updated, batch.removed)

    def search(self, query: RetrievalQuery, limit: int) -> list[Hit]:
        if limit <= 0:
            return []
        classification = query.classification
        exact = classification.intent is Intent.EXACT_MATCH or classification.literal
        pasted = classification.pasted
        if pasted is not None and exact and not query.regex:
            hits = self.find_pasted(pasted, limit)
            if hits:
                return hits
        if query.regex:
            pattern = query.target if exact else query.text
            result = self.find_regex(pattern, case_sensitive=query.case_sensitive, limit=limit)
        elif exact and not classification.literal and is_identifier(query.target):
            return self.find_error_token(query.target, limit)
        elif classification.intent is Intent.FIND_SIMILAR and not classification.literal:
            return self.find_similar(query.target, limit=limit)
        elif exact and not query.case_sensitive:
            return self._literal_exact_case_first(query.target, limit)
        elif exact:
            result = self.find_literal(query.target, case_sensitive=True, limit=limit)
        elif classification.intent in IDENTIFIER_INTENTS and is_identifier(query.target):
            result = self._find_name(query.target, classification.intent, limit)
            if not result.hits and result.complete:
                return self.find_text(query.text, limit=limit)
        else:
            return self.find_text(query.text, limit=limit)
        if not result.complete and not result.hits:
            raise RetrieverError(f"no match found, but the search was cut short: {result.note}")
        if result.note:
            for hit in result.hits:
                hit.detail["note"] = result.note
        return RankedHits(result.hits, result.counts)

    def find_pasted(self, pasted: PastedError, limit: int) -> list[Hit]:
        """Where a pasted error comes from: the sites that write its message (as the source writes it: literals
        joined, placeholders for its dynamic parts), best first, with the trace's frames in the workspace after the
        sites that hold the whole message and before the partial ones. Empty when nothing is found."""
        sites = self._message_sites(pasted) if pasted.message else []
        frames = frame_hits(self._state.trigrams.docs.values(), pasted.frames) if pasted.frames else []
        full = [s for s in sites if s.recall >= FULL_MESSAGE_RECALL]
        partial = [s for s in sites if s.recall < FULL_MESSAGE_RECALL]
        hits = [_site_hit(s) for s in full] + frames + [_site_hit(s) for s in partial]
        if not hits and pasted.name and pasted.name not in GENERIC_ERROR_NAMES:
            # The message is written nowhere (built at run time, or from another version): the project's own error
            # type still says where it comes from — its definition, then its raise sites.
            return self.find_error_token(pasted.name, limit)
        for rank, hit in enumerate(hits[:limit]):
            hit.score = 1.0 / (1 + rank)
        return hits[:limit]

    def find_error_token(self, name: str, limit: int) -> list[Hit]:
        """An error token (`FrozenAttributeError`, `ErrHelp`, `ECONNREFUSED`) as a whole word: its definition lines
        first, then the lines that raise, throw, return or compare it, then its other mentions (imports, docs); each
        tier in path-class order (source before tests and vendored code)."""
        found = self.find_identifier(name, limit=MAX_ERROR_TOKEN_OCCURRENCES)
        tiered = sorted(
            enumerate(found.hits),
            key=lambda item: (error_token_tier(item[1].snippet, name, item[1].detail), item[0]),
        )
        hits = [hit for _, hit in tiered[:limit]]
        for rank, hit in enumerate(hits):
            hit.score = 1.0 / (1 + rank)
        if not hits and not found.complete:
            raise RetrieverError(f"no match found, but the search was cut short: {found.note}")
        return hits

    def _message_sites(self, pasted: PastedError) -> list[MessageSite]:
        """The sites of a message. Looked for around the lines holding one of its two-word phrases
        (`message_phrases`, the longest MAX_TRIGGER_PHRASES), which a source literal holds verbatim however the rest
        was built; when that finds nothing (a message of one word, or built word by word), around its TRIGGER_ANCHORS
        rarest anchor words in the files that hold enough of them."""
        index = self._state.trigrams
        deadline = Deadline(VERIFY_TIME_BUDGET_S)
        phrases = sorted(message_phrases(pasted.message), key=lambda p: (-len(p), p))[:MAX_TRIGGER_PHRASES]
        by_phrase: list[tuple[int, str, list[int]]] = []
        for phrase in phrases:
            ids = index.candidates(all_of(string_trigrams(phrase, ignore_case=True)), ignore_case=True)
            if ids is not None and ids.size:
                by_phrase.append((int(ids.size), phrase, ids.tolist()))
        # The rarest phrases first, while the files they name stay few: a literal holds most of its message's
        # phrases, so the specific ones find it; "not defined" alone would name half of a code base.
        by_phrase.sort()
        holding: set[int] = set()
        triggers: list[str] = []
        for _, phrase, phrase_docs in by_phrase:
            if len(triggers) >= MIN_TRIGGER_PHRASES and len(holding) + len(phrase_docs) > MAX_PHRASE_FILES:
                break
            holding.update(phrase_docs)
            triggers.append(phrase)
        if holding:
            docs = [index.docs[i] for i in sorted(holding)][:MAX_CANDIDATE_FILES]
            sites = find_message_sites(docs, pasted.message, pasted.name, deadline, triggers=triggers)
            if sites:
                return sites
        anchors = anchor_words(message_words(pasted.message))
        counts: dict[int, int] = {}
        holders: dict[str, set[int]] = {}
        for anchor in anchors:
            ids = index.candidates(all_of(string_trigrams(anchor, ignore_case=True)), ignore_case=True)
            holders[anchor] = set(index.docs) if ids is None else set(ids.tolist())
            for doc_id in holders[anchor]:
                counts[doc_id] = counts.get(doc_id, 0) + 1
        needed = max(1, round(len(anchors) * ANCHOR_SHARE))
        # The rarest anchor words trigger sites, more of them while the files they name stay few.
        triggers = []
        named: set[int] = set()
        for anchor in sorted(anchors, key=lambda a: (len(holders[a]), -len(a)))[:TRIGGER_ANCHORS]:
            if triggers and len(named | holders[anchor]) > MAX_PHRASE_FILES:
                break
            triggers.append(anchor)
            named |= holders[anchor]
        ranked = sorted((d for d in named if counts[d] >= needed), key=lambda d: -counts[d])
        docs = [index.docs[doc_id] for doc_id in ranked[:MAX_CANDIDATE_FILES]]
        return find_message_sites(docs, pasted.message, pasted.name, deadline, triggers=triggers)

    def _literal_exact_case_first(self, text: str, limit: int) -> RankedHits:
        """A literal matched regardless of case, but with the matches in the exact case typed ranked first: someone
        who types `"Content-Type"` wants that spelling before `content-type`. When the exact case fills the list, the
        other casings only add to the counts: they are looked for (to a first match) in the files the exact case is
        not in."""
        state = self._state  # both searches read one snapshot: a match is the same place in either
        shared = _ascii_candidates(text, state)
        exact = self._literal(text, case_sensitive=True, limit=limit, state=state, candidates=shared)
        if not _has_case(text):  # no letter: ignoring case finds the very same matches
            return self._with_note(list(exact.hits), exact, exact.counts)
        if len(exact.hits) >= limit and exact.complete:
            others = self._literal(
                text, case_sensitive=False, limit=0, known=exact.matched_ids, state=state, candidates=shared
            )
            counts = MatchCounts(
                matches=exact.total_matches + others.total_matches,
                files=others.files_matched,
                truncated=True,  # the other casings in the exact case's files are not counted
                files_unread=others.unread,
            )
            return self._with_note(list(exact.hits), others if others.note else exact, counts)
        if _other_casings_absent(text, exact, state, shared):
            # The case-insensitive pass would find the same matches at the same places: it would make no hit (they are
            # all shown) and count what the exact case counted. Its answer without it.
            return self._with_note(list(exact.hits), exact, exact.counts)
        # The exact case's matches keep their places in the case-insensitive ranking, but are not made hits again.
        loose = self._literal(
            text, case_sensitive=False, limit=limit, shown=exact.starts, state=state, candidates=shared
        )
        if not exact.hits and not loose.hits and not (exact.complete and loose.complete):
            raise RetrieverError(f"no match found, but the search was cut short: {loose.note or exact.note}")
        merged = list(exact.hits) + list(loose.hits)
        return self._with_note(merged[:limit], loose if loose.note else exact, loose.counts)

    @staticmethod
    def _with_note(hits: list[Hit], source: TextMatches, counts: MatchCounts) -> RankedHits:
        if source.note:
            for hit in hits:
                hit.detail["note"] = source.note
        return RankedHits(hits, counts)

    def find_literal(self, text: str, *, case_sensitive: bool = True, limit: int = DEFAULT_LIMIT) -> TextMatches:
        """Every occurrence of a literal string (it may span lines), ranked as text_results describes; the top `limit`
        read as far as ranking them needs."""
        if limit <= 0:
            _check_length("a literal", text)
            return _NO_MATCHES
        return self._literal(text, case_sensitive=case_sensitive, limit=limit)

    def _literal(
        self,
        text: str,
        *,
        case_sensitive: bool,
        limit: int,
        known: frozenset[int] = frozenset(),
        shown: Mapping[int, Set[int]] | None = None,
        state: _Snapshot | None = None,
        candidates: _Candidates | None = None,
    ) -> TextMatches:
        """find_literal; a `limit` of 0 only counts (see run_matcher), skipping the documents in `known`; no hits
        made of the matches in `shown`; over `state` (default: the current snapshot); `candidates`: the literal's
        case-sensitive candidates, already looked up (`_ascii_candidates`)."""
        _check_length("a literal", text)
        if not text:
            return _NO_MATCHES
        ignore_case = not case_sensitive
        query = all_of(string_trigrams(text, ignore_case=ignore_case))
        reason = ""
        if len(utf8(text)) < TRIGRAM_LEN:
            reason = f": a literal under {TRIGRAM_LEN} bytes has no trigram to narrow with"
        elif query.is_all:
            reason = ": the literal has no ASCII run of 3 characters to narrow a case-insensitive search with"
        matcher = LiteralMatcher(text, case_sensitive)
        return self._run(
            query,
            matcher,
            ignore_case=ignore_case,
            limit=limit,
            scan_cap=LITERAL_SCAN_MAX_CHARS,
            reason=reason,
            known=known,
            shown=shown,
            state=state,
            candidates=candidates,
        )

    def find_regex(self, pattern: str, *, case_sensitive: bool = True, limit: int = DEFAULT_LIMIT) -> TextMatches:
        """Matches of a Python regular expression, line by line (`^`/`$` are line ends; a match never spans lines).

        RetrieverError for an invalid pattern (the message names the position) or one prone to exponential time.
        """
        _check_length("a regular expression", pattern)
        if not pattern or limit <= 0:
            return _NO_MATCHES
        plan = plan_regex(pattern, case_sensitive=case_sensitive)
        reason = ": the pattern has no literal of 3 characters that every match must contain"
        required = self._state.trigrams.by_rarity(plan.query.trigrams) if plan.query.op == "and" else ()
        return self._run(
            plan.query,
            RegexMatcher(plan, required),
            ignore_case=plan.ignore_case,
            limit=limit,
            scan_cap=REGEX_SCAN_MAX_CHARS,
            reason=reason,
        )

    def find_identifier(self, name: str, *, limit: int = DEFAULT_LIMIT, scope: str = "") -> TextMatches:
        """Whole-word, case-sensitive occurrences of an identifier, definition-looking lines first (and files that
        hold `scope` before those that do not)."""
        _check_length("an identifier", name)
        if not name or limit <= 0:
            return _NO_MATCHES
        query = all_of(string_trigrams(name, ignore_case=False))
        reason = f": a name under {TRIGRAM_LEN} bytes has no trigram to narrow with"
        return self._run(
            query,
            IdentifierMatcher(name, scope),
            ignore_case=False,
            limit=limit,
            scan_cap=LITERAL_SCAN_MAX_CHARS,
            reason=reason,
        )

    def _find_name(self, target: str, intent: Intent, limit: int) -> TextMatches:
        """A name as an identifier. A qualified one (`Queue.qsize`) is written whole at some uses (`os.path.join`) but
        never at its definition (`def qsize`): a definition question, or a use question whose whole name occurs
        nowhere, searches the last part, files that hold the qualifier's last part first."""
        qualifier, _, name = target.rpartition(".")
        if not qualifier:
            return self.find_identifier(target, limit=limit)
        if intent is not Intent.FIND_DEFINITION:
            whole = self.find_identifier(target, limit=limit)
            if whole.hits or not whole.complete:
                return whole
        return self.find_identifier(name, limit=limit, scope=qualifier.rpartition(".")[2])

    def find_text(self, text: str, *, limit: int = DEFAULT_LIMIT) -> list[Hit]:
        """BM25 over chunks, each hit at the chunk's best-matching line (found when the hit is read: bm25_hits.py)."""
        return [LineOnDemandHit.of(scored) for scored in self._state.bm25.search(text, limit)]

    def find_similar(self, snippet: str, *, limit: int = DEFAULT_LIMIT) -> list[Hit]:
        """The chunks a pasted snippet most resembles, by BM25 over its code, each as a whole chunk (a pasted function
        is answered by a function, at its full span). Only chunks of the snippet's unit compete (function and method
        chunks for a function: query/snippet.py), unless none of them matches; and only those scoring at least
        SIMILAR_SCORE_SHARE of the best, so that the list holds the snippet's near-copies rather than a tail of
        chunks sharing a few of its words, which would rank beside the original in fusion."""
        code = snippet_code(snippet)
        kinds = snippet_kinds(code)
        bm25 = self._state.bm25
        scored = bm25.search(code, limit, accept=lambda chunk: chunk.kind in kinds) if kinds else []
        if not scored:
            scored = bm25.search(code, limit)
        if not scored:
            return []
        floor = scored[0].score * SIMILAR_SCORE_SHARE
        return [_chunk_hit(s) for s in scored if s.score >= floor]

    def _run(
        self,
        query: TrigramQuery,
        matcher: Matcher,
        *,
        ignore_case: bool,
        limit: int,
        scan_cap: int,
        reason: str,
        known: frozenset[int] = frozenset(),
        shown: Mapping[int, Set[int]] | None = None,
        state: _Snapshot | None = None,
        candidates: _Candidates | None = None,
    ) -> TextMatches:
        state = state or self._state
        if candidates is None:
            ids = state.trigrams.candidates(query, ignore_case=ignore_case)
        else:  # what `candidates` gives for the query: the case-sensitive ones, plus the folding files ignoring case
            ids = candidates[0]
            if ids is not None and ignore_case:
                ids = state.trigrams.with_folding(ids)
        if ids is not None and known:  # files already known to match are not read again: no view made for them
            ids = np.setdiff1d(ids, np.fromiter(known, dtype=np.uint32, count=len(known)), assume_unique=True)
        deadline = Deadline(VERIFY_TIME_BUDGET_S)
        views = candidate_views(state.trigrams, ids, state.paths, seed=limit)
        if ids is None:
            return run_matcher(
                views, matcher, limit, deadline, max_chars=scan_cap, scan_reason=reason, known=known, shown=shown
            )
        return run_matcher(views, matcher, limit, deadline, known=known, shown=shown)


# A literal's case-sensitive candidates (sorted global ids), looked up once for its passes; None inside: the index
# does not narrow.
_Candidates = tuple[U32 | None]


def _ascii_candidates(text: str, state: _Snapshot) -> _Candidates | None:
    """The case-sensitive candidates of an ASCII literal, for every pass of `_literal_exact_case_first`: its trigrams
    are the same ignoring case or not (trigrams are of lower-cased bytes), so the case-insensitive passes need only
    the files that fold onto ASCII letters added, not a second lookup. None for another literal (looked up per pass)."""
    if not text or len(text) > MAX_PATTERN_CHARS or not text.isascii():
        return None
    return (state.trigrams.candidates(all_of(string_trigrams(text, ignore_case=False)), ignore_case=False),)


def _other_casings_absent(text: str, exact: TextMatches, state: _Snapshot, candidates: _Candidates | None) -> bool:
    """Whether matching an ASCII literal regardless of case finds exactly the matches the exact case found, when these
    were all shown (fewer than the limit, counted completely): every candidate ignoring case holds as many matches
    as the exact case found there, for a needle whose occurrences cannot overlap (then the same count is the same
    places). Costs one count per candidate in its lower-cased copy, instead of the whole second pass; of the files
    that fold onto ASCII letters (candidates of every search ignoring case) only those whose folded copy holds the
    literal's trigrams are counted, the others cannot hold it."""
    if candidates is None or candidates[0] is None or not exact.complete or exact.counts.truncated:
        return False
    matcher = LiteralMatcher(text, case_sensitive=False)
    if matcher.overlaps_itself:
        return False
    ids = with_folding_holding(state.trigrams, candidates[0], all_of(string_trigrams(text, ignore_case=True)).trigrams)
    views = candidate_views(state.trigrams, ids, state.paths)
    return matcher.total_ignoring_case(views, exact.total_matches) == exact.total_matches


def _has_case(text: str) -> bool:
    """Whether ignoring case can match anything else than the text itself (an ASCII text without letters cannot)."""
    return not text.isascii() or any(char.isalpha() for char in text)


def _site_hit(site: MessageSite) -> Hit:
    snippet = site_snippet(site)
    symbol, kind = site_symbol(site)
    return Hit(
        path=site.doc.path,
        span=Span(site.line, 0, site.line, len(snippet)),
        score=site.score,
        symbol=symbol,
        kind=kind,
        snippet=snippet.strip(),
        detail={"match": "message", "recall": round(site.recall, 3), "named": site.named},
    )


def _chunk_hit(scored: ScoredChunk) -> Hit:
    """A BM25 hit spanning its whole chunk (a pasted snippet's answer), named by its qualified symbol."""
    chunk = scored.chunk
    lines = chunk.text.split("\n")
    symbol = f"{chunk.parent}.{chunk.symbol}" if chunk.parent and chunk.symbol else chunk.symbol
    head = chunk.signature or next((line.strip() for line in lines if line.strip()), "")
    return Hit(
        path=chunk.path,
        span=Span(chunk.start_line, 0, chunk.end_line, len(lines[-1].removesuffix("\r"))),
        score=scored.score,
        symbol=symbol,
        kind=chunk.kind,
        snippet=head,
        detail={"match": "bm25", "chunk": chunk.chunk_id, "terms": sorted(scored.term_idf)},
    )

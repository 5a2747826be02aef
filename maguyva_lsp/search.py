"""The search pipeline (SPEC §5): classify the query, take its plan from `query/routing.py`, ask the planned
modalities (in parallel when several), fuse their ranked lists, and say what ran, what was skipped and why.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol

from maguyva_lsp.config import DEFAULT_LIMIT, MAX_LIMIT
from maguyva_lsp.index.text_regex import plan_regex
from maguyva_lsp.model import MODALITIES, Hit, MatchCounts, Modality, PathClass, RankedHits, RetrievalQuery
from maguyva_lsp.parse.languages import is_document
from maguyva_lsp.query.intent import classify, classify_pattern
from maguyva_lsp.query.profiles import SOURCE_FIRST_INTENTS, WEIGHTS, preset_spec
from maguyva_lsp.query.routing import fallback_plan, plan_search
from maguyva_lsp.rank.fusion import FusedResult, fuse, rank_single
from maguyva_lsp.rank.response import SearchResponse, SearchResult
from maguyva_lsp.retrieve.base import Retriever, RetrieverError
from maguyva_lsp.scan.classify import is_example

log = logging.getLogger(__name__)

# Each modality is asked for this many candidates per requested result: dedup to one result per file shrinks lists.
CANDIDATES_PER_RESULT = 3
# For a question (SOURCE_FIRST_INTENTS) each modality is asked for more, since its hits in documents and tests move
# behind its code hits; then the lists are cut to their first `limit` hits: with k = 40 a hit fifty places down still
# earns half the contribution of a first place, and deep lists let a file that every list ranks mediocre outscore the
# file one list ranks first. The cut goes deeper only when the lists' first hits hold fewer than `limit` files
# between them, so that a search still answers with `limit` files when the lists have them. (Dev set
# understand_code: see notes/i13-rank.md.)
QUESTION_CANDIDATES_PER_RESULT = 6
# The most results one search returns; larger limits are clamped to it.
MAX_SEARCH_LIMIT = MAX_LIMIT
# A retriever that has not answered after this long is skipped (reported as timed out) rather than waited for.
RETRIEVER_TIMEOUT_S = 30.0


class SearchContext(Protocol):
    """What the pipeline needs to know of the workspace; the engine implements it."""

    def centrality(self, path: str, symbol: str | None) -> float:
        """The graph importance of a symbol (normalised so an average node has 1); 0 until a graph exists."""
        ...

    def path_class(self, path: str) -> PathClass: ...

    def chunk_key(self, path: str, line: int) -> str:
        """The id of the chunk holding a line, so hits of different modalities in one chunk agree."""
        ...

    def uri(self, path: str) -> str: ...

    def line_text(self, path: str, line: int) -> str:
        """One line of an indexed file ("" when unknown): the snippet of a hit that brought none (a call site)."""
        ...

    @property
    def indexing(self) -> bool:
        """True while an index is still being built: results may be partial."""
        ...


@dataclass(slots=True)
class _Outcome:
    lists: dict[Modality, list[Hit]]
    skipped: dict[Modality, str]
    partial: bool = False
    # What a retriever knows of its whole result set (the text retriever's exact searches: matches and files).
    counts: dict[Modality, MatchCounts] = field(default_factory=dict)

    def keep(self, modality: Modality, hits: list[Hit]) -> None:
        self.lists[modality] = list(hits)
        if isinstance(hits, RankedHits) and hits.counts is not None:
            self.counts[modality] = hits.counts


def clamp_limit(limit: int) -> int:
    """The limit within 1..MAX_SEARCH_LIMIT; a ValueError for anything but a whole number."""
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise ValueError(f"limit must be a whole number, got {limit!r}")
    return max(1, min(limit, MAX_SEARCH_LIMIT))


class SearchPipeline:
    """Runs searches over a fixed set of retrievers; owns a small thread pool, released by close()."""

    def __init__(
        self,
        retrievers: Mapping[Modality, Retriever],
        context: SearchContext,
        *,
        timeout_s: float = RETRIEVER_TIMEOUT_S,
    ) -> None:
        self._retrievers = dict(retrievers)
        self._context = context
        self._timeout_s = timeout_s
        self._executor = ThreadPoolExecutor(max_workers=len(MODALITIES), thread_name_prefix="maguyva-search")
        self._closed = False

    def close(self) -> None:
        """Stop the thread pool; searches after this raise RuntimeError."""
        self._closed = True
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> SearchPipeline:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def search(
        self,
        query: str,
        preset: str = "standard",
        limit: int = DEFAULT_LIMIT,
        explain: bool = False,
        *,
        case_sensitive: bool = False,
        regex: bool = False,
    ) -> SearchResponse:
        """Answer a query. ValueError for an unknown preset, an empty query or a limit that is not a number."""
        started = time.perf_counter()
        if self._closed:
            raise RuntimeError("the search pipeline is closed")
        spec = preset_spec(preset)
        limit = clamp_limit(limit)
        if not isinstance(query, str):
            raise ValueError(f"the query must be text, got {type(query).__name__}")
        if regex:
            _check_pattern(query, case_sensitive)
        classification = classify_pattern(query) if regex else classify(query)
        if not classification.query:
            raise ValueError("the query is empty")
        request = RetrievalQuery(classification, case_sensitive=case_sensitive, regex=regex)
        plan = plan_search(classification, spec)
        question = classification.intent in SOURCE_FIRST_INTENTS
        candidates = limit * (QUESTION_CANDIDATES_PER_RESULT if question else CANDIDATES_PER_RESULT)
        outcome = self._run(plan.modalities, request, candidates)
        notes: list[str] = []
        if plan.single and not any(outcome.lists.values()):
            # The single planned modality could not answer, or found nothing: the fused fallback answers instead.
            missed = ", ".join(plan.modalities)
            plan = fallback_plan(classification, plan, outcome.skipped)
            verdict = "found nothing" if outcome.lists else "could not answer"
            notes.append(f"{missed} {verdict}; fell back to fused search over {', '.join(plan.modalities) or 'none'}")
            more = self._run(plan.modalities, request, candidates)
            outcome = _Outcome(
                more.lists,
                {**outcome.skipped, **more.skipped},
                outcome.partial or more.partial,
                {**outcome.counts, **more.counts},
            )
        weights = WEIGHTS[classification.intent]
        if question:
            ordered = {m: self._source_first(hits) for m, hits in outcome.lists.items()}
            depth = question_depth(ordered.values(), limit)
            outcome.lists.update({m: hits[:depth] for m, hits in ordered.items()})
        if plan.strategy == "rrf":
            fused = fuse(
                outcome.lists,
                weights,
                plan.rrf_k,
                key_of=self._key_of,
                centrality_of=self._centrality_of,
                path_class_of=self._context.path_class,
            )
        else:
            (modality,) = plan.modalities
            fused = rank_single(
                outcome.lists.get(modality, []),
                _single_weight(weights, modality),
                plan.rrf_k,
                modality=modality,
                centrality_of=self._centrality_of,
                path_class_of=self._context.path_class,
                # A single list's centrality changes no score: only `explain` shows it, so only then is it looked up
                # (20 graph lookups were a tenth of a rare literal's answer).
                limit=limit if explain else 0,
            )
        results = tuple(self._result(r) for r in fused[:limit])
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        log.debug(
            "%r → %s %s over %s in %.1f ms", query, classification.rule, plan.strategy, plan.modalities, elapsed_ms
        )
        return SearchResponse(
            classification=classification,
            fusion_strategy=plan.strategy,
            modalities=tuple(m for m in plan.modalities if m in outcome.lists),
            results=results,
            elapsed_ms=elapsed_ms,
            preset=spec.name,
            modalities_skipped=outcome.skipped,
            partial=outcome.partial or bool(self._context.indexing),
            notes=tuple(notes),
            weights={m: weights[m] for m in plan.modalities},
            rrf_k=plan.rrf_k,
            explain=explain,
            text_matches=outcome.counts.get("text"),
        )

    def _source_first(self, hits: list[Hit]) -> list[Hit]:
        """The list's hits in code, then those in documents (prose, configuration, data: parse/languages.py) and in
        example programs (scan/classify.py `is_example`), then those in tests, each part in the retriever's order (the
        sort is stable)."""
        return sorted(hits, key=lambda h: (self._context.path_class(h.path) is PathClass.TEST, _aside(h.path)))

    def _key_of(self, hit: Hit) -> str:
        return self._context.chunk_key(hit.path, hit.chunk_line)

    def _centrality_of(self, hit: Hit) -> float:
        return self._context.centrality(hit.path, hit.symbol)

    def _result(self, fused: FusedResult) -> SearchResult:
        hit = fused.hit
        return SearchResult(
            path=hit.path,
            uri=self._context.uri(hit.path),
            span=hit.span,
            symbol=hit.symbol,
            kind=hit.kind,
            score=fused.score,
            snippet=hit.snippet or self._context.line_text(hit.path, hit.span.start_line).strip(),
            modalities=fused.modalities,
            centrality=fused.centrality,
            boost=fused.boost,
            demotion=fused.demotion,
            path_class=fused.path_class,
        )

    def _available(self, modalities: tuple[Modality, ...], outcome: _Outcome) -> list[tuple[Modality, Retriever]]:
        """The planned retrievers that say they can answer now; the others are recorded as skipped with a reason."""
        ready: list[tuple[Modality, Retriever]] = []
        for modality in modalities:
            retriever = self._retrievers.get(modality)
            if retriever is None:
                outcome.skipped[modality] = "no retriever for this modality"
                continue
            try:
                status = retriever.status()
            except Exception as exc:
                log.exception("status of the %s retriever failed", modality)
                outcome.skipped[modality] = f"status failed: {type(exc).__name__}: {exc}"
                continue
            if not status.available:
                outcome.skipped[modality] = status.reason or "unavailable"
                continue
            outcome.partial = outcome.partial or status.partial
            ready.append((modality, retriever))
        return ready

    def _run(self, modalities: tuple[Modality, ...], request: RetrievalQuery, candidates: int) -> _Outcome:
        """Ask each available modality for its ranked list: inline when one, in parallel on the pool when several."""
        outcome = _Outcome({}, {})
        ready = self._available(modalities, outcome)
        if len(ready) == 1:
            modality, retriever = ready[0]
            try:
                outcome.keep(modality, retriever.search(request, candidates))
            except Exception as exc:
                outcome.skipped[modality] = _failure_reason(modality, exc)
            return outcome
        futures: dict[Modality, Future[list[Hit]]] = {
            modality: self._executor.submit(retriever.search, request, candidates) for modality, retriever in ready
        }
        wait(futures.values(), timeout=self._timeout_s)
        for modality, future in futures.items():
            if not future.done():
                future.cancel()
                outcome.skipped[modality] = f"timed out after {self._timeout_s:g} s"
                continue
            error = future.exception()
            if error is not None:
                outcome.skipped[modality] = _failure_reason(modality, error)
            else:
                outcome.keep(modality, future.result())
        return outcome


def _aside(path: str) -> bool:
    """A file a question reads after the code: a document or an example program."""
    return is_document(path) or is_example(path)


def question_depth(lists: Iterable[Sequence[Hit]], limit: int) -> int:
    """How many first hits of each list a question keeps: `limit`, or more until those hits hold `limit` distinct files
    between them (or the lists end)."""
    ranked = list(lists)
    longest = max((len(hits) for hits in ranked), default=0)
    files = {hit.path for hits in ranked for hit in hits[:limit]}
    depth = limit
    while depth < longest and len(files) < limit:
        files.update(hits[depth].path for hits in ranked if depth < len(hits))
        depth += 1
    return depth


def _failure_reason(modality: Modality, exc: BaseException) -> str:
    """The reason shown for a retriever that raised: its own message for a RetrieverError, else the error named."""
    if isinstance(exc, RetrieverError):
        return str(exc) or "the retriever rejected the query"
    log.error("the %s retriever failed", modality, exc_info=exc)
    return f"failed: {type(exc).__name__}: {exc}"


def _check_pattern(pattern: str, case_sensitive: bool) -> None:
    """An explicit regular expression that is invalid or dangerous is the user's error, said plainly (ValueError)."""
    try:
        plan_regex(pattern.strip(), case_sensitive=case_sensitive)
    except RetrieverError as exc:
        raise ValueError(str(exc)) from exc


def _single_weight(weights: Mapping[Modality, float], modality: Modality) -> float:
    """The weight of a single-retriever route's modality; `quick` on a profile that gives semantic no weight runs
    another modality in its place, which then scores with its own weight."""
    return weights[modality] if weights[modality] > 0 else 1.0

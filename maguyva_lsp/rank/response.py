"""The answer of one search and its JSON: SPEC §8's `maguyva/search` result, shared by the CLI's --json and the server.

Beyond SPEC's fields it always carries `rule`, `modalities_skipped` ([{modality, reason}]) and `partial`, `notes`
saying what the search did instead of its plan (a fallback), and `text_matches` (how many matches and files an exact
text search found in all, and whether counting stopped early; null when none ran); `explain` adds per-result and
per-search detail.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from maguyva_lsp.model import Classification, MatchCounts, Modality, PathClass, Span
from maguyva_lsp.query.routing import FusionStrategy
from maguyva_lsp.rank.fusion import ModalityRank

# Milliseconds are reported to the microsecond: finer digits are noise.
ELAPSED_MS_DIGITS = 3


def lsp_range(span: Span) -> dict[str, dict[str, int]]:
    """An LSP Range (0-based lines, code-point characters) from a span."""
    return {
        "start": {"line": span.start_line, "character": span.start_col},
        "end": {"line": span.end_line, "character": span.end_col},
    }


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One ranked result: where it is, what it is, its fused score and what each modality said of it."""

    path: str
    uri: str
    span: Span
    symbol: str | None
    kind: str | None
    score: float
    snippet: str
    modalities: Mapping[Modality, ModalityRank]
    centrality: float = 0.0
    boost: float = 1.0
    demotion: float = 1.0
    path_class: PathClass = PathClass.SOURCE

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "uri": self.uri,
            "range": lsp_range(self.span),
            "symbol": self.symbol,
            "kind": self.kind,
            "score": self.score,
            "snippet": self.snippet,
            "modalities": {
                name: {"rank": mr.rank, "contribution": mr.contribution} for name, mr in self.modalities.items()
            },
        }
        if explain:
            out["path"] = self.path
            out["explain"] = {
                "centrality": self.centrality,
                "boost": self.boost,
                "demotion": self.demotion,
                "path_class": self.path_class.value,
            }
        return out


@dataclass(frozen=True, slots=True)
class SearchResponse:
    """The whole answer: the classification, the strategy, which modalities ran or were skipped, and the results."""

    classification: Classification
    fusion_strategy: FusionStrategy
    modalities: tuple[Modality, ...]
    results: tuple[SearchResult, ...]
    elapsed_ms: float
    preset: str = "standard"
    modalities_skipped: Mapping[Modality, str] = field(default_factory=dict)
    partial: bool = False
    notes: tuple[str, ...] = ()
    weights: Mapping[Modality, float] = field(default_factory=dict)
    rrf_k: int | None = None
    explain: bool = False
    # How many matches and files an exact text search found in all (None: no exact text search ran).
    text_matches: MatchCounts | None = None

    @property
    def intent(self) -> str:
        return self.classification.intent.value

    def map_spans(self, fn: Callable[[str, Span], Span]) -> SearchResponse:
        """The same answer with each result's span through `fn(uri, span)` (a client's column units)."""
        moved = tuple(
            r if (span := fn(r.uri, r.span)) is r.span else dataclasses.replace(r, span=span) for r in self.results
        )
        return dataclasses.replace(self, results=moved)

    def text_matches_json(self) -> dict[str, Any] | None:
        """The text search's counts, and how many of its files no result shows (`files_not_shown`: the files that
        hold more matches than the answer lists)."""
        counts = self.text_matches
        if counts is None:
            return None
        shown = len({r.path for r in self.results if "text" in r.modalities})
        return {
            "matches": counts.matches,
            "files": counts.files,
            "truncated": counts.truncated,
            "files_not_shown": max(counts.files - shown, 0),
            "files_unread": counts.files_unread,
        }

    def to_json(self) -> dict[str, Any]:
        """The `maguyva/search` result object, ready for json.dumps."""
        c = self.classification
        out: dict[str, Any] = {
            "intent": c.intent.value,
            "confidence": c.confidence,
            "target": c.target,
            "rule": c.rule,
            "fusion_strategy": self.fusion_strategy,
            "modalities": list(self.modalities),
            "modalities_skipped": [{"modality": m, "reason": why} for m, why in self.modalities_skipped.items()],
            "partial": self.partial,
            "notes": list(self.notes),
            "results": [r.to_json(self.explain) for r in self.results],
            "text_matches": self.text_matches_json(),
            "elapsed_ms": round(self.elapsed_ms, ELAPSED_MS_DIGITS),
        }
        if self.explain:
            out["explain"] = {
                "query": c.query,
                "literal": c.literal,
                "preset": self.preset,
                "weights": dict(self.weights),
                "rrf_k": self.rrf_k,
            }
        return out

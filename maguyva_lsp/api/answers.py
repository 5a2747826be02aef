"""The typed answers of every door, each with one `to_json` (SPEC §8's objects; LSP ranges, 0-based, code-point
columns until `map_spans` puts them in a client's units). The search answer is `rank/response.py`'s SearchResponse.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from maguyva_lsp.model import Span
from maguyva_lsp.rank.response import SearchResponse, lsp_range
from maguyva_lsp.scan.skips import EXAMPLES_PER_REASON

# (uri, span) → the same span in the client's column units.
SpanMap = Callable[[str, Span], Span]
# Totals of a status answer, summed over the folders.
STATUS_TOTALS: tuple[str, ...] = ("files", "chunks", "symbols", "edges", "nodes", "skipped")


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a workspace file: its URI, its root-relative path and a span."""

    uri: str
    path: str
    span: Span

    def to_json(self) -> dict[str, Any]:
        """An LSP Location."""
        return {"uri": self.uri, "range": lsp_range(self.span)}


@dataclass(frozen=True, slots=True)
class LocationsAnswer:
    """Definitions or references: locations in the order the engine ranks them, and a note when there are none."""

    locations: tuple[Location, ...]
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"locations": [loc.to_json() for loc in self.locations], **({"note": self.note} if self.note else {})}

    def map_spans(self, fn: SpanMap) -> LocationsAnswer:
        moved = tuple(dataclasses.replace(loc, span=fn(loc.uri, loc.span)) for loc in self.locations)
        return dataclasses.replace(self, locations=moved)


@dataclass(frozen=True, slots=True)
class ImpactedItem:
    """One dependent of the changed symbol: where it is, what it is, how far and through which symbols."""

    uri: str
    path: str
    span: Span
    symbol: str
    kind: str
    depth: int
    via: tuple[str, ...]  # display names, from the changed symbol to this one
    centrality: float

    def to_json(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "range": lsp_range(self.span),
            "symbol": self.symbol,
            "kind": self.kind,
            "depth": self.depth,
            "path": list(self.via),
            "centrality": round(self.centrality, 4),
        }


@dataclass(frozen=True, slots=True)
class ImpactAnswer:
    """`maguyva/impact`: the symbol the request named (None when none is known) and what depends on it."""

    symbol: str | None
    impacted: tuple[ImpactedItem, ...]
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "symbol": self.symbol,
            **({"note": self.note} if self.note else {}),
            "impacted": [item.to_json() for item in self.impacted],
        }

    def map_spans(self, fn: SpanMap) -> ImpactAnswer:
        moved = tuple(dataclasses.replace(i, span=fn(i.uri, i.span)) for i in self.impacted)
        return dataclasses.replace(self, impacted=moved)


@dataclass(frozen=True, slots=True)
class SymbolItem:
    """A definition matching a workspace-symbol query, with the symbol table's score."""

    name: str
    kind: str
    uri: str
    path: str
    span: Span  # the name's span
    container: str | None
    score: float

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "location": {"uri": self.uri, "range": lsp_range(self.span)},
            "containerName": self.container,
        }


@dataclass(frozen=True, slots=True)
class SymbolsAnswer:
    """`workspace/symbol`: matching definitions, best first."""

    symbols: tuple[SymbolItem, ...]

    def to_json(self) -> dict[str, Any]:
        return {"symbols": [s.to_json() for s in self.symbols]}

    def map_spans(self, fn: SpanMap) -> SymbolsAnswer:
        return SymbolsAnswer(tuple(dataclasses.replace(s, span=fn(s.uri, s.span)) for s in self.symbols))


@dataclass(frozen=True, slots=True)
class StatusAnswer:
    """`maguyva/status`: whether anything is still indexing, totals (skips by reason too), and each folder's own
    status object."""

    indexing: bool
    folders: tuple[Mapping[str, Any], ...]
    last_error: Mapping[str, Any] | None = None  # the latest background failure (failures.py), if any

    def to_json(self) -> dict[str, Any]:
        totals = {key: sum(int(f.get(key, 0)) for f in self.folders) for key in STATUS_TOTALS}
        return {
            "indexing": self.indexing,
            **totals,
            "skips": total_skips(self.folders),
            "embedder": self.folders[0].get("embedder") if self.folders else None,
            "folders": [dict(f) for f in self.folders],
            "last_error": dict(self.last_error) if self.last_error else None,
        }

    def map_spans(self, fn: SpanMap) -> StatusAnswer:
        return self


def total_skips(folders: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The folders' `skips` totalled by reason (count, whether it is a problem, a few examples; with several folders
    each example is prefixed by its folder's name), most frequent reason first."""
    several = len(folders) > 1
    total: dict[str, dict[str, Any]] = {}
    for folder in folders:
        prefix = f"{PurePath(str(folder.get('root', ''))).name}/" if several else ""
        for reason, info in dict(folder.get("skips") or {}).items():
            into = total.setdefault(reason, {"count": 0, "problem": bool(info.get("problem")), "examples": []})
            into["count"] += int(info.get("count", 0))
            room = EXAMPLES_PER_REASON - len(into["examples"])
            into["examples"].extend(f"{prefix}{e}" for e in list(info.get("examples", []))[:room])
    return dict(sorted(total.items(), key=lambda item: (-item[1]["count"], item[0])))


@dataclass(frozen=True, slots=True)
class ReindexAnswer:
    """The re-index command: how many folders are being brought up to date."""

    scheduled: int

    def to_json(self) -> dict[str, Any]:
        return {"scheduled": self.scheduled}

    def map_spans(self, fn: SpanMap) -> ReindexAnswer:
        return self


Answer = SearchResponse | ImpactAnswer | LocationsAnswer | SymbolsAnswer | StatusAnswer | ReindexAnswer

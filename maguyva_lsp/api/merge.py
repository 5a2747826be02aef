"""Answers of several workspace folders merged into one, on typed values: results by score, dependents by depth."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from maguyva_lsp.api.answers import ImpactAnswer, LocationsAnswer, SymbolsAnswer
from maguyva_lsp.model import MatchCounts, Modality
from maguyva_lsp.rank.response import SearchResponse


def merge_search(responses: Sequence[SearchResponse], limit: int) -> SearchResponse:
    """One search answer: every folder's results by fused score (the best `limit`), what ran or was skipped in any,
    partial if any is, the text matches of all, the time of all."""
    first = responses[0]
    if len(responses) == 1:
        return first
    results = sorted((r for response in responses for r in response.results), key=lambda r: -r.score)
    skipped: dict[Modality, str] = {}
    for response in responses:
        for modality, reason in response.modalities_skipped.items():
            skipped.setdefault(modality, reason)
    ran = dict.fromkeys(m for response in responses for m in response.modalities)
    counted = [r.text_matches for r in responses if r.text_matches is not None]
    return dataclasses.replace(
        first,
        modalities=tuple(ran),
        results=tuple(results[:limit]),
        elapsed_ms=sum(r.elapsed_ms for r in responses),
        modalities_skipped=skipped,
        partial=any(r.partial for r in responses),
        notes=tuple(dict.fromkeys(n for r in responses for n in r.notes)),
        text_matches=functools.reduce(MatchCounts.plus, counted) if counted else None,
    )


def merge_impact(answers: Sequence[ImpactAnswer]) -> ImpactAnswer:
    """The folders that know the symbol, their dependents together (nearest first); the first note."""
    known = [a for a in answers if a.symbol is not None]
    if not known:
        return answers[0]
    impacted = sorted((i for a in known for i in a.impacted), key=lambda i: i.depth)
    note = next((a.note for a in known if a.note), None)
    return ImpactAnswer(known[0].symbol, tuple(impacted), note)


def merge_locations(answers: Sequence[LocationsAnswer]) -> LocationsAnswer:
    """Every folder's locations, in folder order, each once; a note only when none was found."""
    locations = tuple(dict.fromkeys(loc for a in answers for loc in a.locations))
    note = None if locations else next((a.note for a in answers if a.note), None)
    return LocationsAnswer(locations, note)


def merge_symbols(answers: Sequence[SymbolsAnswer], limit: int) -> SymbolsAnswer:
    """The best `limit` symbols of all folders by the symbol table's score."""
    ranked = sorted((s for a in answers for s in a.symbols), key=lambda s: -s.score)
    return SymbolsAnswer(tuple(ranked[:limit]))

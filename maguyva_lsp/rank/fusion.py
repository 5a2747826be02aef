"""Weighted Reciprocal Rank Fusion (SPEC §6) as pure functions: per-modality contributions, the centrality boost,
demotion of vendor/build/archive paths, and dedup to the best chunk per file.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from maguyva_lsp.model import MODALITIES, Hit, Modality, PathClass

# SPEC §6: boost = min(1 + BOOST_SLOPE × ln(1 + centrality), BOOST_CAP).
BOOST_SLOPE = 0.3
BOOST_CAP = 1.5
# Results in vendored, built or archived code keep half their fused score: still found, rarely first. The scanner
# decides the class; BUILD also covers minified and generated files.
DEMOTION_FACTOR = 0.5
DEMOTED_PATH_CLASSES: frozenset[PathClass] = frozenset({PathClass.VENDOR, PathClass.BUILD, PathClass.ARCHIVE})


@dataclass(frozen=True, slots=True)
class ModalityRank:
    """A result's 0-based rank in one modality's list and the RRF contribution that rank earned (before the boost)."""

    rank: int
    contribution: float


@dataclass(frozen=True, slots=True)
class FusedResult:
    """One fused result: its agreement key, the hit that represents it, its score and how the score was made."""

    key: str
    hit: Hit
    score: float
    modalities: Mapping[Modality, ModalityRank]
    centrality: float
    boost: float
    demotion: float
    path_class: PathClass


def rrf_contribution(weight: float, k: int, rank: int) -> float:
    """weight / (k + rank + 1): weighted Reciprocal Rank Fusion (Cormack, Clarke & Büttcher 2009), 0-based rank."""
    return weight / (k + rank + 1)


def centrality_boost(centrality: float) -> float:
    """min(1 + 0.3 × ln(1 + centrality), 1.5); a negative or NaN centrality counts as 0."""
    if math.isnan(centrality) or centrality <= 0:
        return 1.0
    return min(1.0 + BOOST_SLOPE * math.log1p(centrality), BOOST_CAP)


def demotion(path_class: PathClass) -> float:
    """DEMOTION_FACTOR (0.5) for vendor, build and archive paths, else 1."""
    return DEMOTION_FACTOR if path_class in DEMOTED_PATH_CLASSES else 1.0


def default_key(hit: Hit) -> str:
    """The agreement key when no chunk is known: the path and the 0-based start line."""
    return f"{hit.path}:{hit.span.start_line}"


def best_per_file(results: Sequence[FusedResult]) -> list[FusedResult]:
    """Keep, in order, the first (best) result of each file from results sorted best first."""
    seen: set[str] = set()
    kept: list[FusedResult] = []
    for result in results:
        if result.hit.path not in seen:
            seen.add(result.hit.path)
            kept.append(result)
    return kept


def _representative(hits: Mapping[Modality, Hit], ranks: Mapping[Modality, ModalityRank]) -> Hit:
    """The hit of the modality that contributed most (ties in MODALITIES order), with a symbol, kind and snippet
    borrowed from the other modalities' hits when it has none of its own."""
    best = max((m for m in MODALITIES if m in ranks), key=lambda m: (ranks[m].contribution, -MODALITIES.index(m)))
    hit = hits[best]
    donors = [hits[m] for m in MODALITIES if m != best and m in hits]
    if not donors or (hit.symbol is not None and hit.kind is not None and hit.snippet):
        return hit
    symbol = hit.symbol if hit.symbol is not None else next((d.symbol for d in donors if d.symbol is not None), None)
    kind = hit.kind if hit.kind is not None else next((d.kind for d in donors if d.kind is not None), None)
    snippet = hit.snippet or next((d.snippet for d in donors if d.snippet), "")
    # A copy, never a change to a retriever's own hit.
    return dataclasses.replace(hit, symbol=symbol, kind=kind, snippet=snippet)


def _zero_centrality(hit: Hit) -> float:
    return 0.0


def _source_class(path: str) -> PathClass:
    return PathClass.SOURCE


def fuse(
    ranked_lists: Mapping[Modality, Sequence[Hit]],
    weights: Mapping[Modality, float],
    k: int,
    *,
    key_of: Callable[[Hit], str] = default_key,
    centrality_of: Callable[[Hit], float] = _zero_centrality,
    path_class_of: Callable[[str], PathClass] = _source_class,
) -> list[FusedResult]:
    """score(key) = Σ_m weight_m / (k + rank_m + 1) × boost × demotion, best first, deduplicated to one per file.

    A key's rank in a modality is the position of its first hit in that modality's list; later hits of the same key
    in the same list add nothing. A modality without a positive weight contributes nothing and adds no result.
    Ties are broken by path, line and key so that the order is deterministic.
    """
    ranks: dict[str, dict[Modality, ModalityRank]] = {}
    hits: dict[str, dict[Modality, Hit]] = {}
    for modality in MODALITIES:
        weight = weights.get(modality, 0.0)
        if weight <= 0 or modality not in ranked_lists:
            continue
        for rank, hit in enumerate(ranked_lists[modality]):
            key = key_of(hit)
            per_key = ranks.setdefault(key, {})
            if modality in per_key:
                continue
            per_key[modality] = ModalityRank(rank, rrf_contribution(weight, k, rank))
            hits.setdefault(key, {})[modality] = hit

    fused: list[FusedResult] = []
    for key, by_modality in ranks.items():
        hit = _representative(hits[key], by_modality)
        centrality = centrality_of(hit)
        boost = centrality_boost(centrality)
        path_class = path_class_of(hit.path)
        factor = demotion(path_class)
        total = sum(r.contribution for r in by_modality.values())
        fused.append(FusedResult(key, hit, total * boost * factor, by_modality, centrality, boost, factor, path_class))
    return best_per_file(_ordered(fused))


def _ordered(fused: list[FusedResult]) -> list[FusedResult]:
    """Best first, ties by path, line and key: sorted by score and path, then each run of equal score and path by
    line and key (the same order as one sort on all four, but a hit's line is read only where it breaks a tie: a text
    hit's line costs a pass over its chunk)."""
    fused.sort(key=lambda r: (-r.score, r.hit.path))
    start = 0
    while start < len(fused):
        end = start + 1
        while end < len(fused) and (fused[end].score, fused[end].hit.path) == (
            fused[start].score,
            fused[start].hit.path,
        ):
            end += 1
        if end - start > 1:
            fused[start:end] = sorted(fused[start:end], key=lambda r: (r.hit.span.start_line, r.key))
        start = end
    return fused


def rank_single(
    hits: Sequence[Hit],
    weight: float,
    k: int,
    *,
    modality: Modality,
    centrality_of: Callable[[Hit], float] = _zero_centrality,
    path_class_of: Callable[[str], PathClass] = _source_class,
    limit: int | None = None,
) -> list[FusedResult]:
    """The single-retriever routes (direct, semantic-only: SPEC §5, fusion skipped): the retriever's own order and
    all its hits are kept — each scored weight / (k + rank + 1) × demotion, with no centrality boost and no per-file
    dedup, since those exist to merge several lists. Only a repeated location (same path and line) is dropped.

    The centrality is still looked up, for `explain`: of the first `limit` results (None: all), the ones an answer
    shows (it changes no score, and a literal's hits past the answer's end would each cost a graph lookup)."""
    seen: set[tuple[str, int]] = set()
    scored: list[tuple[float, Hit, ModalityRank, float, PathClass]] = []
    for rank, hit in enumerate(hits):
        where = (hit.path, hit.span.start_line)
        if where in seen:
            continue
        seen.add(where)
        part = ModalityRank(rank, rrf_contribution(weight, k, rank))
        path_class = path_class_of(hit.path)
        factor = demotion(path_class)
        scored.append((part.contribution * factor, hit, part, factor, path_class))
    scored.sort(key=lambda r: -r[0])  # stable: demotion moves vendored hits down, nothing else reorders
    shown = len(scored) if limit is None else limit
    return [
        FusedResult(
            default_key(hit),
            hit,
            score,
            {modality: part},
            centrality_of(hit) if place < shown else 0.0,
            1.0,
            factor,
            path_class,
        )
        for place, (score, hit, part, factor, path_class) in enumerate(scored)
    ]

"""A stored file's references resolved straight from its columns into use columns, for a cold build's workers.

`resolve_references` makes a Reference per row and an EdgeSite per use, and the segment builder then turns those
back into columns. Here the rows are grouped by what resolution reads of them (name, kind, receiver, enclosing
definition, module, alias: ids of the stored pool, compared as ints), each distinct one is resolved once, in the
order of its first row, and the uses are spread back to the rows with numpy. The columns are the very ones the
builder would encode from `resolve_references`: the same uses in the same order, the same weights, and the strings
interned in the same order (a string is first interned at the first row of the group that yields it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from maguyva_lsp.graph.inputs import ReferenceRows
from maguyva_lsp.graph.model import EDGE_KIND_OF, EDGE_KINDS, RESOLUTIONS
from maguyva_lsp.graph.records import FileRecord
from maguyva_lsp.graph.resolve import FileResolver, GraphIndex
from maguyva_lsp.graph.segment import COLUMNS, SegmentBuilder
from maguyva_lsp.model import ReferenceKind

Array = npt.NDArray[Any]
_EDGE_CODE = {kind: code for code, kind in enumerate(EDGE_KINDS)}
_RESOLUTION_CODE = {resolution: code for code, resolution in enumerate(RESOLUTIONS)}


def resolve_rows(
    index: GraphIndex, record: FileRecord, rows: ReferenceRows, file_row: int, builder: SegmentBuilder
) -> dict[str, Array]:
    """The sites.* and deps.* columns of one file (its row `file_row`): its references resolved against `index`
    (only uses whose target is a node of the index are kept, as `build._resolve` keeps them). `record` may lack its
    own uses (only its names, bindings and bases are read). Strings are interned in `builder`'s table."""
    strings = builder.strings
    count = len(rows)
    pool = rows.pool
    kinds = [_kind(k) for k in rows.kind_names]
    # Groups of equal rows, numbered in the order of their first rows (the order the rows would be resolved in): a
    # dict over the rows' id tuples keeps that order as it numbers them.
    columns6 = [
        np.asarray(c).reshape(count).tolist()
        for c in (rows.names, rows.kinds, rows.receivers, rows.enclosing, rows.modules, rows.aliases)
    ]
    groups: dict[tuple[int, ...], int] = {}
    group_of = np.array([groups.setdefault(key, len(groups)) for key in zip(*columns6, strict=True)], dtype=np.int64)
    resolver = FileResolver(index, record)
    nodes = index.nodes
    # Most targets are nodes the pass already holds (a dict hit in C); the lookup proper only for the others.
    preset: dict[str, object] = nodes if isinstance(nodes, dict) else {}
    holds = dict.__contains__
    intern = strings.intern
    sources: list[int] = []  # per group: the source's string id (-1: no uses)
    uses_of: list[int] = []  # per group: its uses
    targets: list[int] = []  # every group's targets, one after the other
    resolutions: list[int] = []
    weights: list[float] = []
    spans = np.asarray(rows.spans).reshape(count, 4)
    query = _Query()
    for name, kind, receiver, enclosing, module, alias in groups:
        # The groups are distinct (all but the span): each is resolved once, without the answer cache. Resolution
        # reads only these fields, and keeps nothing of the query: one object refilled for every group.
        query.name = str(pool[name])
        query.kind = kinds[kind]
        query.enclosing = pool[enclosing]
        query.receiver = pool[receiver]
        query.module = pool[module]
        query.alias = pool[alias]
        answer = resolver.resolve(query)
        if answer is None:
            uses_of.append(0)
            sources.append(-1)
            continue
        kept = [t for t in answer[1] if holds(preset, t.node_id) or t.node_id in nodes]
        uses_of.append(len(kept))
        if not kept:
            sources.append(-1)
            continue
        sources.append(intern(answer[0]))
        for target in kept:
            targets.append(intern(target.node_id))
            resolutions.append(_RESOLUTION_CODE[target.resolution])
            weights.append(target.weight)
    per_row = np.asarray(uses_of, dtype=np.int64)[group_of]
    row_of_use = np.repeat(np.arange(count, dtype=np.int64), per_row)
    group_starts = np.cumsum(uses_of, dtype=np.int64) - np.asarray(uses_of, dtype=np.int64)
    row_starts = np.cumsum(per_row) - per_row
    within = np.arange(len(row_of_use), dtype=np.int64) - np.repeat(row_starts, per_row)
    flat = group_starts[group_of[row_of_use]] + within
    edge_codes = np.array([_EDGE_CODE[EDGE_KIND_OF[k]] for k in kinds], dtype=np.int64)
    packed = strings.deps(resolver.deps)
    packed.sort()
    columns: dict[str, Array] = {
        "sites.source": np.asarray(sources, dtype=np.int64)[group_of[row_of_use]],
        "sites.target": np.asarray(targets, dtype=np.int64)[flat],
        "sites.kind": edge_codes[np.asarray(rows.kinds, dtype=np.int64)[row_of_use]],
        "sites.span": spans[row_of_use],
        "sites.resolution": np.asarray(resolutions, dtype=np.int64)[flat],
        "sites.weight": np.asarray(weights, dtype=np.float64)[flat],
        "sites.file": np.full(len(row_of_use), file_row, dtype=np.int64),
        "deps.key": np.asarray(packed, dtype=np.int64),
        "deps.file": np.full(len(packed), file_row, dtype=np.int64),
    }
    return {name: column.astype(COLUMNS[name][0], copy=False) for name, column in columns.items()}


class _Query:
    """The fields resolution reads of a reference (resolve.ReferenceFields), refilled for each group of rows: a
    Reference per group (a frozen dataclass, its fields set one by one through object.__setattr__) cost ~6 % of a
    share's CPU."""

    __slots__ = ("alias", "enclosing", "kind", "module", "name", "receiver")

    def __init__(self) -> None:
        self.name = ""
        self.kind: ReferenceKind = "reference"
        self.enclosing: str | None = None
        self.receiver: str | None = None
        self.module: str | None = None
        self.alias: str | None = None


def _kind(name: str) -> ReferenceKind:
    if name not in EDGE_KIND_OF:
        raise ValueError(f"unknown reference kind {name!r} in the stored columns")
    return name

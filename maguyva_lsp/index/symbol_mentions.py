"""Mentions of names (calls, base classes, plain uses, imports) over every segment of a snapshot, best first: calls,
then base classes, uses and imports; source before tests; then path and position.

Each segment's symbol part lists a name's single-line references already in that order, so a query reads at most
`limit` live ones per segment and name before the final merge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from maguyva_lsp.index.analysis_columns import PATH_CLASSES
from maguyva_lsp.index.postings import I64
from maguyva_lsp.index.symbol_entry import MENTION_KINDS, path_class_rank
from maguyva_lsp.index.symbol_segment import Live


@dataclass(frozen=True, slots=True)
class Mention:
    """One use of a name, with the qualified name of the definition it sits in (None: module level)."""

    name: str
    kind: str  # one of MENTION_KINDS
    path: str
    line: int
    col: int
    end_col: int
    enclosing: str | None


def _first_live(live: Live, lo: int, hi: int, limit: int) -> I64:
    """The first `limit` mention rows of [lo, hi) whose file is alive."""
    if live.defs is None:
        return np.arange(lo, min(hi, lo + limit), dtype=np.int64)
    alive = live.files[live.segment.mention_files(slice(lo, hi))]
    return np.flatnonzero(alive)[:limit] + lo


def mentions_of(lives: Sequence[Live], names: Sequence[str], limit: int) -> list[Mention]:
    """The best `limit` mentions of any of the names (as written), over all segments."""
    ranked = []
    for live in lives:
        seg = live.segment
        spans = np.asarray(seg.core.arrays["ref.span"])
        classes = np.asarray(seg.core.arrays["file.class"])
        paths: dict[int, str] = {}
        for name in names:
            m = seg.mentions.find(name)
            if m < 0:
                continue
            rows = _first_live(live, int(seg.mention_off[m]), int(seg.mention_off[m + 1]), limit)
            for i, file, kind in zip(
                rows.tolist(), seg.mention_files(rows).tolist(), seg.mention_kinds(rows).tolist(), strict=True
            ):
                path = paths.get(file)
                if path is None:
                    path = paths[file] = seg.core.paths[file]
                line, col, _, end_col = spans[int(seg.mention_rows[i])].tolist()
                key = (kind, path_class_rank(PATH_CLASSES[int(classes[file])]), path, line, col, name, end_col)
                ranked.append((key, live, file))
    ranked.sort(key=lambda item: item[0])
    out = []
    for (kind, _, path, line, col, name, end_col), live, file in ranked[:limit]:
        seg = live.segment
        row = seg.innermost(file, line, col)
        enclosing = None
        if row >= 0:
            parent = seg.parent(row)
            enclosing = f"{parent}.{seg.name(row)}" if parent else seg.name(row)
        out.append(Mention(name, MENTION_KINDS[kind], path, line, col, end_col, enclosing))
    return out

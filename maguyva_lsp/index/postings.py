"""Posting sets keyed by string, with a sorted key list for prefix ranges: the building block of the symbol table.

Most keys of a symbol table (names) have a single id: those are stored as a bare int (about 200 bytes less than a
set). Keys with many ids (`test`, `self`, `name`) are stored as a compressed bitmap: about 2 bytes an id instead of
the 30-50 of a set.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Iterator
from typing import cast

from pyroaring import BitMap

# Above this many keys added or dropped since the last settle, re-sort the key list instead of inserting one by one.
RESORT_THRESHOLD = 512
# A key's set of ids becomes a compressed bitmap past this size (below it, a set is small and faster to iterate).
BITMAP_MIN_IDS = 64

IdSet = int | set[int] | BitMap


def prefix_range(keys: list[str], prefix: str) -> tuple[int, int]:
    """The slice [lo, hi) of a sorted list whose items start with the prefix."""
    lo = bisect.bisect_left(keys, prefix)
    hi = bisect.bisect_left(keys, prefix + "\U0010ffff", lo)
    return lo, hi


def intersect(groups: Iterable[Collection[int]]) -> set[int]:
    """The ids in every group (smallest group first, so that the work follows the rarest key)."""
    ordered = sorted(groups, key=len)
    if not ordered:
        return set()
    out = set(ordered[0])
    for group in ordered[1:]:
        if not out:
            break
        if isinstance(group, set | frozenset):
            out.intersection_update(group)
        else:  # a bitmap or tuple: test the few survivors against it rather than iterate all of it
            out = {eid for eid in out if eid in group}
    return out


class Postings:
    """key → ids; a key goes with its last id. `keys` is sorted as of the last `settle` (call it before letting
    readers in); with `by_length`, so is a list of the keys of each length (shortest-first prefix search)."""

    __slots__ = ("_dirty", "by_length", "keys", "sets")

    def __init__(self, *, by_length: bool = False) -> None:
        self.sets: dict[str, IdSet] = {}
        self.keys: list[str] = []
        self.by_length: dict[int, list[str]] | None = {} if by_length else None
        self._dirty: list[str] = []  # keys added or dropped since the last settle

    def add(self, key: str, eid: int) -> None:
        ids = self.sets.get(key)
        if ids is None:
            self.sets[key] = eid
            self._dirty.append(key)
        elif isinstance(ids, int):
            if ids != eid:
                self.sets[key] = {ids, eid}
        else:
            ids.add(eid)
            if isinstance(ids, set) and len(ids) > BITMAP_MIN_IDS:
                self.sets[key] = BitMap(ids)

    def discard(self, key: str, eid: int) -> None:
        ids = self.sets.get(key)
        if ids is None:
            return
        if isinstance(ids, int):
            if ids == eid:
                del self.sets[key]
                self._dirty.append(key)
            return
        ids.discard(eid)
        if len(ids) == 1:
            self.sets[key] = next(iter(ids))

    def get(self, key: str) -> Collection[int]:
        """The ids of a key; the caller must not change what it gets."""
        ids = self.sets.get(key)
        if ids is None:
            return ()
        if isinstance(ids, int):
            return (ids,)
        return cast("Collection[int]", ids)  # a BitMap is one (its stubs do not say so)

    def count(self, key: str) -> int:
        ids = self.sets.get(key)
        return 0 if ids is None else 1 if isinstance(ids, int) else len(ids)

    def union_of(self, keys: Iterable[str]) -> set[int]:
        out: set[int] = set()
        for key in keys:
            out.update(self.get(key))
        return out

    def settle(self) -> list[str]:
        """Bring the sorted key lists up to date with the keys added and dropped since the last call; returns
        those keys."""
        if not self._dirty:
            return []
        changed = list(dict.fromkeys(self._dirty))
        if len(self._dirty) > RESORT_THRESHOLD:
            self.keys = sorted(self.sets)
            if self.by_length is not None:
                self.by_length.clear()
                for key in self.keys:
                    self.by_length.setdefault(len(key), []).append(key)
        else:
            for key in self._dirty:  # a key may be listed twice (dropped, then added again): check its state now
                _sync(self.keys, key, key in self.sets)
                if self.by_length is not None:
                    same_length = self.by_length.setdefault(len(key), [])
                    _sync(same_length, key, key in self.sets)
                    if not same_length:
                        del self.by_length[len(key)]
        self._dirty.clear()
        return changed

    def prefixed_shortest_first(self, prefix: str) -> Iterator[str]:
        """The keys that start with the prefix, shortest first (alphabetical within a length); needs `by_length`."""
        assert self.by_length is not None, "Postings(by_length=True) is needed for shortest-first prefix search"
        for length in sorted(n for n in self.by_length if n >= len(prefix)):
            same_length = self.by_length[length]
            lo, hi = prefix_range(same_length, prefix)
            yield from same_length[lo:hi]


def _sync(keys: list[str], key: str, wanted: bool) -> None:
    """Insert the key into, or delete it from, a sorted list so that its presence is `wanted`."""
    i = bisect.bisect_left(keys, key)
    present = i < len(keys) and keys[i] == key
    if wanted and not present:
        keys.insert(i, key)
    elif not wanted and present:
        del keys[i]

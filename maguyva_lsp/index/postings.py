"""Posting sets keyed by string with a sorted key list for prefix ranges: the building block of the symbol table."""

from __future__ import annotations

import bisect

# Above this many keys added or dropped since the last settle, re-sort the key list instead of inserting one by one.
RESORT_THRESHOLD = 512

_EMPTY: frozenset[int] = frozenset()


def prefix_range(keys: list[str], prefix: str) -> tuple[int, int]:
    """The slice [lo, hi) of a sorted list whose items start with the prefix."""
    lo = bisect.bisect_left(keys, prefix)
    hi = bisect.bisect_left(keys, prefix + "\U0010ffff", lo)
    return lo, hi


def intersect(groups: list[set[int]] | list[frozenset[int] | set[int]]) -> set[int]:
    """The ids in every group (smallest group first, so that the work follows the rarest key)."""
    if not groups:
        return set()
    ordered = sorted(groups, key=len)
    out = set(ordered[0])
    for group in ordered[1:]:
        if not out:
            break
        out &= group
    return out


class Postings:
    """key → set of ids; a key goes with its last id. `keys` is sorted as of the last `settle` (call it before
    letting readers in)."""

    __slots__ = ("_dirty", "keys", "sets")

    def __init__(self) -> None:
        self.sets: dict[str, set[int]] = {}
        self.keys: list[str] = []
        self._dirty: list[str] = []  # keys added or dropped since the last settle

    def add(self, key: str, eid: int) -> None:
        ids = self.sets.get(key)
        if ids is None:
            self.sets[key] = {eid}
            self._dirty.append(key)
        else:
            ids.add(eid)

    def discard(self, key: str, eid: int) -> None:
        ids = self.sets.get(key)
        if ids is not None:
            ids.discard(eid)
            if not ids:
                del self.sets[key]
                self._dirty.append(key)

    def get(self, key: str) -> frozenset[int] | set[int]:
        """The ids of a key; the caller must not change the set it gets."""
        return self.sets.get(key, _EMPTY)

    def union_of(self, keys: list[str]) -> set[int]:
        out: set[int] = set()
        for key in keys:
            out |= self.get(key)
        return out

    def settle(self) -> None:
        """Bring the sorted key list up to date with the keys added and dropped since the last call."""
        if not self._dirty:
            return
        if len(self._dirty) > RESORT_THRESHOLD:
            self.keys = sorted(self.sets)
        else:
            for key in self._dirty:  # a key may be listed twice (dropped, then added again): check its state now
                i = bisect.bisect_left(self.keys, key)
                present = i < len(self.keys) and self.keys[i] == key
                if key in self.sets and not present:
                    self.keys.insert(i, key)
                elif key not in self.sets and present:
                    del self.keys[i]
        self._dirty.clear()

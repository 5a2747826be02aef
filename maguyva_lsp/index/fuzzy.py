"""Fuzzy name matching for the symbol table's last-resort tier: names that start with the query's first letter and
hold its other letters in order (`pcfg` → `parseconfig`), as editors' symbol pickers match.

A letter-set bitmask per name, checked with numpy over all names of the first letter, discards most names before
the subsequence test, so that the scan stays well under a millisecond on a stdlib-sized workspace.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Container

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.postings import prefix_range

# Bit of each character in a name's letter set; other characters (non-ASCII) are left to the exact test.
_BITS: dict[str, int] = {c: 1 << i for i, c in enumerate(string.ascii_lowercase + string.digits)}


def letter_mask(text: str) -> int:
    """The set of ASCII letters and digits in a text, as bits."""
    mask = 0
    for c in set(text):
        mask |= _BITS.get(c, 0)
    return mask


class FuzzyNames:
    """Letter masks of the separator-free names, and per first letter the names and masks as arrays (built on
    first use after a change)."""

    __slots__ = ("_buckets", "_masks")

    def __init__(self) -> None:
        self._masks: dict[str, int] = {}
        self._buckets: dict[str, tuple[list[str], npt.NDArray[np.uint64]]] = {}

    def changed(self, keys: list[str], present: Container[str]) -> None:
        """Follow the names added to or dropped from the table (`present`: the table's names now)."""
        for key in keys:
            if key in present:
                self._masks[key] = letter_mask(key)
            else:
                self._masks.pop(key, None)
            self._buckets.pop(key[:1], None)

    def matches(self, sorted_keys: list[str], query: str, max_keys: int) -> list[str]:
        """Up to `max_keys` names (alphabetical) starting with the query's first letter and holding the rest of
        its letters in order."""
        if not query:
            return []
        names, masks = self._bucket(sorted_keys, query[0])
        wanted = np.uint64(letter_mask(query[1:]))
        candidates = (names[i] for i in np.flatnonzero((masks & wanted) == wanted))
        # `[^c]*+c` finds the next `c` without backtracking: the subsequence test is linear per name.
        pattern = re.compile(re.escape(query[0]) + "".join(f"[^{re.escape(c)}]*+{re.escape(c)}" for c in query[1:]))
        return list(itertools.islice(filter(pattern.match, candidates), max_keys))

    def _bucket(self, sorted_keys: list[str], first: str) -> tuple[list[str], npt.NDArray[np.uint64]]:
        bucket = self._buckets.get(first)
        if bucket is None:
            lo, hi = prefix_range(sorted_keys, first)
            names = sorted_keys[lo:hi]
            masks = np.fromiter((self._masks[k] for k in names), dtype=np.uint64, count=len(names))
            bucket = self._buckets[first] = (names, masks)
        return bucket

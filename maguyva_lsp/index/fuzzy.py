"""Fuzzy name matching for the symbol table's last-resort tier: names that start with the query's first letter and
hold its other letters in order (`pcfg` → `parseconfig`), as editors' symbol pickers match.

A letter-set bitmask per name (stored in the symbol part), checked with numpy over all names of the first letter,
discards most names before the subsequence test, so that the scan stays well under a millisecond on a
stdlib-sized workspace.
"""

from __future__ import annotations

import re
import string

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.postings import Vocabulary

# Bit of each character in a name's letter set; other characters (non-ASCII) are left to the exact test.
_BITS: dict[str, int] = {c: 1 << i for i, c in enumerate(string.ascii_lowercase + string.digits)}


def letter_mask(text: str) -> int:
    """The set of ASCII letters and digits in a text, as bits."""
    mask = 0
    for c in set(text):
        mask |= _BITS.get(c, 0)
    return mask


# The same bits by UTF-8 byte: a non-ASCII character's bytes are all >= 0x80, so they set none, as in letter_mask.
_BYTE_BITS = np.zeros(256, dtype=np.uint64)
for _c, _bit in _BITS.items():
    _BYTE_BITS[ord(_c)] = _bit


def letter_masks(blob: npt.NDArray[np.uint8], offsets: npt.NDArray[np.integer]) -> npt.NDArray[np.uint64]:
    """`letter_mask` of every string of an encoded column (a blob and its n + 1 offsets), in numpy."""
    offsets = np.asarray(offsets, dtype=np.int64)
    out = np.zeros(offsets.size - 1, dtype=np.uint64)
    filled = np.flatnonzero(np.diff(offsets) > 0)
    if filled.size:  # reduceat over the non-empty strings only (an empty one would read its neighbour's byte)
        out[filled] = np.bitwise_or.reduceat(_BYTE_BITS[np.asarray(blob)], offsets[filled])
    return out


def fuzzy_pattern(query: str) -> re.Pattern[str]:
    """The query's first letter, then each other letter after the previous one. `[^c]*+c` finds the next `c`
    without backtracking: the subsequence test is linear per name."""
    return re.compile(re.escape(query[0]) + "".join(f"[^{re.escape(c)}]*+{re.escape(c)}" for c in query[1:]))


def fuzzy_matches(
    names: Vocabulary,
    masks: npt.NDArray[np.uint64],
    present: npt.NDArray[np.bool_] | None,
    query: str,
    max_keys: int,
) -> list[tuple[str, int]]:
    """Up to `max_keys` names (alphabetical, with their indexes) of a sorted vocabulary that start with the query's
    first letter and hold the rest of its letters in order; `present` (per name) leaves out names no live
    definition has."""
    if not query:
        return []
    lo, hi = names.prefix_range(query[0])
    wanted = np.uint64(letter_mask(query[1:]))
    passing = (masks[lo:hi] & wanted) == wanted
    if present is not None:
        passing &= present[lo:hi]
    candidates = np.flatnonzero(passing) + lo
    pattern = fuzzy_pattern(query)
    out: list[tuple[str, int]] = []
    step = max(max_keys, 256)  # decode in slices: most candidates fail the test, and few are needed
    for start in range(0, candidates.size, step):
        part = candidates[start : start + step]
        out += [(s, int(i)) for s, i in zip(names.texts(part), part.tolist(), strict=True) if pattern.match(s)]
        if len(out) >= max_keys:
            return out[:max_keys]
    return out

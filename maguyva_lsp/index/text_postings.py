"""Immutable posting lists in CSR form (sorted keys → sorted ids, optional values), and a base + delta + tombstones
segmentation of them that takes updates without a full rebuild. Shared by the trigram index and BM25.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

U32 = npt.NDArray[np.uint32]
I64 = npt.NDArray[np.int64]
F32 = npt.NDArray[np.float32]
Bools = npt.NDArray[np.bool_]

# The delta segment is merged into the base once it holds more postings than this: small enough that rebuilding the
# delta on each small update stays cheap, large enough that merges (linear in the base) stay rare.
DELTA_MERGE_POSTINGS = 1 << 18
# ... or once this fraction of the ids that own postings are dead (replaced or removed files), to reclaim memory.
TOMBSTONE_MERGE_FRACTION = 0.25

_EMPTY_U32: U32 = np.empty(0, dtype=np.uint32)
_EMPTY_F32: F32 = np.empty(0, dtype=np.float32)


@dataclass(frozen=True, slots=True)
class PostingLists:
    """key → ids, as CSR: `keys` sorted and unique, `ids[offsets[i]:offsets[i+1]]` sorted for `keys[i]`.

    `values` (one per id, e.g. a term frequency) is None for pure set postings. Instances are never mutated.
    """

    keys: U32
    offsets: I64
    ids: U32
    values: F32 | None

    @staticmethod
    def empty(with_values: bool) -> PostingLists:
        return PostingLists(_EMPTY_U32, np.zeros(1, dtype=np.int64), _EMPTY_U32, _EMPTY_F32 if with_values else None)

    @staticmethod
    def from_pairs(keys: U32, ids: U32, values: F32 | None) -> PostingLists:
        """Group (key, id[, value]) triples by key. Within a key, ids must already come in ascending order (true when
        the triples are produced document by document in id order); a stable sort by key keeps that order."""
        if keys.size == 0:
            return PostingLists.empty(values is not None)
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        boundaries = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
        starts = np.concatenate(([0], boundaries)).astype(np.int64)
        offsets = np.append(starts, np.int64(sorted_keys.size))
        return PostingLists(
            keys=np.ascontiguousarray(sorted_keys[starts]),
            offsets=offsets,
            ids=np.ascontiguousarray(ids[order]),
            values=None if values is None else np.ascontiguousarray(values[order]),
        )

    @property
    def size(self) -> int:
        return int(self.ids.size)

    @property
    def nbytes(self) -> int:
        extra = 0 if self.values is None else self.values.nbytes
        return int(self.keys.nbytes + self.offsets.nbytes + self.ids.nbytes + extra)

    def ranges(self, query_keys: U32) -> tuple[I64, I64]:
        """For each query key, the [start, end) of its postings (empty when the key is absent)."""
        if self.keys.size == 0:
            nothing = np.zeros(query_keys.size, dtype=np.int64)
            return nothing, nothing
        pos = np.searchsorted(self.keys, query_keys)
        pos_clipped = np.minimum(pos, self.keys.size - 1)
        found = (pos < self.keys.size) & (self.keys[pos_clipped] == query_keys)
        starts = np.where(found, self.offsets[pos_clipped], 0)
        ends = np.where(found, self.offsets[pos_clipped + 1], 0)
        return starts.astype(np.int64), ends.astype(np.int64)

    def pairs(self) -> tuple[U32, U32, F32 | None]:
        """The (key, id[, value]) triples, sorted by key then id."""
        counts = np.diff(self.offsets)
        return np.repeat(self.keys, counts), self.ids, self.values

    def filtered(self, alive: Bools) -> PostingLists:
        """A copy without the postings of dead ids (`alive` is indexed by id)."""
        keep = alive[self.ids]
        if bool(keep.all()):
            return self
        keys, ids, values = self.pairs()
        return PostingLists.from_pairs(keys[keep], ids[keep], None if values is None else values[keep])

    def merged(self, newer: PostingLists) -> PostingLists:
        """The union with postings whose ids are all greater than any id here (ids keep ascending per key)."""
        if newer.size == 0:
            return self
        if self.size == 0:
            return newer
        old_keys, old_ids, old_values = self.pairs()
        new_keys, new_ids, new_values = newer.pairs()
        values = None
        if old_values is not None and new_values is not None:
            values = np.concatenate((old_values, new_values))
        return PostingLists.from_pairs(np.concatenate((old_keys, new_keys)), np.concatenate((old_ids, new_ids)), values)


@dataclass(frozen=True, slots=True)
class SegmentedPostings:
    """A large, rarely rebuilt base plus a small delta of recent ids, with tombstones (`alive`) for replaced ids.

    Ids are allocated in ascending order and never reused, so every delta id is greater than every base id and the
    concatenation of a key's base and delta postings stays sorted. Never mutated: an update returns a new instance
    that shares the untouched arrays, so readers of the old one are undisturbed.
    """

    base: PostingLists
    delta: PostingLists
    alive: Bools  # indexed by id; ids >= alive.size do not exist
    dead_with_postings: int  # dead ids whose postings are still in base or delta
    ids_with_postings: int

    @staticmethod
    def empty(with_values: bool) -> SegmentedPostings:
        return SegmentedPostings(
            PostingLists.empty(with_values),
            PostingLists.empty(with_values),
            np.zeros(0, dtype=np.bool_),
            0,
            0,
        )

    @property
    def nbytes(self) -> int:
        return self.base.nbytes + self.delta.nbytes + int(self.alive.nbytes)

    def lookup(self, key: int) -> tuple[U32, F32 | None]:
        """The ids (live or dead, ascending) and values posted under one key."""
        ids, values = self.lookup_many(np.array([key], dtype=np.uint32))[0]
        return ids, values

    def lookup_many(self, keys: U32) -> list[tuple[U32, F32 | None]]:
        """`lookup` for several keys at once (one vectorized search per segment)."""
        base_starts, base_ends = self.base.ranges(keys)
        delta_starts, delta_ends = self.delta.ranges(keys)
        out: list[tuple[U32, F32 | None]] = []
        for i in range(keys.size):
            b0, b1, d0, d1 = int(base_starts[i]), int(base_ends[i]), int(delta_starts[i]), int(delta_ends[i])
            if d0 == d1:
                ids = self.base.ids[b0:b1]
                values = None if self.base.values is None else self.base.values[b0:b1]
            elif b0 == b1:
                ids = self.delta.ids[d0:d1]
                values = None if self.delta.values is None else self.delta.values[d0:d1]
            else:
                ids = np.concatenate((self.base.ids[b0:b1], self.delta.ids[d0:d1]))
                values = None
                if self.base.values is not None and self.delta.values is not None:
                    values = np.concatenate((self.base.values[b0:b1], self.delta.values[d0:d1]))
            out.append((ids, values))
        return out

    def with_changes(self, added: PostingLists, n_ids: int, dead_ids: U32, n_added_ids: int) -> SegmentedPostings:
        """Add the postings of new ids (all >= the current id count, < n_ids) and kill `dead_ids`."""
        alive = np.zeros(n_ids, dtype=np.bool_)
        alive[: self.alive.size] = self.alive
        alive[self.alive.size :] = True
        newly_dead = dead_ids[alive[dead_ids]] if dead_ids.size else dead_ids
        alive[newly_dead] = False
        delta = self.delta.merged(added)
        dead = self.dead_with_postings + int(newly_dead.size)
        owners = self.ids_with_postings + n_added_ids
        if delta.size > DELTA_MERGE_POSTINGS or (owners and dead > TOMBSTONE_MERGE_FRACTION * owners):
            base = self.base.merged(delta).filtered(alive)
            return SegmentedPostings(base, PostingLists.empty(base.values is not None), alive, 0, owners - dead)
        return SegmentedPostings(self.base, delta, alive, dead, owners)

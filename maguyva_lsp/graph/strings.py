"""Interned strings of the graph's tables: every path, name, qualified name and node id is an int32 id.

A table is a frozen base — one UTF-8 blob, the offsets of each string in it, each string's CRC-32 and an
open-addressing hash table of ids — which may be memory-mapped as it was written, plus an in-memory overlay for the
strings added since. Ids never change: the overlay's ids continue after the base's, and `frozen()` moves the overlay
into a new base under the same ids, so tables written against an older base stay valid.

A stored base leaves the CRC-32s out (`stored_arrays`): they only place ids in the hash table, which is stored, and a
lookup compares the bytes of the candidates it probes; they are computed again only if that base is frozen anew. It
also stores a string `head::tail` whose head and tail are strings of the table (a node id is its file's path, "::",
its qualified name: half the blob) as that pair of ids (`joins`), its bytes left out of the blob.
"""

from __future__ import annotations

import bisect
import itertools
import zlib
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

NO_STRING = -1  # the id of an absent optional string (a definition without a parent, an import without an alias)
_EMPTY_SLOT = -1
_MIN_SLOTS = 8
_ENCODING = "utf-8"
_ERRORS = "surrogatepass"  # decoded source may hold lone surrogates; they must survive the round trip

IdArray = npt.NDArray[np.int32]
JOIN = b"::"
_NO_JOINS = (np.zeros(0, dtype=np.int32), np.zeros((0, 2), dtype=np.int32))
# A stored base's offsets: uint32 while the blob is under 4 GiB (always, in practice), else int64.
OFFSET_DTYPES = (np.dtype(np.uint32), np.dtype(np.int64))


def _encode(text: str) -> bytes:
    return text.encode(_ENCODING, _ERRORS)


def _slot_count(n: int) -> int:
    """A power of two at least twice the strings: probes stay short."""
    size = _MIN_SLOTS
    while size < 2 * n:
        size *= 2
    return size


def _hash_slots(hashes: npt.NDArray[np.uint32], size: int) -> IdArray:
    """Linear-probing slots for every id, vectorised: each round places, per free slot, the first id that reaches
    it; the others move one slot on. An id only passes slots that stay occupied, so a lookup probing from its home
    slot meets it before any empty slot."""
    slots = np.full(size, _EMPTY_SLOT, dtype=np.int32)
    mask = size - 1
    pending = np.arange(len(hashes), dtype=np.int32)
    position = (hashes.astype(np.int64) & mask).astype(np.int64)
    while len(pending):
        free = slots[position] == _EMPTY_SLOT
        free_rows = np.flatnonzero(free)
        claimed, first = np.unique(position[free_rows], return_index=True)
        slots[claimed] = pending[free_rows[first]]
        placed = np.zeros(len(pending), dtype=bool)
        placed[free_rows[first]] = True
        pending = pending[~placed]
        position = (position[~placed] + 1) & mask
    return slots


class StringTable:
    """Ids ↔ strings. Lookups of the base go through its hash slots (no Python object per string); the overlay is a
    dict of the few strings added since the base was frozen. One writer interns; readers may look up meanwhile."""

    def __init__(
        self,
        blob: npt.NDArray[np.uint8],
        offsets: npt.NDArray[np.int64] | npt.NDArray[np.uint32],
        hashes: npt.NDArray[np.uint32] | None,
        slots: IdArray,
        joins: tuple[IdArray, IdArray] = _NO_JOINS,
    ) -> None:
        """`joins`: the ids (sorted) of the strings stored as (head id, tail id), and those pairs; their blob range
        is empty."""
        self._blob = blob
        self._view = memoryview(blob.data) if len(blob) else memoryview(b"")
        self._offsets = offsets
        self._hashes = hashes
        self._slots = slots
        # Python ints from memoryviews: a lookup probes a few of them, faster than numpy scalars.
        self._offset_at = memoryview(offsets.data) if len(offsets) else memoryview(b"")
        self._hash_at = None if hashes is None else memoryview(hashes.data) if len(hashes) else memoryview(b"")
        self._slot_at = memoryview(slots.data)
        self._mask = len(slots) - 1
        self._base = len(offsets) - 1
        self._joins = joins
        self._join_at = memoryview(joins[0].data) if len(joins[0]) else None
        self._part_at = memoryview(np.ascontiguousarray(joins[1]).reshape(-1).data) if len(joins[0]) else None
        self._added: dict[str, int] = {}
        self._added_texts: list[str] = []

    @classmethod
    def empty(cls) -> StringTable:
        return cls.build(())

    @classmethod
    def build(cls, texts: Iterable[str]) -> StringTable:
        """A frozen table of these strings, ids in order (duplicates are the caller's to avoid)."""
        encoded = [_encode(t) for t in texts]
        lengths = np.fromiter((len(b) for b in encoded), dtype=np.int64, count=len(encoded))
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
        hashes = np.fromiter((zlib.crc32(b) for b in encoded), dtype=np.uint32, count=len(encoded))
        return cls(blob, offsets, hashes, _hash_slots(hashes, _slot_count(len(encoded))))

    def __len__(self) -> int:
        return self._base + len(self._added_texts)

    @property
    def added(self) -> int:
        """Strings interned since the base was frozen."""
        return len(self._added_texts)

    def find(self, text: str) -> int:
        """The id of a string, or NO_STRING when the table does not hold it."""
        added = self._added.get(text)
        if added is not None:
            return added
        if not self._base:  # an empty base holds nothing: no encoding, no hash (a worker's table starts empty)
            return NO_STRING
        data = _encode(text)
        full = zlib.crc32(data)
        position = full & self._mask
        offsets, hashes, slots = self._offset_at, self._hash_at, self._slot_at
        while True:
            sid = slots[position]
            if sid == _EMPTY_SLOT:
                return NO_STRING
            start, end = offsets[sid], offsets[sid + 1]
            if (hashes is None or hashes[sid] == full) and (
                self._view[start:end] == data if start != end else self._raw(sid) == data
            ):
                return sid
            position = (position + 1) & self._mask

    def intern(self, text: str) -> int:
        """The id of a string, adding it when new."""
        sid = self.find(text)
        if sid != NO_STRING:
            return sid
        sid = self._base + len(self._added_texts)
        self._added[text] = sid
        self._added_texts.append(text)
        return sid

    def optional(self, text: str | None) -> int:
        return NO_STRING if text is None else self.intern(text)

    def text(self, sid: int) -> str:
        if sid >= self._base:
            return self._added_texts[sid - self._base]
        start, end = self._offset_at[sid], self._offset_at[sid + 1]
        if start == end and self._join_at is not None:
            return str(self._raw(sid), _ENCODING, _ERRORS)
        return str(self._view[start:end], _ENCODING, _ERRORS)

    def _raw(self, sid: int) -> bytes:
        """The bytes of a base string, a joined one put together from its head and tail."""
        start, end = self._offset_at[sid], self._offset_at[sid + 1]
        joins, parts = self._join_at, self._part_at
        if start == end and joins is not None and parts is not None:
            at = bisect.bisect_left(joins, sid)
            if at < len(joins) and joins[at] == sid:
                # A head and a tail hold no "::": they are never joined themselves.
                offsets, view = self._offset_at, self._view
                head, tail = parts[2 * at], parts[2 * at + 1]
                return b"".join(
                    (view[offsets[head] : offsets[head + 1]], JOIN, view[offsets[tail] : offsets[tail + 1]])
                )
        return bytes(self._view[start:end])

    def text_or_none(self, sid: int) -> str | None:
        return None if sid == NO_STRING else self.text(sid)

    def texts_from(self, start: int) -> list[str]:
        """The strings of ids start, start + 1, … (those interned after a table of `start` strings was written)."""
        if start >= self._base:  # all in the overlay: a slice of its list
            return self._added_texts[start - self._base :]
        return [self.text(sid) for sid in range(start, len(self))]

    def extended(self, texts: Iterable[str]) -> StringTable:
        """A table over the same base with these strings interned after it (ids in order; the base's arrays are
        shared, not copied: a stored base plus the few strings a later delta added)."""
        table = StringTable(self._blob, self._offsets, self._hashes, self._slots, self._joins)
        for text in self._added_texts:
            table.intern(text)
        for text in texts:
            table.intern(text)
        return table

    def with_new(self, texts: Sequence[str]) -> StringTable:
        """This table with these strings added after it, ids in order, unprobed: the caller knows that none of them is
        in the table and that they are distinct (the join of the graph workers' parts, which numbers every string
        through one dict)."""
        table = StringTable(self._blob, self._offsets, self._hashes, self._slots, self._joins)
        table._added = dict(self._added)
        table._added_texts = list(self._added_texts)
        start = len(table)
        table._added.update(zip(texts, range(start, start + len(texts)), strict=True))
        table._added_texts.extend(texts)
        return table

    def frozen(self) -> StringTable:
        """The same ids, all in a new base (the overlay encoded and hashed; the old base's arrays copied once)."""
        if not self._added_texts:
            return self
        encoded = [_encode(t) for t in self._added_texts]
        lengths = np.fromiter((len(b) for b in encoded), dtype=np.int64, count=len(encoded))
        tail = self._offsets[-1] + np.cumsum(lengths)
        offsets = np.concatenate([self._offsets, tail])
        blob = np.concatenate([np.asarray(self._blob), np.frombuffer(b"".join(encoded), dtype=np.uint8)])
        added_hashes = np.fromiter((zlib.crc32(b) for b in encoded), dtype=np.uint32, count=len(encoded))
        hashes = np.concatenate([self._base_hashes(), added_hashes])
        return StringTable(blob, offsets, hashes, _hash_slots(hashes, _slot_count(len(hashes))), self._joins)

    def _base_hashes(self) -> npt.NDArray[np.uint32]:
        """The base's CRC-32s (computed from its blob when it was opened without them)."""
        if self._hashes is None:
            offsets = self._offsets.tolist()
            view = self._view
            self._hashes = np.fromiter(
                (
                    zlib.crc32(view[a:b] if a != b else self._raw(sid))
                    for sid, (a, b) in enumerate(itertools.pairwise(offsets))
                ),
                dtype=np.uint32,
                count=self._base,
            )
        return np.asarray(self._hashes)

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The frozen form, whole (what a worker hands the process that joins the shares)."""
        table = self.frozen()
        hashes = table._base_hashes()
        joins, parts = table._joins
        return {
            "blob": table._blob,
            "offsets": table._offsets,
            "hashes": hashes,
            "slots": table._slots,
            "joins": joins,
            "join_parts": parts,
        }

    def stored_arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The frozen form for a segment file: no CRC-32s, offsets as narrow as they fit (OFFSET_DTYPES)."""
        table = self.frozen()
        blob, offsets, joins, parts = table._joined()
        if not len(offsets) or int(offsets[-1]) <= np.iinfo(np.uint32).max:
            offsets = offsets.astype(np.uint32)
        return {"blob": blob, "offsets": offsets, "slots": table._slots, "joins": joins, "join_parts": parts}

    def _joined(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], IdArray, IdArray]:
        """The base with every `head::tail` string whose head and tail are strings of the table holding no "::"
        stored as that pair of ids: (blob, offsets, joined ids, their pairs). Strings are found in numpy; Python
        touches each string once, for the dict of heads and tails."""
        count = self._base
        if self._join_at is not None:  # put the joined strings back first (a reopened base frozen anew)
            table = StringTable.build(self.text(sid) for sid in range(count))
            return table._joined()
        blob = np.asarray(self._blob)
        offsets = np.asarray(self._offsets, dtype=np.int64)
        marks = (
            np.flatnonzero((blob[:-1] == JOIN[0]) & (blob[1:] == JOIN[1])) if len(blob) > 1 else np.zeros(0, np.int64)
        )
        owner = np.searchsorted(offsets, marks, side="right") - 1
        inside = marks + len(JOIN) <= offsets[owner + 1]
        marks, owner = marks[inside], owner[inside]
        first = np.concatenate(([True], owner[1:] != owner[:-1])) if len(owner) else np.zeros(0, dtype=bool)
        marks, owner = marks[first], owner[first]  # each string's first "::"
        plain = np.ones(count, dtype=bool)
        plain[owner] = False
        data = blob.tobytes()
        bounds = offsets.tolist()
        ids = {data[bounds[sid] : bounds[sid + 1]]: sid for sid in np.flatnonzero(plain).tolist()}
        joined: list[int] = []
        pairs: list[int] = []
        for sid, mark in zip(owner.tolist(), marks.tolist(), strict=True):
            head = ids.get(data[bounds[sid] : mark])
            tail = ids.get(data[mark + len(JOIN) : bounds[sid + 1]])
            if head is not None and tail is not None:
                joined.append(sid)
                pairs += (head, tail)
        join_ids = np.array(joined, dtype=np.int32)
        lengths = np.diff(offsets)
        lengths[join_ids] = 0
        keep = np.repeat(lengths > 0, np.diff(offsets))
        new_offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(lengths, out=new_offsets[1:])
        return blob[keep], new_offsets, join_ids, np.array(pairs, dtype=np.int32).reshape(-1, 2)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[np.generic]]) -> StringTable:
        """A table over `arrays` or `stored_arrays` (mapped: nothing is copied); ValueError for other dtypes."""
        offsets, slots, hashes = arrays["offsets"], arrays["slots"], arrays.get("hashes")
        joins, parts = arrays.get("joins", _NO_JOINS[0]), arrays.get("join_parts", _NO_JOINS[1])
        if joins.dtype != np.int32 or parts.dtype != np.int32 or parts.shape != (len(joins), 2):
            raise ValueError("string table: joined strings of the wrong type or shape")
        if len(joins) and (int(joins.max()) >= len(offsets) - 1 or int(parts.max()) >= len(offsets) - 1):
            raise ValueError("string table: joined strings name unknown ids")
        if offsets.dtype not in OFFSET_DTYPES or slots.dtype != np.int32 or arrays["blob"].dtype != np.uint8:
            raise ValueError(f"string table of dtypes {offsets.dtype}, {slots.dtype}, {arrays['blob'].dtype}")
        if hashes is not None and (hashes.dtype != np.uint32 or len(hashes) != len(offsets) - 1):
            raise ValueError("string table: hashes of the wrong type or length")
        return cls(
            np.asarray(arrays["blob"]),
            np.asarray(offsets),
            None if hashes is None else np.asarray(hashes, dtype=np.uint32),
            np.asarray(slots, dtype=np.int32),
            (np.asarray(joins), np.asarray(parts)),
        )

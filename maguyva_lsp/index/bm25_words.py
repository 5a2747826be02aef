"""The identifiers of a segment's chunk texts found in their UTF-8 bytes with numpy, for building the BM25 part.

`IDENTIFIER_RE` (`[A-Za-z_][A-Za-z0-9_]*`) only matches ASCII, and in UTF-8 (surrogatepass) an ASCII byte is always
that character (every byte of a multi-byte sequence is >= 0x80), so the identifiers of a chunk's bytes are those of
its text: in every maximal run of `[A-Za-z0-9_]` bytes, the part from its first letter or underscore on (leading
digits are skipped, as `findall` skips them). Found so, an occurrence is a (start, end) pair in a byte buffer, not a
`str`: the build no longer makes and hashes a Python string per occurrence (~3.6M on the stdlib, ~1.6 s CPU with
`findall` and the look-up of each word's id), only one per distinct word of a batch.

Equal words are grouped exactly, by their characters coded 6 bits each (the 63 identifier bytes as 1..63, 0 for
padding, so a word's length is implied) and packed into 48-bit limbs of 8 characters: a word of up to 8 characters
(83 % of the stdlib's occurrences) is one limb, sorted with its chunk row in one int64 so that one sort both groups
equal words and counts each word's occurrences in each chunk; longer words are sorted by all their limbs and row.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import run_starts, spans_text
from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.text_column import line_starts

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
U64 = npt.NDArray[np.uint64]

LIMB_CHARS = 8  # characters per 48-bit limb
_LIMB_BITS = 48
_DIGITS = b"0123456789"
_IDENTIFIER_BYTES = _DIGITS + b"ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
_DIGIT, _LETTER = 1, 2  # byte kinds; 0: not in an identifier


def _table(pairs: dict[int, int]) -> bytes:
    table = bytearray(256)
    for byte, value in pairs.items():
        table[byte] = value
    return bytes(table)


# bytes.translate tables (a pass of C over the buffer, faster than a numpy gather of it)
_KIND = _table({b: _DIGIT if b in _DIGITS else _LETTER for b in _IDENTIFIER_BYTES})
_CODE = _table({b: i + 1 for i, b in enumerate(_IDENTIFIER_BYTES)})
_SPACE_CODE = 64  # a code no identifier byte has, read as a space (between decoded words)
_CHARACTER = np.frombuffer(b"\0" + _IDENTIFIER_BYTES + b" " + bytes(256 - 65), dtype=np.uint8)  # code -> byte
_SEPARATOR = b"\n"  # before, between and after chunks in a batch's buffer: no identifier spans it
_PADDING = bytes(2 * LIMB_CHARS)  # after the buffer: an 8-byte read at any position stays inside it
# the low 8*l bits of a little-endian 8-byte read: l characters of a word
_MASKS = np.array([(1 << (8 * n)) - 1 for n in range(LIMB_CHARS + 1)], dtype=np.uint64)


class BatchWords(NamedTuple):
    """A batch's identifiers counted: its distinct words (as strings), and its distinct (word, chunk row) pairs —
    the word a row of `words`, the row within the batch — with how often the word occurs in that chunk."""

    words: list[str]
    word_of: I64
    row_of: I64
    occurrences: I64


def chunk_byte_batches(core: CoreColumns, batch_chunks: int) -> Iterator[tuple[int, bytes, I64]]:
    """The chunks' UTF-8 texts in batches of `batch_chunks` rows: (first row, the texts joined by separators and
    padded, where each text starts in it). A chunk's text is its lines of the file (`CoreColumns.chunk_texts` joins
    the same lines) or its own pool string."""
    a = core.arrays
    chunk_off = np.asarray(a["file.chunks"], dtype=np.int64)
    n_chunks = int(chunk_off[-1]) if chunk_off.size else 0
    starts, ends = np.asarray(a["chunk.start"], dtype=np.int64), np.asarray(a["chunk.end"], dtype=np.int64)
    own = np.asarray(a["chunk.text"], dtype=np.int64)
    pool_blob, pool_off = np.asarray(a["pool.blob"]), np.asarray(a["pool.off"], dtype=np.int64)
    pieces: list[bytes] = []
    at = 0  # the batch's first row
    for local in np.flatnonzero(np.diff(chunk_off)).tolist():
        c0, c1 = int(chunk_off[local]), int(chunk_off[local + 1])
        data = core.text_bytes(local)
        size = len(data)
        lines = line_starts(data).astype(np.int64)
        n_lines = lines.size
        s, e = starts[c0:c1], ends[c0:c1]
        # "\n".join(lines[s : e + 1]): from line s's start to the end of line min(e, last) (its newline left out)
        lo = np.where(s < n_lines, lines[np.minimum(s, n_lines - 1)], size)
        hi = np.maximum(np.where(e + 1 < n_lines, lines[np.minimum(e + 1, n_lines - 1)] - 1, size), lo)
        pids = own[c0:c1].tolist()
        for row, begin, end, pid in zip(range(c0, c1), lo.tolist(), hi.tolist(), pids, strict=True):
            if pid >= 0:
                pieces.append(pool_blob[pool_off[pid] : pool_off[pid + 1]].tobytes())
            else:
                pieces.append(data[begin:end])
            if row + 1 - at == batch_chunks:
                yield at, *_joined(pieces)
                pieces, at = [], row + 1
    if at < n_chunks:
        yield at, *_joined(pieces)


def _joined(pieces: list[bytes]) -> tuple[bytes, I64]:
    """The pieces between separators, padded, and where each starts."""
    offsets = np.zeros(len(pieces), dtype=np.int64)
    if len(pieces) > 1:
        np.cumsum(np.fromiter(map(len, pieces[:-1]), dtype=np.int64, count=len(pieces) - 1) + 1, out=offsets[1:])
    offsets += 1  # after the first separator
    return _SEPARATOR + _SEPARATOR.join(pieces) + _SEPARATOR + _PADDING, offsets


def identifier_spans(buffer: bytes) -> tuple[I64, I64]:
    """(start, end) of every identifier in the bytes (not in order): what `IDENTIFIER_RE.finditer` over their text
    finds. The bytes must start and end with a byte that is in no identifier.

    Only the positions where the kind of byte changes are looked at: a run of identifier bytes that starts with a
    letter is an identifier; one that starts with digits has its identifier from its first letter on, if any (the
    next change inside the run, digits to a letter); an identifier ends where its run does."""
    kind = np.frombuffer(buffer.translate(_KIND), dtype=np.uint8)
    change = np.flatnonzero(kind[1:] != kind[:-1]) + 1
    if change.size == 0:
        return change, change
    before, after = kind[change - 1], kind[change]
    run_start = np.flatnonzero(before == 0)  # indices into `change` (a run's first byte)
    lettered = after[run_start] == _LETTER
    # a run that starts with digits: its next change is to a letter (its identifier starts there) or its end
    digits_first = run_start[~lettered]
    letter_after = digits_first[after[digits_first + 1] == _LETTER] + 1
    first = np.concatenate((run_start[lettered], letter_after))
    run_end = np.flatnonzero(after == 0)
    last = run_end[np.searchsorted(run_end, first)]
    return change[first], change[last]


def _limbs(codes: bytes, starts: I64, lengths: I64, limb: int) -> U64:
    """Characters [8*limb, 8*limb + 8) of each word (read from the coded buffer), 6 bits each: 48 bits, 0 past a
    word's end."""
    view = np.ndarray((len(codes) - LIMB_CHARS + 1,), dtype="<u8", buffer=codes, strides=(1,))
    left = np.clip(lengths - limb * LIMB_CHARS, 0, LIMB_CHARS)
    at = starts + limb * LIMB_CHARS
    x = view[np.minimum(at, view.size - 1)] & _MASKS[left]
    # each byte's 6 bits side by side: 8 x 8 bits -> 4 x 12 -> 2 x 24 -> 48
    x = (x & np.uint64(0x003F003F003F003F)) | ((x & np.uint64(0x3F003F003F003F00)) >> np.uint64(2))
    x = (x & np.uint64(0x00000FFF00000FFF)) | ((x & np.uint64(0x0FFF00000FFF0000)) >> np.uint64(4))
    out: U64 = (x & np.uint64(0x0000000000FFFFFF)) | ((x & np.uint64(0x00FFFFFF00000000)) >> np.uint64(8))
    return out


def _decode(limbs: U64) -> list[str]:
    """The words of one-limb keys (at most 8 characters each)."""
    # a column past the characters holds a space after every word: one str.split (in C) then cuts the words, in
    # place of a Python slice per word
    spread = np.zeros((limbs.size, LIMB_CHARS + 1), dtype=np.uint8)
    for k in range(LIMB_CHARS):
        spread[:, k] = ((limbs >> np.uint64(6 * k)) & np.uint64(0x3F)).astype(np.uint8)
    spread[:, LIMB_CHARS] = _SPACE_CODE
    flat = spread.ravel()
    text: bytes = _CHARACTER[flat[flat != 0]].tobytes()
    return text.decode("ascii").split()


def batch_words(buffer: bytes, chunk_starts: I64) -> BatchWords:
    """The identifiers of a batch's joined chunk texts (`chunk_byte_batches`), counted by distinct word and row."""
    starts, ends = identifier_spans(buffer)
    lengths = ends - starts
    rows = np.searchsorted(chunk_starts, starts, side="right") - 1
    codes = buffer.translate(_CODE)
    row_bits = max(chunk_starts.size - 1, 1).bit_length()
    short = lengths <= LIMB_CHARS
    if _LIMB_BITS + row_bits > 63:  # never with the build's batches: every word the long way
        short[:] = False
    # up to 8 characters: (word, row) in one int64, sorted; equal pairs are one word's occurrences in one chunk
    packed = np.sort((_limbs(codes, starts[short], lengths[short], 0).astype(np.int64) << row_bits) | rows[short])
    pair_first = run_starts(packed)
    pairs = packed[pair_first]
    pair_count = np.diff(np.append(pair_first, packed.size))
    word_key = pairs >> row_bits
    word_first = run_starts(word_key)
    words = _decode(word_key[word_first].astype(np.uint64))
    word_of = [_group_ids(word_first, pairs.size)]
    row_of = [pairs & ((1 << row_bits) - 1)]
    count = [pair_count]
    # longer words: sorted by all their limbs, then row
    long = np.flatnonzero(~short)
    if long.size:
        s, n, r = starts[long], lengths[long], rows[long]
        limbs = -(-int(n.max()) // LIMB_CHARS)
        keys = [r, *(_limbs(codes, s, n, j) for j in reversed(range(limbs)))]
        order = np.lexsort(keys)
        new_pair = np.zeros(long.size, dtype=np.bool_)
        new_pair[0] = True
        for key in keys[1:]:
            ordered = key[order]
            new_pair[1:] |= ordered[1:] != ordered[:-1]
        new_word = new_pair.copy()
        ordered_rows = r[order]
        new_pair[1:] |= ordered_rows[1:] != ordered_rows[:-1]
        pair_at = np.flatnonzero(new_pair)
        word_at = np.flatnonzero(new_word)
        word_of.append(_group_ids(np.searchsorted(pair_at, word_at), pair_at.size) + len(words))
        row_of.append(ordered_rows[pair_at])
        count.append(np.diff(np.append(pair_at, long.size)))
        reps = order[word_at]
        words += _strings(np.frombuffer(buffer, dtype=np.uint8), s[reps], n[reps])
    return BatchWords(words, np.concatenate(word_of), np.concatenate(row_of), np.concatenate(count))


def _group_ids(group_starts: I64, size: int) -> I64:
    """For `size` sorted items, the group of each, the groups starting at `group_starts` (the first at 0)."""
    marks = np.zeros(size, dtype=np.int64)
    marks[group_starts] = 1
    out: I64 = np.cumsum(marks) - 1
    return out


def _strings(array: U8, starts: I64, lengths: I64) -> list[str]:
    """The ASCII strings at these spans of the bytes (identifiers: no spaces), gathered and decoded at once."""
    return spans_text(array, starts, lengths).decode("ascii").split()

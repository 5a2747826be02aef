"""What exact text search reads of a candidate file: its UTF-8 bytes (decoded from the segment's compressed text
through the process-wide cache of text_column.py when first read, then searched in place: no copy per read), and the
few facts that rank it, gathered for every candidate with array work. Offsets into a file are byte offsets of its
UTF-8 (surrogatepass) text; `FileView.text` decodes it only for the matchers that need characters (regular
expressions, case folding beyond ASCII).
"""

from __future__ import annotations

import bisect
import itertools
import re
import string

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.index.analysis_columns import PATH_CLASSES, CoreColumns
from maguyva_lsp.index.text_column import FOLDED_TRIGRAMS, LOWERED
from maguyva_lsp.index.text_part import TEXT_PART
from maguyva_lsp.index.trigram import ASCII_FOLDING_CHARS, TrigramIndex, trigram_codes
from maguyva_lsp.model import PathClass
from maguyva_lsp.store.container import ENCODING, ENCODING_ERRORS

# How exact matches rank by path class: source, then tests, then build/vendor, then archives.
PATH_CLASS_RANK: dict[PathClass, int] = {
    PathClass.SOURCE: 0,
    PathClass.TEST: 1,
    PathClass.BUILD: 2,
    PathClass.VENDOR: 2,
    PathClass.ARCHIVE: 3,
}
_RANK_OF_CLASS_INDEX = np.array([PATH_CLASS_RANK.get(pc, 2) for pc in PATH_CLASSES], dtype=np.int64)
_CONTINUATION_LOW, _CONTINUATION_HIGH = 0x80, 0xC0
# The UTF-8 of each character that case-insensitive matching equates with an ASCII letter, and that letter
# (İ ı → i, ſ → s, K → k).
ONTO_ASCII: tuple[tuple[bytes, bytes], ...] = tuple(
    (
        char.encode(ENCODING, ENCODING_ERRORS),
        next(a for a in string.ascii_lowercase if re.fullmatch(a, char, re.IGNORECASE)).encode(),
    )
    for char in sorted(ASCII_FOLDING_CHARS)
)


def decode(data: bytes) -> str:
    return data.decode(ENCODING, ENCODING_ERRORS)


def fold_onto_ascii(data: bytes) -> bytes:
    """The bytes with the characters that fold onto ASCII letters put in their place, ASCII lower-cased: a
    case-insensitive ASCII needle occurs in them as often as Python's re.IGNORECASE finds it in the text."""
    for encoded, letter in ONTO_ASCII:  # (UTF-8 cannot hold one character's bytes inside another's)
        data = data.replace(encoded, letter)
    return data.lower()


def _folded_trigrams(data: bytes) -> npt.NDArray[np.uint32]:
    return unique(trigram_codes(fold_onto_ascii(data)))


class ChunkSymbols:
    """The named chunks of one file (definitions: `chunk.symbol` set), read from its chunk columns once, to name the
    innermost one holding a line: each hit of a file asks, and a file shows up to `limit` hits."""

    __slots__ = ("_core", "_disjoint", "_ends", "_named", "_rows", "_starts")

    def __init__(self, core: CoreColumns, local: int) -> None:
        c0, c1 = core.chunk_rows(local)
        a = core.arrays
        named = np.flatnonzero(np.asarray(a["chunk.symbol"][c0:c1]) >= 0)
        starts = np.asarray(a["chunk.start"][c0:c1])[named].astype(np.int64)
        ends = np.asarray(a["chunk.end"][c0:c1])[named].astype(np.int64)
        self._core = core
        self._rows: list[int] = (named + c0).tolist()
        self._starts: list[int] = starts.tolist()
        self._ends: list[int] = ends.tolist()
        # The chunker's chunks never overlap and come in line order: then at most one holds a line, found by bisection.
        self._disjoint = bool(np.all(starts <= ends)) and bool(np.all(ends[:-1] < starts[1:]))
        self._named: dict[int, tuple[str | None, str | None]] = {}

    def row_at(self, line: int) -> int | None:
        """The chunk row of the narrowest named chunk holding the line (the first of them in row order), if any."""
        if self._disjoint:
            i = bisect.bisect_right(self._starts, line) - 1
            return self._rows[i] if i >= 0 and self._ends[i] >= line else None
        best: int | None = None
        width = 0
        for row, start, end in zip(self._rows, self._starts, self._ends, strict=True):
            if start <= line <= end and (best is None or end - start < width):
                best, width = row, end - start
        return best

    def at(self, line: int) -> tuple[str | None, str | None]:
        """(symbol, kind) of the innermost named chunk holding the line; (None, None) outside every definition."""
        row = self.row_at(line)
        if row is None:
            return None, None
        named = self._named.get(row)
        if named is None:
            core = self._core
            symbol, kind = int(core.arrays["chunk.symbol"][row]), int(core.arrays["chunk.kind"][row])
            named = self._named[row] = (core.pool_string(symbol), core.pool_string(kind))
        return named


class FileView:
    """One candidate file of one search: where its bytes are, its rank facts, and (on demand) its path and text."""

    __slots__ = (
        "_chunks", "_data", "_lowered", "_path", "_starts", "_text", "class_rank", "core", "doc_id", "folding",
        "local", "path_rank", "shared", "size", "spans",
    )  # fmt: skip

    def __init__(
        self, doc_id: int, core: CoreColumns, local: int, *, size: int, class_rank: int, path_rank: int,
        folding: bool, shared: dict[int, bytes] | None = None,
    ) -> None:  # fmt: skip
        self.doc_id = doc_id
        self.core = core
        self.local = local
        self.size = size  # bytes of the file's UTF-8 (known without decoding it)
        self.class_rank = class_rank
        self.path_rank = path_rank  # the file's place in path order among the snapshot's files
        self.folding = folding  # holds a character that case-insensitive matching equates with an ASCII letter
        self.shared = shared  # the snapshot's folded copies of such files (PathRanks.folded)
        self._path: str | None = None
        self._text: str | None = None
        self._starts: npt.NDArray[np.uint32] | None = None
        self._data: bytes | None = None
        self._lowered: bytes | None = None
        self._chunks: ChunkSymbols | None = None
        # Every match of the search, in text order, once a ranking step needed them all (text_results.py).
        self.spans: list[tuple[int, int]] | None = None

    @property
    def path(self) -> str:
        if self._path is None:
            self._path = self.core.paths[self.local]
        return self._path

    @property
    def path_class(self) -> PathClass:
        return self.core.path_class(self.local)

    @property
    def text(self) -> str:
        """The whole text, decoded once (only matchers that need characters ask)."""
        if self._text is None:
            self._text = decode(self.data())
        return self._text

    def data(self) -> bytes:
        """The file's bytes (the cache's decoded copy: bytes.find and count search it at memory speed; the count,
        the matches and the hits of a file then read the same object)."""
        if self._data is None:
            self._data = self.core.search_bytes(self.local)
        return self._data

    def lowered(self) -> bytes:
        """The file's bytes with ASCII letters lower-cased (same length, same offsets), kept in the process-wide cache
        beside the text: case-insensitive literals and regexes (whose trigrams are of lower-cased bytes) read the same
        files query after query."""
        if self._lowered is None:
            kept = self.core.search_derived(self.local, LOWERED, bytes.lower)
            assert isinstance(kept, bytes)
            self._lowered = kept
        return self._lowered

    def folded(self) -> bytes:
        """The file's bytes with its characters that fold onto ASCII letters put in their place and ASCII lower-cased:
        a case-insensitive ASCII needle occurs in it as often as Python's re.IGNORECASE finds it in the text (offsets
        differ). Made once per snapshot: such files are candidates of every case-insensitive search."""
        shared = self.shared
        done = None if shared is None else shared.get(self.doc_id)
        if done is None:
            done = fold_onto_ascii(self.data())
            if shared is not None:
                shared[self.doc_id] = done
        return done

    def release(self) -> None:
        """Let go of the file's text and its copies (a file the search is done with)."""
        self._text = None
        self._data = None
        self._lowered = None
        self.spans = None

    def bytes_at(self, start: int, end: int) -> bytes:
        """Bytes [start, end) of the file."""
        return self.data()[start:end]

    def chunk_symbols(self) -> ChunkSymbols:
        """The file's named chunks (read once: every hit of the file asks which one holds its line)."""
        if self._chunks is None:
            self._chunks = ChunkSymbols(self.core, self.local)
        return self._chunks

    def line_of(self, offset: int) -> tuple[int, int, int]:
        """(0-based line, its start, its end before the newline) of a byte offset (the line starts are found in the
        file once, then kept in the search cache: counting newlines up to each hit cost a rare literal 0.5 ms)."""
        starts = self._starts
        if starts is None:
            starts = self._starts = self.core.search_line_starts(self.local)
        line = int(starts.searchsorted(starts.dtype.type(offset), side="right")) - 1  # no cast of the array
        begin = int(starts[line])
        end = int(starts[line + 1]) - 1 if line + 1 < starts.size else self.size
        return line, begin, end

    def char_before(self, offset: int) -> str:
        """The character that ends at a byte offset ("" at the file's start)."""
        if offset <= 0:
            return ""
        data = self.data()
        last = data[offset - 1]
        if last < _CONTINUATION_LOW:
            return chr(last)
        begin = offset - 1
        while begin > 0 and offset - begin < 4 and _CONTINUATION_LOW <= data[begin] < _CONTINUATION_HIGH:
            begin -= 1
        return decode(data[begin:offset])[-1:]

    def char_at(self, offset: int) -> str:
        """The character that starts at a byte offset ("" at the file's end)."""
        if offset >= self.size:
            return ""
        data = self.data()
        first = data[offset]
        if first < _CONTINUATION_LOW:
            return chr(first)
        width = 2 if first < 0xE0 else 3 if first < 0xF0 else 4
        return decode(data[offset : min(offset + width, self.size)])[:1]


class ByteOffsets:
    """Character offsets of a decoded text → byte offsets of its UTF-8, for offsets asked in non-decreasing order."""

    __slots__ = ("_byte", "_char", "_identity", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._identity = text.isascii()
        self._char = 0
        self._byte = 0

    def __call__(self, char: int) -> int:
        if self._identity:
            return char
        if char < self._char:  # asked backwards: count again from the start
            self._char, self._byte = 0, 0
        self._byte += len(self._text[self._char : char].encode(ENCODING, ENCODING_ERRORS))
        self._char = char
        return self._byte


class PathRanks:
    """Each file's place in path order over every segment of one snapshot (global id → rank), computed on first use:
    ranking compares these integers instead of decoding paths, and a bounded search reads files in this order. Also
    the snapshot's folded copies of the few files that fold onto ASCII letters (`FileView.folded`)."""

    __slots__ = ("_index", "_ranks", "folded")

    def __init__(self, index: TrigramIndex) -> None:
        self._index = index
        self._ranks: npt.NDArray[np.int64] | None = None
        self.folded: dict[int, bytes] = {}  # FileView.folded of the snapshot's files that fold onto ASCII letters

    def ranks(self) -> npt.NDArray[np.int64]:
        if self._ranks is None:  # two threads may both compute it: the same array either way
            paths: list[bytes] = []
            for segment in self._index.segments:
                blob, offsets = segment.core.paths.arrays
                data = blob.tobytes()
                bounds = offsets.tolist()
                paths.extend(data[a:b] for a, b in itertools.pairwise(bounds))  # UTF-8 keeps code point order
            order = sorted(range(len(paths)), key=paths.__getitem__)
            ranks = np.empty(len(paths), dtype=np.int64)
            ranks[order] = np.arange(len(paths), dtype=np.int64)
            self._ranks = ranks
        return self._ranks


def _reading_order(
    classes: npt.NDArray[np.int64], paths: npt.NDArray[np.int64], sizes: npt.NDArray[np.int64], seed: int
) -> npt.NDArray[np.int64]:
    """Positions in reading order: the `seed` smallest files of the best path class (small files hold few matches, so
    the top they fill has a low worst count, and every later file is counted only up to it), then the others by path
    class and path (the ranking's first and last keys: the best class is complete before another is read, and a
    file after the worst of the top in path order ranks below it with as many matches, so it is read no further)."""
    order: npt.NDArray[np.int64] = np.lexsort((paths, classes))
    if seed <= 0 or not classes.size:
        return order
    in_best = np.flatnonzero(classes == classes.min())
    if in_best.size <= seed:
        return order  # the best class does not fill the top: all of it is read whatever the order
    smallest = in_best[np.argsort(sizes[in_best], kind="stable")[:seed]]
    first = smallest[np.argsort(paths[smallest])]
    later = np.ones(classes.size, dtype=bool)
    later[first] = False
    return np.concatenate((first, order[later[order]]))


def _holds_all(held: npt.NDArray[np.uint32], needed: npt.NDArray[np.uint32]) -> bool:
    """Whether a sorted array holds every value of another."""
    places = np.searchsorted(held, needed)
    return bool(np.all(places < held.size)) and bool(np.array_equal(held[places], needed))


def with_folding_holding(
    index: TrigramIndex, ids: npt.NDArray[np.uint32], trigrams: frozenset[int]
) -> npt.NDArray[np.uint32]:
    """Sorted global ids with the live files that fold onto ASCII letters added, as `TrigramIndex.with_folding`, but
    only those whose folded copy (`fold_onto_ascii`) holds every one of `trigrams`: a file without one of them cannot
    hold a case-insensitive ASCII literal that has it. The index holds trigrams of lower-cased bytes, so each such file
    is a candidate of every search ignoring case; its folded copy's trigrams are made once (kept in the text cache)."""
    needed = np.array(sorted(trigrams), dtype=np.uint32)
    extra: list[int] = []
    for base, segment in zip(index.bases.tolist(), index.segments, strict=True):
        folding = segment.part(TEXT_PART).trigrams.folding
        if not folding.size:
            continue
        core = segment.core
        for local in folding[segment.alive[folding]].tolist():
            held = core.search_derived(local, FOLDED_TRIGRAMS, _folded_trigrams)
            assert isinstance(held, np.ndarray)
            if _holds_all(held, needed):
                extra.append(base + local)
    if not extra:
        return ids
    return np.union1d(ids, np.array(extra, dtype=np.uint32)).astype(np.uint32)


def candidate_views(
    index: TrigramIndex, ids: npt.NDArray[np.uint32] | None, order: PathRanks, seed: int = 0
) -> list[FileView]:
    """Views of the candidate files (sorted global ids; None: every live file), in the order a bounded search of the
    top `seed` reads them (`_reading_order`)."""
    ranks_of = order.ranks()
    class_ranks: list[npt.NDArray[np.int64]] = []
    path_ranks: list[npt.NDArray[np.int64]] = []
    where: list[tuple[int, npt.NDArray[np.int64]]] = []
    for position, (base, segment) in enumerate(zip(index.bases.tolist(), index.segments, strict=True)):
        if ids is None:
            local = np.flatnonzero(segment.alive).astype(np.int64)
        else:
            upper = base + segment.alive.size
            local = ids[(ids >= base) & (ids < upper)].astype(np.int64) - base
        if not local.size:
            continue
        class_ranks.append(_RANK_OF_CLASS_INDEX[np.asarray(segment.core.arrays["file.class"])[local]])
        path_ranks.append(ranks_of[local + base])
        where.append((position, local))
    if not where:
        return []
    classes, paths = np.concatenate(class_ranks), np.concatenate(path_ranks)
    positions = np.concatenate([np.full(local.size, pos, dtype=np.int64) for pos, local in where])
    locals_ = np.concatenate([local for _, local in where])
    segments = index.segments
    sizes = np.concatenate([segments[pos].core.text_sizes()[local] for pos, local in where]).astype(np.int64)
    folds = np.concatenate([np.isin(local, segments[pos].part(TEXT_PART).trigrams.folding) for pos, local in where])
    reading = _reading_order(classes, paths, sizes, seed)
    bases = index.bases.tolist()
    cores = [segment.core for segment in segments]
    # One Python loop over plain lists (the arrays put in reading order first): a view costs its constructor only.
    return [
        FileView(
            bases[pos] + loc, cores[pos], loc, size=size, class_rank=rank, path_rank=path_rank, folding=fold,
            shared=order.folded if fold else None,
        )
        for pos, loc, size, rank, path_rank, fold in zip(
            positions[reading].tolist(), locals_[reading].tolist(), sizes[reading].tolist(),
            classes[reading].tolist(), paths[reading].tolist(), folds[reading].tolist(), strict=True,
        )
    ]  # fmt: skip

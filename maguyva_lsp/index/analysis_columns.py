"""The per-file analyses of a segment as columns: the source of truth every other index of the segment derives from.

One container part ("core") per segment, files sorted by path (a file's local id is its rank in that order):

    file.path, file.abs_path           string columns
    file.size, file.mtime              int64, what the freshness check compares with a stat
    file.hash, file.language, file.error, file.class    pool ids (-1: none) / PathClass index
    file.text                          int64 offsets of each file's UTF-8 (surrogatepass) text, as if concatenated
    file.textz → textz                 each file's text as one zstd frame (index/text_column.py)
    file.lines                         int64 offsets as if each file's line starts were stored (the line counts;
                                       the starts themselves are found in the text when asked for)
    file.defs / file.refs / file.chunks    int64 offsets of each file's rows in those tables
    def.{name,kind,signature,parent,language} pool ids, def.span / def.name_span [n, 4]
    ref.{name,enclosing,receiver} pool ids, ref.kind uint8, ref.span [n, 4]
    ref.module, ref.alias               sparse (almost every reference has none): `.at` the rows that have one
                                       (ascending int32), `.id` their pool ids
    chunk.{symbol,kind,parent,signature,hash,language} pool ids, chunk.start / chunk.end int32 (lines, inclusive),
    chunk.text                         pool id of the chunk's text, or -1 when it is its file's lines start..end
    pool                               every other string, once

Spans (line, column, line, column) are uint16 when every value of the segment fits, else int32 (`SPAN_DTYPES`).
Nothing here is a Python object per row: `FileAnalysis` values are rebuilt only for the files asked for.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Any, get_args

import numpy as np
import numpy.typing as npt

from maguyva_lsp.index.text_column import TextColumn, line_starts, offsets_of, text_arrays
from maguyva_lsp.model import (
    Chunk,
    Definition,
    FileAnalysis,
    PathClass,
    Reference,
    ReferenceKind,
    ReferenceTable,
    SourceFile,
    Span,
)
from maguyva_lsp.store.container import (
    ENCODING,
    ENCODING_ERRORS,
    Array,
    Container,
    ContainerError,
    StringColumn,
    string_arrays,
)

CORE_PART = "core"
# 2: spans as uint16 when they fit, ref.module / ref.alias sparse.
# 3: each file's text as a zstd frame (37 → 9 MB on the stdlib), line starts derived from it instead of stored.
# 4: no chunk hash (nothing read it: the embeddings are reused by their texts' hashes; 70k distinct pool strings on
#    the stdlib, 2.5 MB of each index, and a blake2b per chunk in every build).
CORE_VERSION = 4
PATH_CLASSES: tuple[PathClass, ...] = tuple(PathClass)
REFERENCE_KINDS: tuple[ReferenceKind, ...] = get_args(ReferenceKind)
NONE_ID = -1
SPAN_DTYPES = (np.dtype(np.uint16), np.dtype(np.int32))
SPAN_COLUMNS = ("def.span", "def.name_span", "ref.span")
# Pool-id row columns stored sparse: only the rows that hold a string.
SPARSE_COLUMNS = ("ref.module", "ref.alias")

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]


class _Pool:
    """Interns strings to ids (-1 for None) in first-seen order.

    A defaultdict whose factory counts: `ids[text]` both numbers a string not met before and reads a known one's id,
    one C call, so that a whole column is interned by `map(ids.__getitem__, ...)` without a Python step per string.
    None is held as a key (-1) from the start, outside the count."""

    __slots__ = ("ids",)

    def __init__(self) -> None:
        self.ids: defaultdict[str | None, int] = defaultdict(itertools.count().__next__)
        self.ids[None] = NONE_ID

    def id(self, text: str | None) -> int:
        return self.ids[text]

    def strings(self) -> list[str]:
        return list(itertools.islice(self.ids, 1, None))  # type: ignore[arg-type]  # every key after None is a str


def _utf8(text: str) -> bytes:
    return text.encode(ENCODING, ENCODING_ERRORS)


def _spans(rows: list[tuple[int, int, int, int]]) -> I32:
    return np.array(rows, dtype=np.int32).reshape(-1, 4)


def _narrow_spans(spans: Array) -> Array:
    """Spans as uint16 when every value fits (lines and columns of ordinary source do), else as int32."""
    fits = spans.size == 0 or (int(spans.min()) >= 0 and int(spans.max()) <= np.iinfo(np.uint16).max)
    return spans.astype(np.uint16 if fits else np.int32)


def _stored_columns(name: str, values: Array) -> dict[str, Array]:
    """The arrays that store one row column: spans narrowed, sparse columns as (rows, ids), others as given."""
    if name in SPAN_COLUMNS:
        return {name: _narrow_spans(values)}
    if name in SPARSE_COLUMNS:
        at = np.flatnonzero(values != NONE_ID).astype(np.int32)
        return {f"{name}.at": at, f"{name}.id": np.asarray(values)[at].astype(np.int32)}
    return {name: values}


# A row's interned fields, in the order the pool meets them (its first-seen order is stored).
_DEFINITION_FIELDS = attrgetter("name", "kind", "signature", "parent", "language")
_REFERENCE_FIELDS = attrgetter("name", "enclosing", "receiver", "module", "alias")
_CHUNK_FIELDS = attrgetter("symbol", "kind", "parent", "signature", "language")
_SPAN, _NAME_SPAN = attrgetter("span"), attrgetter("name_span")
_SPAN_FIELDS = attrgetter("start_line", "start_col", "end_line", "end_col")


def _derived_chunks(text: str, data: bytes, chunks: Sequence[Chunk]) -> list[bool]:
    """Whether each chunk's text is its file's lines start..end, `"\n".join(text.split("\n")[start : end + 1])` (then
    it is not stored: the core derives it). An ASCII file's line starts are found in its bytes (byte offsets are
    character offsets) and each chunk compared in place, without joining its lines; other files join them."""
    if len(data) != len(text):
        lines = text.split("\n")
        return [
            0 <= c.start_line <= c.end_line and "\n".join(lines[c.start_line : c.end_line + 1]) == c.text
            for c in chunks
        ]
    starts = line_starts(data).tolist()
    n_lines, size = len(starts), len(text)
    out: list[bool] = []
    for c in chunks:
        first, last = c.start_line, c.end_line
        if not 0 <= first <= last:
            out.append(False)
            continue
        # the joined lines run from line `first`'s start to the end of line min(last, the file's last line)
        begin = starts[first] if first < n_lines else size
        end = max(starts[last + 1] - 1 if last + 1 < n_lines else size, begin)
        own = c.text
        out.append(len(own) == end - begin and text.startswith(own, begin))
    return out


def encode_analyses(analyses: Sequence[FileAnalysis]) -> dict[str, Array]:
    """The core columns of a segment holding these analyses (one per path; sorted by path here)."""
    return encode_core(analyses)[0]


def encode_core(analyses: Sequence[FileAnalysis]) -> tuple[dict[str, Array], list[bytes]]:
    """`encode_analyses`, and each file's UTF-8 by local id (what the core's frames decode to): a segment build
    hands them to its parts (`CoreColumns(arrays, texts)`), which then decompress no file."""
    ordered = sorted({a.path: a for a in analyses}.values(), key=lambda a: a.path)
    pool = _Pool()
    pid = pool.ids.__getitem__  # a string's id, a new one when first seen; -1 for None
    texts: list[bytes] = []
    line_counts: list[int] = []
    f_hash, f_lang, f_err, f_class, f_size, f_mtime = [], [], [], [], [], []
    # Row columns as flat lists of pool ids, a row's fields side by side in the order they are interned (the pool's
    # first-seen order is stored: it must not change), reshaped to columns at the end.
    d_ids: list[int] = []  # name, kind, signature, parent, language
    d_span: list[tuple[int, int, int, int]] = []
    d_nspan: list[tuple[int, int, int, int]] = []
    r_ids: list[int] = []  # name, enclosing, receiver, module, alias
    r_kind: list[int] = []
    r_span: list[Array] = []  # each file's (references, 4) spans
    c_ids: list[int] = []  # symbol, kind, parent, signature, language
    c_start, c_end, c_text = [], [], []
    n_defs, n_refs, n_chunks = [], [], []
    kind_index = {kind: i for i, kind in enumerate(REFERENCE_KINDS)}
    kind_code, reference_code = kind_index.get, kind_index["reference"]
    class_index = {pc: i for i, pc in enumerate(PATH_CLASSES)}
    for analysis in ordered:
        f = analysis.file
        text = analysis.text
        data = _utf8(text)
        texts.append(data)
        line_counts.append(data.count(b"\n") + 1)
        f_hash.append(pid(analysis.content_hash))
        f_lang.append(pid(f.language))
        f_err.append(pid(analysis.parse_error))
        f_class.append(class_index[f.path_class])
        f_size.append(f.size)
        f_mtime.append(f.mtime_ns)
        definitions = analysis.definitions
        if definitions:
            d_ids.extend(map(pid, chain.from_iterable(map(_DEFINITION_FIELDS, definitions))))
            d_span.extend(map(_SPAN_FIELDS, map(_SPAN, definitions)))
            d_nspan.extend(map(_SPAN_FIELDS, map(_NAME_SPAN, definitions)))
        # A segment's references are most of its rows (635k on the stdlib): an extracted file's ReferenceTable is read
        # column by column, without building its Reference objects, and interned by one map over its rows' fields.
        refs = analysis.references
        if isinstance(refs, ReferenceTable):
            rows = zip(refs.names, refs.enclosing, refs.receivers, refs.modules, refs.aliases, strict=True)
            r_ids.extend(map(pid, chain.from_iterable(rows)))
            r_kind.extend([kind_code(kind, reference_code) for kind in refs.kinds])
            r_span.append(refs.spans)
        elif refs:
            r_ids.extend(map(pid, chain.from_iterable(map(_REFERENCE_FIELDS, refs))))
            r_kind.extend([kind_code(r.kind, reference_code) for r in refs])
            r_span.append(_spans(list(map(_SPAN_FIELDS, map(_SPAN, refs)))))
        chunks = analysis.chunks
        if chunks:
            derived = _derived_chunks(text, data, chunks)
            c_start.extend([c.start_line for c in chunks])
            c_end.extend([c.end_line for c in chunks])
            if all(derived):  # every chunk is its file's lines (the chunker's always are): no text of its own
                c_ids.extend(map(pid, chain.from_iterable(map(_CHUNK_FIELDS, chunks))))
                c_text.extend([NONE_ID] * len(chunks))
            else:  # a chunk's own text is interned after its other fields, as it comes
                for c, own in zip(chunks, derived, strict=True):
                    c_ids.extend(map(pid, _CHUNK_FIELDS(c)))
                    c_text.append(NONE_ID if own else pid(c.text))
        n_defs.append(len(definitions))
        n_refs.append(len(refs))
        n_chunks.append(len(chunks))

    def ids(values: list[int]) -> I32:
        return np.array(values, dtype=np.int32)

    def columns(values: list[int], width: int) -> list[I32]:
        table = ids(values).reshape(-1, width)
        return [np.ascontiguousarray(table[:, k]) for k in range(width)]

    d_name, d_kind, d_sig, d_parent, d_lang = columns(d_ids, 5)
    r_name, r_enc, r_recv, r_mod, r_alias = columns(r_ids, 5)
    c_sym, c_kind, c_parent, c_sig, c_lang = columns(c_ids, 5)
    arrays: dict[str, Array] = {
        **string_arrays("file.path", [a.path for a in ordered]),
        **string_arrays("file.abs_path", [a.file.abs_path for a in ordered]),
        "file.size": np.array(f_size, dtype=np.int64),
        "file.mtime": np.array(f_mtime, dtype=np.int64),
        "file.hash": ids(f_hash),
        "file.language": ids(f_lang),
        "file.error": ids(f_err),
        "file.class": np.array(f_class, dtype=np.uint8),
        **text_arrays(texts),
        "file.lines": offsets_of(line_counts),
        "file.defs": offsets_of(n_defs),
        "file.refs": offsets_of(n_refs),
        "file.chunks": offsets_of(n_chunks),
        "def.name": d_name,
        "def.kind": d_kind,
        "def.signature": d_sig,
        "def.parent": d_parent,
        "def.language": d_lang,
        **_stored_columns("def.span", _spans(d_span)),
        **_stored_columns("def.name_span", _spans(d_nspan)),
        "ref.name": r_name,
        "ref.kind": np.array(r_kind, dtype=np.uint8),
        "ref.enclosing": r_enc,
        "ref.receiver": r_recv,
        **_stored_columns("ref.module", r_mod),
        **_stored_columns("ref.alias", r_alias),
        **_stored_columns("ref.span", np.concatenate([_spans([]), *r_span]).astype(np.int32)),
        "chunk.start": ids(c_start),
        "chunk.end": ids(c_end),
        "chunk.symbol": c_sym,
        "chunk.kind": c_kind,
        "chunk.parent": c_parent,
        "chunk.signature": c_sig,
        "chunk.language": c_lang,
        "chunk.text": ids(c_text),
        **string_arrays("pool", pool.strings()),
    }
    return arrays, texts


# Columns holding pool ids, which a merge renumbers.
POOL_COLUMNS: tuple[str, ...] = (
    "file.hash", "file.language", "file.error",
    "def.name", "def.kind", "def.signature", "def.parent", "def.language",
    "ref.name", "ref.enclosing", "ref.receiver", "ref.module", "ref.alias",
    "chunk.symbol", "chunk.kind", "chunk.parent", "chunk.signature", "chunk.language", "chunk.text",
)  # fmt: skip
# Per-file tables: (offsets column, row columns).
ROW_TABLES: dict[str, tuple[str, ...]] = {
    "file.defs": ("def.name", "def.kind", "def.signature", "def.parent", "def.language", "def.span", "def.name_span"),
    "file.refs": ("ref.name", "ref.kind", "ref.enclosing", "ref.receiver", "ref.module", "ref.alias", "ref.span"),
    "file.chunks": (
        "chunk.start", "chunk.end", "chunk.symbol", "chunk.kind", "chunk.parent", "chunk.signature", "chunk.language",
        "chunk.text",
    ),
    "file.text": (),  # sizes only: the merged offsets follow from them
    "file.textz": ("textz",),  # each file's frame, copied as is
    "file.lines": (),
}  # fmt: skip
FILE_COLUMNS: tuple[str, ...] = ("file.size", "file.mtime", "file.hash", "file.language", "file.error", "file.class")


@dataclass(frozen=True, slots=True)
class FileAt:
    """Where a file lives: the segment's position in a segment list and the file's local id in it."""

    segment: int
    local: int


# A definition's row columns, in the order `definitions_of` reads a row.
DEFINITION_COLUMNS = (
    "def.name",
    "def.kind",
    "def.signature",
    "def.parent",
    "def.language",
    "def.span",
    "def.name_span",
)


def definitions_of(path: str, pool: Sequence[str], rows: Iterable[tuple[Any, ...]]) -> tuple[Definition, ...]:
    """One file's definitions from its rows of DEFINITION_COLUMNS (as lists: pool ids, spans as 4 ints)."""
    return tuple(
        Definition(
            pool[name],
            pool[kind],
            path,
            Span(*span),
            Span(*nspan),
            pool[sig],
            None if parent < 0 else pool[parent],
            None if lang < 0 else pool[lang],
        )
        for name, kind, sig, parent, lang, span, nspan in rows
    )


class CoreColumns:
    """The core columns of one segment, over a mapped container (or arrays in memory)."""

    __slots__ = (
        "_chunk_offsets", "_line_offsets", "_pool_blob", "_pool_cache", "_pool_off", "_pool_or_none", "_text",
        "_texts", "arrays", "paths",
    )  # fmt: skip

    def __init__(self, arrays: Container | dict[str, Array], texts: Sequence[bytes] | None = None) -> None:
        """`texts`: the files' UTF-8 by local id when the caller holds them (a build from analyses, `encode_core`):
        `text_bytes` then reads them instead of decompressing the frames."""
        self.arrays: Any = arrays
        self._texts = texts
        self.paths = StringColumn(arrays["file.path.blob"], arrays["file.path.off"])
        self._pool_cache: list[str] | None = None
        self._pool_or_none: list[str | None] | None = None
        # The columns every query touches, held directly (a container lookup per access would dominate).
        self._pool_blob = arrays["pool.blob"]
        self._pool_off = arrays["pool.off"]
        self._line_offsets = arrays["file.lines"]
        self._chunk_offsets = arrays["file.chunks"]
        self._check()
        self._text = TextColumn(arrays["textz"], arrays["file.textz"], arrays["file.text"])

    @property
    def file_count(self) -> int:
        return len(self.paths)

    def rows(self, name: str, start: int, end: int) -> Array:
        """Rows [start, end) of a row column, whatever its storage (a sparse column is filled in with -1)."""
        a = self.arrays
        if name not in SPARSE_COLUMNS:
            return np.asarray(a[name][start:end])
        at = a[f"{name}.at"]
        lo, hi = np.searchsorted(at, [start, end]).tolist()
        out = np.full(end - start, NONE_ID, dtype=np.int32)
        out[np.asarray(at[lo:hi], dtype=np.int64) - start] = a[f"{name}.id"][lo:hi]
        return out

    def _check(self) -> None:
        """Raise ContainerError when a column has a shape or dtype no writer gives it (a damaged or foreign file:
        the segment set then analyses its files anew)."""
        a = self.arrays
        TextColumn.check(a["textz"], a["file.textz"], a["file.text"], len(self.paths))
        for name in SPAN_COLUMNS:
            if a[name].dtype not in SPAN_DTYPES or a[name].ndim != 2 or a[name].shape[1] != 4:
                raise ContainerError(f"{name}: dtype {a[name].dtype}, shape {a[name].shape}")
        refs = int(a["file.refs"][-1]) if len(a["file.refs"]) else 0
        for name in SPARSE_COLUMNS:
            at, ids = a[f"{name}.at"], a[f"{name}.id"]
            if at.shape != ids.shape or (at.size and (int(at[0]) < 0 or int(at[-1]) >= refs)):
                raise ContainerError(f"{name}: {at.size} rows for {ids.size} ids, {refs} references")

    def pool(self) -> list[str]:
        """Every pooled string, decoded once (for rebuilding analyses, never on a query's path)."""
        if self._pool_cache is None:
            self._pool_cache = StringColumn(self.arrays["pool.blob"], self.arrays["pool.off"]).to_list()
        return self._pool_cache

    def _pool_with_none(self) -> list[str | None]:
        """The pool with None appended, so that id -1 reads as None without a test per row."""
        if self._pool_or_none is None:
            self._pool_or_none = [*self.pool(), None]
        return self._pool_or_none

    def pool_string(self, index: int) -> str | None:
        if index < 0:
            return None
        offsets = self._pool_off
        return (
            self._pool_blob[int(offsets[index]) : int(offsets[index + 1])].tobytes().decode(ENCODING, ENCODING_ERRORS)
        )

    def local_id(self, path: str) -> int:
        """The local id of a path in this segment, or -1."""
        return self.paths.find(path)

    def sizes(self) -> npt.NDArray[np.int64]:
        return np.asarray(self.arrays["file.size"])

    def mtimes(self) -> npt.NDArray[np.int64]:
        return np.asarray(self.arrays["file.mtime"])

    def text_bytes(self, local: int) -> bytes:
        """A file's UTF-8, decoded from its frame (not kept: for builds, chunks, analyses), or as given."""
        return self._text.read(local) if self._texts is None else self._texts[local]

    def search_bytes(self, local: int) -> bytes:
        """A file's UTF-8 for exact search: through the process-wide cache of decoded files (text_column.py)."""
        return self._text.cached(local)

    def search_derived(
        self, local: int, kind: int, make: Callable[[bytes], bytes | npt.NDArray[np.uint32]]
    ) -> bytes | npt.NDArray[np.uint32]:
        """What exact search derives from a file's UTF-8 (`make`), in the same cache (TextColumn.cached_derived)."""
        return self._text.cached_derived(local, kind, make)

    def search_line_starts(self, local: int) -> npt.NDArray[np.uint32]:
        """A file's line starts for exact search's hits, through the same cache."""
        return self._text.cached_line_starts(local)

    def text(self, local: int) -> str:
        return self.text_bytes(local).decode(ENCODING, ENCODING_ERRORS)

    def text_size(self, local: int) -> int:
        return self._text.size(local)

    def text_sizes(self) -> I64:
        """Every file's text size in bytes, by local id."""
        return self._text.sizes()

    def line_count(self, local: int) -> int:
        return int(self._line_offsets[local + 1]) - int(self._line_offsets[local])

    def lines_text(self, local: int, start: int, end: int, *, cached: bool = False) -> str:
        """Lines start..end (inclusive, 0-based) of a file joined by newlines, as `"\\n".join(text.split("\\n")[start :
        end + 1])` gives them (the file is decoded from its frame, its line starts found in it; `cached`: through
        the search cache)."""
        count = self.line_count(local)
        start = max(start, 0)
        if start >= count or end < start:
            return ""
        if cached:  # query time (a line per result shown, for its UTF-16 columns): text and line starts kept
            data, lines = self.search_bytes(local), self.search_line_starts(local)
        else:
            data = self.text_bytes(local)
            lines = line_starts(data)
        begin = int(lines[start])
        stop = int(lines[end + 1]) - 1 if end + 1 < count else len(data)
        return data[begin:stop].decode(ENCODING, ENCODING_ERRORS)

    def line_starts(self, local: int) -> npt.NDArray[np.uint32]:
        """Byte offset of each line's start within a file's text (found in its text)."""
        return line_starts(self.text_bytes(local))

    def line(self, local: int, line: int) -> str:
        """One line of a file ("" past its end), without its newline. Through the search cache: results show a
        line of each hit, and a file's hits come together."""
        return self.lines_text(local, line, line, cached=True) if line >= 0 else ""

    def language(self, local: int) -> str | None:
        return self.pool_string(int(self.arrays["file.language"][local]))

    @property
    def chunk_count(self) -> int:
        return int(self.arrays["file.chunks"][-1])

    def chunk_files(self) -> npt.NDArray[np.uint32]:
        """The local file id of every chunk row."""
        counts = np.diff(np.asarray(self.arrays["file.chunks"]))
        return np.repeat(np.arange(self.file_count, dtype=np.uint32), counts)

    def chunk_rows(self, local: int) -> tuple[int, int]:
        offsets = self._chunk_offsets
        return int(offsets[local]), int(offsets[local + 1])

    def chunk_file(self, row: int) -> int:
        return int(np.searchsorted(self._chunk_offsets, row, side="right")) - 1

    def chunk(self, row: int) -> Chunk:
        """One chunk row as an object (its text decoded from just its lines). Asked for at query time (a BM25 hit's
        chunk, read lazily), and a query's hits come from the same files: so through the search cache, as `line_text`,
        instead of decoding the whole file and finding its line starts again for each hit."""
        a = self.arrays
        s = self.pool_string
        local = self.chunk_file(row)
        start, end, own = int(a["chunk.start"][row]), int(a["chunk.end"][row]), int(a["chunk.text"][row])
        return Chunk(
            self.paths[local],
            s(int(a["chunk.language"][row])),
            start,
            end,
            (s(own) or "") if own >= 0 else self.lines_text(local, start, end, cached=True),
            s(int(a["chunk.symbol"][row])),
            s(int(a["chunk.kind"][row])),
            s(int(a["chunk.parent"][row])),
            s(int(a["chunk.signature"][row])),
        )

    def chunks(self, local: int, text: str | None = None) -> tuple[Chunk, ...]:
        """The file's chunks as objects (`text`: the file's text, when the caller has it decoded already)."""
        start, end = self.chunk_rows(local)
        if start == end:
            return ()
        return self._chunks(local, start, end, text if text is not None else self.text(local), self.pool_string)

    def chunk_texts(self) -> tuple[list[str], list[str | None]]:
        """Every chunk's text and symbol, in row order (for building the BM25 part)."""
        pool = self.pool()
        a = self.arrays
        texts: list[str] = []
        symbols: list[str | None] = [None if i < 0 else pool[i] for i in np.asarray(a["chunk.symbol"]).tolist()]
        starts, ends = np.asarray(a["chunk.start"]).tolist(), np.asarray(a["chunk.end"]).tolist()
        own = np.asarray(a["chunk.text"]).tolist()
        offsets = np.asarray(a["file.chunks"]).tolist()
        for local in range(self.file_count):
            c0, c1 = offsets[local], offsets[local + 1]
            if c0 == c1:
                continue
            lines = self.text(local).split("\n")
            for row in range(c0, c1):
                texts.append(pool[own[row]] if own[row] >= 0 else "\n".join(lines[starts[row] : ends[row] + 1]))
        return texts, symbols

    def path_class(self, local: int) -> PathClass:
        return PATH_CLASSES[int(self.arrays["file.class"][local])]

    def content_hash(self, local: int) -> str:
        return self.pool_string(int(self.arrays["file.hash"][local])) or ""

    def _chunks(self, local: int, c0: int, c1: int, text: str, s: Callable[[int], str | None]) -> tuple[Chunk, ...]:
        a = self.arrays
        path = self.paths[local]
        lines = text.split("\n")
        return tuple(
            Chunk(
                path,
                s(lang),
                start,
                end,
                (s(own) or "") if own >= 0 else "\n".join(lines[start : end + 1]),
                s(sym),
                s(kind),
                s(parent),
                s(sig),
            )
            for start, end, sym, kind, parent, sig, lang, own in zip(
                a["chunk.start"][c0:c1].tolist(),
                a["chunk.end"][c0:c1].tolist(),
                a["chunk.symbol"][c0:c1].tolist(),
                a["chunk.kind"][c0:c1].tolist(),
                a["chunk.parent"][c0:c1].tolist(),
                a["chunk.signature"][c0:c1].tolist(),
                a["chunk.language"][c0:c1].tolist(),
                a["chunk.text"][c0:c1].tolist(),
                strict=True,
            )
        )

    def definitions(self, local: int) -> tuple[Definition, ...]:
        """One file's definitions, rebuilt from the columns."""
        a = self.arrays
        pool = self.pool()
        path = self.paths[local]
        d0, d1 = int(a["file.defs"][local]), int(a["file.defs"][local + 1])
        return definitions_of(path, pool, zip(*(a[name][d0:d1].tolist() for name in DEFINITION_COLUMNS), strict=True))

    def reference_count(self, local: int) -> int:
        return int(self.arrays["file.refs"][local + 1]) - int(self.arrays["file.refs"][local])

    def references(self, local: int, kinds: frozenset[ReferenceKind] | None = None) -> tuple[Reference, ...]:
        """One file's references, rebuilt from the columns (the graph's reference source reads them); `kinds`: only
        references of these kinds (the graph reads other files' imports and base lists, a few per cent of them)."""
        a = self.arrays
        strings = self.pool()
        pool = self._pool_with_none()
        path = self.paths[local]
        r0, r1 = int(a["file.refs"][local]), int(a["file.refs"][local + 1])
        picked: npt.NDArray[np.int64] | None = None
        if kinds is not None:
            codes = [i for i, kind in enumerate(REFERENCE_KINDS) if kind in kinds]
            picked = np.flatnonzero(np.isin(np.asarray(a["ref.kind"][r0:r1]), codes))

        def column(name: str) -> list[Any]:
            values = self.rows(name, r0, r1)
            return (values if picked is None else values[picked]).tolist()  # type: ignore[no-any-return]

        return tuple(
            Reference(
                strings[name], REFERENCE_KINDS[kind], path, Span(*span), pool[enc], pool[rcv], pool[mod], pool[al]
            )
            for name, kind, enc, rcv, mod, al, span in zip(
                column("ref.name"),
                column("ref.kind"),
                column("ref.enclosing"),
                column("ref.receiver"),
                column("ref.module"),
                column("ref.alias"),
                column("ref.span"),
                strict=True,
            )
        )

    def analysis(self, local: int, *, symbols: bool = True) -> FileAnalysis:
        """The FileAnalysis of one file, rebuilt from the columns (equal to the one that was encoded). `symbols=False`:
        without its definitions and references, for a reader of the text and chunks only (the semantic lane), which
        spares decoding the references, most of the cost."""
        a = self.arrays
        pool = self.pool()

        def s(index: int) -> str | None:
            return None if index < 0 else pool[index]

        path = self.paths[local]
        language = s(int(a["file.language"][local]))
        file = SourceFile(
            path,
            StringColumn(a["file.abs_path.blob"], a["file.abs_path.off"])[local],
            language,
            PATH_CLASSES[int(a["file.class"][local])],
            int(a["file.size"][local]),
            int(a["file.mtime"][local]),
        )
        text = self.text(local)
        definitions = self.definitions(local) if symbols else ()
        references = self.references(local) if symbols else ()
        c0, c1 = int(a["file.chunks"][local]), int(a["file.chunks"][local + 1])
        chunks = self._chunks(local, c0, c1, text, s) if c1 > c0 else ()
        return FileAnalysis(
            file=file,
            text=text,
            content_hash=pool[int(a["file.hash"][local])],
            definitions=definitions,
            references=references,
            chunks=chunks,
            parse_error=s(int(a["file.error"][local])),
        )


def merge_core(parts: Sequence[tuple[CoreColumns, npt.NDArray[np.bool_]]]) -> dict[str, Array]:
    """The core columns of one segment holding the live files (`alive` per local id) of several, in path order.

    Array work only, apart from decoding the pools (their strings are united): no analysis is rebuilt."""
    pool = _Pool()
    remaps: list[I32] = []
    for core, _ in parts:
        strings = core.pool()
        remap = np.fromiter((pool.id(x) for x in strings), dtype=np.int32, count=len(strings))
        remaps.append(np.append(remap, np.int32(NONE_ID)))  # index -1 maps to -1
    # The files kept, with their (segment, local) origin, in path order.
    origins: list[tuple[str, int, int]] = []
    for seg, (core, alive) in enumerate(parts):
        for local in np.flatnonzero(alive).tolist():
            origins.append((core.paths[local], seg, local))
    origins.sort()
    if len({path for path, _, _ in origins}) != len(origins):
        raise ValueError("a path is live in more than one merged segment")
    out: dict[str, Array] = {}
    out.update(string_arrays("file.path", [p for p, _, _ in origins]))
    abs_columns = [StringColumn(c.arrays["file.abs_path.blob"], c.arrays["file.abs_path.off"]) for c, _ in parts]
    out.update(string_arrays("file.abs_path", [abs_columns[seg][local] for _, seg, local in origins]))
    seg_of = np.array([seg for _, seg, _ in origins], dtype=np.int64)
    local_of = np.array([local for _, _, local in origins], dtype=np.int64)
    for column in FILE_COLUMNS:
        pieces = [np.asarray(parts[seg][0].arrays[column])[local] for seg, local in zip(seg_of, local_of, strict=True)]
        values = np.array(pieces, dtype=np.asarray(parts[0][0].arrays[column]).dtype)
        if column in POOL_COLUMNS:
            values = _renumbered(values, seg_of, remaps)
        out[column] = values
    for offsets_name, row_columns in ROW_TABLES.items():
        counts: list[int] = []
        gathered: dict[str, list[Array]] = {name: [] for name in row_columns}
        # Pool ids are renumbered piece by piece (each file's rows with its segment's remap; -1 stays -1): a segment
        # id per row would cost 8 bytes per byte of source text for the text table.
        for seg, local in zip(seg_of.tolist(), local_of.tolist(), strict=True):
            arrays = parts[seg][0].arrays
            offsets = arrays[offsets_name]
            start, end = int(offsets[local]), int(offsets[local + 1])
            counts.append(end - start)
            for name in row_columns:
                piece = parts[seg][0].rows(name, start, end)
                gathered[name].append(remaps[seg][piece] if name in POOL_COLUMNS else piece)
        out[offsets_name] = offsets_of(counts)
        for name in row_columns:
            template = parts[0][0].rows(name, 0, 0)
            pieces = gathered[name]
            values = np.concatenate(pieces) if pieces else template
            if name in POOL_COLUMNS:
                values = values.astype(np.int32, copy=False)
            elif name not in SPAN_COLUMNS:
                values = values.astype(template.dtype, copy=False)
            out.update(_stored_columns(name, values))
    out.update(string_arrays("pool", pool.strings()))
    return out


def _renumbered(values: Array, segments: npt.NDArray[np.int64], remaps: list[I32]) -> I32:
    """Pool ids of rows from several segments, renumbered into the merged pool."""
    out = np.empty(values.shape, dtype=np.int32)
    for seg, remap in enumerate(remaps):
        rows = segments == seg
        if bool(rows.any()):
            out[rows] = remap[values[rows]]
    return out

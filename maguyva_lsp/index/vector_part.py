"""One immutable block of vector rows stored as columns: the unit the vector chain is made of, in memory or mapped.

A part holds the rows of some files, grouped by file in path order: the binary codes (word-major, so a Hamming scan
reads contiguous memory: index/vector_codes.py), optional int8
rescoring vectors with their scales, and per row its lines, text hash,
symbol, kind (a code into the part's few kind names) and snippet; the line and row-to-file columns are uint16 unless
a value needs int32 (ROW_INT_DTYPES, chosen per part). Per file it keeps its key (a 64-bit hash of the path), the tag
the retriever gave its rows, and its content hash. `superseded` lists the keys of files whose rows in *older* parts
this part replaces or removes. A row becomes an object (`RowRef`) only when a query returns it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import unique
from maguyva_lsp.index.vector_codes import WORD_BITS, stored_vectors, word_major
from maguyva_lsp.index.vector_strings import BlockStrings, block_arrays
from maguyva_lsp.model import chunk_id
from maguyva_lsp.store.container import (
    ENCODING,
    ENCODING_ERRORS,
    STRING_OFFSET_DTYPES,
    Array,
    StringColumn,
    string_arrays,
)

VECTORS_PART = "vectors"  # the part's name in the store (Manifest.chains[VECTORS_PART])
PART_FORMAT = 4  # 2: narrow row columns, kinds as codes; 3: symbols and snippets in zstd frames (index/
# vector_strings.py), codes derived from the int8 rows; 4: the codes stored again (index/vector_codes.py says why)
# The dtypes of the row columns (lines, a row's file): the narrowest that holds the part's values. A reader takes these.
ROW_INT_DTYPES = (np.dtype(np.uint16), np.dtype(np.int32))
KIND_CODE_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16))
TEXT_HASH_BYTES = 16
PATH_KEY_BYTES = 8

Bools = npt.NDArray[np.bool_]
Keys = npt.NDArray[np.uint64]
Rows = npt.NDArray[np.intp]
RowInts = npt.NDArray[np.uint16] | npt.NDArray[np.int32]

_STRING_COLUMNS = ("path", "path.tag", "path.content", "kind")
_INT_COLUMNS = ("row.path", "row.start", "row.end", "row.end_col")


class VectorPartError(ValueError):
    """A part's arrays do not fit together (a damaged or foreign container); the message says which."""


class RowRef(NamedTuple):
    """What a row stands for: a chunk's location and what a hit shows of it (built for returned rows only; a named
    tuple, since a query builds dozens of them and a frozen dataclass costs several times more to build)."""

    path: str
    start_line: int
    end_line: int
    text_hash: bytes  # hash of the embedded text (the embedding cache's key): rows are reused when it is unchanged
    symbol: str | None = None
    kind: str | None = None
    snippet: str = ""
    end_col: int = 0  # code-point length of the chunk's last line, so a hit's span ends where the chunk does

    @property
    def chunk_id(self) -> str:
        return chunk_id(self.path, self.start_line, self.end_line)


@dataclass(frozen=True, slots=True)
class RowColumns:
    """A file's rows as columns, the fields of RowRef but its path (what a cold build's worker processes send: a few
    objects per file instead of one tuple per row, which cost the workers building and pickling them and the main
    process unpickling them and reading them back, at the build's serial end)."""

    starts: list[int]
    ends: list[int]
    end_cols: list[int]
    hashes: bytes  # TEXT_HASH_BYTES per row
    symbols: list[str | None]
    kinds: list[str | None]
    snippets: list[str]

    def __post_init__(self) -> None:
        n = len(self.starts)
        if {len(self.ends), len(self.end_cols), len(self.symbols), len(self.kinds), len(self.snippets)} != {n}:
            raise ValueError(f"row columns of different lengths for {n} rows")
        if len(self.hashes) != n * TEXT_HASH_BYTES:
            raise ValueError(f"text hashes must be {TEXT_HASH_BYTES} bytes")

    def __len__(self) -> int:
        return len(self.starts)

    @staticmethod
    def of(refs: Sequence[RowRef]) -> RowColumns:
        """The columns of some row references."""
        if any(len(r.text_hash) != TEXT_HASH_BYTES for r in refs):
            raise ValueError(f"text hashes must be {TEXT_HASH_BYTES} bytes")
        return RowColumns(
            [r.start_line for r in refs],
            [r.end_line for r in refs],
            [r.end_col for r in refs],
            b"".join(r.text_hash for r in refs),
            [r.symbol for r in refs],
            [r.kind for r in refs],
            [r.snippet for r in refs],
        )


@dataclass(frozen=True, slots=True)
class FileRows:
    """The rows of one file for a new part: every row the file has (none for a file without chunks)."""

    path: str
    tag: str  # what the retriever built the rows from (its fingerprint of the file's analysis)
    content: str  # the file's content hash, which tells a lagging row from a current one without the analysis
    refs: Sequence[RowRef] | RowColumns

    @property
    def columns(self) -> RowColumns:
        refs = self.refs
        return refs if isinstance(refs, RowColumns) else RowColumns.of(refs)


@dataclass(frozen=True, slots=True)
class RowVectors:
    """Vectors of rows as stored: packed codes (n, dim/8) and, when kept, int8 vectors (n, dim) with scales (n,)."""

    codes: npt.NDArray[np.uint8]
    quantized: npt.NDArray[np.int8] | None = None
    scales: npt.NDArray[np.float32] | None = None

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    @staticmethod
    def concat(parts: Sequence[RowVectors], dimension: int) -> RowVectors:
        if not parts:
            return RowVectors(np.zeros((0, dimension // 8), dtype=np.uint8))
        codes = np.concatenate([p.codes for p in parts])
        if any(p.quantized is None or p.scales is None for p in parts):
            return RowVectors(codes)
        return RowVectors(
            codes,
            np.concatenate([p.quantized for p in parts if p.quantized is not None]),
            np.concatenate([p.scales for p in parts if p.scales is not None]),
        )


def path_keys(paths: Iterable[str]) -> Keys:
    """64-bit keys of paths (BLAKE2b): how parts name the files they supersede, compared with numpy."""
    digests = b"".join(
        hashlib.blake2b(p.encode("utf-8", "surrogatepass"), digest_size=PATH_KEY_BYTES).digest() for p in paths
    )
    return np.frombuffer(digests, dtype="<u8").astype(np.uint64)


def _optional(value: str) -> str | None:
    return value or None


class VectorPart:
    """An immutable block of rows; its arrays are numpy arrays in memory or read-only views of a mapped container."""

    __slots__ = (
        "_arrays",
        "_words",
        "content",
        "dimension",
        "end_cols",
        "ends",
        "kind_codes",
        "kind_names",
        "meta",
        "path_key",
        "path_rows",
        "paths",
        "rescore",
        "row_path",
        "scales",
        "snippets",
        "starts",
        "superseded",
        "symbols",
        "tags",
        "text_hash",
    )

    def __init__(self, arrays: Mapping[str, Array], meta: Mapping[str, Any]) -> None:
        """Wrap a part's arrays, checking that they fit together (O(header): shapes and dtypes, no scan)."""
        self._arrays = dict(arrays)
        self.meta = dict(meta)
        try:
            self.dimension = int(self.meta["dimension"])
            self._words: npt.NDArray[np.uint64] = self._array("words", np.uint64)
            self.row_path: RowInts = self._ints("row.path", ROW_INT_DTYPES)
            self.starts: RowInts = self._ints("row.start", ROW_INT_DTYPES)
            self.ends: RowInts = self._ints("row.end", ROW_INT_DTYPES)
            self.end_cols: RowInts = self._ints("row.end_col", ROW_INT_DTYPES)
            self.kind_codes: RowInts = self._ints("row.kind", KIND_CODE_DTYPES)
            self.text_hash: npt.NDArray[np.uint8] = self._array("row.hash", np.uint8)
            self.path_rows: npt.NDArray[np.int64] = self._array("path.rows", np.int64)
            self.path_key: Keys = self._array("path.key", np.uint64)
            self.superseded: Keys = self._array("superseded", np.uint64)
            self.paths, self.tags, self.content, kinds = (self._strings(name) for name in _STRING_COLUMNS)
            self.kind_names: list[str | None] = [_optional(k) for k in kinds]  # a handful: decoded at open
            self.rescore: npt.NDArray[np.int8] | None = None
            self.scales: npt.NDArray[np.float32] | None = None
            if "rescore" in self._arrays or "scales" in self._arrays:
                self.rescore = self._array("rescore", np.int8)
                self.scales = self._array("scales", np.float32)
            self.symbols, self.snippets = (self._blocks(name) for name in ("row.symbol", "row.snippet"))
        except KeyError as exc:
            raise VectorPartError(f"missing {exc}") from None
        self._check()

    def _array(self, name: str, dtype: type[np.generic]) -> Any:
        array = np.asarray(self._arrays[name])
        if array.dtype != np.dtype(dtype):
            raise VectorPartError(f"{name} of dtype {array.dtype}, not {np.dtype(dtype)}")
        return array

    def _ints(self, name: str, dtypes: tuple[np.dtype[Any], ...]) -> Any:
        array = np.asarray(self._arrays[name])
        if array.dtype not in dtypes:
            raise VectorPartError(f"{name} of dtype {array.dtype}, not one of {', '.join(map(str, dtypes))}")
        return array

    def _blocks(self, name: str) -> BlockStrings:
        try:
            return BlockStrings(np.asarray(self._arrays[f"{name}.z"]), np.asarray(self._arrays[f"{name}.zoff"]), self.n)
        except ValueError as exc:
            raise VectorPartError(f"{name}: {exc}") from None

    def _strings(self, name: str) -> StringColumn:
        offsets = np.asarray(self._arrays[f"{name}.off"])
        if offsets.dtype not in STRING_OFFSET_DTYPES:
            raise VectorPartError(f"{name}.off of dtype {offsets.dtype}")
        return StringColumn(self._array(f"{name}.blob", np.uint8), offsets)

    def _check(self) -> None:
        n, p, dim = self.n, len(self.paths), self.dimension
        words = self._words
        if dim <= 0 or dim % WORD_BITS:
            raise VectorPartError(f"dimension {dim}")
        if words.ndim != 2 or words.shape[0] != dim // WORD_BITS:
            raise VectorPartError(f"codes of shape {words.shape} for dimension {dim}")
        if self.rescore is not None and self.rescore.ndim != 2:
            raise VectorPartError(f"rescoring vectors of shape {self.rescore.shape}")
        for name, column in (("row.start", self.starts), ("row.end", self.ends), ("row.end_col", self.end_cols)):
            if column.shape != (n,):
                raise VectorPartError(f"{name} of shape {column.shape} for {n} rows")
        if self.row_path.shape != (n,) or self.text_hash.shape != (n, TEXT_HASH_BYTES):
            raise VectorPartError(f"row columns do not match {n} rows")
        if self.kind_codes.shape != (n,):
            raise VectorPartError(f"row strings do not match {n} rows")
        if n and int(self.kind_codes.max()) >= len(self.kind_names):
            raise VectorPartError("kind codes past the part's kind names")
        if (
            self.path_rows.shape != (p + 1,)
            or self.path_key.shape != (p,)
            or {len(self.tags), len(self.content)} != {p}
        ):
            raise VectorPartError(f"path columns do not match {p} paths")
        if int(self.path_rows[0]) != 0 or int(self.path_rows[-1]) != n:
            raise VectorPartError("path row offsets do not cover the rows")
        if (self.rescore is None) != (self.scales is None) or (
            self.rescore is not None
            and self.scales is not None
            and (self.rescore.shape != (n, dim) or self.scales.shape != (n,))
        ):
            raise VectorPartError("rescoring vectors do not match the codes")

    @property
    def n(self) -> int:
        return int(self._words.shape[1])

    @property
    def words(self) -> npt.NDArray[np.uint64]:
        """The codes, word-major."""
        return self._words

    def int8_rows(self, rows: Rows) -> npt.NDArray[np.int8]:
        """The int8 rescoring vectors of some rows (a part with floats)."""
        if self.rescore is None:
            raise ValueError("a part without float vectors")
        return self.rescore[rows]

    @property
    def path_count(self) -> int:
        return len(self.paths)

    @property
    def has_floats(self) -> bool:
        return self.rescore is not None

    @property
    def text(self) -> str:
        """What embedded text the rows were made from (style and version): another one means every file is stale."""
        return str(self.meta.get("text", ""))

    def arrays(self) -> dict[str, Array]:
        """The arrays to store (views of the mapping when the part was opened from a container)."""
        return dict(self._arrays)

    def find(self, path: str) -> int:
        """The path's index in this part, or -1."""
        return self.paths.find(path)

    def path_range(self, index: int) -> tuple[int, int]:
        return int(self.path_rows[index]), int(self.path_rows[index + 1])

    def ref(self, row: int) -> RowRef:
        return RowRef(
            path=self.paths[int(self.row_path[row])],
            start_line=int(self.starts[row]),
            end_line=int(self.ends[row]),
            text_hash=self.text_hash[row].tobytes(),
            symbol=_optional(self.symbols.take([row])[0]),
            kind=self.kind_names[int(self.kind_codes[row])],
            snippet=self.snippets.take([row])[0],
            end_col=int(self.end_cols[row]),
        )

    def refs(self, rows: Rows) -> list[RowRef]:
        """The references of several rows (what a query returns: strings decoded in one pass per column)."""
        rows = np.asarray(rows, dtype=np.intp)
        hashes = self.text_hash[rows].tobytes()
        kinds = self.kind_names
        width = TEXT_HASH_BYTES
        return [
            RowRef(path, start, end, hashes[width * i : width * (i + 1)], symbol or None, kinds[kind], snippet, col)
            for i, (path, start, end, symbol, kind, snippet, col) in enumerate(
                zip(
                    _decoded(self.paths, self.row_path[rows]),
                    self.starts[rows].tolist(),
                    self.ends[rows].tolist(),
                    self.symbols.take(rows),
                    self.kind_codes[rows].tolist(),
                    self.snippets.take(rows),
                    self.end_cols[rows].tolist(),
                    strict=True,
                )
            )
        ]

    def vectors(self, rows: Rows) -> RowVectors:
        codes = np.ascontiguousarray(self.words[:, rows].T).view(np.uint8)
        if self.rescore is None or self.scales is None:
            return RowVectors(codes)
        return RowVectors(codes, self.int8_rows(rows), self.scales[rows])

    def row_alive(self, path_alive: Bools) -> Bools:
        """Which rows are alive, given which paths are."""
        return np.repeat(path_alive, np.diff(self.path_rows))


def _decoded(column: StringColumn, indices: npt.NDArray[Any]) -> list[str]:
    """Some strings of a column, decoded through one memoryview of its blob (no numpy slice per string)."""
    blob, offsets = column.arrays
    view = memoryview(np.ascontiguousarray(blob).data)
    starts = offsets[indices].tolist()
    ends = offsets[np.asarray(indices) + 1].tolist()
    return [str(view[a:b], ENCODING, ENCODING_ERRORS) for a, b in zip(starts, ends, strict=True)]


def part_meta(model: str, dimension: int, text: str, *, has_floats: bool) -> dict[str, object]:
    return {
        "part": VECTORS_PART,
        "format": PART_FORMAT,
        "model": model,
        "dimension": dimension,
        "text": text,
        "floats": has_floats,
    }


def build_part(
    meta: Mapping[str, object], files: Sequence[FileRows], vectors: RowVectors, superseded: Iterable[str] = ()
) -> VectorPart:
    """A part of these files (rows in `files` order, matching `vectors`), sorted by path for lookups."""
    dimension = int(str(meta["dimension"]))
    counts = np.array([len(f.refs) for f in files], dtype=np.int64)
    if int(counts.sum()) != len(vectors):
        raise ValueError(f"{int(counts.sum())} rows for {len(vectors)} vectors")
    order = sorted(range(len(files)), key=lambda i: files[i].path)
    if len({files[i].path for i in order}) != len(order):
        raise ValueError("a path is given twice")
    first = np.concatenate(([0], np.cumsum(counts)))
    rows = (
        np.concatenate([np.arange(first[i], first[i + 1]) for i in order]).astype(np.intp)
        if order
        else np.zeros(0, dtype=np.intp)
    )
    columns = [files[i].columns for i in order]
    n = len(rows)

    def joined(field: Callable[[RowColumns], Iterable[Any]]) -> list[Any]:
        return list(chain.from_iterable(map(field, columns)))

    def ints(field: Callable[[RowColumns], list[int]]) -> npt.NDArray[np.int64]:
        return np.fromiter(chain.from_iterable(map(field, columns)), dtype=np.int64, count=n)

    kinds = [kind or "" for kind in joined(attrgetter("kinds"))]
    sorted_counts = counts[order] if order else counts
    kind_names = sorted(set(kinds))
    kind_code = {kind: code for code, kind in enumerate(kind_names)}
    quantized = None if vectors.quantized is None else vectors.quantized[rows]
    scales = None if vectors.scales is None else vectors.scales[rows]
    arrays: dict[str, Array] = {
        **stored_vectors(word_major(vectors.codes[rows], dimension), quantized, scales),
        "row.path": np.repeat(np.arange(len(order), dtype=np.int64), sorted_counts),
        "row.start": ints(attrgetter("starts")),
        "row.end": ints(attrgetter("ends")),
        "row.end_col": ints(attrgetter("end_cols")),
        "row.kind": np.fromiter(map(kind_code.__getitem__, kinds), dtype=np.int64, count=n),
        "row.hash": _hash_rows([c.hashes for c in columns], n),
        "path.rows": np.concatenate(([0], np.cumsum(sorted_counts))).astype(np.int64),
        "path.key": path_keys(files[i].path for i in order),
        "superseded": unique(path_keys(superseded)),
    }
    arrays.update(block_arrays("row.symbol", [symbol or "" for symbol in joined(attrgetter("symbols"))]))
    arrays.update(string_arrays("kind", kind_names))
    arrays.update(block_arrays("row.snippet", joined(attrgetter("snippets"))))
    arrays.update(string_arrays("path", [files[i].path for i in order]))
    arrays.update(string_arrays("path.tag", [files[i].tag for i in order]))
    arrays.update(string_arrays("path.content", [files[i].content for i in order]))
    return VectorPart(_narrowed(arrays), {**meta, "rows": n, "paths": len(order)})


def _narrowed(arrays: dict[str, Array]) -> dict[str, Array]:
    """The row columns in the narrowest of their dtypes that holds their values (the kind codes in uint8)."""
    for name in _INT_COLUMNS:
        arrays[name] = _narrowest(arrays[name], ROW_INT_DTYPES)
    arrays["row.kind"] = _narrowest(arrays["row.kind"], KIND_CODE_DTYPES)
    return arrays


def _narrowest(values: Array, dtypes: tuple[np.dtype[Any], ...]) -> Array:
    low, high = (int(values.min()), int(values.max())) if len(values) else (0, 0)
    for dtype in dtypes:
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return np.ascontiguousarray(values, dtype=dtype)
    raise ValueError(f"values {low}..{high} fit none of {dtypes}")


def _hash_rows(blobs: Sequence[bytes], n: int) -> npt.NDArray[np.uint8]:
    """The rows' text hashes (blobs of TEXT_HASH_BYTES per row) as an (n, TEXT_HASH_BYTES) array."""
    blob = b"".join(blobs)
    if len(blob) != n * TEXT_HASH_BYTES:
        raise ValueError(f"text hashes must be {TEXT_HASH_BYTES} bytes")
    return np.frombuffer(blob, dtype=np.uint8).reshape(n, TEXT_HASH_BYTES).copy()


def merge_parts(
    parts: Sequence[tuple[VectorPart, Bools]], meta: Mapping[str, object], superseded: Keys | None = None
) -> VectorPart:
    """One part holding the live paths (`alive` per path) of several, in path order: array work, no row objects.

    `superseded` are the keys the merged part still supersedes in parts older than all of these (none for a base)."""
    origins: list[tuple[str, int, int]] = []
    for index, (part, alive) in enumerate(parts):
        names = part.paths
        origins.extend((names[int(p)], index, int(p)) for p in np.flatnonzero(alive))
    origins.sort()
    if len({path for path, _, _ in origins}) != len(origins):
        raise ValueError("a path is live in more than one merged part")
    ranges = [parts[i][0].path_range(p) for _, i, p in origins]
    counts = np.array([end - start for start, end in ranges], dtype=np.int64)
    # Rows gathered per source part (one fancy index each), then put in path order.
    sources = np.repeat(np.array([i for _, i, _ in origins], dtype=np.int64), counts)
    local = (
        np.concatenate([np.arange(start, end, dtype=np.intp) for start, end in ranges])
        if ranges
        else np.zeros(0, dtype=np.intp)
    )
    dimension = int(str(meta["dimension"]))
    floats = bool(parts) and all(part.has_floats for part, _ in parts)
    n = len(local)
    words = np.empty((dimension // WORD_BITS, n), dtype=np.uint64)
    ints = {name: np.empty(n, dtype=np.int64) for name in (*_INT_COLUMNS[1:], "row.kind")}
    kind_names = sorted({k or "" for part, _ in parts for k in part.kind_names})
    kind_code = {kind: code for code, kind in enumerate(kind_names)}
    hashes = np.empty((n, TEXT_HASH_BYTES), dtype=np.uint8)
    rescore = np.empty((n, dimension), dtype=np.int8) if floats else None
    scales = np.empty(n, dtype=np.float32) if floats else None
    picks: list[tuple[int, Rows, Rows]] = []
    for index, (part, _) in enumerate(parts):
        at = np.flatnonzero(sources == index)
        if not at.size:
            continue
        rows = local[at]
        picks.append((index, at, rows))
        words[:, at] = part.words[:, rows]
        ints["row.start"][at] = part.starts[rows]
        ints["row.end"][at] = part.ends[rows]
        ints["row.end_col"][at] = part.end_cols[rows]
        recode = np.array([kind_code[k or ""] for k in part.kind_names], dtype=np.int64)
        ints["row.kind"][at] = recode[part.kind_codes[rows]]
        hashes[at] = part.text_hash[rows]
        if rescore is not None and scales is not None and part.rescore is not None and part.scales is not None:
            rescore[at] = part.int8_rows(rows)
            scales[at] = part.scales[rows]
    arrays: dict[str, Array] = {
        **stored_vectors(words, rescore, scales),
        "row.path": np.repeat(np.arange(len(origins), dtype=np.int64), counts),
        **ints,
        "row.hash": hashes,
        "path.rows": np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
        "path.key": np.array([parts[i][0].path_key[p] for _, i, p in origins], dtype=np.uint64),
        "superseded": np.zeros(0, dtype=np.uint64) if superseded is None else unique(superseded),
    }
    arrays.update(string_arrays("kind", kind_names))
    for name, column in (("row.symbol", "symbols"), ("row.snippet", "snippets")):
        merged = [""] * n
        for index, at, rows in picks:
            for position, text in zip(at.tolist(), getattr(parts[index][0], column).take(rows), strict=True):
                merged[position] = text
        arrays.update(block_arrays(name, merged))
    path_picks = [(i, p) for _, i, p in origins]
    arrays.update(string_arrays("path", [path for path, _, _ in origins]))
    arrays.update(string_arrays("path.tag", [parts[i][0].tags[p] for i, p in path_picks]))
    arrays.update(string_arrays("path.content", [parts[i][0].content[p] for i, p in path_picks]))
    return VectorPart(_narrowed(arrays), {**meta, "rows": n, "paths": len(origins), "floats": floats})

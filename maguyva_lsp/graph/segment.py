"""One immutable block of the columnar graph: its files, their nodes, references, resolved uses (sites), dependency
keys and module keys as flat numpy columns, with the sorted indexes that lookups go through.

Every string is an id of the graph's StringTable. Per-file tables (`RAGGED`) hold one row per item with the row of
its file, grouped by file in file order, so a file's items are one slice (offsets `files.<table>`). A segment is
built once (from encoded files and from rows of older segments) and then only read: its arrays may be memory-mapped
straight from a segment file. Objects (SymbolNode, Reference, EdgeSite, FileRecord) are made from rows on demand.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from maguyva_lsp.arrays import run_starts, unique
from maguyva_lsp.graph.model import (
    EDGE_KINDS,
    MODULE_KIND,
    REFERENCE_KINDS,
    RESOLUTIONS,
    EdgeSite,
    SymbolNode,
)
from maguyva_lsp.graph.modules import ModuleKey
from maguyva_lsp.graph.records import DepKey, FileRecord, make_record
from maguyva_lsp.graph.strings import NO_STRING, StringTable
from maguyva_lsp.model import Reference, ReferenceKind, Span
from maguyva_lsp.tokens import split_identifier

Array = npt.NDArray[Any]
IntArray = npt.NDArray[np.int32]

RAGGED: tuple[str, ...] = ("nodes", "refs", "sites", "deps", "mkeys")
_I32, _I64, _U8, _F64 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.float64)
_U16 = np.dtype(np.uint16)
# name → (dtype, width): width 4 is a span (start line, start column, end line, end column), 0 a plain column.
COLUMNS: dict[str, tuple[np.dtype[Any], int]] = {
    "files.path": (_I32, 0),
    "files.language": (_I32, 0),
    "files.system": (_I32, 0),
    "files.folder": (_I32, 0),
    "files.lines": (_I32, 0),
    "files.test": (_U8, 0),  # a test path: its uses do not vote in PageRank
    "files.hash": (_I32, 0),  # the analysed content's hash
    "files.complete": (_U8, 0),  # every reference stored; 0: only imports and base-class lists (a source has the rest)
    "nodes.id": (_I32, 0),
    "nodes.name": (_I32, 0),
    "nodes.qual": (_I32, 0),
    "nodes.kind": (_I32, 0),
    "nodes.parent": (_I32, 0),
    "nodes.language": (_I32, 0),
    "nodes.span": (_I32, 4),
    "nodes.name_span": (_I32, 4),
    "nodes.flags": (_U8, 0),
    "nodes.file": (_I32, 0),
    "refs.name": (_I32, 0),
    "refs.kind": (_U8, 0),
    "refs.span": (_I32, 4),
    "refs.enclosing": (_I32, 0),
    "refs.receiver": (_I32, 0),
    "refs.module": (_I32, 0),
    "refs.alias": (_I32, 0),
    "refs.file": (_I32, 0),
    "sites.source": (_I32, 0),
    "sites.target": (_I32, 0),
    "sites.kind": (_U8, 0),
    "sites.span": (_I32, 4),
    "sites.resolution": (_U8, 0),
    "sites.weight": (_F64, 0),
    "sites.file": (_I32, 0),
    "deps.key": (_I64, 0),
    "deps.file": (_I32, 0),
    "mkeys.key": (_I32, 0),
    "mkeys.file": (_I32, 0),
    "words.word": (_I32, 0),  # sub-word → definition name pairs, sorted, of the names this segment defines
    "words.name": (_I32, 0),
}
# Sorted lookups: index name → (table, key column); non-module nodes only for `name`, package systems for `package`.
# None by a use's source: a use's source is a node of the file it is made in, whose rows are one slice already.
# Stored as a sorted run of distinct keys (`index.<name>.keys`), where each key's rows start (`.starts`, one more) and
# the rows themselves (`.rows`): a key repeats over many uses, and storing it once per row doubled the column.
INDEXES: dict[str, tuple[str, str]] = {
    "name": ("nodes", "nodes.name"),
    "target": ("sites", "sites.target"),
    "dep": ("deps", "deps.key"),
    "mkey": ("mkeys", "mkeys.key"),
    "package": ("files", ""),
}

# Columns stored in the narrowest of these dtypes that holds every value of the segment (lines and columns of a
# span, rows of a segment's files: uint16 unless a file is longer, a line wider or the segment holds more files than
# that); the builder's dtype above is the widest. A reader accepts exactly these.
NARROW_DTYPES: tuple[np.dtype[Any], ...] = (_U16, _I32)
NARROWED: frozenset[str] = frozenset(
    name for name, (_, width) in COLUMNS.items() if width == 4 or (name.endswith(".file"))
)
# A use's weight comes from a few values (a resolution's weight over a number of candidates, a guess's factor): stored
# as a code (`sites.weight_code`, uint8 when 256 values or fewer) into the segment's sorted table of the distinct
# values (`sites.weights`, float64: the very values, so that PageRank is computed from identical weights).
WEIGHT_CODE, WEIGHT_VALUES = "sites.weight_code", "sites.weights"
WEIGHT_CODE_DTYPES: tuple[np.dtype[Any], ...] = (_U8, _U16, _I32)

NODE_MEMBER, NODE_TOPLEVEL, NODE_MODULE = 1, 2, 4
_REFERENCE_KIND_CODE = {k: i for i, k in enumerate(REFERENCE_KINDS)}
_EDGE_KIND_CODE = {k: i for i, k in enumerate(EDGE_KINDS)}
_RESOLUTION_CODE = {r: i for i, r in enumerate(RESOLUTIONS)}
# The references other files' resolution reads of a file: its imports (bindings, re-exports) and base-class lists.
OUTWARD_REFERENCE_KINDS: frozenset[ReferenceKind] = frozenset({"import", "inherit"})
_OUTWARD_REFERENCE_CODES = np.array([_REFERENCE_KIND_CODE[k] for k in sorted(OUTWARD_REFERENCE_KINDS)], dtype=np.uint8)
# Dependency keys packed in a (non-negative) int64: 4 bits of tag, then two string ids (+1, so that "none" is 0) of
# 29 bits each.
DEP_TAGS: tuple[str, ...] = ("t", "q", "g", "mb", "n", "m", "i", "b", "d")
_DEP_TAG_CODE = {t: i for i, t in enumerate(DEP_TAGS)}
_ID_BITS = 29
MAX_STRINGS = (1 << _ID_BITS) - 1
_MODULE_SEPARATOR, _COMPONENT_SEPARATOR = "\x1e", "\x1f"
# Package systems' (system, folder) packed in an int64 for the `package` index.
_PACKAGE_SHIFT = 32


def encode_module_key(key: ModuleKey) -> str:
    return key[0] + _MODULE_SEPARATOR + _COMPONENT_SEPARATOR.join(key[1])


def decode_module_key(text: str) -> ModuleKey:
    system, _, rest = text.partition(_MODULE_SEPARATOR)
    return (system, tuple(rest.split(_COMPONENT_SEPARATOR)) if rest else ())


def pack_dep(tag: int, x: int, y: int) -> int:
    return (tag << (2 * _ID_BITS)) | ((x + 1) << _ID_BITS) | (y + 1)


def package_key(system: int, folder: int) -> int:
    return (system << _PACKAGE_SHIFT) | folder


def _dep_parts(key: DepKey) -> tuple[str, str | None, str | None]:
    tag = str(key[0])
    if tag == "m":
        module_key: ModuleKey = key[1]  # type: ignore[assignment]
        return tag, encode_module_key(module_key), None
    second = str(key[2]) if len(key) > 2 else None
    return tag, str(key[1]), second


def encode_dep(strings: StringTable | _InterningCache, key: DepKey) -> int:
    tag, x, y = _dep_parts(key)
    return pack_dep(_DEP_TAG_CODE[tag], strings.intern(x) if x is not None else NO_STRING, strings.optional(y))


def find_dep(strings: StringTable, key: DepKey) -> int | None:
    """The packed key, or None when one of its strings was never interned (so no file can depend on it)."""
    tag, x, y = _dep_parts(key)
    xs = strings.find(x) if x is not None else NO_STRING
    ys = strings.find(y) if y is not None else NO_STRING
    if (x is not None and xs == NO_STRING) or (y is not None and ys == NO_STRING):
        return None
    return pack_dep(_DEP_TAG_CODE[tag], xs, ys)


def decode_dep(strings: StringTable, packed: int) -> DepKey:
    tag = DEP_TAGS[packed >> (2 * _ID_BITS)]
    x = ((packed >> _ID_BITS) & MAX_STRINGS) - 1
    y = (packed & MAX_STRINGS) - 1
    if tag == "m":
        return ("m", decode_module_key(strings.text(x)))
    return (tag, strings.text(x)) if y == NO_STRING else (tag, strings.text(x), strings.text(y))


@dataclass(frozen=True, slots=True)
class FileEntry:
    """What one file brings to a segment, as Python values: its record, its resolved uses (source id, target id,
    site) in resolution order, the keys its resolution consulted, and the module keys it answers to."""

    record: FileRecord
    sites: Sequence[tuple[str, str, EdgeSite]]
    deps: frozenset[DepKey]
    module_keys: tuple[ModuleKey, ...]
    test: bool


def _empty(name: str) -> Array:
    dtype, width = COLUMNS[name]
    return np.zeros((0, width) if width else 0, dtype=dtype)


_USE_TABLES = ("sites.", "deps.")


def _arrays(columns: dict[str, list[Any]]) -> dict[str, Array]:
    out: dict[str, Array] = {}
    for name, values in columns.items():
        dtype, width = COLUMNS[name]
        array = np.array(values, dtype=dtype)
        out[name] = array.reshape(-1, width) if width else array
    return out


class _Rows:
    """Encoded files as Python lists, turned into one part of arrays at once."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
        self.files = 0

    def part(self, strings: StringTable) -> dict[str, Array]:
        out = _arrays(self.columns)
        names = unique(out["nodes.name"][(out["nodes.flags"] & NODE_MODULE) == 0])
        words: list[int] = []
        named: list[int] = []
        for sid in names.tolist():
            for word in dict.fromkeys(split_identifier(strings.text(sid))):  # in order: every process interns alike
                words.append(strings.intern(word))
                named.append(sid)
        out["words.word"] = np.array(words, dtype=np.int32)
        out["words.name"] = np.array(named, dtype=np.int32)
        return out


class SegmentBuilder:
    """Builds a segment from encoded files (`add`) and from files of older segments (`copy`), in call order."""

    def __init__(self, strings: StringTable, *, outward_only: bool = False) -> None:
        """`outward_only`: files added are stored with their imports and base-class lists only (the engine's
        segments hold every reference; the graph reads them through its reference source)."""
        self.outward_only = outward_only
        self.strings = _InterningCache(strings)
        self._parts: list[dict[str, Array]] = []
        self._rows = _Rows()

    def add(self, entry: FileEntry) -> None:
        c = self._rows.columns
        file_row = self._rows.files
        self._rows.files += 1
        self._encode_file(c, file_row, entry)
        self._encode_uses(c, file_row, entry)

    def add_file(self, entry: FileEntry) -> None:
        """A file's rows without its uses (`files_part` takes the files added so far; uses are encoded apart)."""
        row = self._rows.files
        self._rows.files += 1
        self._encode_file(self._rows.columns, row, entry)

    def files_part(self) -> dict[str, Array]:
        """The arrays of the files added (`add_file`) since the last part, their use columns empty."""
        part = self._rows.part(self.strings.table)
        self._rows = _Rows()
        return part

    def encode_uses(self, columns: dict[str, list[Any]], file_row: int, entry: FileEntry) -> None:
        """A file's uses and keys appended to use columns kept apart (`use_arrays` makes them arrays)."""
        self._encode_uses(columns, file_row, entry)

    @staticmethod
    def use_arrays(columns: dict[str, list[Any]]) -> dict[str, Array]:
        return _arrays(columns)

    def add_resolved(self, segment: GraphSegment, rows: Sequence[int], entries: Sequence[FileEntry]) -> None:
        """Files stored in `segment` at `rows` (ascending) with the same content and module keys, resolved again:
        their file, node, reference and module-key rows are copied as they are; only uses and keys are encoded."""
        self._flush()
        keep = np.zeros(segment.file_count, dtype=bool)
        keep[np.asarray(rows, dtype=np.int64)] = True
        part = segment.take(keep)
        encoded: dict[str, list[Any]] = {name: [] for name in COLUMNS if name.startswith(_USE_TABLES)}
        for file_row, entry in enumerate(entries):
            self._encode_uses(encoded, file_row, entry)
        part.update(_arrays(encoded))
        self._parts.append(part)

    def _encode_file(self, c: dict[str, list[Any]], file_row: int, entry: FileEntry) -> None:
        strings = self.strings
        record = entry.record
        c["files.path"].append(strings.intern(record.path))
        c["files.language"].append(strings.optional(record.language))
        c["files.system"].append(strings.optional(record.system))
        c["files.folder"].append(strings.intern(record.path.rpartition("/")[0]))
        c["files.lines"].append(record.module_node.span.end_line)
        c["files.test"].append(1 if entry.test else 0)
        c["files.hash"].append(strings.intern(record.content_hash))
        c["files.complete"].append(1 if record.complete and not self.outward_only else 0)
        # The columns and the interning bound once per file: a cold build encodes every node of every file here.
        intern, optional = strings.intern, strings.optional
        ids, names, quals, kinds = c["nodes.id"], c["nodes.name"], c["nodes.qual"], c["nodes.kind"]
        parents, languages, spans, name_spans = (
            c["nodes.parent"],
            c["nodes.language"],
            c["nodes.span"],
            c["nodes.name_span"],
        )
        flags_of, files = c["nodes.flags"], c["nodes.file"]
        for node in (record.module_node, *record.symbols.values()):
            ids.append(intern(node.node_id))
            names.append(intern(node.name))
            quals.append(intern(node.qualified_name))
            kinds.append(intern(node.kind))
            parents.append(optional(node.parent))
            languages.append(optional(node.language))
            spans.extend(_span(node.span))
            name_spans.extend(_span(node.name_span))
            flags = (NODE_MEMBER if node.member else 0) | (NODE_TOPLEVEL if node.toplevel else 0)
            flags_of.append(flags | (NODE_MODULE if node.is_module else 0))
            files.append(file_row)
        references = record.references
        if self.outward_only:
            references = tuple(r for r in references if r.kind in OUTWARD_REFERENCE_KINDS)
        for ref in references:
            c["refs.name"].append(strings.intern(ref.name))
            c["refs.kind"].append(_REFERENCE_KIND_CODE[ref.kind])
            c["refs.span"].extend(_span(ref.span))
            c["refs.enclosing"].append(strings.optional(ref.enclosing))
            c["refs.receiver"].append(strings.optional(ref.receiver))
            c["refs.module"].append(strings.optional(ref.module))
            c["refs.alias"].append(strings.optional(ref.alias))
            c["refs.file"].append(file_row)
        for module_key in entry.module_keys:
            c["mkeys.key"].append(strings.intern(encode_module_key(module_key)))
            c["mkeys.file"].append(file_row)

    def _encode_uses(self, c: dict[str, list[Any]], file_row: int, entry: FileEntry) -> None:
        """A file's resolved uses and the dependency keys of its resolution."""
        strings = self.strings
        for source, target, site in entry.sites:
            c["sites.source"].append(strings.intern(source))
            c["sites.target"].append(strings.intern(target))
            c["sites.kind"].append(_EDGE_KIND_CODE[site.kind])
            c["sites.span"].extend(_span(site.span))
            c["sites.resolution"].append(_RESOLUTION_CODE[site.resolution])
            c["sites.weight"].append(site.weight)
            c["sites.file"].append(file_row)
        for packed in sorted(encode_dep(strings, key) for key in entry.deps):
            c["deps.key"].append(packed)
            c["deps.file"].append(file_row)

    def copy(self, segment: GraphSegment, keep: npt.NDArray[np.bool_]) -> None:
        """The files of `segment` where `keep` is true, rows as they are (vectorised)."""
        self._flush()
        self._parts.append(segment.take(keep))

    def build(self) -> GraphSegment:
        self._flush()
        if len(self.strings.table) > MAX_STRINGS:
            raise OverflowError(f"more than {MAX_STRINGS} distinct strings in the graph")
        columns: dict[str, Array] = {}
        file_bases = np.cumsum([0, *(len(p["files.path"]) for p in self._parts)])
        for name in COLUMNS:
            if not self._parts:
                columns[name] = _empty(name)
                continue
            arrays = [p[name] for p in self._parts]
            if name.endswith(".file"):
                arrays = [a.astype(np.int64) + int(base) for a, base in zip(arrays, file_bases, strict=False)]
            columns[name] = np.concatenate(arrays).astype(COLUMNS[name][0], copy=False)
        return GraphSegment.assemble(columns)

    def _flush(self) -> None:
        if self._rows.files:
            self._parts.append(self._rows.part(self.strings.table))
            self._rows = _Rows()


class _InterningCache:
    """Interning with a dict in front: the strings of a batch's files repeat (receivers, names, paths)."""

    def __init__(self, table: StringTable) -> None:
        self.table = table
        self._ids: dict[str, int] = {}
        self._deps: dict[DepKey, int] = {}

    def dep(self, key: DepKey) -> int:
        """`encode_dep` with a dict in front: a cold build's files share most keys (the modules they import). The
        first encoding interns the key's strings, as it would without the dict; later ones would intern nothing."""
        packed = self._deps.get(key)
        if packed is None:
            packed = self._deps[key] = encode_dep(self, key)
        return packed

    def deps(self, keys: Collection[DepKey]) -> list[int]:
        """`dep` of each key, in order: the hits found by one map over the dict (a file's keys are mostly known),
        the others encoded one by one in the keys' order, as calling `dep` per key would intern their strings."""
        found = list(map(self._deps.get, keys))
        if None not in found:
            return cast(list[int], found)
        return [self.dep(key) if packed is None else packed for key, packed in zip(keys, found, strict=True)]

    def intern(self, text: str) -> int:
        sid = self._ids.get(text)
        if sid is None:
            sid = self._ids[text] = self.table.intern(text)
        return sid

    def optional(self, text: str | None) -> int:
        return NO_STRING if text is None else self.intern(text)


def _span(span: Span) -> tuple[int, int, int, int]:
    return (span.start_line, span.start_col, span.end_line, span.end_col)


def _index(keys: Array, mask: npt.NDArray[np.bool_] | None = None) -> tuple[Array, Array, IntArray]:
    """(distinct keys sorted, where each one's rows start in `rows` and one past the last, the rows by key)."""
    candidates = np.flatnonzero(mask) if mask is not None else np.arange(len(keys))
    rows: IntArray = candidates[_stable_order(keys[candidates])].astype(np.int32)
    sorted_keys = keys[rows]
    first = run_starts(sorted_keys)
    starts = np.append(first, len(rows)).astype(narrowest_count(len(rows)))
    return np.ascontiguousarray(sorted_keys[first]), starts, rows


def _stable_order(keys: Array) -> Array:
    """`np.argsort(keys, kind="stable")`. Keys of 32 bits or fewer are sorted as one int64 each, the key above the
    position, with numpy's (vectorised) unstable sort: the same order, ties by position, ~10x faster than the stable
    argsort on the 5x corpus's 6M use targets (0.51 s)."""
    if keys.dtype.kind not in "iu" or keys.dtype.itemsize > 4 or len(keys) >= 1 << 32:
        return np.argsort(keys, kind="stable")
    packed = (keys.astype(np.int64) << 32) | np.arange(len(keys), dtype=np.int64)
    packed.sort()
    return packed & 0xFFFFFFFF


def narrowest_count(largest: int) -> np.dtype[Any]:
    """int32 for offsets up to 2^31 - 1, else int64."""
    return _I32 if largest <= np.iinfo(np.int32).max else _I64


def narrowed(array: Array) -> Array:
    """A non-negative column in the narrowest of NARROW_DTYPES that holds its values."""
    if not len(array) or (int(array.min()) >= 0 and int(array.max()) <= np.iinfo(np.uint16).max):
        return np.ascontiguousarray(array, dtype=_U16)
    return np.ascontiguousarray(array, dtype=_I32)


def weight_columns(weights: npt.NDArray[np.float64]) -> dict[str, Array]:
    """The weights as codes into their sorted distinct values (exact: the table holds the float64 values)."""
    weights = np.asarray(weights, dtype=np.float64).reshape(-1)
    ordered = np.sort(weights)
    if len(ordered) and ordered[0] > 0 and not np.isnan(ordered[-1]):
        # Positive, no NaN (as resolution makes them): the distinct values of one sort and each weight's code found
        # in them are np.unique's values and inverse, without its argsort (0.59 s for the 5x corpus's 6M uses).
        values = ordered[run_starts(ordered)]
        codes = np.searchsorted(values, weights)
    else:
        values, codes = np.unique(weights, return_inverse=True)
    dtype = next(d for d in WEIGHT_CODE_DTYPES if len(values) <= np.iinfo(d).max + 1)
    return {WEIGHT_CODE: codes.reshape(-1).astype(dtype), WEIGHT_VALUES: values}


class GraphSegment:
    """The read side of a segment: columns, offsets and indexes (all plain arrays, possibly memory-mapped)."""

    def __init__(self, arrays: Mapping[str, Array]) -> None:
        self.arrays = dict(arrays)
        a = self.arrays
        self.file_count = len(a["files.path"])
        self.node_count = len(a["nodes.id"])
        self.site_count = len(a["sites.source"])
        self.offsets = {table: a[f"files.{table}"] for table in RAGGED}
        self._site_votes: npt.NDArray[np.bool_] | None = None

    def site_votes(self) -> npt.NDArray[np.bool_]:
        """Per use: whether it votes in PageRank (not from a test file); computed once per segment."""
        if self._site_votes is None:
            self._site_votes = self.arrays["files.test"][self.arrays["sites.file"]] == 0
        return self._site_votes

    @classmethod
    def assemble(cls, columns: dict[str, Array]) -> GraphSegment:
        """Add the offsets, the sorted indexes and the de-duplicated words to freshly concatenated columns."""
        files = len(columns["files.path"])
        for table in RAGGED:
            counts = np.bincount(columns[f"{table}.file"], minlength=files) if files else np.zeros(0, np.int64)
            offsets = np.zeros(files + 1, dtype=np.int64)
            np.cumsum(counts, out=offsets[1:])
            columns[f"files.{table}"] = offsets
        defined = columns["nodes.name"][(columns["nodes.flags"] & NODE_MODULE) == 0]
        pairs = (columns["words.word"].astype(np.int64) << 32) | columns["words.name"].astype(np.int64)
        pairs = unique(pairs[np.isin(columns["words.name"], defined)])
        columns["words.word"] = (pairs >> 32).astype(np.int32)
        columns["words.name"] = (pairs & 0xFFFFFFFF).astype(np.int32)
        for index, (_table, key) in INDEXES.items():
            if index == "package":
                keys = package_key_column(columns["files.system"], columns["files.folder"])
                sorted_keys, starts, rows = _index(keys, keys >= 0)
            elif index == "name":
                sorted_keys, starts, rows = _index(columns[key], (columns["nodes.flags"] & NODE_MODULE) == 0)
            else:
                sorted_keys, starts, rows = _index(columns[key])
            columns[f"index.{index}.keys"] = sorted_keys
            columns[f"index.{index}.starts"] = starts
            columns[f"index.{index}.rows"] = rows
        for name in NARROWED:
            columns[name] = narrowed(columns[name])
        columns.update(weight_columns(columns.pop("sites.weight")))
        return cls(columns)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, Array]) -> GraphSegment:
        """A segment over stored arrays; checks that every column is there with its type (reads no data)."""
        for name, (dtype, width) in COLUMNS.items():
            if name == "sites.weight":
                continue
            array = arrays.get(name)
            allowed = NARROW_DTYPES if name in NARROWED else (dtype,)
            if array is None or array.dtype not in allowed or (array.ndim == 2) != bool(width):
                raise ValueError(f"graph segment: column {name} missing or of the wrong type")
        codes, values = arrays.get(WEIGHT_CODE), arrays.get(WEIGHT_VALUES)
        if codes is None or values is None or codes.dtype not in WEIGHT_CODE_DTYPES or values.dtype != _F64:
            raise ValueError("graph segment: use weights missing or of the wrong type")
        if len(codes) != len(arrays["sites.source"]) or (len(codes) and int(codes.max()) >= len(values)):
            raise ValueError("graph segment: use weights do not fit their table")
        for table in RAGGED:
            offsets = arrays.get(f"files.{table}")
            if offsets is None or len(offsets) != len(arrays["files.path"]) + 1:
                raise ValueError(f"graph segment: offsets of {table} missing or inconsistent")
            if int(offsets[-1]) != len(arrays[f"{table}.file"]):
                raise ValueError(f"graph segment: offsets of {table} do not cover its rows")
        for index in INDEXES:
            keys, starts = arrays.get(f"index.{index}.keys"), arrays.get(f"index.{index}.starts")
            if keys is None or starts is None or f"index.{index}.rows" not in arrays or len(starts) != len(keys) + 1:
                raise ValueError(f"graph segment: index {index} missing")
            if starts.dtype not in (_I32, _I64):
                raise ValueError(f"graph segment: index {index} of the wrong type")
        return cls(arrays)

    # ---- lookups ------------------------------------------------------------------------------------------------
    def span_of(self, table: str, file_row: int) -> tuple[int, int]:
        offsets = self.offsets[table]
        return int(offsets[file_row]), int(offsets[file_row + 1])

    def lookup(self, index: str, key: int) -> IntArray:
        """Rows whose key equals `key`, in stored order."""
        keys = self.arrays[f"index.{index}.keys"]
        at = int(np.searchsorted(keys, key, side="left"))
        if at == len(keys) or int(keys[at]) != key:
            return np.zeros(0, dtype=np.int32)
        starts = self.arrays[f"index.{index}.starts"]
        rows: IntArray = self.arrays[f"index.{index}.rows"][int(starts[at]) : int(starts[at + 1])]
        return rows

    def lookup_many(self, index: str, keys: Array) -> IntArray:
        """Rows whose key is any of `keys` (grouped by key, in the order of `keys`)."""
        if not len(keys):
            return np.zeros(0, dtype=np.int32)
        sorted_keys = self.arrays[f"index.{index}.keys"]
        starts = self.arrays[f"index.{index}.starts"]
        at = np.searchsorted(sorted_keys, keys, side="left")
        found = at < len(sorted_keys)
        found[found] = sorted_keys[at[found]] == np.asarray(keys)[found]
        lo, hi = starts[at[found]].tolist(), starts[at[found] + 1].tolist()
        rows = self.arrays[f"index.{index}.rows"]
        if not lo:
            return np.zeros(0, dtype=np.int32)
        return np.concatenate([rows[a:b] for a, b in zip(lo, hi, strict=True)]).astype(np.int32)

    def weights(self, rows: Array | slice = slice(None)) -> npt.NDArray[np.float64]:
        """The weights of some uses (all by default), as float64: decoded from their codes."""
        values: npt.NDArray[np.float64] = self.arrays[WEIGHT_VALUES][self.arrays[WEIGHT_CODE][rows]]
        return values

    def words_named(self, word: int) -> IntArray:
        words = self.arrays["words.word"]
        lo = int(np.searchsorted(words, word, side="left"))
        hi = int(np.searchsorted(words, word, side="right"))
        names: IntArray = self.arrays["words.name"][lo:hi]
        return names

    def take(self, keep: npt.NDArray[np.bool_]) -> dict[str, Array]:
        """The kept files' rows as a builder part (file rows renumbered from 0; words carried whole, filtered when
        the new segment is assembled)."""
        a = self.arrays
        renumber = np.cumsum(keep, dtype=np.int64) - 1
        out: dict[str, Array] = {}
        for name in COLUMNS:
            table = name.partition(".")[0]
            if table == "files":
                out[name] = a[name][keep]
            elif table == "words":
                out[name] = np.asarray(a[name])
        for table in RAGGED:
            rows = keep[a[f"{table}.file"]] if self.file_count else np.zeros(0, dtype=bool)
            for name in COLUMNS:
                if not name.startswith(table + "."):
                    continue
                out[name] = self.weights(rows) if name == "sites.weight" else a[name][rows]
            out[f"{table}.file"] = renumber[out[f"{table}.file"]].astype(np.int32)
        return out

    # ---- objects from rows --------------------------------------------------------------------------------------
    def path(self, strings: StringTable, file_row: int) -> str:
        return strings.text(int(self.arrays["files.path"][file_row]))

    def symbol_node(self, strings: StringTable, row: int, path: str | None = None) -> SymbolNode:
        a = self.arrays
        if path is None:
            path = self.path(strings, int(a["nodes.file"][row]))
        flags = int(a["nodes.flags"][row])
        return SymbolNode(
            node_id=strings.text(int(a["nodes.id"][row])),
            path=path,
            name=strings.text(int(a["nodes.name"][row])),
            qualified_name=strings.text(int(a["nodes.qual"][row])),
            kind=strings.text(int(a["nodes.kind"][row])),
            span=Span(*a["nodes.span"][row].tolist()),
            name_span=Span(*a["nodes.name_span"][row].tolist()),
            parent=strings.text_or_none(int(a["nodes.parent"][row])),
            language=strings.text_or_none(int(a["nodes.language"][row])),
            member=bool(flags & NODE_MEMBER),
            toplevel=bool(flags & NODE_TOPLEVEL),
        )

    def symbol_nodes(self, strings: StringTable, start: int, end: int, path: str) -> list[SymbolNode]:
        """The nodes of rows start..end, all of one file."""
        a = self.arrays
        columns = [a[f"nodes.{c}"][start:end].tolist() for c in ("id", "name", "qual", "kind", "parent", "language")]
        text = _texts(strings, columns)
        spans = a["nodes.span"][start:end].tolist()
        name_spans = a["nodes.name_span"][start:end].tolist()
        return [
            SymbolNode(
                node_id=text[node_id] or "",
                path=path,
                name=text[name] or "",
                qualified_name=text[qual] or "",
                kind=text[kind] or "",
                span=Span(*span),
                name_span=Span(*name_span),
                parent=text[parent],
                language=text[language],
                member=bool(flags & NODE_MEMBER),
                toplevel=bool(flags & NODE_TOPLEVEL),
            )
            for node_id, name, qual, kind, parent, language, span, name_span, flags in zip(
                *columns, spans, name_spans, a["nodes.flags"][start:end].tolist(), strict=True
            )
        ]

    def record(self, strings: StringTable, file_row: int, *, complete: bool = True) -> FileRecord:
        """The file's record, as `build_record` made it from the analysis; `complete=False` reads only the imports
        and base-class lists among its references (what other files' resolution reads of it). A file stored without
        its other references gives an incomplete record either way (`FileRecord.complete` says which)."""
        path = self.path(strings, file_row)
        start, end = self.span_of("nodes", file_row)
        nodes = self.symbol_nodes(strings, start, end, path)
        symbols = {n.qualified_name: n for n in nodes[1:]}
        complete = complete and bool(self.arrays["files.complete"][file_row])
        references = self.references(strings, file_row, path, complete=complete)
        content_hash = strings.text(int(self.arrays["files.hash"][file_row]))
        return make_record(nodes[0], symbols, references, complete, content_hash)

    def references(
        self, strings: StringTable, file_row: int, path: str, *, complete: bool = True
    ) -> tuple[Reference, ...]:
        a = self.arrays
        start, end = self.span_of("refs", file_row)
        rows = np.arange(start, end)
        if not complete:
            rows = rows[np.isin(a["refs.kind"][start:end], _OUTWARD_REFERENCE_CODES)]
        columns = [a[f"refs.{c}"][rows].tolist() for c in ("name", "enclosing", "receiver", "module", "alias")]
        text = _texts(strings, columns)
        return tuple(
            Reference(
                text[name] or "",
                REFERENCE_KINDS[kind],
                path,
                Span(*span),
                text[enclosing],
                text[receiver],
                text[module],
                text[alias],
            )
            for name, enclosing, receiver, module, alias, kind, span in zip(
                *columns, a["refs.kind"][rows].tolist(), a["refs.span"][rows].tolist(), strict=True
            )
        )

    def site(self, strings: StringTable, row: int) -> tuple[str, str, EdgeSite]:
        """(source id, target id, site) of one use."""
        a = self.arrays
        return (
            strings.text(int(a["sites.source"][row])),
            strings.text(int(a["sites.target"][row])),
            EdgeSite(
                EDGE_KINDS[int(a["sites.kind"][row])],
                Span(*a["sites.span"][row].tolist()),
                RESOLUTIONS[int(a["sites.resolution"][row])],
                float(a[WEIGHT_VALUES][int(a[WEIGHT_CODE][row])]),
            ),
        )

    def dep_keys(self, strings: StringTable, file_row: int) -> frozenset[DepKey]:
        start, end = self.span_of("deps", file_row)
        return frozenset(decode_dep(strings, k) for k in self.arrays["deps.key"][start:end].tolist())

    def module_keys(self, strings: StringTable, file_row: int) -> tuple[ModuleKey, ...]:
        start, end = self.span_of("mkeys", file_row)
        return tuple(decode_module_key(strings.text(k)) for k in self.arrays["mkeys.key"][start:end].tolist())

    def entry(self, strings: StringTable, file_row: int, module_keys: tuple[ModuleKey, ...] | None = None) -> FileEntry:
        """A file as it is stored (optionally under other module keys: its package name changed)."""
        start, end = self.span_of("sites", file_row)
        return FileEntry(
            record=self.record(strings, file_row),
            sites=[self.site(strings, r) for r in range(start, end)],
            deps=self.dep_keys(strings, file_row),
            module_keys=module_keys if module_keys is not None else self.module_keys(strings, file_row),
            test=bool(self.arrays["files.test"][file_row]),
        )


def package_key_column(systems: Array, folders: Array) -> npt.NDArray[np.int64]:
    """The packed (system, folder) of each file; -1 for files without a system."""
    keys = (systems.astype(np.int64) << _PACKAGE_SHIFT) | folders.astype(np.int64)
    return np.where(systems >= 0, keys, -1)


def _texts(strings: StringTable, columns: Iterable[list[int]]) -> dict[int, str | None]:
    """The strings of some id columns, each decoded once (receivers and enclosing names repeat within a file)."""
    text: dict[int, str | None] = {NO_STRING: None}
    for column in columns:
        for sid in column:
            if sid not in text:
                text[sid] = strings.text(sid)
    return text


def empty_segment() -> GraphSegment:
    return SegmentBuilder(StringTable.empty()).build()


def kinds_code(kinds: Iterable[str]) -> npt.NDArray[np.uint8]:
    """Edge-kind codes, for filtering site rows by kind."""
    return np.array([_EDGE_KIND_CODE[k] for k in kinds], dtype=np.uint8)  # type: ignore[index]


MODULE_KIND_NAME = MODULE_KIND

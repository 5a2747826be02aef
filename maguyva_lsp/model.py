"""Value types shared by every layer: files, spans, definitions, references, chunks, hits.

All line and column numbers are 0-based (as in LSP); columns count Unicode code points of the line.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt

Modality = Literal["semantic", "text", "structural", "graph"]
MODALITIES: tuple[Modality, ...] = ("semantic", "text", "structural", "graph")

ReferenceKind = Literal["call", "import", "inherit", "reference"]


class PathClass(enum.StrEnum):
    """What a path is, for ranking: vendor, build and archive paths are demoted by the fusion."""

    SOURCE = "source"
    TEST = "test"
    VENDOR = "vendor"
    BUILD = "build"
    ARCHIVE = "archive"


@dataclass(frozen=True, slots=True)
class Span:
    """A half-open region of a file: (start_line, start_col) up to (end_line, end_col)."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def contains_line(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file the scanner accepted: its workspace-relative POSIX path and what is known without reading it."""

    path: str
    abs_path: str
    language: str | None
    path_class: PathClass
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class Definition:
    """A named definition found by a tree-sitter tag query."""

    name: str
    kind: str  # function, method, class, interface, struct, enum, type, constant, variable, module, ...
    path: str
    span: Span  # the whole definition
    name_span: Span  # just the identifier
    signature: str  # the first line(s) up to the body, whitespace-collapsed
    parent: str | None = None  # qualified name of the enclosing class/namespace, if any
    language: str | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name


@dataclass(frozen=True, slots=True)
class Reference:
    """A use of a name found by a tree-sitter query: a call, an import, a base class, or another mention."""

    name: str  # the referenced name as written (last component: `b` in `a.b()`)
    kind: ReferenceKind
    path: str
    span: Span  # the name's location
    enclosing: str | None = None  # qualified name of the definition the use sits in (None: module level)
    receiver: str | None = None  # `self`, `this`, a module alias or object expression before the name
    module: str | None = None  # for imports: the module imported from (`os.path` in `from os.path import join`)
    alias: str | None = None  # for imports: the local name bound (`pj` in `import join as pj`)


class ReferenceTable(Sequence[Reference]):
    """One file's references as columns, as extraction produces them and the core columns store them; a Reference
    object per row is built only when one is read (then all of them, once). The cold build encodes the columns and
    reads no row: the stdlib's ~635k references cost ~1.3 s of objects (a frozen dataclass and its Span each) that
    nothing looked at. Equal to a tuple of the same Reference values (and to another table of them)."""

    __slots__ = ("_rows", "aliases", "enclosing", "kinds", "modules", "names", "path", "receivers", "spans")

    def __init__(
        self,
        path: str,
        names: list[str],
        kinds: list[ReferenceKind],
        spans: npt.NDArray[np.int64],  # (references, 4): start line, start column, end line, end column
        enclosing: list[str | None],
        *,
        receivers: list[str | None],
        modules: list[str | None],
        aliases: list[str | None],
    ) -> None:
        count = len(names)
        if spans.shape != (count, 4) or any(len(c) != count for c in (kinds, enclosing, receivers, modules, aliases)):
            raise ValueError(f"reference columns of different lengths for {count} names")
        self.path = path
        self.names = names
        self.kinds = kinds
        self.spans = spans
        self.enclosing = enclosing
        self.receivers = receivers
        self.modules = modules
        self.aliases = aliases
        self._rows: tuple[Reference, ...] | None = None

    @staticmethod
    def empty(path: str) -> ReferenceTable:
        return ReferenceTable(path, [], [], np.zeros((0, 4), dtype=np.int64), [], receivers=[], modules=[], aliases=[])

    def rows(self) -> tuple[Reference, ...]:
        """The references as objects (built on the first read, then kept)."""
        if self._rows is None:
            path = self.path
            self._rows = tuple(
                Reference(name, kind, path, Span(*span), enclosing, receiver, module, alias)
                for name, kind, span, enclosing, receiver, module, alias in zip(
                    self.names,
                    self.kinds,
                    self.spans.tolist(),
                    self.enclosing,
                    self.receivers,
                    self.modules,
                    self.aliases,
                    strict=True,
                )
            )
        return self._rows

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> Reference: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Reference, ...]: ...
    def __getitem__(self, index: int | slice) -> Reference | tuple[Reference, ...]:
        return self.rows()[index]

    def __iter__(self) -> Iterator[Reference]:
        return iter(self.rows())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ReferenceTable):
            return self.rows() == other.rows()
        if isinstance(other, tuple):
            return self.rows() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.rows())

    def __repr__(self) -> str:
        return f"ReferenceTable({self.rows()!r})"

    # Pickled as its columns (analyses that workers send back), without the objects read from them.
    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__ if name != "_rows"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._rows = None


def chunk_id(path: str, start_line: int, end_line: int) -> str:
    """A chunk's id: how every retriever names the same chunk, so that fusion can merge their hits on it."""
    return f"{path}#{start_line}-{end_line}"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A unit of retrieval: one definition, or a window of lines that holds no definition."""

    path: str
    language: str | None
    start_line: int  # 0-based, inclusive
    end_line: int  # 0-based, inclusive
    text: str
    symbol: str | None = None
    kind: str | None = None
    parent: str | None = None
    signature: str | None = None

    @property
    def chunk_id(self) -> str:
        return chunk_id(self.path, self.start_line, self.end_line)


@dataclass(frozen=True, slots=True)
class FileAnalysis:
    """Everything the engine extracted from one file's content; the unit that retrievers index."""

    file: SourceFile
    text: str
    content_hash: str
    definitions: tuple[Definition, ...]
    references: Sequence[Reference]  # a ReferenceTable when extracted; a tuple when rebuilt from stored columns
    chunks: tuple[Chunk, ...]
    parse_error: str | None = None  # why the syntax tree was unusable, when it was
    # The text each chunk is embedded with, in `embed_style`, when the indexer prepared it (in a worker process, so
    # the semantic retriever need not); never persisted. Empty: the semantic retriever builds it itself.
    embed_texts: tuple[str, ...] = ()
    embed_style: str = ""

    @property
    def path(self) -> str:
        return self.file.path


@dataclass(frozen=True, slots=True)
class ChangeBatch:
    """A batch of changes to apply at once: files (re)analysed, and paths gone."""

    updated: tuple[FileAnalysis, ...] = ()
    removed: tuple[str, ...] = ()


@dataclass(slots=True)
class Hit:
    """One ranked result of one retriever: a precise location with what it is."""

    path: str
    span: Span
    score: float
    symbol: str | None = None
    kind: str | None = None
    snippet: str = ""
    # Extra facts a retriever can attach for `explain` (e.g. the graph path that reached an impacted symbol).
    detail: dict[str, object] = field(default_factory=dict)

    @property
    def chunk_line(self) -> int:
        """A line of the chunk the hit lies in, by which fusion tells which chunk that is: its first line (a retriever
        that knows its hit's chunk without computing the span may say so more cheaply)."""
        return self.span.start_line


@dataclass(frozen=True, slots=True)
class MatchCounts:
    """How much an exact text search (a literal, a regex, a whole identifier) found in all, beyond the hits it
    returned. A broad search ranks its top hits without counting every match of every file: then `truncated` is
    True and `matches` and `files` are lower bounds (`files` stays exact unless `files_unread` files were never
    read, when a time budget or a scan cap stopped the search)."""

    matches: int
    files: int
    truncated: bool = False
    files_unread: int = 0

    def plus(self, other: MatchCounts) -> MatchCounts:
        """The counts of two searches over disjoint files (the folders of a multi-root workspace)."""
        return MatchCounts(
            self.matches + other.matches,
            self.files + other.files,
            self.truncated or other.truncated,
            self.files_unread + other.files_unread,
        )


class RankedHits(list[Hit]):
    """A retriever's ranked list, with the counts of the whole result set when the retriever knows them."""

    __slots__ = ("counts",)

    def __init__(self, hits: Iterable[Hit] = (), counts: MatchCounts | None = None) -> None:
        super().__init__(hits)
        self.counts = counts


@dataclass(frozen=True, slots=True)
class RetrieverStatus:
    """Whether a retriever can answer now, and why not when it cannot."""

    available: bool
    reason: str | None = None
    partial: bool = False  # answers, but from an index still being built


class Intent(enum.StrEnum):
    """The six kinds of question the classifier tells apart (SPEC §3)."""

    FIND_DEFINITION = "find_definition"
    FIND_REFERENCES = "find_references"
    UNDERSTAND_CODE = "understand_code"
    FIND_SIMILAR = "find_similar"
    IMPACT_ANALYSIS = "impact_analysis"
    EXACT_MATCH = "exact_match"


@dataclass(frozen=True, slots=True)
class StackFrame:
    """One frame of a pasted stack trace: the file as the trace names it, its 1-based line, and the function."""

    path: str
    line: int
    function: str | None = None


@dataclass(frozen=True, slots=True)
class PastedError:
    """What the reader of pasted text (`query/pasted.py`) found in an error line, a traceback or a log line.

    `message` is the text the program printed (without the error name, level or timestamp); `name` the error's type
    (`KeyError`, `IllegalStateException`) or None for `error: ...`/`panic: ...`; `frames` innermost first.
    """

    form: str  # "traceback", "error_line", "panic", "log_line", "stack_frame"
    name: str | None
    message: str
    frames: tuple[StackFrame, ...] = ()
    # False when only the looks of the line make it an error (`SomeName: Message`, where a commit scope looks alike).
    certain: bool = True


@dataclass(frozen=True, slots=True)
class Classification:
    """The classifier's verdict on a query: intent, confidence, the rule that fired, and the target it extracted."""

    query: str
    intent: Intent
    confidence: float
    rule: str
    target: str  # a symbol, a literal, a snippet, or the whole query when nothing narrower was found
    # True when the target is an exact literal the user quoted; text search then treats it verbatim.
    literal: bool = False
    # A pasted error line, traceback or log line: the text retriever matches its message as the source writes it.
    pasted: PastedError | None = None


@dataclass(frozen=True, slots=True)
class RetrievalQuery:
    """What a retriever is asked: the classified query plus the options that concern retrieval."""

    classification: Classification
    case_sensitive: bool = False
    regex: bool = False

    @property
    def text(self) -> str:
        return self.classification.query

    @property
    def target(self) -> str:
        return self.classification.target

    @property
    def intent(self) -> Intent:
        return self.classification.intent

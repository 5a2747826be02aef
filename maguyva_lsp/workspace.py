"""The service behind every door: the open workspace folders (one engine each), answering the contract's typed
requests (`api/`) with typed answers — routed by path, merged over folders by score or depth."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path, PurePath, PurePosixPath

from maguyva_lsp.api.answers import (
    Answer,
    ImpactAnswer,
    ImpactedItem,
    Location,
    LocationsAnswer,
    ReindexAnswer,
    StatusAnswer,
    SymbolItem,
    SymbolsAnswer,
)
from maguyva_lsp.api.columns import CODE_POINTS, ColumnCodec
from maguyva_lsp.api.errors import InvalidRequestError, UnavailableError
from maguyva_lsp.api.merge import merge_impact, merge_locations, merge_search, merge_symbols
from maguyva_lsp.api.requests import (
    DefinitionRequest,
    ImpactRequest,
    Place,
    ReferencesRequest,
    Request,
    SearchRequest,
    StatusRequest,
    SymbolsRequest,
    path_of_uri,
)
from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.failures import failure_log
from maguyva_lsp.model import Span
from maguyva_lsp.navigation import name_column
from maguyva_lsp.rank.response import SearchResponse
from maguyva_lsp.retrieve.graph import ImpactResult
from maguyva_lsp.scan.casing import folder_ignores_case
from maguyva_lsp.uris import same_file_key

log = logging.getLogger(__name__)

NO_FOLDER = "no workspace folder is open"
CODE_POINT_COLUMNS = ColumnCodec(CODE_POINTS)


def _relative(path: Path, root: Path) -> str | None:
    """A path's POSIX form below a root, matched ignoring case where the root's file system does (macOS, Windows)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        pass
    if not folder_ignores_case(root):
        return None
    text, prefix = str(path), str(root).rstrip("/\\")
    if same_file_key(text[: len(prefix)], case_insensitive=True) != same_file_key(prefix, case_insensitive=True):
        return None
    rest = text[len(prefix) :]
    if rest and rest[0] not in "/\\":
        return None
    return PurePath(rest.lstrip("/\\")).as_posix() if rest else "."


class WorkspaceSet:
    """The engines of every open workspace folder. Thread-safe for adding/removing folders while serving."""

    def __init__(self, settings: Settings, *, persist: bool = True) -> None:
        self.settings = settings
        self.persist = persist
        self._engines: dict[Path, Engine] = {}
        self._lock = threading.Lock()

    def use_settings(self, settings: Settings) -> None:
        """Adopt settings that need no re-index (preset, limit, log level) in every open engine."""
        self.settings = settings
        for engine in self.engines():
            engine.settings = engine.settings.replace(
                preset=settings.preset, limit=settings.limit, log_level=settings.log_level
            )

    def add(self, root: Path, engine: Engine | None = None) -> Engine | None:
        """Open an engine for a root (not yet indexed), or take one opened for it already; None when that root is
        already open."""
        resolved = root.resolve()
        with self._lock:
            if resolved in self._engines:
                return None
        if engine is None:
            engine = Engine(resolved, self.settings, persist=self.persist)
        with self._lock:
            self._engines[resolved] = engine
        return engine

    def remove(self, root: Path) -> bool:
        with self._lock:
            engine = self._engines.pop(root.resolve(), None)
        if engine is None:
            return False
        engine.close()
        return True

    def engines(self) -> list[Engine]:
        with self._lock:
            return list(self._engines.values())

    def __iter__(self) -> Iterator[Engine]:
        return iter(self.engines())

    def __len__(self) -> int:
        return len(self._engines)

    def locate(self, absolute_path: str | Path) -> tuple[Engine, str] | None:
        """The engine whose root holds a path (the deepest root wins for nested folders) and the relative path."""
        path = Path(absolute_path)
        best: tuple[Engine, str] | None = None
        best_depth = -1
        for engine in self.engines():
            rel = _relative(path, engine.root)
            if rel is None:
                continue
            depth = len(engine.root.parts)
            if depth > best_depth:
                best, best_depth = (engine, rel), depth
        return best

    # -- the contract: one typed request in, one typed answer out, for every door

    def handle(self, request: Request, codec: ColumnCodec = CODE_POINT_COLUMNS, *, pending: bool = False) -> Answer:
        """Answer a request over every open folder. Columns of positions in and ranges out are in `codec`'s units
        (the language server's negotiated encoding; code points for every other door). `pending`: a folder is still
        waiting for its first index (status then says indexing). Raises InvalidRequestError, or UnavailableError."""
        answer: Answer
        if isinstance(request, SearchRequest):
            return self.search(request, codec)  # each folder's spans put in the client's units where it knows the file
        if isinstance(request, ImpactRequest):
            answer = self.impact(request, codec)
        elif isinstance(request, DefinitionRequest):
            answer = self.definition(request, codec)
        elif isinstance(request, ReferencesRequest):
            answer = self.references(request, codec)
        elif isinstance(request, SymbolsRequest):
            answer = self.symbols(request)
        elif isinstance(request, StatusRequest):
            answer = self.status(pending=pending)
        else:
            answer = self.reindex()
        if codec.encoding == CODE_POINTS:
            return answer
        return answer.map_spans(lambda uri, span: self._client_span(codec, uri, span))

    def search(self, request: SearchRequest, codec: ColumnCodec = CODE_POINT_COLUMNS) -> SearchResponse:
        """One `maguyva/search` answer over every root: each engine's results (their spans in `codec`'s units, read
        from the lines of the engine that found them) merged by fused score."""
        limit = request.limit if request.limit is not None else self.settings.limit
        responses: list[SearchResponse] = []
        for engine in self._open_engines():
            try:
                response = engine.search(
                    request.query,
                    request.preset,
                    limit,
                    request.explain,
                    regex=request.regex,
                    case_sensitive=request.case_sensitive,
                )
            except RuntimeError:
                if engine.closed:
                    continue  # its folder was dropped while this search ran
                raise
            responses.append(_in_client_units(engine, response, codec))
        if not responses:
            raise UnavailableError(NO_FOLDER)
        return merge_search(responses, limit)

    def impact(self, request: ImpactRequest, codec: ColumnCodec = CODE_POINT_COLUMNS) -> ImpactAnswer:
        """What depends on the named symbol (in every folder that knows it) or on the symbol at a position."""
        if request.place is not None:
            engine, rel, line, column = self._resolve(request.place, codec)
            result = engine.impact(path=rel, line=line, column=column, max_depth=request.max_depth)
            if result is None:
                return ImpactAnswer(None, (), f"no symbol at {rel}:{line + 1}")
            return _impact_answer(engine, result)
        symbol = request.symbol or ""
        answers = [
            _impact_answer(engine, result)
            for engine in self._open_engines()
            if (result := engine.impact(symbol=symbol, max_depth=request.max_depth)) is not None
        ]
        return merge_impact(answers) if answers else ImpactAnswer(None, (), f"no symbol named {symbol!r} in the index")

    def definition(self, request: DefinitionRequest, codec: ColumnCodec = CODE_POINT_COLUMNS) -> LocationsAnswer:
        """Where the name at a position is defined, or every definition of a named symbol."""
        if request.place is not None:
            engine, rel, line, column = self._resolve(request.place, codec)
            return _locations(engine, engine.definition(rel, line, column), f"no definition found at {rel}:{line + 1}")
        symbol = request.symbol or ""
        answers = [_locations(engine, engine.definitions_of(symbol)) for engine in self._open_engines()]
        return merge_locations([*answers, LocationsAnswer((), f"no definition of {symbol!r} in the index")])

    def references(self, request: ReferencesRequest, codec: ColumnCodec = CODE_POINT_COLUMNS) -> LocationsAnswer:
        """The uses of the symbol at a position, or of every definition of a named symbol."""
        include = request.include_declaration
        if request.place is not None:
            engine, rel, line, column = self._resolve(request.place, codec)
            found = engine.references(rel, line, column, include_declaration=include)
            return _locations(engine, found, f"no references found at {rel}:{line + 1}")
        symbol = request.symbol or ""
        answers: list[LocationsAnswer] = []
        for engine in self._open_engines():
            for path, span in engine.definitions_of(symbol):
                found = engine.references(path, span.start_line, span.start_col, include_declaration=include)
                answers.append(_locations(engine, found))
        return merge_locations([*answers, LocationsAnswer((), f"no symbol named {symbol!r} in the index")])

    def symbols(self, request: SymbolsRequest) -> SymbolsAnswer:
        """Definitions whose names match the query, best first over every folder."""
        answers = [
            SymbolsAnswer(
                tuple(
                    SymbolItem(d.name, d.kind, engine.uri(d.path), d.path, d.name_span, d.parent, score)
                    for score, d in engine.workspace_symbols(request.query, request.limit)
                )
            )
            for engine in self.engines()
        ]
        return merge_symbols(answers, request.limit)

    def status(self, *, pending: bool = False) -> StatusAnswer:
        """Each folder's status; indexing while any folder indexes (or still waits to be opened: `pending`)."""
        folders = tuple(e.status() for e in self.engines())
        return StatusAnswer(pending or any(bool(f["indexing"]) for f in folders), folders, failure_log().last_json())

    def reindex(self) -> ReindexAnswer:
        """Bring every folder in line with the disk, now (the language server schedules this on its writer)."""
        engines = self.engines()
        for engine in engines:
            engine.index()
        return ReindexAnswer(len(engines))

    # -- helpers

    def _open_engines(self) -> list[Engine]:
        engines = self.engines()
        if not engines:
            raise UnavailableError(NO_FOLDER)
        return engines

    def _resolve(self, place: Place, codec: ColumnCodec) -> tuple[Engine, str, int, int]:
        """The engine and root-relative path of a place, and its line and column in code points."""
        located: tuple[Engine, str] | None = None
        if Path(place.file).is_absolute():
            located = self.locate(place.file)
        else:
            rel = PurePosixPath(place.file).as_posix()
            located = next(
                ((e, rel) for e in self.engines() if e.analysis(rel) is not None or (e.root / rel).is_file()), None
            )
        if located is None:
            raise InvalidRequestError(place.file_field, f"names no file of an open workspace folder: {place.file!r}")
        engine, rel = located
        if place.character is None:
            return engine, rel, place.line, name_column(engine, rel, place.line)
        return engine, rel, place.line, codec.from_client(engine.line_text(rel, place.line), place.character)

    def _client_span(self, codec: ColumnCodec, uri: str, span: Span) -> Span:
        try:
            located = self.locate(path_of_uri(uri))
        except InvalidRequestError:
            located = None
        if located is None:
            return span
        engine, rel = located
        return codec.span_to_client(lambda line: engine.line_text(rel, line), span)

    def close(self) -> None:
        with self._lock:
            engines = list(self._engines.values())
            self._engines.clear()
        for engine in engines:
            engine.close()


def _in_client_units(engine: Engine, response: SearchResponse, codec: ColumnCodec) -> SearchResponse:
    """One engine's search answer with its spans in `codec`'s units, from that engine's lines (no lookup by URI)."""
    if codec.encoding == CODE_POINTS or not response.results:
        return response
    paths = {r.uri: r.path for r in response.results}
    return response.map_spans(lambda uri, span: codec.span_to_client(partial(engine.line_text, paths[uri]), span))


def _locations(engine: Engine, found: Sequence[tuple[str, Span]], note: str | None = None) -> LocationsAnswer:
    locations = tuple(Location(engine.uri(path), path, span) for path, span in found)
    return LocationsAnswer(locations, None if locations else note)


def _impact_answer(engine: Engine, result: ImpactResult) -> ImpactAnswer:
    """The contract's impact answer of one folder's graph result."""
    items = tuple(
        ImpactedItem(
            uri=engine.uri(i.node.path),
            path=i.node.path,
            span=i.node.name_span if not i.node.is_module else i.node.span,
            symbol=i.node.display_name,
            kind=i.node.kind,
            depth=i.depth,
            via=i.via,
            centrality=i.centrality,
        )
        for i in result.impacted
    )
    return ImpactAnswer(result.symbol, items, result.note)

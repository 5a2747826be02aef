"""The typed requests of every door, each parsed and validated once from a plain mapping (JSON params, CLI flags,
MCP tool arguments). Field names are camelCase on the wire, as in LSP; one error message per mistake.

A position comes in one of two forms: LSP's `textDocument: {uri}` + `position: {line, character}` (0-based), or a
path form for people and agents, `file` (workspace-relative or absolute) + `line` (1-based, as editors and search
results show it) + optional `column` (1-based; without it, the symbol defined on that line, else its first name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from maguyva_lsp.api.errors import InvalidRequestError
from maguyva_lsp.config import MAX_LIMIT, PRESETS, Preset
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH, MAX_IMPACT_DEPTH
from maguyva_lsp.index.text_regex import plan_regex
from maguyva_lsp.retrieve.base import RetrieverError
from maguyva_lsp.uris import path_from_uri

# workspace/symbol answers at most this many symbols (type-ahead needs the best few).
DEFAULT_SYMBOL_LIMIT = 100
# Fields any LSP request may carry for the protocol's own sake; no request is refused for them.
PROTOCOL_FIELDS: frozenset[str] = frozenset({"workDoneToken", "partialResultToken"})

# -- reading fields -------------------------------------------------------------------------------------------------


def _object(params: object, field: str = "params") -> Mapping[str, Any]:
    # An empty array is how clients whose language has one empty table for both (Neovim's Lua) send no params.
    if params is None or (field == "params" and isinstance(params, list | tuple) and not params):
        return {}
    if not isinstance(params, Mapping):
        raise InvalidRequestError(field, f"must be an object, got {_kind(params)}")
    return params


def _only(params: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(k for k in params if k not in allowed and k not in PROTOCOL_FIELDS)
    if unknown:
        raise InvalidRequestError(
            unknown[0], f"is not a field of this request (fields: {', '.join(allowed) or 'none'})"
        )


def _kind(value: object) -> str:
    """A value's JSON type name, for messages: an agent reads `got string`, not `got str`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def _string(params: Mapping[str, Any], field: str, *, required: bool = False, prefix: str = "") -> str | None:
    name = prefix + field
    value = params.get(field)
    if value is None:
        if required:
            raise InvalidRequestError(name, "is required")
        return None
    if not isinstance(value, str):
        raise InvalidRequestError(name, f"must be a string, got {_kind(value)}")
    return value


def _text(params: Mapping[str, Any], field: str, *, prefix: str = "") -> str:
    """A required string with something in it."""
    value = _string(params, field, required=True, prefix=prefix)
    assert value is not None
    if not value.strip():
        raise InvalidRequestError(prefix + field, "must not be empty")
    return value


def _bool(params: Mapping[str, Any], field: str, default: bool = False) -> bool:
    value = params.get(field)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InvalidRequestError(field, f"must be true or false, got {_kind(value)}")
    return value


def _int(params: Mapping[str, Any], field: str, low: int, high: int | None, *, prefix: str = "") -> int | None:
    name = prefix + field
    value = params.get(field)
    if value is None:
        return None
    # bool is an int in Python: a limit of `true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise InvalidRequestError(name, f"must be a whole number, got {_kind(value)} {value!r}")
    number = int(value)
    if number < low or (high is not None and number > high):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise InvalidRequestError(name, f"must be a whole number {bound}, got {number}")
    return number


def _preset(params: Mapping[str, Any]) -> Preset | None:
    value = _string(params, "preset")
    if value is None:
        return None
    for preset in PRESETS:
        if value == preset:
            return preset
    raise InvalidRequestError("preset", f"must be one of {', '.join(PRESETS)}, got {value!r}")


# -- positions ------------------------------------------------------------------------------------------------------

# The fields of each position form.
LSP_POSITION_FIELDS: tuple[str, ...] = ("textDocument", "position")
PATH_POSITION_FIELDS: tuple[str, ...] = ("file", "line", "column")


@dataclass(frozen=True, slots=True)
class Place:
    """A place in a workspace file. `file` is an absolute path or a workspace-relative POSIX path; `line` and
    `character` are 0-based (`character` in the client's column units until the workspace converts it to code
    points; None: the symbol defined on the line, else its first name). `file_field` names the field it came from."""

    file: str
    line: int
    character: int | None
    file_field: str = "file"


def path_of_uri(uri: str, field: str = "textDocument.uri") -> str:
    """The file-system path of a file: URI (drive letters, shares, any bytes: uris.py); InvalidRequestError for any
    other scheme or a host this machine cannot reach."""
    if not uri.lower().startswith("file:"):
        raise InvalidRequestError(field, f"must be a file: URI, got {uri!r}")
    try:
        return path_from_uri(uri)
    except ValueError as exc:
        raise InvalidRequestError(field, f"names no file of this machine: {exc}") from None


def _place(params: Mapping[str, Any]) -> Place | None:
    """The position a request names, in either form; None when it names none."""
    lsp = [f for f in LSP_POSITION_FIELDS if params.get(f) is not None]
    path = [f for f in PATH_POSITION_FIELDS if params.get(f) is not None]
    if lsp and path:
        raise InvalidRequestError(path[0], "cannot be combined with textDocument/position (give one form of position)")
    if lsp:
        document = _object(params.get("textDocument"), "textDocument")
        uri = _text(document, "uri", prefix="textDocument.")
        position = _object(params.get("position"), "position")
        if "position" not in params or params.get("position") is None:
            raise InvalidRequestError("position", "is required with textDocument")
        line = _int(position, "line", 0, None, prefix="position.")
        character = _int(position, "character", 0, None, prefix="position.")
        if line is None:
            raise InvalidRequestError("position.line", "is required")
        if character is None:
            raise InvalidRequestError("position.character", "is required")
        return Place(path_of_uri(uri), line, character, "textDocument.uri")
    if path:
        file = _text(params, "file")
        line = _int(params, "line", 1, None)
        if line is None:
            raise InvalidRequestError("line", "is required with file (1-based)")
        column = _int(params, "column", 1, None)
        return Place(file, line - 1, None if column is None else column - 1, "file")
    return None


def _symbol(params: Mapping[str, Any]) -> str | None:
    symbol = _string(params, "symbol")
    if symbol is not None and not symbol.strip():
        raise InvalidRequestError("symbol", "must not be empty")
    return symbol.strip() if symbol is not None else None


def _symbol_or_place(params: Mapping[str, Any], method: str) -> tuple[str | None, Place | None]:
    symbol = _symbol(params)
    place = _place(params)
    if symbol is not None and place is not None:
        raise InvalidRequestError("symbol", "cannot be combined with a position (give a symbol or a position)")
    if symbol is None and place is None:
        raise InvalidRequestError(
            "symbol", f"is required: {method} needs a symbol, textDocument + position, or file + line"
        )
    return symbol, place


# -- the requests ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """`maguyva/search`: a question in plain words (or a regular expression). `preset`/`limit` None: the settings'."""

    METHOD: ClassVar[str] = "search"
    FIELDS: ClassVar[tuple[str, ...]] = ("query", "preset", "limit", "explain", "regex", "caseSensitive")

    query: str
    preset: Preset | None = None
    limit: int | None = None
    explain: bool = False
    regex: bool = False
    case_sensitive: bool = False

    @classmethod
    def parse(cls, params: object) -> SearchRequest:
        p = _object(params)
        _only(p, cls.FIELDS)
        query = _text(p, "query")
        regex = _bool(p, "regex")
        case_sensitive = _bool(p, "caseSensitive")
        if regex:
            try:
                plan_regex(query.strip(), case_sensitive=case_sensitive)
            except RetrieverError as exc:
                raise InvalidRequestError("query", f"is not a usable regular expression: {exc}") from None
        return cls(query, _preset(p), _int(p, "limit", 1, MAX_LIMIT), _bool(p, "explain"), regex, case_sensitive)


@dataclass(frozen=True, slots=True)
class ImpactRequest:
    """`maguyva/impact`: what depends on a symbol, named or at a position, up to `max_depth` steps away."""

    METHOD: ClassVar[str] = "impact"
    FIELDS: ClassVar[tuple[str, ...]] = ("symbol", *LSP_POSITION_FIELDS, *PATH_POSITION_FIELDS, "maxDepth")

    symbol: str | None = None
    place: Place | None = None
    max_depth: int = DEFAULT_IMPACT_DEPTH

    @classmethod
    def parse(cls, params: object) -> ImpactRequest:
        p = _object(params)
        _only(p, cls.FIELDS)
        symbol, place = _symbol_or_place(p, "impact")
        depth = _int(p, "maxDepth", 1, MAX_IMPACT_DEPTH)
        return cls(symbol, place, DEFAULT_IMPACT_DEPTH if depth is None else depth)


@dataclass(frozen=True, slots=True)
class DefinitionRequest:
    """`textDocument/definition`: where the name at a position (or a named symbol) is defined."""

    METHOD: ClassVar[str] = "definition"
    FIELDS: ClassVar[tuple[str, ...]] = ("symbol", *LSP_POSITION_FIELDS, *PATH_POSITION_FIELDS)

    symbol: str | None = None
    place: Place | None = None

    @classmethod
    def parse(cls, params: object) -> DefinitionRequest:
        p = _object(params)
        _only(p, cls.FIELDS)
        return cls(*_symbol_or_place(p, "definition"))


@dataclass(frozen=True, slots=True)
class ReferencesRequest:
    """`textDocument/references`: the uses of the symbol at a position (or named); `context.includeDeclaration`
    (LSP's spelling) or `includeDeclaration` adds the definition itself."""

    METHOD: ClassVar[str] = "references"
    FIELDS: ClassVar[tuple[str, ...]] = (
        "symbol", *LSP_POSITION_FIELDS, *PATH_POSITION_FIELDS, "includeDeclaration", "context"
    )  # fmt: skip

    symbol: str | None = None
    place: Place | None = None
    include_declaration: bool = False

    @classmethod
    def parse(cls, params: object) -> ReferencesRequest:
        p = _object(params)
        _only(p, cls.FIELDS)
        symbol, place = _symbol_or_place(p, "references")
        context = _object(p.get("context"), "context")
        _only(context, ("includeDeclaration",))
        include = _bool(p, "includeDeclaration") or _bool(context, "includeDeclaration")
        return cls(symbol, place, include)


@dataclass(frozen=True, slots=True)
class SymbolsRequest:
    """`workspace/symbol`: definitions whose names match what is typed (an empty query matches nothing)."""

    METHOD: ClassVar[str] = "symbols"
    FIELDS: ClassVar[tuple[str, ...]] = ("query", "limit")

    query: str
    limit: int = DEFAULT_SYMBOL_LIMIT

    @classmethod
    def parse(cls, params: object) -> SymbolsRequest:
        p = _object(params)
        _only(p, cls.FIELDS)
        query = _string(p, "query", required=True)
        assert query is not None
        limit = _int(p, "limit", 1, MAX_LIMIT)
        return cls(query, DEFAULT_SYMBOL_LIMIT if limit is None else limit)


@dataclass(frozen=True, slots=True)
class StatusRequest:
    """`maguyva/status`: counts and health of every open workspace folder."""

    METHOD: ClassVar[str] = "status"
    FIELDS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse(cls, params: object) -> StatusRequest:
        _only(_object(params), cls.FIELDS)
        return cls()


@dataclass(frozen=True, slots=True)
class ReindexRequest:
    """The `maguyva.reindex` command: bring every folder's index in line with the disk."""

    METHOD: ClassVar[str] = "reindex"
    FIELDS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse(cls, params: object) -> ReindexRequest:
        _only(_object(params), cls.FIELDS)
        return cls()


Request = (
    SearchRequest | ImpactRequest | DefinitionRequest | ReferencesRequest | SymbolsRequest | StatusRequest
    | ReindexRequest
)  # fmt: skip

REQUEST_TYPES: Mapping[str, type[Request]] = {
    cls.METHOD: cls
    for cls in (
        SearchRequest, ImpactRequest, DefinitionRequest, ReferencesRequest, SymbolsRequest, StatusRequest,
        ReindexRequest,
    )
}  # fmt: skip
METHODS: tuple[str, ...] = tuple(REQUEST_TYPES)


def parse_request(method: str, params: object) -> Request:
    """The typed request of a method name (`search`, `impact`, ...); InvalidRequestError for an unknown method."""
    kind = REQUEST_TYPES.get(method)
    if kind is None:
        raise InvalidRequestError("method", f"must be one of {', '.join(METHODS)}, got {method!r}")
    return kind.parse(params)

"""Translate between the engine's values (code-point columns, root-relative paths) and lsprotocol's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from maguyva_lsp.model import Definition, Span
from maguyva_lsp.uris import path_from_uri

# Definition kinds of the tag queries → LSP SymbolKind.
_SYMBOL_KINDS: dict[str, types.SymbolKind] = {
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "class": types.SymbolKind.Class,
    "interface": types.SymbolKind.Interface,
    "struct": types.SymbolKind.Struct,
    "enum": types.SymbolKind.Enum,
    "type": types.SymbolKind.TypeParameter,
    "trait": types.SymbolKind.Interface,
    "module": types.SymbolKind.Module,
    "namespace": types.SymbolKind.Namespace,
    "constant": types.SymbolKind.Constant,
    "macro": types.SymbolKind.Constant,
    "variable": types.SymbolKind.Variable,
    "field": types.SymbolKind.Field,
    "property": types.SymbolKind.Property,
    "constructor": types.SymbolKind.Constructor,
    "impl": types.SymbolKind.Class,
}

LineText = Callable[[int], str]


class ColumnCodec:
    """Columns in the negotiated position encoding: the engine counts code points, clients mostly UTF-16 units."""

    def __init__(self, encoding: str | None) -> None:
        value = str(getattr(encoding, "value", encoding) or "utf-16").lower()
        self.encoding = value if value in ("utf-8", "utf-16", "utf-32") else "utf-16"

    def to_client(self, line: str, column: int) -> int:
        if self.encoding == "utf-32" or line.isascii():
            return column
        prefix = line[:column]
        if self.encoding == "utf-8":
            return len(prefix.encode("utf-8", "surrogatepass"))
        return len(prefix.encode("utf-16-le", "surrogatepass")) // 2

    def from_client(self, line: str, units: int) -> int:
        if self.encoding == "utf-32" or line.isascii():
            return units
        codec = "utf-8" if self.encoding == "utf-8" else "utf-16-le"
        width = 1 if self.encoding == "utf-8" else 2
        encoded = line.encode(codec, "surrogatepass")[: units * width]
        return len(encoded.decode(codec, "ignore"))


def path_of_uri(uri: str) -> str:
    """The file-system path of a file:// URI (drive letters, UNC shares, any bytes: maguyva_lsp/uris.py)."""
    return path_from_uri(uri)


def lsp_range(span: Span, line_text: LineText, codec: ColumnCodec) -> types.Range:
    return types.Range(
        start=types.Position(span.start_line, codec.to_client(line_text(span.start_line), span.start_col)),
        end=types.Position(span.end_line, codec.to_client(line_text(span.end_line), span.end_col)),
    )


def lsp_location(uri: str, span: Span, line_text: LineText, codec: ColumnCodec) -> types.Location:
    return types.Location(uri=uri, range=lsp_range(span, line_text, codec))


def lsp_symbol_kind(kind: str | None) -> types.SymbolKind:
    return _SYMBOL_KINDS.get(kind or "", types.SymbolKind.Variable)


def lsp_workspace_symbol(
    definition: Definition, uri: str, line_text: LineText, codec: ColumnCodec
) -> types.WorkspaceSymbol:
    return types.WorkspaceSymbol(
        name=definition.name,
        kind=lsp_symbol_kind(definition.kind),
        location=lsp_location(uri, definition.name_span, line_text, codec),
        container_name=definition.parent,
    )


def client_range_json(range_json: dict[str, Any], line_text: LineText, codec: ColumnCodec) -> dict[str, Any]:
    """A JSON range of the engine (code-point columns) in the client's column units."""
    start, end = range_json["start"], range_json["end"]
    return {
        "start": {"line": start["line"], "character": codec.to_client(line_text(start["line"]), start["character"])},
        "end": {"line": end["line"], "character": codec.to_client(line_text(end["line"]), end["character"])},
    }


def param(params: Any, name: str, default: Any = None) -> Any:
    """A field of request params whatever shape pygls gave them (dict, attrs object, namespace)."""
    if params is None:
        return default
    if isinstance(params, dict):
        return params.get(name, default)
    return getattr(params, name, default)


def plain(value: Any) -> Any:
    """Request params (pygls' generic objects) as plain JSON-like Python values."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return {k: plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    return value

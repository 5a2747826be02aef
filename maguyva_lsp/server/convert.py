"""What the LSP door prints beyond the contract's JSON: symbol kinds as LSP numbers; pygls params as plain JSON."""

from __future__ import annotations

from typing import Any

from lsprotocol import types

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


def lsp_symbol_kind(kind: str | None) -> types.SymbolKind:
    return _SYMBOL_KINDS.get(kind or "", types.SymbolKind.Variable)


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

"""JSON Schemas of the contract's requests, with descriptions an agent can act on (the MCP tools' input schemas).

They describe what `requests.py` accepts; the parse there stays the one validator (a schema is advice to the
caller, and the contract's message is the one every door gives). Positions take the path form here: `file`,
1-based `line`, optional 1-based `column`, as the text of every answer shows them.
"""

from __future__ import annotations

from typing import Any

from maguyva_lsp.config import DEFAULT_LIMIT, MAX_LIMIT, PRESETS
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH, MAX_IMPACT_DEPTH

Schema = dict[str, Any]

_SYMBOL: Schema = {
    "type": "string",
    "description": "A symbol name as written in code: `parse_config`, `Config.parse`, `std::fs::read`.",
}
_FILE: Schema = {
    "type": "string",
    "description": "A file of the workspace, relative to its root (`app/config.py`) or absolute.",
}
_LINE: Schema = {"type": "integer", "minimum": 1, "description": "1-based line number in `file`."}
_COLUMN: Schema = {
    "type": "integer",
    "minimum": 1,
    "description": "1-based column in `line`; without it, the symbol defined on that line, else its first name.",
}


def _object(properties: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


SEARCH_SCHEMA = _object(
    {
        "query": {
            "type": "string",
            "minLength": 1,
            "description": "The question in plain words, as you would ask a colleague: `where is parse_config "
            'defined`, `who calls load_config`, `what breaks if I change Config.parse`, `"ECONNREFUSED"` (quoted: '
            "an exact string), `how does the cache expire entries`, or a pasted snippet or error line.",
        },
        "preset": {
            "type": "string",
            "enum": list(PRESETS),
            "description": "quick: semantic only; standard (default): the intent's three best retrievers, or one "
            "when the question is clear; thorough: all four, always fused.",
        },
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "description": f"default {DEFAULT_LIMIT}"},
        "explain": {"type": "boolean", "description": "add each result's rank and contribution per retriever"},
        "regex": {"type": "boolean", "description": "treat the query as a regular expression (Python syntax)"},
        "caseSensitive": {"type": "boolean", "description": "literal and regex matching respect case"},
    },
    ("query",),
)
POSITION_PROPERTIES: dict[str, Schema] = {"symbol": _SYMBOL, "file": _FILE, "line": _LINE, "column": _COLUMN}
DEFINITION_SCHEMA = _object(POSITION_PROPERTIES)
REFERENCES_SCHEMA = _object(
    {**POSITION_PROPERTIES, "includeDeclaration": {"type": "boolean", "description": "list the definition too"}}
)
IMPACT_SCHEMA = _object(
    {
        **POSITION_PROPERTIES,
        "maxDepth": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_IMPACT_DEPTH,
            "description": f"how many steps of dependents to follow (default {DEFAULT_IMPACT_DEPTH})",
        },
    }
)
STATUS_SCHEMA = _object({})

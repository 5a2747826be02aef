"""Many questions over one loaded index: requests in, one JSON object per line out (`maguyva batch`).

Each `maguyva search` loads the index before it can answer (seconds on a large workspace); an agent or a script that
asks many questions keeps one process instead and writes them to its stdin. A line of plain text is a search; a JSON
object is one of the contract's requests — its `method` (default `search`; also impact, definition, references,
symbols, status, reindex) and that request's fields, as the language server takes them —

    {"query": "...", "preset": "thorough", "limit": 5, "explain": true, "regex": false, "caseSensitive": false}
    {"method": "impact", "symbol": "Config.parse", "maxDepth": 2}
    {"method": "definition", "file": "app/server.py", "line": 6, "column": 25}
    {"method": "status"}

— and may carry an "id" that its answer repeats (text that itself starts with "{" is asked as {"query": "..."}).
Before each request the folder is checked again (one stat per file, re-analysing what changed), so an edit made
between two questions is always seen. A bad request gets `{"error": message, "field": name}` and the session goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from maguyva_lsp.api import InvalidRequestError, Request, UnavailableError, parse_request
from maguyva_lsp.workspace import WorkspaceSet

# A request line longer than this is refused unread (queries are cut far shorter; this bounds memory).
MAX_REQUEST_CHARS = 1_000_000
# Fields of a batch line that are not the request's own.
ENVELOPE_FIELDS: tuple[str, ...] = ("id", "method")


class RequestError(ValueError):
    """A line that is not a request at all (too long, not JSON); its message goes back in the answer."""


@dataclass(frozen=True, slots=True)
class BatchLine:
    """One request line: the answer's id, the method and the request's own fields."""

    request_id: Any
    method: str
    params: Mapping[str, Any]


def run_batch(workspaces: WorkspaceSet, lines: Iterable[str], out: TextIO, *, defaults: Mapping[str, Any]) -> int:
    """Answer every non-blank line, one JSON line each, flushed at once; returns how many requests failed. A search
    takes `defaults` (the session's flags: preset, limit, explain) for the fields it does not give."""
    failed = 0
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        request_id: Any = None
        try:
            parsed = parse_line(line)
            request_id = parsed.request_id
            params = {**defaults, **parsed.params} if parsed.method == "search" else parsed.params
            request: Request = parse_request(parsed.method, params)
            for engine in workspaces.engines():
                engine.index()  # pick up what changed on disk since the last request
            answer: dict[str, Any] = workspaces.handle(request).to_json()
        except InvalidRequestError as exc:
            failed += 1
            answer = {"error": str(exc), "field": exc.field}
        except (RequestError, UnavailableError) as exc:
            failed += 1
            answer = {"error": str(exc)}
        if request_id is not None:
            answer = {"id": request_id, **answer}
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return failed


def parse_line(line: str) -> BatchLine:
    """A request line: a JSON object as given (its id and method apart), anything else as a search for the text."""
    if len(line) > MAX_REQUEST_CHARS:
        raise RequestError(f"request of {len(line)} characters refused (at most {MAX_REQUEST_CHARS})")
    if not line.startswith("{"):
        return BatchLine(None, "search", {"query": line})
    try:
        request = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RequestError(f"not a JSON object: {exc}") from exc
    if not isinstance(request, dict):
        raise RequestError("not a JSON object")
    method = request.get("method", "search")
    if not isinstance(method, str):
        raise InvalidRequestError("method", f"must be a string, got {type(method).__name__}")
    params = {k: v for k, v in request.items() if k not in ENVELOPE_FIELDS}
    return BatchLine(request.get("id"), method, params)

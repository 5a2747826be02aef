"""Many questions over one loaded index: requests in, one JSON object per line out (`maguyva batch`).

Each `maguyva search` loads the index before it can answer (seconds on a large workspace); an agent or a script that
asks many questions keeps one process instead and writes them to its stdin. A request is a line: plain text is a
search with the session's settings; a JSON object chooses per request —

    {"query": "...", "preset": "thorough", "limit": 5, "explain": true, "regex": false, "case_sensitive": false}
    {"impact": "Config.parse", "depth": 2}
    {"status": true}

— and may carry an "id" that its answer repeats (text that itself starts with "{" is asked as {"query": "..."}).
Before each request the folder is checked again (one stat per file, re-analysing what changed), so an edit made
between two questions is always seen. A bad request gets an answer with an "error" and the session goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, TextIO

from maguyva_lsp.engine import Engine
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH, MAX_IMPACT_DEPTH

# A request line longer than this is refused unread (the engine bounds queries much lower; this bounds memory).
MAX_REQUEST_CHARS = 1_000_000
SEARCH_OPTIONS: frozenset[str] = frozenset({"id", "query", "preset", "limit", "explain", "regex", "case_sensitive"})
IMPACT_OPTIONS: frozenset[str] = frozenset({"id", "impact", "depth"})


class RequestError(ValueError):
    """A request that cannot be answered as written; its message goes back in the answer."""


def run_batch(engine: Engine, lines: Iterable[str], out: TextIO, *, explain: bool = False) -> int:
    """Answer every non-blank line, one JSON line each, flushed at once; returns how many requests failed. Searches
    take the engine's settings (preset, limit) where a request names none; `explain` is the default for all."""
    failed = 0
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        request_id: Any = None
        try:
            request = parse_request(line)
            request_id = request.get("id")
            engine.index()  # pick up what changed on disk since the last request
            answer = answer_request(engine, request, explain=explain)
        except (RequestError, ValueError) as exc:
            failed += 1
            answer = {"error": str(exc)}
        if request_id is not None:
            answer = {"id": request_id, **answer}
        out.write(json.dumps(answer, ensure_ascii=False) + "\n")
        out.flush()
    return failed


def parse_request(line: str) -> dict[str, Any]:
    """A request line as a dict: a JSON object as given, anything else as `{"query": line}`."""
    if len(line) > MAX_REQUEST_CHARS:
        raise RequestError(f"request of {len(line)} characters refused (at most {MAX_REQUEST_CHARS})")
    if not line.startswith("{"):
        return {"query": line}
    try:
        request: dict[str, Any] = json.loads(line)  # text that starts with "{" and parses is an object
    except json.JSONDecodeError as exc:
        raise RequestError(f"not a JSON object: {exc}") from exc
    return request


def answer_request(engine: Engine, request: dict[str, Any], *, explain: bool = False) -> dict[str, Any]:
    """The `maguyva/search`, `maguyva/impact` or `maguyva/status` object a request asks for."""
    if request.get("status") is True and set(request) <= {"id", "status"}:
        return engine.status()
    if "impact" in request:
        _only(request, IMPACT_OPTIONS)
        symbol = _typed(request, "impact", str, "")
        depth = _typed(request, "depth", int, DEFAULT_IMPACT_DEPTH)
        if not 1 <= depth <= MAX_IMPACT_DEPTH:
            raise RequestError(f'"depth" must be from 1 to {MAX_IMPACT_DEPTH}')
        result = engine.impact(symbol=symbol, max_depth=depth)
        if result is None:
            raise RequestError(f"no symbol named {symbol!r} in the index")
        return result.to_json(engine.uri)
    _only(request, SEARCH_OPTIONS)
    if "query" not in request:
        raise RequestError('a JSON request needs "query", "impact" or "status"')
    limit = _typed(request, "limit", int, None)
    if limit is not None and limit < 1:
        raise RequestError('"limit" must be a positive integer')  # as maguyva/search says it
    response = engine.search(
        _typed(request, "query", str, ""),
        preset=_typed(request, "preset", str, None),
        limit=limit,
        explain=_typed(request, "explain", bool, explain),
        regex=_typed(request, "regex", bool, False),
        case_sensitive=_typed(request, "case_sensitive", bool, False),
    )
    return response.to_json()


def _only(request: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(request) - allowed)
    if unknown:
        raise RequestError(f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")


def _typed(request: dict[str, Any], key: str, kind: type, default: Any) -> Any:
    if key not in request:
        return default
    value = request[key]
    # bool is an int in Python: a limit of `true` is a mistake, not 1.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RequestError(f'"{key}" must be {kind.__name__}, not {type(value).__name__}')
    return value

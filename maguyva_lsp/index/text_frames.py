"""Stack frames of a pasted trace, found in the workspace: the frame's file (matched by the longest path suffix, since
a trace names files as they were on another machine), its line, and the function that holds it.
"""

from __future__ import annotations

from collections.abc import Iterable

from maguyva_lsp.index.text_results import enclosing_symbol, line_snippet
from maguyva_lsp.index.trigram import TextDocument
from maguyva_lsp.model import Chunk, Hit, Span, StackFrame

# At most this many frames of one trace are looked up (the innermost ones).
MAX_FRAMES = 12


def path_parts(path: str) -> list[str]:
    """A path as a trace prints it, split into components: `C:\\src\\a.cs`, `file:///x/a.mjs`, `./lib/a.js`."""
    cleaned = path.replace("\\", "/")
    if cleaned.startswith("file://"):
        cleaned = cleaned[len("file://") :]
    return [part for part in cleaned.split("/") if part and part not in (".", "..") and not part.endswith(":")]


def _shared_suffix(a: list[str], b: list[str]) -> int:
    shared = 0
    while shared < min(len(a), len(b)) and a[-1 - shared] == b[-1 - shared]:
        shared += 1
    return shared


def resolve_frame_paths(docs: Iterable[TextDocument], frames: list[StackFrame]) -> dict[str, list[TextDocument]]:
    """For each frame path, the workspace documents that share its longest path suffix (its file name at least)."""
    wanted = {frame.path: path_parts(frame.path) for frame in frames}
    names = {parts[-1] for parts in wanted.values() if parts}
    by_name: dict[str, list[TextDocument]] = {}
    for doc in docs:
        name = doc.path.rsplit("/", 1)[-1]
        if name in names:
            by_name.setdefault(name, []).append(doc)
    resolved: dict[str, list[TextDocument]] = {}
    for path, parts in wanted.items():
        if not parts:
            continue
        scored = [(_shared_suffix(parts, doc.path.split("/")), doc) for doc in by_name.get(parts[-1], [])]
        if not scored:
            continue
        best = max(score for score, _ in scored)
        matching = sorted((doc for score, doc in scored if score == best), key=lambda d: d.path)
        # `/app/index.js` against five `index.js` of the workspace: a file name alone that several files share
        # points nowhere.
        if best == 1 and len(parts) > 1 and len(matching) > 1:
            continue
        resolved[path] = matching
    return resolved


def _function_chunk(doc: TextDocument, line: int, function: str | None) -> Chunk | None:
    """The definition chunk of the frame's function: the innermost named chunk holding the line when its name agrees
    with the frame (or the frame names none); else the first chunk named like the frame's function."""
    holding = [c for c in doc.chunks if c.symbol and c.start_line <= line <= c.end_line]
    holding.sort(key=lambda c: c.end_line - c.start_line)

    def named(chunk: Chunk) -> bool:
        return function is None or (chunk.symbol or "").rsplit(".", 1)[-1] == function

    for chunk in holding:
        if named(chunk):
            return chunk
    if function is None:
        return None
    return next((c for c in doc.chunks if c.symbol and named(c)), None)


def _line_hit(doc: TextDocument, line: int, score: float, what: str) -> Hit:
    snippet = line_snippet(doc.text, line)
    symbol, kind = enclosing_symbol(doc, line)
    return Hit(
        path=doc.path,
        span=Span(line, 0, line, len(snippet)),
        score=score,
        symbol=symbol,
        kind=kind,
        snippet=snippet.strip(),
        detail={"match": what},
    )


def frame_hits(docs: Iterable[TextDocument], frames: tuple[StackFrame, ...]) -> list[Hit]:
    """Each frame's line in the workspace, followed by its function's definition line; innermost frame first."""
    chosen = list(frames[:MAX_FRAMES])
    resolved = resolve_frame_paths(docs, chosen)
    hits: list[Hit] = []
    seen: set[tuple[str, int]] = set()
    for frame in chosen:
        for doc in resolved.get(frame.path, []):
            line_count = doc.text.count("\n") + 1
            line = frame.line - 1
            chunk = _function_chunk(doc, line if 0 <= line < line_count else -1, frame.function)
            places: list[tuple[int, str]] = []
            if 0 <= line < line_count:
                places.append((line, "stack frame"))
            if chunk is not None:
                places.append((chunk.start_line, "stack frame's function"))
            for place, what in places:
                if (doc.path, place) in seen:
                    continue
                seen.add((doc.path, place))
                hits.append(_line_hit(doc, place, 1.0 / (1 + len(hits)), what))
    return hits

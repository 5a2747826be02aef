"""Compact text of the contract's answers, for people (the CLI) and agents (MCP's text content): workspace-relative
paths, 1-based lines (a range when a result spans several), symbol, kind, snippet, and how the question was routed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from maguyva_lsp.api.answers import Answer, ImpactAnswer, LocationsAnswer, StatusAnswer, SymbolsAnswer
from maguyva_lsp.model import Span
from maguyva_lsp.rank.response import SearchResponse
from maguyva_lsp.uris import path_from_uri

# A snippet line is cut to this many characters in text output.
SNIPPET_CHARS = 150


def display_path(uri: str, roots: Sequence[Path]) -> str:
    """A file URI as a path relative to the workspace folder holding it (absolute when none does)."""
    path = Path(path_from_uri(uri))
    for root in sorted(roots, key=lambda r: -len(r.parts)):
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return str(path)


def place(uri: str, span: Span, roots: Sequence[Path]) -> str:
    """`path:line` or `path:first-last`, 1-based."""
    lines = (
        f"{span.start_line + 1}" if span.end_line <= span.start_line else f"{span.start_line + 1}-{span.end_line + 1}"
    )
    return f"{display_path(uri, roots)}:{lines}"


def render(answer: Answer, roots: Sequence[Path], *, explain: bool = False) -> str:
    """The text of any answer."""
    if isinstance(answer, SearchResponse):
        return render_search(answer, roots, explain=explain)
    if isinstance(answer, ImpactAnswer):
        return render_impact(answer, roots)
    if isinstance(answer, LocationsAnswer):
        return render_locations(answer, roots)
    if isinstance(answer, SymbolsAnswer):
        lines = [f"{s.name} [{s.kind}] {place(s.uri, s.span, roots)}" for s in answer.symbols]
        return "\n".join(lines) or "no symbols"
    if isinstance(answer, StatusAnswer):
        return render_status(answer)
    return f"re-indexing {answer.scheduled} folder(s)"


def render_search(answer: SearchResponse, roots: Sequence[Path], *, explain: bool = False) -> str:
    c = answer.classification
    out = [
        f"{c.intent.value} ({c.confidence:.2f}) target={c.target!r} strategy={answer.fusion_strategy} "
        f"modalities={','.join(answer.modalities)} {answer.elapsed_ms:.1f} ms"
    ]
    out += [f"  (skipped {m}: {why})" for m, why in answer.modalities_skipped.items()]
    out += [f"  (note: {note})" for note in answer.notes]
    if answer.partial:
        out.append("  (partial: indexing is still running)")
    if not answer.results:
        out.append("no results")
    for i, result in enumerate(answer.results, 1):
        symbol = f" {result.symbol}" if result.symbol else ""
        kind = f" [{result.kind}]" if result.kind else ""
        out.append(f"{i:>3}. {place(result.uri, result.span, roots)}{symbol}{kind}  score={result.score:.4f}")
        snippet = result.snippet.strip().splitlines()
        if snippet:
            out.append(f"       {snippet[0][:SNIPPET_CHARS]}")
        if explain:
            for modality, part in sorted(result.modalities.items()):
                out.append(f"       {modality}: rank {part.rank} contribution {part.contribution:.5f}")
    counts = answer.text_matches_json()
    if counts is not None:
        out.append(render_text_matches(counts))
    return "\n".join(out)


def render_text_matches(counts: dict[str, Any]) -> str:
    """`text: 3,218+ matches in 1,311 files (counting stopped early); 1,291 files hold matches not shown`."""
    more = "+" if counts["truncated"] else ""
    files = f"{counts['files']:,}{'+' if counts['files_unread'] else ''}"
    line = f"text: {counts['matches']:,}{more} matches in {files} files"
    if counts["truncated"]:
        line += " (counting stopped early)"
    if counts["files_not_shown"]:
        line += f"; {counts['files_not_shown']:,} files hold matches not shown"
    if counts["files_unread"]:
        line += f"; {counts['files_unread']:,} files not read"
    return line


def render_impact(answer: ImpactAnswer, roots: Sequence[Path]) -> str:
    if answer.symbol is None:
        return answer.note or "no such symbol"
    out = [f"impact of {answer.symbol}: {len(answer.impacted)} dependents"]
    if answer.note:
        out.append(f"  note: {answer.note}")
    out += [f"  depth {i.depth}: {i.symbol} [{i.kind}]  {place(i.uri, i.span, roots)}" for i in answer.impacted]
    return "\n".join(out)


def render_locations(answer: LocationsAnswer, roots: Sequence[Path]) -> str:
    if not answer.locations:
        return answer.note or "nothing found"
    return "\n".join(
        f"{display_path(loc.uri, roots)}:{loc.span.start_line + 1}:{loc.span.start_col + 1}" for loc in answer.locations
    )


def render_status(answer: StatusAnswer) -> str:
    totals: dict[str, Any] = answer.to_json()
    out = [
        f"{'indexing' if answer.indexing else 'indexed'}: {totals['files']} files, {totals['chunks']} chunks, "
        f"{totals['symbols']} symbols, {totals['edges']} graph edges; embedder {totals['embedder']}"
    ]
    for folder in answer.folders:
        down = [name for name, m in folder.get("modalities", {}).items() if not m.get("available")]
        line = f"  {folder['root']}: {folder['files']} files"
        if folder.get("skipped"):
            line += f", {folder['skipped']} skipped"
        if down:
            line += f"; unavailable: {', '.join(down)}"
        out.append(line)
        out += [f"    {message}" for message in folder.get("messages", [])]
    return "\n".join(out)

"""Helpers of the graph tests: write a small project into a folder, analyse it for real, build the graph."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Protocol

from maguyva_lsp.graph.build import CodeGraph
from maguyva_lsp.model import ChangeBatch, FileAnalysis, PathClass, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path

Edge = tuple[str, str, str, str]  # source, target, edge kind, resolution


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def analyze_path(root: Path, rel: str) -> FileAnalysis:
    data = (root / rel).read_bytes()
    source = SourceFile(rel, str(root / rel), language_for_path(rel), PathClass.SOURCE, len(data), 0)
    return analyze_file(source, data)


class AppliesBatches(Protocol):
    def apply(self, batch: ChangeBatch) -> object: ...


def edit_file(root: Path, graph: AppliesBatches, rel: str, text: str | None) -> None:
    """Write (or, with None, delete) one file of the project and give the graph that change."""
    if text is None:
        (root / rel).unlink(missing_ok=True)
        graph.apply(ChangeBatch(removed=(rel,)))
    else:
        write_tree(root, {rel: text})
        graph.apply(ChangeBatch(updated=(analyze_path(root, rel),)))


def analyze_files(root: Path, files: dict[str, str]) -> list[FileAnalysis]:
    write_tree(root, files)
    return [analyze_path(root, rel) for rel in sorted(files)]


def build_graph(root: Path, files: dict[str, str]) -> CodeGraph:
    graph = CodeGraph()
    graph.apply(ChangeBatch(updated=tuple(analyze_files(root, files))))
    return graph


def edges(graph: CodeGraph) -> set[Edge]:
    """Every use behind every edge, reduced to (source, target, kind, resolution)."""
    return {(u, v, site.kind, site.resolution) for (u, v), sites in graph.edges().items() for site in sites}


def resolved(graph: CodeGraph, kind: str = "calls") -> set[tuple[str, str]]:
    """(source, target) pairs of one kind of use."""
    return {(u, v) for u, v, k, _ in edges(graph) if k == kind}


def snapshot(graph: CodeGraph) -> tuple[set[str], set[tuple[str, str, tuple[object, ...]]]]:
    """Nodes and edges with every site's full data: what a fresh build and an incremental one must agree on."""
    nodes = set(graph.node_ids())
    edge_data = {(u, v, tuple(sorted(sites, key=repr))) for (u, v), sites in graph.edges().items()}
    return nodes, edge_data

"""Value types of the code graph: symbol and module nodes, edge sites, and how strongly each resolution is trusted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maguyva_lsp.model import ReferenceKind, Span

EdgeKind = Literal["calls", "imports", "inherits", "references"]
EDGE_KINDS: tuple[EdgeKind, ...] = ("calls", "imports", "inherits", "references")
EDGE_KIND_OF: dict[ReferenceKind, EdgeKind] = {
    "call": "calls",
    "import": "imports",
    "inherit": "inherits",
    "reference": "references",
}

# How a reference found its target, strongest first. The edge weight (used by PageRank and as a confidence by the
# queries) follows from it.
Resolution = Literal["scope", "member", "file", "import", "package", "global", "guess", "ambiguous"]
RESOLUTIONS: tuple[Resolution, ...] = ("scope", "member", "file", "import", "package", "global", "guess", "ambiguous")
REFERENCE_KINDS: tuple[ReferenceKind, ...] = ("call", "import", "inherit", "reference")
# Found through syntax the language defines: lexical scope, `self`/`this` and base classes, the same file, an
# explicit import, the same package (Go, Java), or the only top-level definition of that name in the project.
RESOLVED_WEIGHT = 1.0
# `obj.name()` where nothing says what `obj` is, and exactly one method in the project has that name.
GUESS_WEIGHT = 0.5
RESOLUTION_WEIGHTS: dict[Resolution, float] = {
    "scope": RESOLVED_WEIGHT,
    "member": RESOLVED_WEIGHT,
    "file": RESOLVED_WEIGHT,
    "import": RESOLVED_WEIGHT,
    "package": RESOLVED_WEIGHT,
    "global": RESOLVED_WEIGHT,
    "guess": GUESS_WEIGHT,
}
# How far impact analysis follows dependents unless asked otherwise, and the deepest a request may ask for (the
# server and `maguyva batch` refuse more); light here so the CLI can name them without loading the graph code.
DEFAULT_IMPACT_DEPTH = 3
MAX_IMPACT_DEPTH = 10


def ambiguous_weight(weight: float, candidates: int) -> float:
    """Several definitions fit equally well: rather than a guess at one, each gets an edge with an even share of the
    weight the use would have had (`x.seal()` with two `seal` methods and `x` unknown: 0.25 to each)."""
    return weight / candidates


MODULE_KIND = "module"
# Definition kinds that hold members reachable through `self`/`this`, `Type.member` and base classes.
CLASS_KINDS: frozenset[str] = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "type"})
# Definitions whose members a qualified name reaches (`Type.member`, `ns::f`): classes, and namespaces (kind module).
SCOPE_KINDS: frozenset[str] = CLASS_KINDS | {MODULE_KIND}
# Separator between a file path and a qualified name in a symbol node's id.
ID_SEPARATOR = "::"


def symbol_id(path: str, qualified_name: str) -> str:
    """The node id of a definition: `pkg/mod.py::Config.parse`."""
    return f"{path}{ID_SEPARATOR}{qualified_name}"


def module_id(path: str) -> str:
    """The node id of a file (module) node: its path."""
    return path


@dataclass(frozen=True, slots=True)
class SymbolNode:
    """A graph node: a definition, or a whole file (kind `module`, empty qualified name)."""

    node_id: str
    path: str
    name: str
    qualified_name: str
    kind: str
    span: Span
    name_span: Span
    parent: str | None = None
    language: str | None = None
    member: bool = False  # a definition inside a class-like one (a method, a nested type, an enum member)
    toplevel: bool = False  # at file level, or inside namespaces only (C#, C++): importable by its name

    @property
    def is_module(self) -> bool:
        """A file node (a namespace or Rust `mod` definition has kind `module` too, but a qualified name)."""
        return not self.qualified_name

    @property
    def display_name(self) -> str:
        return self.qualified_name or self.name


@dataclass(frozen=True, slots=True)
class EdgeSite:
    """One use behind an edge: where it is (in the source node's file), what kind, and how it was resolved."""

    kind: EdgeKind
    span: Span
    resolution: Resolution
    weight: float


@dataclass(frozen=True, slots=True)
class Use:
    """A resolved use of a symbol, as the queries report it: the using node, the target, and the site."""

    source: str
    target: str
    path: str
    site: EdgeSite

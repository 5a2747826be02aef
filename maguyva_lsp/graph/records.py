"""What the graph keeps of one analysed file: its nodes, its name tables, its import bindings and its references.

A record also knows what other files can observe of it (its signature), so that a change tells which dependency keys
it invalidates: definitions by name, its import bindings, the bases of its classes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from maguyva_lsp.graph.inputs import GraphInput
from maguyva_lsp.graph.model import CLASS_KINDS, MODULE_KIND, SymbolNode, module_id, symbol_id
from maguyva_lsp.graph.modules import python_components, separator, system_of
from maguyva_lsp.model import Definition, Reference, Span

# A dependency a file's resolution consulted: ("t", path, name) a file's top-level definition of a name, ("q", path,
# qualified name) one definition, ("g", name) / ("mb", name) the project's top-level / member definitions of a name,
# ("n", name) any definition of a name, ("m", module key) the files of a module, ("i", path) another file's import
# bindings, ("b", node id) a class's bases, ("d", system, folder) the files of a package.
DepKey = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class ImportBinding:
    """What an import binds a local name to: a whole module (`name` None) or one name from a module."""

    module: str  # the module as written in the import
    name: str | None = None
    fallback: str | None = None  # a JS default import: a top-level definition named like the local alias


@dataclass(slots=True)
class FileRecord:
    path: str
    language: str | None
    system: str | None
    module_node: SymbolNode
    symbols: dict[str, SymbolNode]  # qualified name → node (the first definition of a qualified name wins)
    top: dict[str, str]  # name → qualified name of the file-level definitions
    bases: dict[str, tuple[tuple[str, str | None], ...]]  # class qualified name → (name, receiver) of each base
    bindings: dict[str, tuple[ImportBinding, ...]]  # local name (dotted after `import a.b`) → what it binds
    stars: tuple[str, ...]  # modules a star import brings all names from
    references: tuple[Reference, ...]  # only the imports and base-class lists when not `complete`
    # (qualified name, kind, name, member, toplevel) of each node: what other files' resolution can observe of them.
    def_identity: frozenset[tuple[str, str, str, bool, bool]] = field(default_factory=frozenset)
    complete: bool = True  # False: made from stored columns for other files' lookups, without its other uses
    content_hash: str = ""  # of the analysed content: which version of the file the graph holds

    def node_ids(self) -> list[str]:
        return [self.module_node.node_id, *(n.node_id for n in self.symbols.values())]


def build_record(file: GraphInput) -> FileRecord:
    """The record of one analysed file."""
    module_node = _module_node(file.path, file.language, file.lines)
    symbols = _symbols(file.path, file.language, file.definitions)
    return make_record(module_node, symbols, file.references, file.complete, file.content_hash)


def make_record(
    module_node: SymbolNode,
    symbols: dict[str, SymbolNode],
    references: tuple[Reference, ...],
    complete: bool = True,
    content_hash: str = "",
) -> FileRecord:
    """A record from its nodes and references (an analysed file's, or the columns a segment keeps of it): the name
    tables, bindings and bases follow from them."""
    path = module_node.path
    language = module_node.language
    top = {node.name: q for q, node in symbols.items() if node.toplevel}
    bindings, stars = _bindings(references, system_of(language))
    return FileRecord(
        path=path,
        language=language,
        system=system_of(language),
        module_node=module_node,
        symbols=symbols,
        top=top,
        bases=_bases(references, symbols),
        bindings=bindings,
        stars=stars,
        references=references,
        def_identity=frozenset((q, n.kind, n.name, n.member, n.toplevel) for q, n in symbols.items()),
        complete=complete,
        content_hash=content_hash,
    )


def _module_node(path: str, language: str | None, lines: int) -> SymbolNode:
    stem = posixpath.basename(path).split(".")[0]
    if language == "python":
        name = ".".join(python_components(path)) or stem
    else:
        name = (
            stem
            if stem not in ("index", "mod", "lib", "main", "__init__")
            else posixpath.basename(posixpath.dirname(path)) or stem
        )
    whole = Span(0, 0, lines, 0)
    return SymbolNode(
        node_id=module_id(path),
        path=path,
        name=name,
        qualified_name="",
        kind=MODULE_KIND,
        span=whole,
        name_span=Span(0, 0, 0, 0),
        language=language,
    )


def _symbols(path: str, language: str | None, definitions: Iterable[Definition]) -> dict[str, SymbolNode]:
    kinds = {d.qualified_name: d.kind for d in definitions}
    parents = {d.qualified_name: d.parent for d in definitions}
    symbols: dict[str, SymbolNode] = {}
    for d in definitions:
        q = d.qualified_name
        previous = symbols.get(q)
        # `impl S` and `struct S` share a name: the type itself is the better node to show.
        if previous is not None and previous.kind != "impl":
            continue
        parent_kind = kinds.get(d.parent) if d.parent else None
        symbols[q] = SymbolNode(
            node_id=symbol_id(path, q),
            path=path,
            name=d.name,
            qualified_name=q,
            kind=d.kind,
            span=d.span,
            name_span=d.name_span,
            parent=d.parent,
            language=language or d.language,
            member=d.kind == "method" or parent_kind in CLASS_KINDS,
            toplevel=_in_namespaces_only(d.parent, kinds, parents),
        )
    return symbols


def stored_symbols(
    path: str, language: str | None, pool: Sequence[str], rows: Iterable[tuple[Any, ...]]
) -> dict[str, SymbolNode]:
    """`_symbols` of a stored file's definition rows (index/analysis_columns.py's DEFINITION_COLUMNS as lists: pool
    ids, -1 for none, spans as 4 ints), without a Definition per row: a cold build's workers make every stored
    file's nodes, and the Definitions in between were a third of that cost."""
    decoded: list[tuple[str, str, str, str | None, int, list[int], list[int]]] = []
    kinds: dict[str, str] = {}
    parents: dict[str, str | None] = {}
    for name_id, kind_id, _signature, parent_id, language_id, span, name_span in rows:
        name = pool[name_id]
        kind = pool[kind_id]
        parent = None if parent_id < 0 else pool[parent_id]
        q = f"{parent}.{name}" if parent else name  # Definition.qualified_name
        kinds[q] = kind
        parents[q] = parent
        decoded.append((q, name, kind, parent, language_id, span, name_span))
    symbols: dict[str, SymbolNode] = {}
    for q, name, kind, parent, language_id, span, name_span in decoded:
        previous = symbols.get(q)
        if previous is not None and previous.kind != "impl":
            continue
        parent_kind = kinds.get(parent) if parent else None
        symbols[q] = SymbolNode(
            symbol_id(path, q),
            path,
            name,
            q,
            kind,
            Span(*span),
            Span(*name_span),
            parent,
            language or (None if language_id < 0 else pool[language_id]),
            kind == "method" or parent_kind in CLASS_KINDS,
            _in_namespaces_only(parent, kinds, parents),
        )
    return symbols


def stored_record(
    path: str,
    language: str | None,
    *,
    content_hash: str,
    lines: int,
    symbols: dict[str, SymbolNode],
    references: tuple[Reference, ...],
) -> FileRecord:
    """`build_record` of a stored file given without its own uses (`complete=False`), its nodes from
    `stored_symbols`."""
    return make_record(_module_node(path, language, lines), symbols, references, False, content_hash)


def _in_namespaces_only(parent: str | None, kinds: dict[str, str], parents: dict[str, str | None]) -> bool:
    """Whether every enclosing definition is a namespace (kind module); a parent defined elsewhere is not."""
    seen = 0
    while parent is not None:
        if kinds.get(parent) != MODULE_KIND or seen > len(kinds):
            return False
        parent = parents.get(parent)
        seen += 1
    return True


def _bindings(
    references: Iterable[Reference], system: str | None
) -> tuple[dict[str, tuple[ImportBinding, ...]], tuple[str, ...]]:
    bindings: dict[str, list[ImportBinding]] = {}
    stars: list[str] = []
    for ref in references:
        if ref.kind != "import":
            continue
        if ref.module is None:
            for local, module in _module_locals(ref, system):
                bindings.setdefault(local, []).append(ImportBinding(module))
        elif ref.name == "*":
            stars.append(ref.module)
        elif ref.name == "default":
            local = ref.alias or ref.name
            bindings.setdefault(local, []).append(ImportBinding(ref.module, "default", fallback=local))
        else:
            local = ref.alias or ref.name
            bindings.setdefault(local, []).append(ImportBinding(ref.module, ref.name))
    return {k: tuple(dict.fromkeys(v)) for k, v in bindings.items()}, tuple(dict.fromkeys(stars))


def _module_locals(ref: Reference, system: str | None) -> list[tuple[str, str]]:
    """(local name, module) pairs a whole-module import binds. Python's `import a.b` binds `a`; the dotted `a.b`
    is kept too, so that a receiver `a.b` finds its module directly."""
    if ref.alias:
        return [(ref.alias, ref.name)]
    if system == "py":
        parts = ref.name.split(".")
        return [(".".join(parts[: i + 1]),) * 2 for i in range(len(parts))]
    if system in ("js", "c", "rb") or system is None:
        return []  # a side-effect import or an `#include` binds no name
    last = ref.name.rstrip("/").rsplit(separator(system), 1)[-1]
    return [(last, ref.name)] if last else []


def _bases(
    references: Iterable[Reference], symbols: dict[str, SymbolNode]
) -> dict[str, tuple[tuple[str, str | None], ...]]:
    bases: dict[str, list[tuple[str, str | None]]] = {}
    for ref in references:
        if ref.kind == "inherit" and ref.enclosing is not None:
            owner = ref.enclosing
            node = symbols.get(owner)
            if node is not None and node.kind not in CLASS_KINDS:
                continue  # a base listed inside a method's body belongs to no class of ours
            bases.setdefault(owner, []).append((ref.name, ref.receiver))
    return {k: tuple(dict.fromkeys(v)) for k, v in bases.items()}


def changed_keys(old: FileRecord | None, new: FileRecord | None) -> set[DepKey]:
    """The dependency keys whose answers differ between two versions of one file (either may be absent)."""
    keys: set[DepKey] = set()
    old_ids = old.def_identity if old else frozenset()
    new_ids = new.def_identity if new else frozenset()
    path = new.path if new is not None else old.path if old is not None else ""
    for q, _, name, member, toplevel in old_ids ^ new_ids:
        keys.update((("n", name), ("q", path, q)))
        if toplevel:
            keys.update((("t", path, name), ("g", name)))
        if member:
            keys.add(("mb", name))
    if (old.bindings if old else {}) != (new.bindings if new else {}) or (old.stars if old else ()) != (
        new.stars if new else ()
    ):
        keys.add(("i", path))
    old_bases = old.bases if old else {}
    new_bases = new.bases if new else {}
    for q in set(old_bases) | set(new_bases):
        if old_bases.get(q) != new_bases.get(q):
            keys.add(("b", symbol_id(path, q)))
    return keys

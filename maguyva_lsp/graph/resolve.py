"""Name resolution without a type checker: each reference of a file → the graph nodes it most plausibly means.

Order for a plain name: the enclosing definitions (lexical scope; class members too in languages with an implicit
`this`), the same file, the file's explicit imports (aliases, `from x import y`, re-exports followed), the same
package (Go, Java), star imports, then a unique top-level definition in the project; several candidates get
weaker edges to each. `self.x()` / `this.x()` look in the enclosing class and its bases; `mod.f()` / `Type.f()` look
in the module or class the receiver names; a receiver nothing explains falls back to methods of that name, guessed
when only one exists. Every index lookup is recorded as a dependency key, so that a change elsewhere re-resolves
exactly the files whose answers may change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol, TypeVar

from maguyva_lsp.graph.conventions import (
    BUILTIN_METHODS,
    DETACHED_METHOD_LANGUAGES,
    IMPLICIT_MEMBER_LANGUAGES,
    PYTHON_BUILTINS,
    SELF_NAMES,
)
from maguyva_lsp.graph.model import (
    CLASS_KINDS,
    EDGE_KIND_OF,
    RESOLUTION_WEIGHTS,
    SCOPE_KINDS,
    EdgeSite,
    Resolution,
    SymbolNode,
    ambiguous_weight,
    module_id,
    symbol_id,
)
from maguyva_lsp.graph.modules import PACKAGE_SYSTEMS, ModuleKey, import_keys, submodule_spec
from maguyva_lsp.graph.records import DepKey, FileRecord, ImportBinding
from maguyva_lsp.model import Reference
from maguyva_lsp.parse.ref_query import split_receiver

# More candidates than this for one name is noise (`get`, `close`, `run`): no edge at all rather than a dozen weak ones.
MAX_CANDIDATES = 8
# The weight left to a guessed method when the use only reads `obj.name` instead of calling it.
READ_GUESS_FACTOR = 0.5
# Levels of base classes searched for a member.
MAX_BASE_DEPTH = 12
_SUPER_RE = re.compile(r"^super\b")
# `Maildir()` in a receiver: an instance of what the name before the parentheses names.
_INSTANCE_RE = re.compile(r"[A-Za-z_$][\w$]*\(\)\Z")
_IDENTIFIER_RE = re.compile(r"[A-Za-z_$][\w$]*\Z")


_V_co = TypeVar("_V_co", covariant=True)


class Lookup(Protocol[_V_co]):
    """Read access by key (a dict, or a view that materialises values from columns on demand)."""

    def get(self, key: str, /) -> _V_co | None: ...
    def __getitem__(self, key: str, /) -> _V_co: ...
    def __contains__(self, key: object, /) -> bool: ...


class ModuleLookup(Protocol):
    """The module table resolution reads: files by module key, a file's keys, a file's package mates."""

    def files(self, key: ModuleKey) -> AbstractSet[str]: ...
    def keys_of(self, path: str) -> tuple[ModuleKey, ...]: ...
    def package_files(self, path: str) -> AbstractSet[str]: ...


class GraphIndex(Protocol):
    """What resolution reads: the records, the nodes, definitions by name, the module table, each file's language
    family, and a memo shared by the files of one pass."""

    @property
    def records(self) -> Lookup[FileRecord]: ...
    @property
    def nodes(self) -> Lookup[SymbolNode]: ...
    @property
    def by_name(self) -> Lookup[AbstractSet[str]]: ...
    @property
    def modules(self) -> ModuleLookup: ...
    @property
    def memo(self) -> dict[tuple[object, ...], tuple[list[str], frozenset[DepKey]]]: ...
    def family(self, path: str) -> tuple[bool, str | None]:
        """(whether the file is known, its module system or else its language)."""
        ...

    def named_in(self, name: str, family: str | None, *, members: bool) -> list[str]:
        """Sorted ids of the class members (or top-level definitions) with this name in files of this family."""
        ...


@dataclass(frozen=True, slots=True)
class Target:
    node_id: str
    resolution: Resolution
    weight: float


@dataclass(slots=True)
class ResolvedFile:
    """One file's outgoing edges (source, target, site) and the keys its resolution depended on."""

    edges: list[tuple[str, str, EdgeSite]]
    deps: set[DepKey] = field(default_factory=set)


def resolve_file(index: GraphIndex, record: FileRecord) -> ResolvedFile:
    """Resolve every reference of one file against the current index."""
    if not record.complete:
        raise ValueError(f"resolving {record.path} needs its complete record")
    return resolve_references(index, record, record.references)


def resolve_references(index: GraphIndex, record: FileRecord, references: Iterable[Reference]) -> ResolvedFile:
    """Resolve these references of one file (all of them, in order; `record` may lack its own uses: only its
    names, bindings and bases are read)."""
    resolver = FileResolver(index, record)
    edges: list[tuple[str, str, EdgeSite]] = []
    for ref in references:
        answer = resolver.answer(ref)
        if answer is None:
            continue
        source, targets = answer
        kind = EDGE_KIND_OF[ref.kind]
        for target in targets:
            site = EdgeSite(kind, ref.span, target.resolution, target.weight)
            edges.append((source, target.node_id, site))
    return ResolvedFile(edges, resolver.deps)


# What resolution reads of a reference (all but its span): references equal in these resolve alike.
RefKey = tuple[str, str, "str | None", "str | None", "str | None", "str | None"]


class ReferenceFields(Protocol):
    """What resolution reads of a reference (a Reference, or graph/batch.py's one query object per file)."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def enclosing(self) -> str | None: ...
    @property
    def receiver(self) -> str | None: ...
    @property
    def module(self) -> str | None: ...
    @property
    def alias(self) -> str | None: ...


def reference_key(ref: Reference) -> RefKey:
    return (ref.kind, ref.name, ref.receiver, ref.enclosing, ref.module, ref.alias)


class FileResolver:
    """One file's references resolved one distinct reference at a time: a reference equal to one already resolved
    (in all but its span: `self.assertEqual` in one method, `os.path.join` in one function) gets the same answer
    without resolving it again.

    Why that is the same answer: a reference's resolution depends only on the index and on the pass's memo, and a
    top-level resolution (no memo entry being computed around it) reads only finished memo entries, the ones it
    made itself included; resolving it again reads the same values and adds the same dependency keys to the same
    set. The per-file caches below hold only answers of such top-level calls."""

    def __init__(self, index: GraphIndex, record: FileRecord) -> None:
        self.deps: set[DepKey] = set()
        self._resolver = _Resolver(index, record, self.deps)
        self._answers: dict[RefKey, tuple[str, list[Target]] | None] = {}

    def answer(self, ref: Reference) -> tuple[str, list[Target]] | None:
        """(the node the use belongs to, its targets), or None when it resolves to nothing."""
        key = reference_key(ref)
        if key in self._answers:
            return self._answers[key]
        found = self._answers[key] = self.resolve(ref)
        return found

    def resolve(self, ref: ReferenceFields) -> tuple[str, list[Target]] | None:
        """`answer` without its cache, for a caller whose references are already distinct (graph/batch.py). Nothing
        keeps `ref` after the call (graph/batch.py refills one object for every reference of a file)."""
        targets = self._resolver.reference(ref)
        return (self._resolver.source_of(ref), targets) if targets else None


@dataclass(frozen=True, slots=True)
class Receiver:
    """What a receiver's text says before any lookup: the same in every file, so made once per distinct text."""

    parts: tuple[str, ...]  # split at the top level (`a.b(c).d` -> `a`, `b()`, `d`)
    super_head: bool  # `super` / `super()` first
    names_only: bool  # every part a name or a call of one (else a subscript or a literal: its type is unknown)
    heads: tuple[tuple[str, int], ...]  # (dotted head, parts it spans) an import may bind, longest first


# Receivers repeat across files (`self`, `os.path`, `self.assertEqual`'s `self`): a cold build of the stdlib asks
# for ~130k of them per worker, a few thousand distinct.
@lru_cache(maxsize=1 << 16)
def receiver_shape(receiver: str) -> Receiver:
    parts = tuple(split_receiver(receiver))
    plain = next((k for k, p in enumerate(parts) if not _IDENTIFIER_RE.match(p)), len(parts))
    return Receiver(
        parts,
        bool(parts) and bool(_SUPER_RE.match(parts[0])),
        all(_IDENTIFIER_RE.match(p) or _INSTANCE_RE.match(p) for p in parts),
        tuple((".".join(parts[:k]), k) for k in range(plain, 0, -1)),
    )


def nearest_files(files: list[str], importer: str) -> list[str]:
    """Of several files that answer to one module name (a system where a module is one file), those whose folder
    shares the most leading folders with the importing file's. A workspace that holds several projects with the same
    package names (services of a monorepo each with its `app` package, vendored or copied trees) imports its own:
    Python puts the running project's root on sys.path, Node and C look beside the importer first. A tie keeps them
    all (the import stays ambiguous)."""
    if len(files) < 2:
        return files
    here = importer.split("/")[:-1]

    def shared(path: str) -> int:
        count = 0
        for mine, theirs in zip(here, path.split("/")[:-1], strict=False):
            if mine != theirs:
                break
            count += 1
        return count

    depths = [shared(f) for f in files]
    best = max(depths)
    return [f for f, depth in zip(files, depths, strict=True) if depth == best]


def _sure(node_id: str, resolution: Resolution) -> Target:
    return Target(node_id, resolution, RESOLUTION_WEIGHTS[resolution])


def _spread(node_ids: list[str], how: Resolution) -> list[Target]:
    """One candidate: an edge as strong as how it was found; a few: an even share of that to each; too many: none."""
    unique = sorted(set(node_ids))
    if len(unique) == 1:
        return [_sure(unique[0], how)]
    if not unique or len(unique) > MAX_CANDIDATES:
        return []
    share = ambiguous_weight(RESOLUTION_WEIGHTS[how], len(unique))
    return [Target(n, "ambiguous", share) for n in unique]


class _Resolver:
    def __init__(self, index: GraphIndex, record: FileRecord, deps: set[DepKey]) -> None:
        self.index = index
        self.record = record
        self.deps = deps
        self.family = record.system or record.language
        # Per-file answers of top-level steps of `_qualified` (only a top-level resolver fills and reads them).
        self._top: dict[tuple[str, ...], list[Target]] = {}
        self._classes: dict[str | None, list[str]] = {}
        self._namespaces: dict[tuple[str | None, tuple[str, ...]], list[str] | None] = {}

    # ---- entry points -------------------------------------------------------------------------------------------
    def reference(self, ref: ReferenceFields) -> list[Target]:
        if ref.kind == "import":
            return self._import(ref)
        targets = self._name(ref.name, ref.enclosing) if ref.receiver is None else self._qualified(ref, ref.receiver)
        if ref.kind == "inherit":
            types = [t for t in targets if self.index.nodes[t.node_id].kind in CLASS_KINDS]
            return types or targets
        return targets

    def source_of(self, ref: ReferenceFields) -> str:
        """The node a use belongs to: its enclosing definition, else the file's module node."""
        q = ref.enclosing
        while q:
            node = self.record.symbols.get(q)
            if node is not None:
                return node.node_id
            q = q.rpartition(".")[0]
        return module_id(self.record.path)

    # ---- imports ------------------------------------------------------------------------------------------------
    def _import(self, ref: ReferenceFields) -> list[Target]:
        if ref.module is None or ref.name == "*":
            files = self._module_files(ref.module if ref.module is not None else ref.name)
            return [_sure(module_id(f), "import") for f in files]
        binding = ImportBinding(ref.module, ref.name, fallback=ref.alias if ref.name == "default" else None)
        found = self._from_import(binding)
        if found:
            return _spread(found, "import")
        return [_sure(module_id(f), "import") for f in self._module_files(ref.module)]

    def _memo(self, key: tuple[object, ...], compute: Callable[[set[DepKey]], list[str]]) -> list[str]:
        """A result shared by every file resolved in this pass, with the keys it depended on (added to ours).
        While it is computed, a cycle (re-exports in a loop, bases in a loop) reads an empty answer."""
        memo = self.index.memo
        hit = memo.get(key)
        if hit is not None:
            self.deps.update(hit[1])
            return hit[0]
        memo[key] = ([], frozenset())
        deps: set[DepKey] = set()
        result = compute(deps)
        memo[key] = (result, frozenset(deps))
        self.deps.update(deps)
        return result

    def _module_files(self, spec: str) -> list[str]:
        """The files an import spec (as written in this file) names."""
        if self.record.system is None:
            return []
        return self._memo(("files", self.record.path, spec), lambda deps: self._find_module_files(spec, deps))

    def _find_module_files(self, spec: str, deps: set[DepKey]) -> list[str]:
        system = self.record.system
        for key in import_keys(spec, self.record.path, system) if system else ():
            deps.add(("m", key))
            files = self.index.modules.files(key)
            if files:
                # A package system's module is a folder's files, and one package may span folders (a JVM package
                # in src/main and src/test): those are all of it, not copies to choose from.
                return sorted(files) if system in PACKAGE_SYSTEMS else nearest_files(sorted(files), self.record.path)
        return []

    def _from_import(self, binding: ImportBinding) -> list[str]:
        """Node ids an import binding means: a whole module; or a definition the module exposes (its own or
        re-exported), else a submodule of that name, else (JS default import) a definition named like the alias."""
        files = self._module_files(binding.module)
        if binding.name is None:
            return [module_id(f) for f in files]
        out = [n for f in files for n in self._exported(f, binding.name)]
        if not out and self.record.system is not None:
            out = [
                module_id(f)
                for f in self._module_files(submodule_spec(binding.module, binding.name, self.record.system))
            ]
        if not out and binding.fallback:
            self.deps.update(("t", f, binding.fallback) for f in files)
            out = [symbol_id(f, q) for f in files if (q := self._top_of(f, binding.fallback)) is not None]
        return out

    def _exported(self, path: str, name: str) -> list[str]:
        """What the module file `path` exposes as `name`: its own top-level definition, or whatever its own imports
        bind to that name (a re-export in `__init__.py` / `index.ts`, a star import)."""
        record = self.index.records.get(path)
        if record is None:
            return []
        self.deps.add(("t", path, name))
        q = record.top.get(name)
        if q is not None:
            return [symbol_id(path, q)]
        self.deps.add(("i", path))
        if name not in record.bindings and not record.stars:
            return []
        return self._memo(("export", path, name), lambda deps: _Resolver(self.index, record, deps)._reexport(name))

    def _reexport(self, name: str) -> list[str]:
        """`name` as this (imported) file binds it through its own imports."""
        out: list[str] = []
        for binding in self.record.bindings.get(name, ()):
            out.extend(self._from_import(binding))
        if not out:
            for star in self.record.stars:
                out.extend(n for f in self._module_files(star) for n in self._exported(f, name))
        return out

    def _top_of(self, path: str, name: str) -> str | None:
        record = self.index.records.get(path)
        return record.top.get(name) if record is not None else None

    # ---- plain names --------------------------------------------------------------------------------------------
    def _name(self, name: str, enclosing: str | None, *, allow_global: bool = True) -> list[Target]:
        record = self.record
        found = self._in_scopes(name, enclosing)
        if found:
            return found
        q = record.top.get(name)
        if q is not None:
            return [_sure(symbol_id(record.path, q), "file")]
        if name in record.bindings:  # bound by an import: resolved there or external, never a guess elsewhere
            ids: list[str] = []
            for binding in record.bindings[name]:
                ids.extend(self._from_import(binding))
            return _spread(ids, "import")
        package = self._in_package(name)
        if package:
            return package
        starred = [n for star in record.stars for f in self._module_files(star) for n in self._exported(f, name)]
        if starred:
            return _spread(starred, "import")
        if not allow_global or (record.language == "python" and name in PYTHON_BUILTINS):
            return []
        candidates = [n for n in self._named(name, members=False) if self.index.nodes[n].path != record.path]
        return _spread(candidates, "global")

    def _in_scopes(self, name: str, enclosing: str | None) -> list[Target]:
        """The enclosing definitions, innermost first. A class body is a scope only for code directly in it,
        except in languages where methods see their class's members (and inherited ones) without `this`."""
        record = self.record
        implicit = record.language in IMPLICIT_MEMBER_LANGUAGES
        passed_function = False
        q = enclosing
        while q:
            node = record.symbols.get(q)
            is_class = node is not None and node.kind in CLASS_KINDS
            if not (is_class and passed_function and not implicit):
                member = record.symbols.get(f"{q}.{name}")
                if member is not None:
                    return [_sure(member.node_id, "scope")]
                if is_class and implicit and node is not None:
                    inherited = self._member([node.node_id], name)
                    if inherited:
                        return inherited
            passed_function = passed_function or not is_class
            q = node.parent if node is not None else q.rpartition(".")[0] or None
        return []

    def _in_package(self, name: str) -> list[Target]:
        files = self.index.modules.package_files(self.record.path)
        if not files:
            return []
        self.deps.add(("d", self.record.system, self.record.path.rpartition("/")[0]))
        self.deps.update(("t", f, name) for f in files)
        ids = [symbol_id(f, q) for f in sorted(files) if f != self.record.path and (q := self._top_of(f, name))]
        return _spread(ids, "package")

    def _same_family(self, node: SymbolNode) -> bool:
        known, family = self.index.family(node.path)
        return known and family == self.family

    # ---- qualified names: receiver.name -------------------------------------------------------------------------
    def _qualified(self, ref: ReferenceFields, receiver: str) -> list[Target]:
        """`receiver.name`. Only top-level (FileResolver.answer calls it, no memo entry in progress): the per-file
        caches of its steps (`_top`) hold answers that read finished memo entries only (FileResolver says why)."""
        shape = receiver_shape(receiver)
        parts = shape.parts
        if not parts:
            return []
        head = parts[0]
        if shape.super_head:
            bases = [b for c in self._top_classes(ref.enclosing) for b in self._bases(c)]
            return self._top_member(bases, ref.name)
        if not shape.names_only:
            return self._top_guess(ref.name, ref.kind)  # a subscript or a literal: its type is unknown
        if head in SELF_NAMES and not (head == "self" and "::" in receiver):
            classes = self._top_classes(ref.enclosing)
            if len(parts) == 1:
                return self._top_member(classes, ref.name)
            inner = self._walk(classes, parts[1:])  # `self.Inner.f()`; `self.attr.f()` is an attribute of unknown type
            return self._top_member(inner, ref.name) if inner else self._top_guess(ref.name, ref.kind)
        namespace = self._top_namespace(shape, ref.enclosing)
        if namespace is None and "::" in receiver:  # Rust paths: `crate::a::f()`, `super::f()`, `a::f()`
            namespace = [module_id(f) for f in self._module_files(receiver)] or None
        if namespace is None:
            return self._top_guess(ref.name, ref.kind)
        return self._once(("lookup", ref.name, *namespace), lambda: self._lookup(namespace, ref.name))

    def _top_namespace(self, shape: Receiver, enclosing: str | None) -> list[str] | None:
        bindings = self.record.bindings
        if any(dotted in bindings for dotted, _ in shape.heads):  # as `_namespace` looks
            enclosing = None  # a receiver an import binds: the same namespace in every scope (`os.path`)
        key = (enclosing, shape.parts)
        if key in self._namespaces:
            return self._namespaces[key]
        found = self._namespaces[key] = self._namespace(shape, enclosing)
        return found

    def _top_classes(self, enclosing: str | None) -> list[str]:
        found = self._classes.get(enclosing)
        if found is None:
            found = self._classes[enclosing] = self._enclosing_classes(enclosing)
        return found

    def _top_member(self, classes: list[str], name: str) -> list[Target]:
        return self._once(("member", name, *classes), lambda: self._member(classes, name))

    def _top_guess(self, name: str, kind: str) -> list[Target]:
        return self._once(("guess", name, kind), lambda: self._guess_member(name, kind))

    def _once(self, key: tuple[str, ...], make: Callable[[], list[Target]]) -> list[Target]:
        """A top-level step's answer, made the first time this file asks for it (`_top`)."""
        found = self._top.get(key)
        if found is None:
            found = self._top[key] = make()
        return found

    def _namespace(self, shape: Receiver, enclosing: str | None) -> list[str] | None:
        """The modules/classes a receiver names (node ids); None when nothing explains it (a variable, the result
        of a function); empty when it is known but not found (a module outside the project)."""
        bindings = self.record.bindings
        parts = shape.parts
        for dotted, k in shape.heads:
            if dotted in bindings:
                ids = [i for b in bindings[dotted] for i in self._from_import(b)]
                return self._walk(ids, parts[k:])
        head = parts[0]
        instance = bool(_INSTANCE_RE.match(head))
        name = head[:-2] if instance else head
        nodes = self.index.nodes
        heads = self._name(name, enclosing, allow_global=False)
        if not heads:  # a class or namespace known project-wide (`Util.twice()` in Ruby, C#, C++)
            heads = [t for t in self._name(name, enclosing) if nodes[t.node_id].kind in SCOPE_KINDS]
        if instance and not heads:
            return []  # an instance of a type the project does not define (`List`, `dict`): not ours to guess
        if instance:  # `Maildir().next()`: an instance of a class; a function's result is of unknown type
            heads = [t for t in heads if nodes[t.node_id].kind in CLASS_KINDS]
        if not heads:
            return None
        return self._walk([t.node_id for t in heads], parts[1:])

    def _walk(self, ids: list[str], rest: Sequence[str]) -> list[str] | None:
        """Follow the parts of a receiver through modules and classes; None at a call whose result's type is
        unknown, empty at a name that is not there."""
        nodes = self.index.nodes
        for part in rest:
            instance = bool(_INSTANCE_RE.match(part))
            found = [t.node_id for t in self._lookup(ids, part[:-2] if instance else part)]
            if instance:
                found = [n for n in found if nodes[n].kind in CLASS_KINDS]
                if not found:
                    return None
            if not found:
                return []
            ids = found
        return ids

    def _lookup(self, namespace: list[str], name: str) -> list[Target]:
        """`name` inside modules (a top-level definition or a submodule) and classes (a member, inherited too)."""
        nodes = self.index.nodes
        in_modules: list[str] = []
        classes = [i for i in namespace if nodes[i].kind in SCOPE_KINDS and not nodes[i].is_module]
        for i in namespace:
            node = nodes[i]
            if not node.is_module:
                continue
            exported = self._exported(node.path, name)
            in_modules.extend(exported or [module_id(f) for f in self._submodules(node.path, name)])
        in_classes = [t.node_id for t in self._member(classes, name)]
        return _spread([*in_modules, *in_classes], "import" if in_modules else "member")

    def _submodules(self, path: str, name: str) -> list[str]:
        """Files of the module `name` inside the module of `path` (its full key, extended by one component)."""
        keys = self.index.modules.keys_of(path)
        if not keys:
            return []
        system, components = keys[0]
        key = (system, (*components, name))
        self.deps.add(("m", key))
        return sorted(self.index.modules.files(key))

    # ---- classes ------------------------------------------------------------------------------------------------
    def _enclosing_classes(self, enclosing: str | None) -> list[str]:
        """The class-like definition(s) around a use: the nearest one in the scope chain (for a Go method or a Rust
        `impl`, the type it is bound to, wherever that type is defined)."""
        record = self.record
        q = enclosing
        while q:
            node = record.symbols.get(q)
            if node is not None and node.kind in CLASS_KINDS:
                return self._type_nodes(node)
            if node is None or node.kind == "method":
                parent = node.parent if node is not None else q.rpartition(".")[0]
                if parent and record.symbols.get(parent) is None:
                    return self._detached_type(parent)
            q = node.parent if node is not None else q.rpartition(".")[0] or None
        return []

    def _type_nodes(self, node: SymbolNode) -> list[str]:
        """A type and, where methods live apart from it, its other parts (Rust `impl` blocks of the same name)."""
        if self.record.language not in DETACHED_METHOD_LANGUAGES:
            return [node.node_id]
        return sorted({node.node_id, *self._detached_type(node.qualified_name)})

    def _detached_type(self, qualified_name: str) -> list[str]:
        """Nodes of a type named by a method's parent but defined elsewhere (same package or crate)."""
        name = qualified_name.rpartition(".")[2]
        self.deps.add(("n", name))
        nodes = self.index.nodes
        out = []
        for n in self.index.by_name.get(name) or ():
            node = nodes[n]
            if node.qualified_name == qualified_name and node.kind in CLASS_KINDS and self._near(node):
                out.append(n)
        return sorted(out)

    def _near(self, node: SymbolNode) -> bool:
        """Whether a detached part of a type can belong to the same type: same folder (Go) or same language."""
        if node.path == self.record.path:
            return True
        if self.record.language == "go":
            return node.path.rpartition("/")[0] == self.record.path.rpartition("/")[0]
        return node.language == self.record.language

    def _member(self, classes: list[str], name: str) -> list[Target]:
        """`name` in the classes or, breadth-first, their bases (the first level that has it wins)."""
        seen: set[str] = set()
        level = list(classes)
        for _ in range(MAX_BASE_DEPTH):
            if not level:
                break
            found: list[str] = []
            following: list[str] = []
            for c in level:
                if c in seen:
                    continue
                seen.add(c)
                found.extend(self._own_members(c, name))
                following.extend(self._bases(c))
            if found:
                return _spread(found, "member")
            level = following
        return []

    def _own_members(self, class_id: str, name: str) -> list[str]:
        node = self.index.nodes[class_id]
        q = f"{node.qualified_name}.{name}"
        self.deps.add(("q", node.path, q))
        own_id = symbol_id(node.path, q)
        if own_id in self.index.nodes:  # the class's file defines the member (its record need not be read)
            return [own_id]
        if node.language in DETACHED_METHOD_LANGUAGES:
            self.deps.add(("n", name))
            nodes = self.index.nodes
            return sorted(
                n for n in (self.index.by_name.get(name) or ()) if nodes[n].qualified_name == q and self._near(nodes[n])
            )
        return []

    def _bases(self, class_id: str) -> list[str]:
        """The classes a class names as its bases."""
        return self._memo(("bases", class_id), lambda deps: self._find_bases(class_id, deps))

    def _find_bases(self, class_id: str, deps: set[DepKey]) -> list[str]:
        deps.add(("b", class_id))
        node = self.index.nodes[class_id]
        record = self.index.records.get(node.path)
        if record is None:
            return []
        resolver = _Resolver(self.index, record, deps)
        out: list[str] = []
        for name, receiver in record.bases.get(node.qualified_name, ()):
            if receiver is None:
                targets = resolver._name(name, node.parent)
            else:
                space = resolver._namespace(receiver_shape(receiver), node.parent)
                targets = resolver._lookup(space, name) if space else []
            out.extend(t.node_id for t in targets if self.index.nodes[t.node_id].kind in CLASS_KINDS)
        return [b for b in dict.fromkeys(out) if b != class_id]

    def _guess_member(self, name: str, kind: str) -> list[Target]:
        """`obj.name` with an unknown `obj`: a method of that name, guessed when only one exists, or when only one is
        in a file this file defines or imports (the objects a file handles mostly come from the modules it imports)."""
        if self.record.system is not None and name in BUILTIN_METHODS.get(self.record.system, frozenset()):
            return []
        candidates = self._named(name, members=True)
        if len(candidates) > 1:
            known = self._known_files()
            nodes = self.index.nodes
            near = [c for c in candidates if nodes[c].path in known]
            if near:
                candidates = near
        targets = _spread(candidates, "guess")
        if kind == "call":
            return targets
        # `obj.name` read, not called: more often a data attribute that shares a method's name than the method.
        return [Target(t.node_id, t.resolution, t.weight * READ_GUESS_FACTOR) for t in targets]

    def _known_files(self) -> frozenset[str]:
        """This file and the files its imports name (whole modules, or the modules names are imported from)."""
        record = self.record
        specs = sorted({b.module for bindings in record.bindings.values() for b in bindings} | set(record.stars))

        def find(deps: set[DepKey]) -> list[str]:
            resolver = _Resolver(self.index, record, deps)
            return sorted({record.path, *(f for spec in specs for f in resolver._module_files(spec))})

        return frozenset(self._memo(("known", record.path), find))

    def _named(self, name: str, *, members: bool) -> list[str]:
        """Definitions of a name in files of this file's language family: members of classes, or top-level ones."""
        key = ("named", self.family, name, members)
        return self._memo(key, lambda deps: self._find_named(name, members, deps))

    def _find_named(self, name: str, members: bool, deps: set[DepKey]) -> list[str]:
        deps.add(("mb" if members else "g", name))
        return self.index.named_in(name, self.family, members=members)

"""Extract references (calls, imports, inheritance, other uses of names) from one file's syntax tree.

The patterns live in `queries/<grammar>-refs.scm` (capture contract: `ref_query.py`). Conventions of the Reference
values produced: a whole-module import has `name` = the module as written and `module` None (`import a.b as c` → name
`a.b`, alias `c`); a name imported from a module has `module` set (`from ..x import y as z` → name `y`, module `..x`,
alias `z`); `*` is a star import; a JS default import has name `default`; a Go method's receiver variable is reported
as the receiver `self`; a receiver variable whose type is evident (annotated, or assigned the result of one callee
everywhere in its scope; for `self.x`, everywhere in its class) is reported as an instance of that type, `Maildir()`
or `Maildir().x` (a resolver still has to find that the callee is a class). Unqualified names bound locally
(parameters, assignments, loop variables) are dropped: they never refer to a definition elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt
from tree_sitter import Tree

from maguyva_lsp.model import Definition, ReferenceKind, ReferenceTable, Span
from maguyva_lsp.parse.positions import LineIndex
from maguyva_lsp.parse.ref_query import (
    SCOPE_CLASS,
    SCOPE_FUNCTION,
    SCOPE_MODULE,
    Candidate,
    Collected,
    Plain,
    Scope,
    TextReader,
    TypedName,
    has_reference_query,
    reference_languages,
    split_receiver,
)
from maguyva_lsp.parse.ref_single import Shared, collect

__all__ = ["extract_references", "has_reference_query", "reference_languages"]

_IDENTIFIER_RE = re.compile(r"[A-Za-z_$][\w$]*\Z")
_SELF_RECEIVERS = frozenset({"self", "this"})
# Kinds of unqualified use that a local binding hides.
_LOCAL_KINDS = frozenset({"call", "reference"})
_COLUMN_BITS = 32  # a (line, column) pair as one integer: line << 32 | column (no line of a file is 4 GB)
I64 = npt.NDArray[np.int64]
# Languages where a bare field name in a method means the object's field (`box.next()` is `this.box.next()`).
IMPLICIT_MEMBER_LANGUAGES = frozenset({"java", "csharp", "kotlin", "scala", "cpp", "swift", "dart"})


def extract_references(
    tree: Tree,
    source: bytes,
    language: str,
    path: str,
    definitions: Sequence[Definition],
    *,
    lines: LineIndex | None = None,
    shared: Shared | None = None,
) -> ReferenceTable:
    """Every call, import, base class and other use of a name in one file, in source order, each with the
    qualified name of its innermost enclosing definition. Empty for grammars without a references query. `shared`:
    the one-pass captures, made already (`ref_single.shared_captures`).

    Most candidates are bare uses (`(identifier) @reference`: ~1.5M on the stdlib), so they stay byte ranges until
    the filters have run: the skipped subtrees, the innermost scope of each and the positions are found with arrays
    over all of them, and a name is read only for a use that reaches the local-binding test."""
    index = lines if lines is not None else LineIndex(source)
    found = _extract(tree, source, language, path, definitions, index=index, single=True, shared=shared)
    if found is None:  # uses that start at one byte, kept in the order the two passes offer them
        found = _extract(tree, source, language, path, definitions, index=index, single=False)
    return found if found is not None else ReferenceTable.empty(path)  # (the two passes always give a table)


def _extract(
    tree: Tree,
    source: bytes,
    language: str,
    path: str,
    definitions: Sequence[Definition],
    *,
    index: LineIndex,
    single: bool,
    shared: Shared | None = None,
) -> ReferenceTable | None:
    """`extract_references` off one collection; None when it was read in one pass and two kept uses start at one
    byte (their order is the order they were offered in, which one pass does not keep: `ref_single`)."""
    collected = collect(language, tree.root_node, source, single=single, shared=shared if single else None)
    if collected is None or not collected.candidates:
        return ReferenceTable.empty(path)
    keys = list(collected.candidates)  # (start, end) byte ranges, in the order the nodes were first offered
    values = list(collected.candidates.values())
    # From the flattened pairs: np.array on a list of 2-tuples is ~3x slower (345k of them per 581 stdlib files).
    ranges = np.fromiter(chain.from_iterable(keys), dtype=np.int64, count=2 * len(keys)).reshape(-1, 2)
    kept = _uses(ranges[:, 0], values, collected.skip_ranges)
    if collected.one_pass:
        starts = ranges[kept, 0]
        if (starts[1:] == starts[:-1]).any():
            return None
    _apply_self_names(values, kept, collected.self_names)
    scopes = _ScopeTree(collected.scopes)
    module = _assign_bindings(collected, scopes)
    file_names = _file_level_names(definitions, values)
    uses = _resolve_locals(
        kept.tolist(),
        scopes.owners(ranges[kept, 0]).tolist(),
        keys,
        values,
        text=collected.text,
        scopes=scopes,
        module=module,
        file_names=file_names,
        implicit_members=language in IMPLICIT_MEMBER_LANGUAGES,
    )
    rows = np.array(uses.rows, dtype=np.int64)
    columns = index.positions(ranges[rows, 0], ranges[rows, 1])
    chosen = _off_definition_names(columns, definitions)
    spans = np.stack([c[chosen] for c in columns], axis=1)  # (references, 4), int64
    picked = chosen.tolist()
    enclosing = _enclosing_names(spans[:, 0].tolist(), spans[:, 1].tolist(), definitions)
    names, kinds, found = uses.names, uses.kinds, uses.candidates
    # The columns of the table, without an object per reference (635k on the stdlib): most are bare uses, whose
    # receiver, module and alias are None and whose enclosing definition is the one around them.
    taken = [found[j] for j in picked]
    receivers: list[str | None] = [None if c is None else c.receiver for c in taken]
    modules: list[str | None] = [None if c is None else c.module for c in taken]
    aliases: list[str | None] = [None if c is None else c.alias for c in taken]
    for k, c in enumerate(taken):
        if c is not None and c.subject:
            enclosing[k] = _subject_name(c.subject, definitions)
    return ReferenceTable(
        path,
        [names[j] for j in picked],
        [kinds[j] for j in picked],
        spans,
        enclosing,
        receivers=receivers,
        modules=modules,
        aliases=aliases,
    )


def _uses(starts: I64, values: Sequence[Candidate | Plain], skip_ranges: list[tuple[int, int]]) -> I64:
    """The indices of the candidates that are uses, by start byte (ties: in the order the nodes were first offered):
    imports, and the others outside skipped subtrees (import statements). Nodes marked as never a use got no
    candidate unless an import (`ref_query.collect`)."""
    order = np.argsort(starts, kind="stable")
    if not skip_ranges:
        return order
    # Skipped subtrees (import statements) do not nest, so the one starting last before a position decides.
    skips = np.array(skip_ranges, dtype=np.int64).reshape(-1, 2)
    after = np.searchsorted(skips[:, 0], starts, side="right")
    inside = (after > 0) & (starts < skips[np.maximum(after - 1, 0), 1])
    for i in np.flatnonzero(inside).tolist():
        value = values[i]
        if not isinstance(value, str) and value.kind == "import":
            inside[i] = False
    kept: I64 = order[~inside[order]]
    return kept


@dataclass(slots=True)
class _Uses:
    """The uses kept, in source order: each one's candidate row, name and kind, and its Candidate (None: bare)."""

    rows: list[int]
    names: list[str]
    kinds: list[ReferenceKind]
    candidates: list[Candidate | None]


def _file_level_names(definitions: Sequence[Definition], candidates: Iterable[Candidate | Plain]) -> set[str]:
    """Names a file defines at top level or imports: a module-level assignment does not hide them."""
    names = {d.name for d in definitions if d.parent is None}
    for c in candidates:
        if not isinstance(c, str) and c.kind == "import":
            names.add(c.alias or c.name.split(".")[0])
    return names


def _resolve_locals(
    kept: list[int],
    owners: list[int],
    keys: list[tuple[int, int]],
    values: list[Candidate | Plain],
    *,
    text: TextReader,
    scopes: _ScopeTree,
    module: Scope,
    file_names: set[str],
    implicit_members: bool,
) -> _Uses:
    """Remove unqualified uses of names bound in an enclosing local scope, or bound only by a module-level
    assignment (a variable, not a definition the graph could point at); report a receiver variable whose type is
    evident as an instance of that type (`box.add()` after `box = Maildir(p)` → receiver `Maildir()`).
    `owners`: the innermost scope of each kept candidate (-1: none)."""
    module_only = {n for n in module.bindings if n not in file_names}  # bound only by module-level assignments
    visible = scopes.visible_names()
    typed: dict[tuple[int, str], str | None] = {}  # (innermost scope, receiver) → its evident type, per file
    out = _Uses([], [], [], [])
    rows, names, kinds, candidates = out.rows, out.names, out.kinds, out.candidates
    ascii_text = text.ascii
    for i, owner in zip(kept, owners, strict=True):
        value = values[i]
        if isinstance(value, str):  # a bare use: no receiver
            start, end = keys[i]
            name = ascii_text[start:end] if ascii_text is not None else text(start, end)
            if value in _LOCAL_KINDS and (name in module_only or name in visible[owner + 1]):
                continue
            rows.append(i)
            names.append(name)
            kinds.append(value)
            candidates.append(None)
            continue
        receiver = value.receiver
        if receiver is not None:
            if receiver not in _SELF_RECEIVERS:  # a bare `self` has no evident type to report
                key = (owner, receiver)
                if key in typed:
                    found = typed[key]
                else:
                    found = typed[key] = _typed_receiver(receiver, scopes.chain(owner), module, implicit_members)
                value.receiver = found or receiver
        elif value.kind in _LOCAL_KINDS and (value.name in module_only or value.name in visible[owner + 1]):
            continue
        rows.append(i)
        names.append(value.name)
        kinds.append(value.kind)
        candidates.append(value)
    return out


class _ScopeTree:
    """A file's scopes (sorted by start, outer first) as a tree: the innermost scope around any byte, the scopes
    around it, and the names bound in them that a use there sees."""

    __slots__ = ("_bounds", "_chains", "_owners", "classes", "parents", "scopes")

    def __init__(self, scopes: list[Scope]) -> None:
        self.scopes = scopes
        self.parents: list[int] = []
        self.classes: list[int] = []  # the nearest class scope around each scope (itself included), or -1
        # The innermost scope is constant between consecutive bounds: `_owners[k]` holds from `_bounds[k]` on (a
        # scope holds its start byte and not its end byte, as the sweep's `_advance` has it).
        bounds, owners = [0], [-1]
        stack: list[int] = []
        for i, scope in enumerate(scopes):
            while stack and scopes[stack[-1]].end <= scope.start:
                bounds.append(scopes[stack.pop()].end)
                owners.append(stack[-1] if stack else -1)
            parent = stack[-1] if stack else -1
            self.parents.append(parent)
            self.classes.append(i if scope.kind == SCOPE_CLASS else (self.classes[parent] if parent >= 0 else -1))
            stack.append(i)
            bounds.append(scope.start)
            owners.append(i)
        while stack:
            bounds.append(scopes[stack.pop()].end)
            owners.append(stack[-1] if stack else -1)
        self._bounds = np.array(bounds, dtype=np.int64)
        self._owners = np.array(owners, dtype=np.int64)
        self._chains: dict[int, list[Scope]] = {-1: []}

    def owners(self, positions: I64) -> I64:
        """The innermost scope around each byte position (-1: none)."""
        return self._owners[np.searchsorted(self._bounds, positions, side="right") - 1]

    def chain(self, owner: int) -> list[Scope]:
        """The scopes around a position whose innermost scope is `owner`, outermost first (the sweep's stack)."""
        chain = self._chains.get(owner)
        if chain is None:
            chain = self._chains[owner] = [*self.chain(self.parents[owner]), self.scopes[owner]]
        return chain

    def visible_names(self) -> list[AbstractSet[str]]:
        """For each scope (index + 1; index 0: outside every scope), the names bound in the scopes around it that a
        use there sees: `_binding_scope` finds a scope for exactly these (a class body is invisible from the
        functions inside it)."""
        scopes, parents = self.scopes, self.parents
        empty: frozenset[str] = frozenset()
        # [passed a function scope on the way out?] → names seen from scope i outward
        seen: tuple[list[AbstractSet[str]], list[AbstractSet[str]]] = ([], [])
        for i, scope in enumerate(scopes):  # a parent comes before its children
            parent = parents[i]
            for passed in (0, 1):
                hidden = scope.kind == SCOPE_CLASS and passed
                outer_passed = 1 if passed or scope.kind == SCOPE_FUNCTION else 0
                outer = seen[outer_passed][parent] if parent >= 0 else empty
                own = scope.bindings.keys()
                seen[passed].append(outer if hidden or not own else outer | own)
        return [empty, *seen[0]]


def _assign_bindings(collected: Collected, tree: _ScopeTree) -> Scope:
    """Put each binding, typed binding and `self.x` assignment into its scope; returns the module's own scope."""
    module = Scope(0, 0, SCOPE_MODULE)
    events: list[tuple[int, int, object]] = [(p, 0, n) for p, n in collected.bindings]
    events += [(t.position, 1, t) for t in collected.typed]
    events += [(p, 2, n) for p, n in collected.member_bindings]
    if not events:
        return module
    events.sort(key=lambda e: (e[0], e[1]))
    scopes, classes = collected.scopes, tree.classes
    owners = tree.owners(np.array([e[0] for e in events], dtype=np.int64)).tolist()
    for (_, what, item), owner in zip(events, owners, strict=True):
        innermost = scopes[owner] if owner >= 0 else module
        nearest_class = scopes[classes[owner]] if owner >= 0 and classes[owner] >= 0 else None
        if what == 0 and isinstance(item, str):
            innermost.bindings[item] += 1
        elif what == 1 and isinstance(item, TypedName):
            owner_scope = nearest_class if item.member else innermost
            if owner_scope is not None:
                table = owner_scope.member_types if item.member else owner_scope.types
                table.setdefault(item.name, []).append(item)
        elif isinstance(item, str) and nearest_class is not None:
            nearest_class.member_bindings[item] += 1
    return module


def _nearest_class(stack: list[Scope]) -> Scope | None:
    return next((s for s in reversed(stack) if s.kind == SCOPE_CLASS), None)


def _binding_scope(name: str, stack: list[Scope], module: Scope | None) -> Scope | None:
    """The scope whose binding of `name` a use sees (a class body is invisible from the functions inside it)."""
    inside_function = False
    for scope in reversed(stack):
        if scope.kind == SCOPE_CLASS and inside_function:
            continue
        if name in scope.bindings:
            return scope
        inside_function = inside_function or scope.kind == SCOPE_FUNCTION
    return module if module is not None and name in module.bindings else None


def _typed_receiver(receiver: str, stack: list[Scope], module: Scope, implicit_members: bool) -> str | None:
    """`box.x` → `Maildir().x` when `box`'s type is evident; `self.box.x` likewise from the class's assignments."""
    parts = split_receiver(receiver)
    head = parts[0]
    if head in _SELF_RECEIVERS:
        owner = _nearest_class(stack)
        if owner is None or len(parts) < 2:
            return None
        found = _member_type(owner, parts[1])
        rest = parts[2:]
    elif _IDENTIFIER_RE.match(head):
        scope = _binding_scope(head, stack, module)
        owner = _nearest_class(stack) if scope is None and implicit_members else None
        if scope is not None:
            found = _evident_type(scope.types.get(head, []), scope.bindings[head])
        elif owner is not None:  # Java's `box.next()` with a field `box`: the field's declared type
            found = _member_type(owner, head)
        else:
            return None
        rest = parts[1:]
    else:
        return None
    return ".".join([f"{found}()", *rest]) if found else None


def _member_type(owner: Scope, name: str) -> str | None:
    return _evident_type(owner.member_types.get(name, []), owner.member_bindings[name])


def _evident_type(types: list[TypedName], bound: int) -> str | None:
    """An annotation, when all agree; else the one callee every binding of the name assigns."""
    annotated = {t.type_name for t in types if t.annotation}
    if annotated:
        return annotated.pop() if len(annotated) == 1 else None
    calls = [t.type_name for t in types if not t.annotation]
    return calls[0] if calls and len(set(calls)) == 1 and len(calls) >= bound else None


def _enclosing_names(lines: list[int], columns: list[int], definitions: Sequence[Definition]) -> list[str | None]:
    """The qualified name of the innermost definition around each position (line, column; in source order)."""
    ordered = sorted(
        ((_corners(d.span), d.qualified_name) for d in definitions), key=lambda o: (o[0][0], o[0][1], -o[0][2])
    )
    out: list[str | None] = []
    stack: list[tuple[tuple[int, int], str]] = []  # (end, qualified name) of the definitions open at the sweep
    i = 0
    for position in zip(lines, columns, strict=True):
        while i < len(ordered) and ordered[i][0][:2] <= position:
            (dsl, dsc, del_, dec), name = ordered[i]
            i += 1
            while stack and stack[-1][0] <= (dsl, dsc):
                stack.pop()
            if (del_, dec) > position:
                stack.append(((del_, dec), name))
        while stack and stack[-1][0] <= position:
            stack.pop()
        out.append(stack[-1][1] if stack else None)
    return out


def _corners(span: Span) -> tuple[int, int, int, int]:
    return (span.start_line, span.start_col, span.end_line, span.end_col)


def _subject_name(subject: str, definitions: Sequence[Definition]) -> str:
    """The qualified name of the type an out-of-body inheritance match names (`S` in `impl Trait for S`)."""
    if any(d.qualified_name == subject for d in definitions):
        return subject
    return next((d.qualified_name for d in definitions if d.name == subject), subject)


def _apply_self_names(values: list[Candidate | Plain], kept: I64, self_names: list[tuple[int, int, str]]) -> None:
    """Report a Go method's receiver variable as `self`, so that `s.Close()` in `func (s *S)` resolves like Python."""
    if not self_names:
        return
    for i in kept.tolist():
        candidate = values[i]
        if isinstance(candidate, str) or candidate.receiver is None:
            continue
        head, dot, rest = candidate.receiver.partition(".")
        position = candidate.start
        for start, end, name in self_names:
            if start <= position < end and head == name:
                candidate.receiver = f"self{dot}{rest}"
                break


def _off_definition_names(columns: tuple[I64, I64, I64, I64], definitions: Sequence[Definition]) -> I64:
    """The indices of the positions that are not a definition's name (`def f` names `f`; that is no use of it)."""
    start_lines, start_cols, end_lines, end_cols = columns
    every = np.arange(len(start_lines), dtype=np.int64)
    if not definitions:
        return every
    names = {_corners(d.name_span) for d in definitions}
    # Few positions start where a definition's name does: only those are compared whole.
    starts = np.array([(sl << _COLUMN_BITS) | sc for sl, sc, _, _ in names], dtype=np.int64)
    maybe = np.flatnonzero(np.isin((start_lines << _COLUMN_BITS) | start_cols, starts))
    if not maybe.size:
        return every
    taken = [
        j
        for j, sl, sc, el, ec in zip(
            maybe.tolist(),
            start_lines[maybe].tolist(),
            start_cols[maybe].tolist(),
            end_lines[maybe].tolist(),
            end_cols[maybe].tolist(),
            strict=True,
        )
        if (sl, sc, el, ec) in names
    ]
    return np.delete(every, taken)

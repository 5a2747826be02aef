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
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from tree_sitter import Tree

from maguyva_lsp.model import Definition, Reference, Span
from maguyva_lsp.parse.positions import LineIndex
from maguyva_lsp.parse.ref_query import (
    SCOPE_CLASS,
    SCOPE_FUNCTION,
    SCOPE_MODULE,
    Candidate,
    Collected,
    Scope,
    TypedName,
    collect,
    has_reference_query,
    reference_languages,
    split_receiver,
)

__all__ = ["extract_references", "has_reference_query", "reference_languages"]

_IDENTIFIER_RE = re.compile(r"[A-Za-z_$][\w$]*\Z")
_SELF_RECEIVERS = frozenset({"self", "this"})
# Kinds of unqualified use that a local binding hides.
_LOCAL_KINDS = frozenset({"call", "reference"})
_END = 1 << 62  # past any byte offset
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
) -> list[Reference]:
    """Every call, import, base class and other use of a name in one file, in source order, each with the
    qualified name of its innermost enclosing definition. Empty for grammars without a references query."""
    collected = collect(language, tree.root_node, source)
    if collected is None:
        return []
    index = lines if lines is not None else LineIndex(source)
    kept = _uses(collected)
    kept.sort(key=_start_byte)
    _apply_self_names(kept, collected.self_names)
    implicit = language in IMPLICIT_MEMBER_LANGUAGES
    kept = _resolve_locals(kept, collected, _file_level_names(definitions, kept), implicit)
    definition_names = {_corners(d.name_span) for d in definitions}
    if index.ascii:  # byte columns are the columns: a node's two points are its position (one tuple, no decode)
        pairs = [(c, p) for c in kept if (p := c.node.start_point + c.node.end_point) not in definition_names]
    else:
        pairs = [(c, p) for c in kept if (p := index.position(c.node)) not in definition_names]
    enclosing = _enclosing_names([p for _, p in pairs], definitions)
    # Positional arguments, in the fields' order: this builds a file's every reference (635k on the stdlib).
    return [
        Reference(
            c.name,
            c.kind,
            path,
            Span(*position),
            _subject_name(c.subject, definitions) if c.subject else outer,
            c.receiver,
            c.module,
            c.alias,
        )
        for (c, position), outer in zip(pairs, enclosing, strict=True)
    ]


def _uses(collected: Collected) -> list[Candidate]:
    """The candidates that are uses: imports, and the others outside skipped subtrees (import statements). Nodes
    marked as never a use got no candidate unless an import (`ref_query.collect`)."""
    ranges = collected.skip_ranges
    if not ranges:
        return list(collected.candidates.values())
    # Skipped subtrees (import statements) do not nest, so the one starting last before a position decides.
    starts = [start for start, _ in ranges]
    kept: list[Candidate] = []
    for c in collected.candidates.values():
        if c.kind != "import":
            i = bisect_right(starts, c.start)
            if i and c.start < ranges[i - 1][1]:
                continue
        kept.append(c)
    return kept


def _start_byte(candidate: Candidate) -> int:
    return candidate.start


def _file_level_names(definitions: Sequence[Definition], candidates: Iterable[Candidate]) -> set[str]:
    """Names a file defines at top level or imports: a module-level assignment does not hide them."""
    names = {d.name for d in definitions if d.parent is None}
    for c in candidates:
        if c.kind == "import":
            names.add(c.alias or c.name.split(".")[0])
    return names


def _resolve_locals(
    candidates: list[Candidate], collected: Collected, file_names: set[str], implicit_members: bool
) -> list[Candidate]:
    """Remove unqualified uses of names bound in an enclosing local scope, or bound only by a module-level
    assignment (a variable, not a definition the graph could point at); report a receiver variable whose type is
    evident as an instance of that type (`box.add()` after `box = Maildir(p)` → receiver `Maildir()`)."""
    module = _assign_bindings(collected)
    module_only = {n for n in module.bindings if n not in file_names}  # bound only by module-level assignments
    kept: list[Candidate] = []
    stack: list[Scope] = []
    scopes = collected.scopes
    i = 0
    # The sweep's next edge: where the next scope opens, or the innermost open one ends (a use before both needs no
    # `_advance`; one candidate in a few crosses an edge).
    edge = scopes[0].start if scopes else _END
    for c in candidates:
        position = c.start
        if position >= edge:
            i = _advance(stack, scopes, i, position)
            edge = min(scopes[i].start if i < len(scopes) else _END, stack[-1].end if stack else _END)
        receiver = c.receiver
        if receiver is not None:
            if receiver not in _SELF_RECEIVERS:  # a bare `self` has no evident type to report
                c.receiver = _typed_receiver(receiver, stack, module, implicit_members) or receiver
        elif c.kind in _LOCAL_KINDS:
            name = c.name
            if stack and _binding_scope(name, stack, None) is not None:
                continue
            if name in module_only:
                continue
        kept.append(c)
    return kept


def _assign_bindings(collected: Collected) -> Scope:
    """Put each binding, typed binding and `self.x` assignment into its scope; returns the module's own scope."""
    module = Scope(0, 0, SCOPE_MODULE)
    events: list[tuple[int, int, object]] = [(p, 0, n) for p, n in collected.bindings]
    events += [(t.position, 1, t) for t in collected.typed]
    events += [(p, 2, n) for p, n in collected.member_bindings]
    events.sort(key=lambda e: (e[0], e[1]))
    stack: list[Scope] = []
    i = 0
    for position, what, item in events:
        i = _advance(stack, collected.scopes, i, position)
        innermost = stack[-1] if stack else module
        if what == 0 and isinstance(item, str):
            innermost.bindings[item] += 1
        elif what == 1 and isinstance(item, TypedName):
            owner = _nearest_class(stack) if item.member else innermost
            if owner is not None:
                table = owner.member_types if item.member else owner.types
                table.setdefault(item.name, []).append(item)
        elif isinstance(item, str) and (owner := _nearest_class(stack)) is not None:
            owner.member_bindings[item] += 1
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


def _advance(stack: list[Scope], scopes: list[Scope], i: int, position: int) -> int:
    """Move a sweep to `position`: open the scopes that start at or before it, close those that ended."""
    while i < len(scopes) and scopes[i].start <= position:
        scope = scopes[i]
        i += 1
        while stack and stack[-1].end <= scope.start:
            stack.pop()
        if scope.end > position:
            stack.append(scope)
    while stack and stack[-1].end <= position:
        stack.pop()
    return i


def _enclosing_names(positions: list[tuple[int, int, int, int]], definitions: Sequence[Definition]) -> list[str | None]:
    """The qualified name of the innermost definition around each position (start line and column first; in source
    order)."""
    ordered = sorted(
        ((_corners(d.span), d.qualified_name) for d in definitions), key=lambda o: (o[0][0], o[0][1], -o[0][2])
    )
    out: list[str | None] = []
    stack: list[tuple[tuple[int, int], str]] = []  # (end, qualified name) of the definitions open at the sweep
    i = 0
    for sl, sc, _, _ in positions:
        position = (sl, sc)
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


def _apply_self_names(candidates: list[Candidate], self_names: list[tuple[int, int, str]]) -> None:
    """Report a Go method's receiver variable as `self`, so that `s.Close()` in `func (s *S)` resolves like Python."""
    if not self_names:
        return
    for candidate in candidates:
        receiver = candidate.receiver
        if receiver is None:
            continue
        head, dot, rest = receiver.partition(".")
        position = candidate.start
        for start, end, name in self_names:
            if start <= position < end and head == name:
                candidate.receiver = f"self{dot}{rest}"
                break

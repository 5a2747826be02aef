"""Named definitions (functions, classes, constants ...) from the tree-sitter tag queries `queries/<grammar>-tags.scm`.

Kinds, the only values `Definition.kind` takes:
  function   a free function (also nested in another function, or a function-valued `const`)
  method     a function of a class/struct/interface/trait/impl/enum (in its body, or bound to it by a Go receiver,
             a C++ `Foo::bar` out-of-class definition, a Ruby `def self.x`, a Lua `function T:m`)
  class      class, record, object literal type of its own (Kotlin/Swift/Java records and actors count as classes)
  interface  interface, protocol (Swift), annotation type (Java)
  struct     struct, union
  enum       enum
  type       type alias, typedef, delegate
  trait      trait (Rust, PHP, Scala)
  impl       an implementation block for a type defined elsewhere (Rust `impl`, Swift `extension`); named after the type
  module     module, namespace, Rust `mod`, Scala `object`
  constant   a module-level constant (UPPER_CASE assignment in Python, `const` in JS/TS/Go/Rust/C#/PHP, Java
             `static final`, C object-like `#define` with a value, Ruby constant assignment)
  macro      a macro (C function-like `#define`, Rust `macro_rules!`)

Query conventions: `@definition.<kind>` captures the whole definition node, `@name` its identifier, optional `@scope`
captures name the type or namespace a definition is bound to outside its lexical nesting (Go receiver type, C++
`Foo::` qualifier, Lua table); captures starting with `_` only feed predicates. When several patterns capture the
same node and name, the earliest pattern wins. A file starting with `; inherits: <grammar>` extends that grammar's file.

Two forms are settled here rather than in the queries. A named function or class expression that is the value a
binding pattern captured (`app.use = function use() {}`, `const f = function f() {}`, `{ toJSON: function toJSON()
{} }`, `defineGetter(req, 'x', function x() {})`) is that binding's definition when the names agree, and a sibling of
it (not nested in it) when they differ. TypeScript overload signatures directly before their implementation are one
definition with it: the implementation's name, a span from the first signature.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from tree_sitter import Node, Query, QueryCursor, QueryError, Tree

from maguyva_lsp.model import Definition, Span
from maguyva_lsp.parse.languages import grammar, pattern_texts
from maguyva_lsp.parse.positions import LineIndex

log = logging.getLogger(__name__)

QUERY_DIR = Path(__file__).parent / "queries"
QUERY_SUFFIX = "-tags.scm"

KINDS: frozenset[str] = frozenset(
    {
        "function",
        "method",
        "class",
        "interface",
        "struct",
        "enum",
        "type",
        "trait",
        "impl",
        "module",
        "constant",
        "macro",
    }
)
# Definitions that can hold others: what lexically sits inside one gets its qualified name as `parent`.
CONTAINER_KINDS: frozenset[str] = frozenset(
    {"function", "method", "class", "interface", "struct", "enum", "trait", "impl", "module"}
)
# A function directly inside one of these is a method.
CLASS_LIKE_KINDS: frozenset[str] = frozenset({"class", "interface", "struct", "enum", "trait", "impl"})

# A signature is a one-line summary shown in results, not the whole header of a 40-parameter function.
SIGNATURE_MAX_CHARS = 200
SIGNATURE_ELLIPSIS = "…"

# Nodes that wrap a definition without being one: the definition's span grows to include them (decorators, `export`,
# `template <...>`, Go's `type`/`const` keyword). The flag says whether the signature starts at the wrapper too
# (False for decorators: `def f(x):` reads better than `@cache def f(x):`).
_WRAPPERS: dict[str, dict[str, bool]] = {
    "python": {"decorated_definition": False},
    "javascript": {"export_statement": True, "lexical_declaration": True, "variable_declaration": True},
    "typescript": {
        "export_statement": True,
        "lexical_declaration": True,
        "variable_declaration": True,
        "ambient_declaration": True,
    },
    "go": {"type_declaration": True, "const_declaration": True},
    "cpp": {"template_declaration": True},
    "php": {"const_declaration": True},
    "lua": {"variable_declaration": True},
}
_WRAPPERS["tsx"] = _WRAPPERS["typescript"]
# Value nodes a binding pattern may hold (see the module docstring), and the argument list a call holds them in.
_ECMA_VALUES = frozenset({"function_expression", "generator_function", "arrow_function", "class"})
_BOUND_VALUES: dict[str, frozenset[str]] = {"javascript": _ECMA_VALUES, "typescript": _ECMA_VALUES, "tsx": _ECMA_VALUES}
_ARGUMENT_LISTS = frozenset({"arguments"})
# Body-less signatures → the implementations they overload when one follows them directly.
_TS_OVERLOADS: dict[str, frozenset[str]] = {
    "function_signature": frozenset({"function_declaration", "generator_function_declaration"}),
    "method_signature": frozenset({"method_definition"}),
}
_OVERLOADS: dict[str, dict[str, frozenset[str]]] = {"typescript": _TS_OVERLOADS, "tsx": _TS_OVERLOADS}
_COMMENTS = frozenset({"comment", "line_comment", "block_comment"})
# Named children a wrapper may hold beside the definition and still count as wrapping only it.
_WRAPPER_ACCESSORIES = frozenset({"comment", "decorator", "line_comment", "block_comment", "template_parameter_list"})

# A definition's body: its `body` field, its value's (`const f = () => {...}`), or for grammars without fields
# (Kotlin) its last child of one of these types.
_BODY_TYPES = frozenset(
    {"class_body", "function_body", "enum_class_body", "block", "compound_statement", "declaration_list"}
)

_INHERITS = re.compile(r"^;\s*inherits:\s*([a-z_0-9]+)\s*$", re.MULTILINE)
_SCOPE_SEPARATORS = re.compile(r"::|[.:\\]")
_GENERIC_ARGS = re.compile(r"<[^<>]*>|\[[^\[\]]*\]")


def _available_languages() -> frozenset[str]:
    names = (p.name.removesuffix(QUERY_SUFFIX) for p in QUERY_DIR.glob(f"*{QUERY_SUFFIX}"))
    return frozenset(n for n in names if not n.startswith("_"))  # `_x` files only hold shared patterns


SUPPORTED_TAG_LANGUAGES: frozenset[str] = _available_languages()


@dataclass(frozen=True, slots=True)
class _TagQuery:
    """A grammar's compiled tag query and its wrapper node types (immutable, shared by all threads)."""

    query: Query
    wrappers: dict[str, bool]
    bound_values: frozenset[str] = frozenset()
    overloads: Mapping[str, frozenset[str]] = field(default_factory=dict)


_compile_lock = threading.Lock()
_compiled: dict[str, _TagQuery | None] = {}


def query_source(language: str) -> str:
    """The tag query text for a grammar, with `; inherits:` files prepended; FileNotFoundError when it has none."""
    text = (QUERY_DIR / f"{language}{QUERY_SUFFIX}").read_text(encoding="utf-8")
    parents = _INHERITS.findall(text)
    return "\n".join([*(query_source(parent) for parent in parents), text])


def _tag_query(language: str) -> _TagQuery | None:
    """The compiled query for a grammar (compiled once; None, logged once, when it has no usable query)."""
    return _made_once(_compiled, _compile_lock, language, _compile)


_T = TypeVar("_T")


def _made_once(
    made: dict[str, _T | None], lock: threading.Lock, language: str, make: Callable[[str], _T | None]
) -> _T | None:
    """`make(language)`, once per grammar for all threads (a dict read is atomic; what is made is never mutated)."""
    if language in made:
        return made[language]
    with lock:
        if language not in made:
            made[language] = make(language)
        return made[language]


def _compile(language: str) -> _TagQuery | None:
    lang = grammar(language)
    if lang is None or language not in SUPPORTED_TAG_LANGUAGES:
        return None
    try:
        query = Query(lang, query_source(language))
    except (QueryError, OSError) as exc:
        log.error("tag query for %s does not compile: %s", language, exc)
        return None
    return _TagQuery(
        query,
        _WRAPPERS.get(language, {}),
        _BOUND_VALUES.get(language, frozenset()),
        _OVERLOADS.get(language, {}),
    )


@dataclass(slots=True)
class _Raw:
    """One tag match before scoping: the definition node, its (possibly wrapped) extent and its name."""

    pattern: int
    kind: str
    node: Node
    outer: Node  # the node whose extent is the definition's span (the node itself or its wrapper)
    signature_start: int
    name: Node
    scopes: list[Node]
    order: tuple[int, int, int]  # the sort key: outer start, minus outer end, name start (read once from the nodes)
    first: Node | None = None  # where the span starts when it is not the outer node (the first overload signature)
    sibling_of: _Raw | None = None  # the binding this value sits in under another name: it shares that one's parent


def extract_definitions(
    tree: Tree,
    source: bytes,
    language: str,
    path: str,
    *,
    lines: LineIndex | None = None,
    roots: Mapping[str, list[Node]] | None = None,
) -> list[Definition]:
    """Every definition the grammar's tag query finds, sorted by position, each with its enclosing scope. `roots`:
    the nodes another captures pass captured for the query's patterns (`tag_roots`: the references' one pass), whose
    matches are then read at those nodes alone instead of by a walk of the whole tree."""
    tag_query = _tag_query(language)
    if tag_query is None:
        return []
    plan = tag_roots(language) if roots is not None else None
    raws = _collect(tag_query, tree.root_node) if plan is None or roots is None else _collect_at(plan, roots, tag_query)
    if not raws:
        return []
    if tag_query.bound_values:
        raws = _settle_bound_values(raws, tag_query.bound_values, source)
    if tag_query.overloads:
        raws = _merge_overloads(raws, tag_query.overloads, source)
    index = lines if lines is not None else LineIndex(source)
    return _scoped(raws, source, language, path, index)


def _collect(tag_query: _TagQuery, root: Node) -> list[_Raw]:
    """The query's matches, one per (definition node, name), earliest pattern first, in document order."""
    best: dict[tuple[int, int, int], _Raw] = {}
    wrappers = tag_query.wrappers
    for pattern, captures in QueryCursor(tag_query.query).matches(root):
        _take_match(best, pattern, captures, wrappers)
    return sorted(best.values(), key=_order)


def _take_match(
    best: dict[tuple[int, int, int], _Raw], pattern: int, captures: dict[str, list[Node]], wrappers: dict[str, bool]
) -> None:
    """Keep one match, unless an earlier pattern matched the same definition node and name (the matches may come in
    any order: the earliest pattern wins either way)."""
    kind = None
    node = name = None
    for capture, nodes in captures.items():
        if capture.startswith("definition."):
            kind, node = capture[len("definition.") :], nodes[0]
        elif capture == "name":
            name = nodes[0]
    if node is None or name is None or kind not in KINDS:
        return
    node_start, node_end, name_start = node.start_byte, node.end_byte, name.start_byte
    key = (node_start, node_end, name_start)
    previous = best.get(key)
    if previous is not None and previous.pattern <= pattern:
        return
    outer, signature_start = _unwrap(node, wrappers) if wrappers else (node, node_start)
    outer_start, outer_end = (node_start, node_end) if outer is node else (outer.start_byte, outer.end_byte)
    order = (outer_start, -outer_end, name_start)
    best[key] = _Raw(pattern, kind, node, outer, signature_start, name, captures.get("scope", []), order)


# Capture names of the root patterns `tag_roots` adds to another query: one per node type a tag pattern starts at.
TAG_ROOT_PREFIX = "tagroot."
# A pattern that is one node, `(type ...)`, possibly captured after its closing bracket.
_TOP_NODE_RE = re.compile(r"\A\(\s*([a-z_][a-z_0-9]*)\b")


@dataclass(frozen=True, slots=True)
class TagRoots:
    """A grammar's tag query as patterns another captures pass can carry (`patterns`: each node type a tag pattern
    starts at, captured as `tagroot.TYPE`; `captures`: those capture names), whose nodes the tag query is then matched
    at, each alone. A query walk costs about as much per node of the tree whatever it finds: matching the patterns
    at the captured nodes costs a tenth of the walk (on the stdlib's Python: 0.12 against 1.24 s)."""

    patterns: str
    captures: tuple[str, ...]


_roots_lock = threading.Lock()
_roots: dict[str, TagRoots | None] = {}


def tag_roots(language: str) -> TagRoots | None:
    """The grammar's TagRoots (made once); None when it has no tag query or a pattern is not one node (an
    alternation or a grouping at the top: the whole query is then walked as usual)."""
    return _made_once(_roots, _roots_lock, language, _make_roots)


def _make_roots(language: str) -> TagRoots | None:
    tag_query = _tag_query(language)
    lang = grammar(language)
    if tag_query is None or lang is None:
        return None
    node_types: dict[str, None] = {}
    try:
        for pattern in pattern_texts(tag_query.query, query_source(language)):
            top = _TOP_NODE_RE.match(pattern)
            if top is None:
                return None
            node_types[top.group(1)] = None
        patterns = "\n".join(f"({node_type}) @{TAG_ROOT_PREFIX}{node_type}" for node_type in node_types)
        Query(lang, patterns)  # every root type is a node of the grammar
    except (QueryError, ValueError) as exc:
        log.warning("tag patterns of %s cannot be read at their roots (%s): the tree is walked for them", language, exc)
        return None
    return TagRoots(patterns, tuple(f"{TAG_ROOT_PREFIX}{t}" for t in node_types))


def _collect_at(plan: TagRoots, roots: Mapping[str, list[Node]], tag_query: _TagQuery) -> list[_Raw]:
    """`_collect` from the captured roots: the tag query matched at each captured node alone (a match starting
    there: only the patterns that start at that node's type can). One compiled query for all the patterns, not one
    per pattern: compiling each pattern on its own cost more than the matching (C++: 0.20 s per process, of a query
    compiled in 0.08 s)."""
    best: dict[tuple[int, int, int], _Raw] = {}
    wrappers = tag_query.wrappers
    cursor = QueryCursor(tag_query.query)
    cursor.set_max_start_depth(0)
    for capture in plan.captures:
        for node in roots.get(capture) or ():
            for index, captures in cursor.matches(node):
                _take_match(best, index, captures, wrappers)
    return sorted(best.values(), key=_order)


def _order(raw: _Raw) -> tuple[int, int, int]:
    return raw.order


def _name_text(raw: _Raw, source: bytes) -> str:
    return _text(source, raw.name.start_byte, raw.name.end_byte).strip()


def _settle_bound_values(raws: list[_Raw], value_types: frozenset[str], source: bytes) -> list[_Raw]:
    """Drop a named value bound to the same name by an enclosing binding; mark one bound to another name as that
    binding's sibling (see the module docstring)."""
    by_node: dict[int, list[_Raw]] = {}
    for raw in raws:
        by_node.setdefault(raw.node.id, []).append(raw)
    kept: list[_Raw] = []
    for raw in raws:
        holder = raw.node.parent if raw.node.type in value_types else None
        if holder is not None and holder.type in _ARGUMENT_LISTS:
            holder = holder.parent
        bindings = [b for b in by_node.get(holder.id, []) if b is not raw] if holder is not None else []
        if any(_name_text(b, source) == _name_text(raw, source) for b in bindings):
            continue
        if bindings:
            raw.sibling_of = bindings[0]
        kept.append(raw)
    return kept


def _merge_overloads(raws: list[_Raw], overloads: Mapping[str, frozenset[str]], source: bytes) -> list[_Raw]:
    """Fold each run of overload signatures into the implementation that directly follows it (same name, a kind of
    node that implements that signature); a run with no implementation after it (a declaration) stays."""
    by_outer = {raw.outer.id: raw for raw in raws}
    folded: set[int] = set()
    for raw in raws:
        implementations = overloads.get(raw.node.type)
        if implementations is None or id(raw) in folded:
            continue
        name = _name_text(raw, source)
        run = [raw]
        sibling = raw.outer.next_named_sibling
        while sibling is not None:
            if sibling.type in _COMMENTS:
                sibling = sibling.next_named_sibling
                continue
            following = by_outer.get(sibling.id)
            if following is None or _name_text(following, source) != name:
                break
            if following.node.type == raw.node.type:
                run.append(following)
                sibling = following.outer.next_named_sibling
                continue
            if following.node.type in implementations:
                following.first = raw.outer
                folded.update(id(r) for r in run)
            break
    return [raw for raw in raws if id(raw) not in folded]


def _unwrap(node: Node, wrappers: dict[str, bool]) -> tuple[Node, int]:
    """The outermost wrapper that holds only this definition, and where the signature starts."""
    outer, signature_start = node, node.start_byte
    while (parent := outer.parent) is not None and parent.type in wrappers:
        if any(c.id != outer.id and c.type not in _WRAPPER_ACCESSORIES for c in parent.named_children):
            break
        outer = parent
        if wrappers[parent.type]:
            signature_start = parent.start_byte
    return outer, signature_start


class ContainerStack:
    """The containers open at a definition, for definitions visited sorted by (start, -end): its parent (their
    qualified name) and its final kind (a function directly in a class-like container is a method)."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: list[tuple[int, str, str, int]] = []  # (end byte, qualified name, kind, owner id)

    def enclosing(self, end: int, sibling_of: int | None = None) -> tuple[str, str] | None:
        """The innermost container holding a definition ending at `end` (qualified name, kind); `sibling_of`: the
        owner id of a binding this value sits in under another name, which shares that binding's parent."""
        stack = self._open
        while stack and stack[-1][0] < end:  # sorted by start: a container ending before this end cannot hold it
            stack.pop()
        levels = len(stack)
        if sibling_of is not None and levels and stack[-1][3] == sibling_of:
            levels -= 1
        return (stack[levels - 1][1], stack[levels - 1][2]) if levels else None

    def open(self, start: int, end: int, *, parent: str | None, name: str, kind: str, owner: int) -> None:
        """Open a definition as a container (when its kind holds others and it is not empty)."""
        if kind in CONTAINER_KINDS and start < end:
            self._open.append((end, f"{parent}.{name}" if parent else name, kind, owner))


def final_kind(kind: str, enclosing: tuple[str, str] | None) -> str:
    """A function directly inside a class-like container is a method."""
    if kind == "function" and enclosing is not None and enclosing[1] in CLASS_LIKE_KINDS:
        return "method"
    return kind


def _scoped(raws: list[_Raw], source: bytes, language: str, path: str, lines: LineIndex) -> list[Definition]:
    """Give each definition its parent (the enclosing containers' qualified name) and final kind."""
    definitions: list[Definition] = []
    containers = ContainerStack()
    ascii_source = lines.ascii
    for raw in raws:
        start, end = raw.order[0], -raw.order[1]
        enclosing = containers.enclosing(end, id(raw.sibling_of) if raw.sibling_of is not None else None)
        parent = enclosing[0] if enclosing else None
        kind = raw.kind
        if raw.scopes:
            scope = _scope_name(raw.scopes, source)
            if scope:
                parent = f"{parent}.{scope}" if parent else scope
        else:
            kind = final_kind(kind, enclosing)
        name_node = raw.name
        name = _text(source, raw.order[2], name_node.end_byte).strip()
        if not name:
            continue
        if ascii_source:  # byte columns are code-point columns: the points are the span
            (sr, sc), (er, ec) = name_node.start_point, name_node.end_point
            name_span = Span(sr, sc, er, ec)
        else:
            name_span = lines.span(name_node)
        span = _span(lines, raw.outer, raw.first)
        definitions.append(Definition(name, kind, path, span, name_span, _signature(raw, source), parent, language))
        containers.open(start, end, parent=parent, name=name, kind=kind, owner=id(raw))
    return definitions


def _span(lines: LineIndex, node: Node, first: Node | None = None) -> Span:
    """The node's span (from `first` when given), ending on its last line rather than at column 0 of the next
    (`#define` keeps its newline)."""
    span = lines.span(node)
    if first is not None:
        head = lines.span(first)
        span = Span(head.start_line, head.start_col, span.end_line, span.end_col)
    if span.end_col == 0 and span.end_line > span.start_line:
        last = span.end_line - 1
        return Span(span.start_line, span.start_col, last, len(lines.line_text(last).rstrip("\r")))
    return span


def _scope_name(scopes: list[Node], source: bytes) -> str:
    """`Foo`, `ns.Foo` from scope captures like `*Server`, `ns::Foo<T>`, `M` (generic arguments dropped)."""
    parts: list[str] = []
    for node in sorted(scopes, key=lambda n: n.start_byte):
        text = _text(source, node.start_byte, node.end_byte)
        previous = None
        while previous != text:  # nested generics: strip innermost first
            previous, text = text, _GENERIC_ARGS.sub("", text)
        parts.extend(p.strip(" *&") for p in _SCOPE_SEPARATORS.split(text) if p.strip(" *&"))
    return ".".join(parts)


def _signature(raw: _Raw, source: bytes) -> str:
    """The definition's header up to its body (its value's body for a binding; its first line when it has none),
    whitespace collapsed."""
    body = _body(raw.node)
    if body is not None and body.start_byte > raw.signature_start:
        end = body.start_byte
    else:
        end = source.find(b"\n", raw.signature_start, raw.node.end_byte)
        end = raw.node.end_byte if end < 0 else end
    return signature_text(source, raw.signature_start, end, has_body=body is not None, kind=raw.kind)


def signature_text(source: bytes, start: int, end: int, *, has_body: bool, kind: str) -> str:
    """A definition's header bytes as its one-line signature: whitespace collapsed, the opener of a body it does not
    hold or the `=` before one dropped, cut at SIGNATURE_MAX_CHARS."""
    end = min(end, start + SIGNATURE_MAX_CHARS * 4)  # bytes: a code point is at most 4 of them
    # str.split() and `\s` of a str pattern split at the same (Unicode) whitespace: this is the regex's
    # substitution of every run by one space, stripped, without the regex.
    text = " ".join(_text(source, start, end).split())
    if not has_body and kind != "constant":  # `type Server struct {` ends where its unfielded body opens
        text = text.removesuffix("{").rstrip()
    elif has_body:  # Scala's `def f(x: Int): Int = expr`
        text = text.removesuffix("=").rstrip()
    if len(text) > SIGNATURE_MAX_CHARS:
        text = text[: SIGNATURE_MAX_CHARS - len(SIGNATURE_ELLIPSIS)].rstrip() + SIGNATURE_ELLIPSIS
    return text


def _body(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    value = node.child_by_field_name("value") or node.child_by_field_name("right")  # `x = function () {...}`
    if value is not None and (body := value.child_by_field_name("body")) is not None:
        return body
    return next((c for c in reversed(node.named_children) if c.type in _BODY_TYPES), None)


def _text(source: bytes, start: int, end: int) -> str:
    return source[start:end].decode("utf-8", "replace")

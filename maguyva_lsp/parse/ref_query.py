"""Load the `<grammar>-refs.scm` query files and sort one file's captures into use candidates, scopes and bindings.

Capture names, one role per pattern: `@call`, `@inherit`, `@reference` (the name node) with an optional
`@<role>.receiver` (the expression before the name); imports as `@import` (a name imported from `@import.from`),
`@import.module` (a whole module, bound to `@import.alias` when given), `@import.default` (a JS default import),
`@import.self` (Rust `use m::{self}`) or `@import.star` (every name of the captured namespace, C# `using A.B;`);
`@inherit.subject` names the type that inherits when the match sits outside it (Go embedding, Rust `impl Trait for
Type`). `@skip`, `@skip.subtree`, `@local.binding` mark nodes that are not uses; `@local.scope` / `@local.scope.class`
are the scopes that hold those bindings; `@local.self` in `@local.self.scope` is a Go method's receiver variable.
Captures starting with `_` only feed predicates.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from operator import attrgetter
from typing import TypeAlias

from tree_sitter import Language, Node, Query, QueryCursor

from maguyva_lsp.model import ReferenceKind
from maguyva_lsp.parse.languages import grammar, pattern_texts

log = logging.getLogger(__name__)

QUERY_SUFFIX = "-refs.scm"
# A query file may start with `; inherits: a, b` to include other files' patterns first; files named `_x-refs.scm`
# hold patterns shared by several grammars and belong to no grammar themselves.
_INHERITS_RE = re.compile(r"\A;\s*inherits:\s*(.+)$", re.MULTILINE)
_CAPTURE_RE = re.compile(r"@([A-Za-z][\w.]*)")
# Receivers longer than this are call chains or literals that no resolver can use, so they are cut.
MAX_RECEIVER_CHARS = 120
_WHITESPACE_RE = re.compile(r"\s+")
_DOTTED_RE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*\Z")
_CALL_RE = re.compile(r"\A([A-Za-z_$][\w$]*)\(.*\)\Z", re.DOTALL)
# A receiver without brackets or `::`/`->` separators, whose parts are its dot-separated names.
_PLAIN_RECEIVER_RE = re.compile(r"[^()\[\]{}:\-]*")
_QUOTES = "\"'`"
_BYTE_RANGE = attrgetter("byte_range")  # one call into the binding for both ends of a node
# Role priority when one node is captured by several patterns: an import beats a base class beats a call beats a use.
PRIORITY: dict[ReferenceKind, int] = {"import": 4, "inherit": 3, "call": 2, "reference": 1}
_PRIMARY: dict[str, ReferenceKind] = {
    "import": "import",
    "import.self": "import",
    "import.default": "import",
    "import.module": "import",
    "import.star": "import",
    "inherit": "inherit",
    "call": "call",
    "reference": "reference",
}
# A bare use (no receiver, module, alias or subject; weight 1): its kind alone.
Plain: TypeAlias = ReferenceKind
SCOPE_FUNCTION = "function"
SCOPE_CLASS = "class"  # a class body: its bindings are invisible to the functions nested in it (Python)
SCOPE_MODULE = "module"


@dataclass(slots=True)
class Candidate:
    """A use of a name as one pattern saw it, before filtering (a match's: a bare use is just its kind, `Plain`)."""

    kind: ReferenceKind
    name: str
    start: int  # the node's byte range, read once (a node attribute is a call into the binding)
    end: int
    receiver: str | None = None
    module: str | None = None
    alias: str | None = None
    subject: str | None = None
    weight: int = 0  # captures in the pattern: on one node, a match with a receiver beats a bare one


@dataclass(slots=True)
class Scope:
    start: int
    end: int
    kind: str
    bindings: Counter[str] = field(default_factory=Counter)  # how often each name is bound in the scope
    types: dict[str, list[TypedName]] = field(default_factory=dict)  # what the bindings say of a name's type
    member_types: dict[str, list[TypedName]] = field(default_factory=dict)  # class scopes: `self.x` attributes
    member_bindings: Counter[str] = field(default_factory=Counter)  # class scopes: `self.x = ...` assignments


@dataclass(frozen=True, slots=True)
class TypedName:
    """A binding that tells a variable's type: an annotation, or a call assigned (a constructor if it names a class)."""

    position: int
    name: str
    type_name: str  # a dotted name: `Maildir`, `mailbox.Maildir`
    annotation: bool
    member: bool  # `self.name`


@dataclass(slots=True)
class Collected:
    """One file's captures, sorted by what they mean."""

    # Each captured node's best use by byte range, in the order the nodes were first offered (the order of uses that
    # start at the same byte). A bare use from a single-capture pattern (most of a file's: `(identifier) @reference`)
    # is only its kind: its name is read from the source when it is kept, and it has no receiver, module or alias.
    candidates: dict[tuple[int, int], Candidate | Plain]
    excluded: set[tuple[int, int]]  # nodes that are never a use (skip, bindings)
    skip_ranges: list[tuple[int, int]]
    scopes: list[Scope]
    bindings: list[tuple[int, str]]  # (start byte, name)
    self_names: list[tuple[int, int, str]]  # (scope start, scope end, receiver variable)
    text: TextReader
    typed: list[TypedName] = field(default_factory=list)
    member_bindings: list[tuple[int, str]] = field(default_factory=list)  # `self.x = ...`: (start byte, x)
    # Two uses of equal strength met on one node: the first offered won, so the result hangs on the order the
    # patterns were read in (`ref_single` then reads the file again in this module's order).
    conflict: bool = False
    one_pass: bool = False  # read by `ref_single`: uses offered in another order than the two passes'


@dataclass(frozen=True, slots=True)
class _Role:
    primary: str | None  # the capture holding the used name; None for patterns that only mark scopes
    weight: int
    kind: ReferenceKind = "reference"  # the primary capture's kind (unread without one)
    receiver: str = ""  # the names of the primary's receiver and subject captures, spelled once (read per match)
    subject: str = ""
    strength: tuple[int, int] = (0, 0)  # (priority, weight): what a candidate on the same node must beat

    @staticmethod
    def of(primary: str | None, weight: int) -> _Role:
        if primary is None:
            return _Role(None, weight)
        kind = _PRIMARY[primary]
        return _Role(primary, weight, kind, f"{primary}.receiver", f"{primary}.subject", (PRIORITY[kind], weight))


@dataclass(frozen=True, slots=True)
class _Plan:
    """A grammar's patterns split by cost: multi-capture patterns read per match, single-capture ones per capture."""

    structured: Query | None
    roles: tuple[_Role, ...]
    simple: Query | None


def reference_languages() -> frozenset[str]:
    """The grammars that have a references query file."""
    folder = resources.files("maguyva_lsp.parse") / "queries"
    return frozenset(
        entry.name.removesuffix(QUERY_SUFFIX)
        for entry in folder.iterdir()
        if entry.name.endswith(QUERY_SUFFIX) and not entry.name.startswith("_")
    )


@cache
def query_source(language: str) -> str | None:
    """The query text for a grammar, with the files it inherits from prepended; None when it has no file."""
    entry = resources.files("maguyva_lsp.parse") / "queries" / f"{language}{QUERY_SUFFIX}"
    if not entry.is_file():
        return None
    text = entry.read_text(encoding="utf-8")
    parts: list[str] = []
    for match in _INHERITS_RE.finditer(text):
        for parent in match.group(1).split(","):
            inherited = query_source(parent.strip())
            if inherited is not None:
                parts.append(inherited)
    parts.append(text)
    return "\n".join(parts)


_local = threading.local()


def _plan(language: str) -> _Plan | None:
    """The compiled plan for a grammar, one per thread (query cursors are not shared); None when unavailable."""
    plans: dict[str, _Plan | None] = getattr(_local, "plans", None) or {}
    _local.plans = plans
    if language not in plans:
        plans[language] = _compile(language)
    return plans[language]


def has_reference_query(language: str) -> bool:
    return _plan(language) is not None


def split_patterns(language: str) -> tuple[Language, list[str], list[tuple[str, _Role]]] | None:
    """A grammar's patterns (comments dropped) split into single-capture ones and the others with their roles;
    None when the grammar or its query is missing. Raises when the query does not fit the grammar."""
    source = query_source(language)
    lang = grammar(language)
    if source is None or lang is None:
        return None
    structured: list[tuple[str, _Role]] = []
    simple: list[str] = []
    for pattern in pattern_texts(Query(lang, source), source):
        names = {n for n in _CAPTURE_RE.findall(pattern) if not n.startswith("_")}
        if len(names) == 1:
            simple.append(pattern)
        else:
            primary = next((n for n in _PRIMARY if n in names), None)
            structured.append((pattern, _Role.of(primary, len(names))))
    return lang, simple, structured


def _compile(language: str) -> _Plan | None:
    try:
        split = split_patterns(language)
        if split is None:
            return None
        lang, simple, structured = split
        return _Plan(
            structured=Query(lang, "\n".join(p for p, _ in structured)) if structured else None,
            roles=tuple(r for _, r in structured),
            simple=Query(lang, "\n".join(simple)) if simple else None,
        )
    except Exception as exc:  # a query that does not fit the installed grammar: no references, said once
        _warn_once(language, str(exc))
        return None


@cache
def _warn_once(language: str, message: str) -> None:
    log.warning("references query for %s does not compile: %s", language, message)


def collect(language: str, root: Node, source: bytes) -> Collected | None:
    """Run a grammar's reference patterns over a tree; None when the grammar has no (usable) query.

    Candidates on nodes that are never a use (`@skip`, bindings) are left out as they come, except imports; plain
    uses inside skipped subtrees are left to the caller (`references._uses`)."""
    plan = _plan(language)
    if plan is None:
        return None
    text = TextReader(source)
    out = Collected({}, set(), [], [], [], [], text)
    if plan.simple is not None:
        take_captures(QueryCursor(plan.simple).captures(root), text, out)
    if plan.structured is not None:
        roles = plan.roles
        for index, captures in QueryCursor(plan.structured).matches(root):
            _take_match(roles[index], captures, text, out)
    out.scopes.sort(key=lambda s: (s.start, -s.end))
    out.skip_ranges.sort()
    out.bindings.sort()
    return out


def take_captures(captured: dict[str, list[Node]], text: TextReader, out: Collected) -> None:
    """A captures pass's marks (scopes, bindings, skips) first, so that uses of marked nodes need no candidate at all,
    then its uses."""
    for capture, nodes in captured.items():
        if capture not in _PRIMARY:
            _take_mark(capture, nodes, text, out)
    for capture, nodes in captured.items():
        if capture in _PRIMARY:
            _take_uses(capture, nodes, text, out)


class TextReader:
    """The text of byte ranges of one source: slices of the decoded text when it is ASCII (byte offsets are then
    character offsets), else decoded slices of the bytes."""

    __slots__ = ("_source", "ascii")

    def __init__(self, source: bytes) -> None:
        self._source = source
        self.ascii = source.decode("ascii") if source.isascii() else None  # loops over many nodes slice it inline

    def __call__(self, start: int, end: int) -> str:
        if self.ascii is not None:
            return self.ascii[start:end]
        return self._source[start:end].decode("utf-8", "replace")

    def node(self, node: Node) -> str:
        return self(*node.byte_range)


def _take_mark(capture: str, nodes: list[Node], text: TextReader, out: Collected) -> None:
    if capture in ("local.scope", "local.scope.class"):
        kind = SCOPE_FUNCTION if capture == "local.scope" else SCOPE_CLASS
        out.scopes.extend(Scope(n.start_byte, n.end_byte, kind) for n in nodes)
    elif capture == "local.binding":
        bindings = out.bindings
        excluded = out.excluded
        for node in nodes:
            key = node.byte_range  # one call into the binding for both ends
            bindings.append((key[0], text(*key)))
            excluded.add(key)
    elif capture == "local.member":
        out.member_bindings.extend((n.start_byte, text.node(n)) for n in nodes)
    elif capture == "skip":
        out.excluded.update(n.byte_range for n in nodes)
    elif capture == "skip.subtree":
        out.skip_ranges.extend(n.byte_range for n in nodes)


def _take_uses(capture: str, nodes: list[Node], text: TextReader, out: Collected) -> None:
    """The single-capture uses (`(identifier) @reference` is most of a file's captures: kept lean, as byte ranges
    with their kind; the names are read for the uses kept, `references.extract_references`)."""
    kind = _PRIMARY[capture]
    if kind == "import":
        for node in nodes:
            _offer(out, _import_candidate(capture, node, {capture: [node]}, text, 1))
        return
    candidates = out.candidates
    excluded = out.excluded
    if kind == "reference":  # the weakest role at the weakest weight: it only takes nodes no other use holds
        setdefault = candidates.setdefault
        for key in map(_BYTE_RANGE, nodes):
            if key not in excluded:
                setdefault(key, kind)
        return
    get = candidates.get
    priority = PRIORITY[kind]
    for key in map(_BYTE_RANGE, nodes):
        if key in excluded:
            continue
        previous = get(key)  # single-capture uses come first: a previous one is bare, or an import (weight 1 too)
        if previous is None or priority > PRIORITY[previous if isinstance(previous, str) else previous.kind]:
            candidates[key] = kind


def _take_match(role: _Role, captures: dict[str, list[Node]], text: TextReader, out: Collected) -> None:
    primary = role.primary
    if primary is None:
        if "local.self" in captures and "local.self.scope" in captures:
            scope = captures["local.self.scope"][0]
            out.self_names.append((scope.start_byte, scope.end_byte, text.node(captures["local.self"][0])))
        _take_type(captures, text, out)
        return
    nodes = captures.get(primary)
    if not nodes:
        return
    node = nodes[0]
    kind = role.kind
    if kind == "import":
        _offer(out, _import_candidate(primary, node, captures, text, role.weight))
        return
    key = node.byte_range
    if key in out.excluded:
        return  # never a use, whatever the pattern (only imports are kept on such nodes)
    candidates = out.candidates
    previous = candidates.get(key)
    if previous is not None:
        strength = (PRIORITY[previous], 1) if isinstance(previous, str) else (PRIORITY[previous.kind], previous.weight)
        if role.strength <= strength:
            out.conflict = out.conflict or role.strength == strength
            return
    receiver = captures.get(role.receiver)
    subject = captures.get(role.subject)
    start, end = key
    ascii_text = text.ascii
    candidates[key] = Candidate(
        kind,
        ascii_text[start:end] if ascii_text is not None else text(start, end),
        start,
        end,
        _receiver_text(receiver[0], text) if receiver else None,
        None,
        None,
        text.node(subject[0]) if subject else None,
        role.weight,
    )


def _take_type(captures: dict[str, list[Node]], text: TextReader, out: Collected) -> None:
    names = captures.get("type.binding") or captures.get("type.member")
    types = captures.get("type.annotation") or captures.get("type.call")
    if not names or not types:
        return
    type_name = _WHITESPACE_RE.sub("", text.node(types[0])).strip(_QUOTES)
    if not _DOTTED_RE.match(type_name):
        return  # `Optional[Foo]`, `make()()`: nothing a resolver could look up
    node = names[0]
    out.typed.append(
        TypedName(
            position=node.start_byte,
            name=text.node(node),
            type_name=type_name,
            annotation="type.annotation" in captures,
            member="type.member" in captures,
        )
    )


def split_receiver(receiver: str) -> list[str]:
    """The parts of a receiver at the top level (`a.b(c.d).e` → `a`, `b()`, `e`): a call keeps its callee with
    empty parentheses; any other bracketed part is kept whole (and is opaque to a resolver)."""
    return list(_receiver_parts(receiver))


# Receivers repeat a lot (`self`, `self.x`, `os.path`): the graph splits each of the stdlib's 635k references' again.
@lru_cache(maxsize=1 << 16)
def _receiver_parts(receiver: str) -> tuple[str, ...]:
    return tuple(_split(receiver))


def _split(receiver: str) -> list[str]:
    if _PLAIN_RECEIVER_RE.fullmatch(receiver):  # most receivers (`self`, `os.path`): a split on dots says it all
        return [p for p in receiver.split(".") if p]
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    i = 0
    while i < len(receiver):
        char = receiver[i]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if depth == 0 and (char == "." or receiver.startswith(("::", "->"), i)):
            parts.append("".join(current))
            current = []
            i += 1 if char == "." else 2
            continue
        current.append(char)
        i += 1
    parts.append("".join(current))
    return [_CALL_RE.sub(r"\1()", p) for p in parts if p]


def _offer(out: Collected, candidate: Candidate) -> None:
    """Keep the candidate unless the same node already holds a stronger role (or an equal one with more context)."""
    key = (candidate.start, candidate.end)
    previous = out.candidates.get(key)
    strength = (PRIORITY[candidate.kind], candidate.weight)
    if previous is None or strength > _strength(previous):
        out.candidates[key] = candidate
    elif strength == _strength(previous):
        out.conflict = True


def _strength(candidate: Candidate | Plain) -> tuple[int, int]:
    """(priority, weight) of a node's current use: a bare one has weight 1."""
    if isinstance(candidate, str):
        return PRIORITY[candidate], 1
    return PRIORITY[candidate.kind], candidate.weight


def _import_candidate(
    capture: str, node: Node, captures: dict[str, list[Node]], read: TextReader, weight: int
) -> Candidate:
    alias_nodes = captures.get("import.alias")
    alias = read.node(alias_nodes[0]) if alias_nodes else None
    start, end = node.start_byte, node.end_byte
    text = read(start, end).strip(_QUOTES)

    def candidate(name: str, module: str | None = None, alias: str | None = None) -> Candidate:
        return Candidate("import", name, start, end, module=module, alias=alias, weight=weight)

    if capture == "import.default":
        return candidate("default", module=_from_text(captures, read), alias=text)
    if capture == "import.star":  # every name of a namespace (C# `using A.B;`)
        return candidate("*", module=_from_text(captures, read) or text)
    if capture == "import.self":
        whole = read.node(captures["import.module"][0]) if "import.module" in captures else text
        return candidate(whole, alias=alias)
    if capture == "import.module":
        if alias == ".":  # Go's dot import puts the package's names in the file scope: a star import
            return candidate("*", module=text)
        return candidate(text, alias=None if alias == "_" else alias)
    module = _from_text(captures, read)
    name = "*" if text.endswith("*") else text
    if "::" in name and module is not None:  # `use a::{b::c}`: the module is a::b, the name c
        head, _, name = name.rpartition("::")
        module = f"{module}::{head}"
    return candidate(name, module=module, alias=alias)


def _from_text(captures: dict[str, list[Node]], read: TextReader) -> str | None:
    nodes = captures.get("import.from")
    return read.node(nodes[0]).strip(_QUOTES) if nodes else None


def _receiver_text(node: Node, read: TextReader) -> str:
    start, end = node.byte_range
    text = read.ascii[start:end] if read.ascii is not None else read(start, end)
    # Every character `\s` matches but the space is unprintable, so most receivers (`self`, `os.path`) skip the regex.
    if " " in text or not text.isprintable():
        text = _WHITESPACE_RE.sub("", text)
    return text if len(text) <= MAX_RECEIVER_CHARS else text[: MAX_RECEIVER_CHARS - 1] + "…"

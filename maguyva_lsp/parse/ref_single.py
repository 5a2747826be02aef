"""One query-cursor pass for a file's references instead of two (`ref_query.collect` runs a captures pass for the
single-capture patterns and a matches pass for the others; each pass walks every node of the tree, ~0.9 s over the
stdlib's 7.2M nodes, and a match costs a dict of lists).

Here every pattern runs in one captures pass. A capture list does not say which nodes came from one match, so the
multi-capture patterns are rewritten:
- paired: a name and its receiver, the two fields of one node (`(attribute object: (_) @reference.receiver
  attribute: (identifier) @reference)`, ~600k of the stdlib's 664k matches). Between the receiver's end and the
  name's start lie only the node's separator tokens, so a name's receiver is the captured receiver that ends last
  before it; the pairing must be one to one, else the file is read again the two-pass way.
- rooted: the others (imports, evident types, Go receivers) capture the node their captures hang from (`@root.k`,
  the pattern otherwise kept as it is, predicates included), and the pattern's matches are read at each such node
  alone (`set_max_start_depth(0)`). When the pattern's outer nodes are a plain chain down to that node (one child
  pattern each), only the inner part is matched there: a state kept open across a whole class body (`(class_definition
  body: (block (expression_statement ...)))`) would hold every capture inside it back in the captures pass.

The single-capture patterns come first in the one-pass query, in their order: a cursor yields captures by start
byte, then pattern index, so their capture lists are the two-pass ones, in the same order (the order of scopes of
one range, and of the uses first offered, follows from it). The others are offered in another order than the
matches pass's, which decides only equal-strength uses of one node (`Collected.conflict`), the order of kept uses
that start at one byte (checked by `references.extract_references`) and which of two overlapping Go receivers holds
a use: each of those reads the file the two-pass way instead.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from tree_sitter import Language, Node, Query, QueryCursor

from maguyva_lsp.parse.ref_query import (
    PRIORITY,
    Candidate,
    Collected,
    TextReader,
    _receiver_text,
    _Role,
    _take_match,
    _warn_once,
    split_patterns,
    take_captures,
)
from maguyva_lsp.parse.ref_query import collect as collect_two_pass

_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')
_CAPTURE_AT_RE = re.compile(r"@[A-Za-z_][\w.]*")
# A name and its receiver as the two fields (or the last two anchored children) of one node.
_PAIRED_RE = re.compile(
    r"\(\s*[A-Za-z_]\w*\s+"
    r"(?:(?:[a-z_]\w*:\s*(?:\(_\)|_)\s+@(?P<a>[\w.]+)\s+[a-z_]\w*:\s*\([A-Za-z_]\w*\)\s+@(?P<b>[\w.]+))"
    r"|(?:\(_\)\s+@(?P<c>[\w.]+)\s+\.\s+\([A-Za-z_]\w*\)\s+@(?P<d>[\w.]+)\s+\.))\s*\)\Z"
)
# The outer part of a rooted pattern when it is a plain chain: `(type field: (type field: ` ... `))`.
_CHAIN_OPEN_RE = re.compile(r"\A(?:\(\s*[A-Za-z_]\w*\s+(?:![a-z_]\w*\s+)*(?:[a-z_]\w*:\s*)?)+\Z")
_CHAIN_CLOSE_RE = re.compile(r"\A(?:\s*\))+\s*\Z")
# Roots beyond one per this many nodes: one matches pass over the tree costs less than a cursor per root.
_NODES_PER_ROOT = 24


@dataclass(frozen=True, slots=True)
class _Pair:
    name: str  # the capture names in the one-pass query
    receiver: str
    role: _Role


@dataclass(frozen=True, slots=True)
class _Rooted:
    root: str  # the capture name of the node the matches are read at
    query: Query  # the pattern (or its inner part) alone
    role: _Role


@dataclass(frozen=True, slots=True)
class SinglePlan:
    query: Query
    pairs: tuple[_Pair, ...]
    rooted: tuple[_Rooted, ...]
    whole: Query | None  # the rooted patterns whole, for a file with many roots
    whole_roles: tuple[_Role, ...]


def _masked(pattern: str) -> str:
    """The pattern with its strings' contents blanked, so that brackets and `@` in them are not read as syntax."""
    return _STRING_RE.sub(lambda m: '"' + "x" * (len(m.group()) - 2) + '"', pattern)


def _groups(masked: str) -> dict[int, int]:
    """Each `(`'s position → its `)`'s."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for i, char in enumerate(masked):
        if char == "(":
            stack.append(i)
        elif char == ")":
            if not stack:
                raise ValueError("unbalanced pattern")
            out[stack.pop()] = i
    if stack:
        raise ValueError("unbalanced pattern")
    return out


def _paired(pattern: str, role: _Role) -> bool:
    """A call/use/base-class pattern of a name and its receiver only, as two fields of its innermost node."""
    if role.primary is None or role.kind == "import" or role.weight != 2 or "#" in pattern:
        return False
    masked = _masked(pattern)
    at = masked.find("@")
    around = [(o, c) for o, c in _groups(masked).items() if o < at < c]
    if not around:
        return False
    o, c = max(around)  # the innermost node around the first capture: the one whose fields are the two captures
    inner = masked[o : c + 1]
    found = _PAIRED_RE.match(inner)
    if found is None:
        return False
    receiver, name = (found["a"], found["b"]) if found["a"] else (found["c"], found["d"])
    captures = _CAPTURE_AT_RE.findall(masked)
    return (
        receiver == role.receiver and name == role.primary and sorted(captures) == sorted([f"@{receiver}", f"@{name}"])
    )


def _rooting(pattern: str, root: str) -> tuple[str, str] | None:
    """(the pattern capturing `root` at the node its captures hang from and no other capture but the predicates',
    the part to match at that node); None when the pattern is not one node (a grouping, an alternation)."""
    masked = _masked(pattern)
    groups = _groups(masked)
    if not masked.startswith("(") or not re.match(r"\(\s*[A-Za-z_]", masked):
        return None
    top_close = groups[0]
    if _CAPTURE_AT_RE.sub("", masked[top_close + 1 :]).strip():
        return None  # something after the top node other than its captures
    # The node each capture is on: the group its `)` closes just before it, else the innermost group around it.
    closes = {c: o for o, c in groups.items()}
    spans: list[tuple[int, int]] = []
    for found in _CAPTURE_AT_RE.finditer(masked):
        before = masked[: found.start()].rstrip()
        if before.endswith(")"):
            close = len(before) - 1
            spans.append((closes[close], close))
        else:
            spans.append((found.start(), found.start()))
    lo = min(s for s, _ in spans)
    hi = max(e for _, e in spans)
    inner_open, inner_close = 0, top_close
    for o, c in groups.items():
        if o <= lo and c >= hi and c - o < inner_close - inner_open and not masked.startswith("(#", o):
            inner_open, inner_close = o, c
    end = inner_close + 1
    while True:  # the inner node's own captures after its `)`
        tail = _CAPTURE_AT_RE.match(masked, end + len(masked[end:]) - len(masked[end:].lstrip()))
        if tail is None:
            break
        end = tail.end()
    if inner_open != 0 and not (_CHAIN_OPEN_RE.match(masked[:inner_open]) and _CHAIN_CLOSE_RE.match(masked[end:])):
        inner_open, inner_close = 0, top_close  # outer patterns with alternatives: matched whole at the top
        end = len(masked)
    keep = lambda m: m.group() if m.group().startswith("@_") else ""  # noqa: E731 - predicates read `_` captures
    head = _CAPTURE_AT_RE.sub(keep, pattern[: inner_close + 1])
    rest = (
        _CAPTURE_AT_RE.sub(keep, pattern[inner_close + 1 :])
        if inner_open == 0
        else _CAPTURE_AT_RE.sub(keep, pattern[end:])
    )
    return f"{head} @{root}{rest}", pattern[inner_open:end]


def _build(
    lang: Language, simple: list[str], structured: list[tuple[str, _Role]], extra: str = ""
) -> SinglePlan | None:
    """The plan; `extra`: patterns of another reader appended last (their indices follow every one of ours, so the
    order of our captures stays as without them)."""
    parts = list(simple)
    pairs: list[_Pair] = []
    rooted: list[_Rooted] = []
    whole: list[tuple[str, _Role]] = []
    for k, (pattern, role) in enumerate(structured):
        if _paired(pattern, role):
            name, receiver = f"pair{k}.name", f"pair{k}.receiver"
            masked = _masked(pattern)
            renamed = pattern
            for found in reversed(list(_CAPTURE_AT_RE.finditer(masked))):
                new = f"@{receiver}" if found.group() == f"@{role.receiver}" else f"@{name}"
                renamed = renamed[: found.start()] + new + renamed[found.end() :]
            parts.append(renamed)
            pairs.append(_Pair(name, receiver, role))
            continue
        root = f"root{k}"
        found_root = _rooting(pattern, root)
        if found_root is None:
            return None  # a pattern this pass cannot read: the grammar keeps two passes
        outer, inner = found_root
        parts.append(outer)
        rooted.append(_Rooted(root, Query(lang, inner), role))
        whole.append((pattern, role))
    if extra:
        parts.append(extra)
    return SinglePlan(
        query=Query(lang, "\n".join(parts)),
        pairs=tuple(pairs),
        rooted=tuple(rooted),
        whole=Query(lang, "\n".join(p for p, _ in whole)) if whole else None,
        whole_roles=tuple(r for _, r in whole),
    )


_local = threading.local()


def single_plan(language: str, extra: str = "") -> SinglePlan | None:
    """The one-pass plan for a grammar (with `extra` patterns of another reader appended: `shared_captures`), one
    per thread; None when it has none (the two passes are used)."""
    plans: dict[tuple[str, str], SinglePlan | None] = getattr(_local, "plans", None) or {}
    _local.plans = plans
    key = (language, extra)
    if key not in plans:
        try:
            split = split_patterns(language)
            plans[key] = None if split is None else _build(*split, extra=extra)
        except Exception as exc:  # a pattern the rewriting does not fit: the two passes, said once
            _warn_once(language, f"one-pass plan: {exc}")
            plans[key] = None
    return plans[key]


# One captures pass of a file's tree for the references' plan and another reader's patterns: the plan, and every
# capture (the other reader takes its own out before `collect` reads the rest).
Shared = tuple[SinglePlan, dict[str, list[Node]]]


def shared_captures(language: str, root: Node, extra: str) -> Shared | None:
    """The references' one-pass captures and `extra`'s (the tag query's roots: a walk of the tree costs about as
    much as the references' own pass, whatever the patterns find) in one walk; None without a one-pass plan."""
    plan = single_plan(language, extra)
    if plan is None:
        return None
    return plan, QueryCursor(plan.query).captures(root)


def collect(
    language: str, root: Node, source: bytes, *, single: bool = True, shared: Shared | None = None
) -> Collected | None:
    """`ref_query.collect`'s result in one pass where the grammar allows (`single`; `shared`: that pass, made
    already), else (or when the order the uses were read in could matter) in its two passes."""
    plan = shared[0] if shared is not None else single_plan(language) if single else None
    if plan is None:
        return collect_two_pass(language, root, source)
    out = _collect(plan, root, source, shared[1] if shared is not None else None)
    return out if out is not None else collect_two_pass(language, root, source)


def _collect(
    plan: SinglePlan, root: Node, source: bytes, captured: dict[str, list[Node]] | None = None
) -> Collected | None:
    text = TextReader(source)
    out = Collected({}, set(), [], [], [], [], text, one_pass=True)
    if captured is None:
        captured = QueryCursor(plan.query).captures(root)
    take_captures(captured, text, out)
    for pair in plan.pairs:
        if not _take_pairs(pair, captured.get(pair.name), captured.get(pair.receiver), text, out):
            return None
    if plan.rooted and not _take_rooted(plan, root, captured, text, out):
        return None
    if out.conflict:
        return None
    out.scopes.sort(key=lambda s: (s.start, -s.end))
    if len(out.self_names) > 1:
        marks = sorted(out.self_names)
        if any(b[0] < a[1] for a, b in pairwise(marks)):
            return None  # the first Go receiver around a use wins
    out.skip_ranges.sort()
    out.bindings.sort()
    return out


def _take_pairs(
    pair: _Pair, names: list[Node] | None, receivers: list[Node] | None, text: TextReader, out: Collected
) -> bool:
    """Offer each name with its receiver (the captured receiver ending last before the name); False when the
    pairing is not one to one."""
    if not names and not receivers:
        return True
    if names is None or receivers is None or len(names) != len(receivers):
        return False
    name_ranges = [n.byte_range for n in names]
    ends = np.fromiter((r.end_byte for r in receivers), dtype=np.int64, count=len(receivers))
    order = np.argsort(ends, kind="stable")
    sorted_ends = ends[order]
    starts = np.fromiter((s for s, _ in name_ranges), dtype=np.int64, count=len(name_ranges))
    at = np.searchsorted(sorted_ends, starts, side="right") - 1
    if (at < 0).any() or np.unique(at).size != at.size or (np.diff(sorted_ends) == 0).any():
        return False
    picked = order[at].tolist()
    role = pair.role
    kind, weight, strength = role.kind, role.weight, role.strength
    excluded, candidates = out.excluded, out.candidates
    ascii_text = text.ascii
    for key, j in zip(name_ranges, picked, strict=True):
        if key in excluded:
            continue  # never a use, whatever the pattern
        previous = candidates.get(key)
        if previous is not None:
            held = (PRIORITY[previous], 1) if isinstance(previous, str) else (PRIORITY[previous.kind], previous.weight)
            if strength <= held:
                out.conflict = out.conflict or strength == held
                continue
        start, end = key
        candidates[key] = Candidate(
            kind,
            ascii_text[start:end] if ascii_text is not None else text(start, end),
            start,
            end,
            _receiver_text(receivers[j], text),
            None,
            None,
            None,
            weight,
        )
    return True


def _take_rooted(
    plan: SinglePlan, root: Node, captured: dict[str, list[Node]], text: TextReader, out: Collected
) -> bool:
    """The rooted patterns' matches, read at each captured root (or, for many roots, by one pass over the tree)."""
    found = [(r, captured.get(r.root)) for r in plan.rooted]
    count = sum(len(nodes) for _, nodes in found if nodes)
    if not count:
        return True
    if plan.whole is not None and count * _NODES_PER_ROOT > root.descendant_count:
        roles = plan.whole_roles
        for index, captures in QueryCursor(plan.whole).matches(root):
            _take_match(roles[index], captures, text, out)
        return True
    for rooted, nodes in found:
        if not nodes:
            continue
        cursor = QueryCursor(rooted.query)
        cursor.set_max_start_depth(0)
        seen: set[int] = set()
        for node in nodes:
            if node.id in seen:
                continue  # one node captured by several matches of the pattern: its matches are read once
            seen.add(node.id)
            for _, captures in cursor.matches(node):
                _take_match(rooted.role, captures, text, out)
    return True

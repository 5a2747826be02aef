"""The one-pass reading of a file's references (`ref_single`) gives what the two passes give, on every grammar."""

from __future__ import annotations

from pathlib import Path

import pytest
from tree_sitter import QueryCursor, Tree

from maguyva_lsp.parse import ref_query, ref_single
from maguyva_lsp.parse.analyze import parse_source
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.parse.positions import LineIndex
from maguyva_lsp.parse.references import _extract, reference_languages
from maguyva_lsp.parse.tags import SUPPORTED_TAG_LANGUAGES, extract_definitions

SAMPLES = Path(__file__).parent / "samples"
PROJECT = Path(__file__).parents[2] / "golden" / "project"
# What one pass reads differently: a class body of one method (a class scope and a function scope of one range),
# receivers with comments and line breaks before the name, nested receivers, every import form, evident types.
EXTRA_PYTHON = b"""\
import os.path as osp, sys
from a.b import (c as d, e)
from . import *


class Only:
    def one(self, x: osp.PathLike = None) -> None:
        def inner(): return x.y


class Typed(Base, mod.Other):
    field: mod.Kind
    def go(self):
        self.box = mod.Box()
        a = b = make()
        c = (os  # a comment
             .path
             # another
             .join)(a.b.c.d, (e).f, g().h)
        return self.box.open(), a.x, c
"""
EXTRA_GO = b"""package p

import (
    f "fmt"
    . "strings"
)

type S struct{ Base; *other.T }

func (s *S) Run(n int) { s.x.Y(); f.Println(n); var t T; t.Go() }
func (r S) Other() { r.Run(1) }
"""


def _sources() -> list[tuple[str, bytes]]:
    files = [p for p in sorted(SAMPLES.iterdir()) if p.is_file()] + sorted(p for p in PROJECT.rglob("*") if p.is_file())
    out = [(str(p), p.read_bytes()) for p in files]
    return [*out, ("extra.py", EXTRA_PYTHON), ("extra.go", EXTRA_GO)]


def _parsed() -> list[tuple[str, bytes, str, Tree]]:
    out: list[tuple[str, bytes, str, Tree]] = []
    for name, data in _sources():
        language = language_for_path(name, data[:200].split(b"\n")[0])
        if language is None:
            continue
        parsed = parse_source(language, data)
        if parsed.tree is not None and parsed.language in reference_languages():
            out.append((name, data, parsed.language, parsed.tree))
    return out


def test_every_grammar_reads_in_one_pass() -> None:
    # A pattern the rewriting does not fit sends its whole grammar back to two passes: say so here.
    assert {lang for lang in reference_languages() if ref_single.single_plan(lang) is None} == set()


@pytest.mark.parametrize(("name", "data", "language", "tree"), _parsed(), ids=lambda v: v if isinstance(v, str) else "")
def test_one_pass_equals_two_passes(name: str, data: bytes, language: str, tree: Tree) -> None:
    lines = LineIndex(data)
    definitions = (
        extract_definitions(tree, data, language, name, lines=lines) if language in SUPPORTED_TAG_LANGUAGES else []
    )
    one = _extract(tree, data, language, name, definitions, index=lines, single=True)
    two = _extract(tree, data, language, name, definitions, index=lines, single=False)
    assert one is not None and two is not None
    for column in ("names", "kinds", "enclosing", "receivers", "modules", "aliases"):
        assert getattr(one, column) == getattr(two, column), column
    assert one.spans.tolist() == two.spans.tolist()
    # The single-capture patterns' captures, node for node and in order, as the two passes' first one has them.
    plan, old = ref_single.single_plan(language), ref_query._plan(language)
    assert plan is not None and old is not None and old.simple is not None
    root = tree.root_node
    first = QueryCursor(old.simple).captures(root)
    single = QueryCursor(plan.query).captures(root)
    assert [k for k in single if k in first] == list(first)
    assert all([n.id for n in first[k]] == [n.id for n in single[k]] for k in first)


def test_pairing_that_is_not_one_to_one_reads_two_passes() -> None:
    data = b"a.b.c\n"
    tree = parse_source("python", data).tree
    assert tree is not None
    plan = ref_single.single_plan("python")
    assert plan is not None
    captured = QueryCursor(plan.query).captures(tree.root_node)
    pair = next(p for p in plan.pairs if p.role.kind == "reference")
    names, receivers = captured[pair.name], captured[pair.receiver]
    assert len(names) == len(receivers) == 2
    out = ref_query.Collected({}, set(), [], [], [], [], ref_query.TextReader(data))
    assert ref_single._take_pairs(pair, names, receivers, out.text, out)
    assert {c.receiver for c in out.candidates.values() if not isinstance(c, str)} == {"a", "a.b"}
    assert not ref_single._take_pairs(pair, names, receivers[:1], out.text, out)
    assert not ref_single._take_pairs(pair, names, [receivers[0], receivers[0]], out.text, out)


def test_patterns_rewritten_for_one_pass() -> None:
    role = ref_query._Role.of("reference", 2)
    assert ref_single._paired("(attribute object: (_) @reference.receiver attribute: (identifier) @reference)", role)
    assert ref_single._paired("(scoped_type_identifier (_) @reference.receiver . (type_identifier) @reference .)", role)
    # The receiver is not a field of the name's node, or a third capture: matched at a root instead.
    assert not ref_single._paired("(a x: (_) @reference.receiver y: (b (c) @reference))", role)
    assert not ref_single._paired("(a (_) @reference.receiver (c) @reference)", role)
    # A state open across a class body is not kept in the pass: the chain's inner node is the root.
    outer, inner = ref_single._rooting(
        "(class_definition body: (block (expression_statement (assignment left: (identifier) @type.member"
        " type: (type) @type.annotation))))",
        "r",
    ) or ("", "")
    assert (
        outer
        == "(class_definition body: (block (expression_statement (assignment left: (identifier)  type: (type) ) @r)))"
    )
    assert inner == "(assignment left: (identifier) @type.member type: (type) @type.annotation)"
    # Predicates keep their captures; a quantified outer node is matched whole at the top.
    outer, inner = ref_single._rooting('(a x: (b) @_s (#eq? @_s "self") y: (c) @type.member)', "r") or ("", "")
    assert outer == '(a x: (b) @_s (#eq? @_s "self") y: (c) ) @r'
    outer, inner = ref_single._rooting("(a (b)* (c (d) @x (e) @y))", "r") or ("", "")
    assert outer == "(a (b)* (c (d)  (e) )) @r" and inner == "(a (b)* (c (d) @x (e) @y))"
    assert ref_single._rooting("[(a) @x (b) @y]", "r") is None

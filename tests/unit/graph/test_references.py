"""Reference extraction per language: calls with receivers, imports, inheritance, other uses, enclosing names."""

from __future__ import annotations

from pathlib import Path

from graph_project import analyze_files

from maguyva_lsp.model import Reference, Span


def _refs(tmp_path: Path, name: str, text: str) -> list[Reference]:
    (analysis,) = analyze_files(tmp_path, {name: text})
    return list(analysis.references)


def _find(refs: list[Reference], kind: str, name: str) -> list[Reference]:
    return [r for r in refs if r.kind == kind and r.name == name]


PYTHON = """
import a.b as c, d
from ..x import y as z, w
from . import q
from m import *

class C(B, mod.Base, metaclass=M):
    def f(self, a: Foo, parse=None) -> Bar:
        self.g(a)
        mod.h(k=2)
        helper(a)
        parse(a)
        super().f()

    def g(self):
        return [v for v in range(3)]
"""


def test_python_imports(tmp_path: Path) -> None:
    refs = _refs(tmp_path, "pkg/mod.py", PYTHON)
    imports = {(r.name, r.module, r.alias) for r in refs if r.kind == "import"}
    assert imports == {
        ("a.b", None, "c"),
        ("d", None, None),
        ("y", "..x", "z"),
        ("w", "..x", None),
        ("q", ".", None),
        ("*", "m", None),
    }
    (y,) = _find(refs, "import", "y")
    assert y.span == Span(1, 16, 1, 17)
    assert y.enclosing is None


def test_python_calls_bases_and_enclosing(tmp_path: Path) -> None:
    refs = _refs(tmp_path, "pkg/mod.py", PYTHON)
    calls = {(r.name, r.receiver, r.enclosing) for r in refs if r.kind == "call"}
    assert {("g", "self", "C.f"), ("h", "mod", "C.f"), ("helper", None, "C.f"), ("f", "super()", "C.f")} <= calls
    assert ("range", None, "C.g") in calls
    bases = {(r.name, r.receiver, r.enclosing) for r in refs if r.kind == "inherit"}
    assert bases == {("B", None, "C"), ("Base", "mod", "C")}
    (helper,) = _find(refs, "call", "helper")
    assert helper.span == Span(9, 8, 9, 14)


def test_python_locals_and_definitions_are_not_uses(tmp_path: Path) -> None:
    refs = _refs(tmp_path, "pkg/mod.py", PYTHON)
    names = {r.name for r in refs}
    assert "parse" not in names  # a parameter shadows any global `parse`
    assert "a" not in names and "v" not in names and "self" not in names
    assert "f" not in {r.name for r in refs if r.kind == "reference"}  # the definition's own name
    assert "k" not in names  # a keyword argument's name
    annotations = {r.name for r in refs if r.kind == "reference" and r.receiver is None}
    assert {"Foo", "Bar", "M"} <= annotations


def test_python_module_level_variable_hides_nothing_it_imports(tmp_path: Path) -> None:
    refs = _refs(
        tmp_path,
        "m.py",
        """
        try:
            from fast import parse
        except ImportError:
            parse = None
        size = 3
        print(parse, size)
        """,
    )
    used = {r.name for r in refs if r.kind == "reference"}
    assert "parse" in used and "size" not in used


TYPESCRIPT = """
import def, {a as b, c} from './m';
import * as ns from '../x/y';
export {x as y2} from './m';
const r = require('./req');

class C extends Base implements I {
  f(p: Foo): Bar { this.g(p); ns.k(); return new D(); }
}
interface K extends L {}
"""


def test_typescript_imports_and_heritage(tmp_path: Path) -> None:
    refs = _refs(tmp_path, "src/app.ts", TYPESCRIPT)
    imports = {(r.name, r.module, r.alias) for r in refs if r.kind == "import"}
    assert {
        ("default", "./m", "def"),
        ("a", "./m", "b"),
        ("c", "./m", None),
        ("../x/y", None, "ns"),
        ("x", "./m", "y2"),
        ("./req", None, "r"),
    } <= imports
    assert {(r.name, r.enclosing) for r in refs if r.kind == "inherit"} == {("Base", "C"), ("I", "C"), ("L", "K")}
    calls = {(r.name, r.receiver, r.enclosing) for r in refs if r.kind == "call"}
    assert {("g", "this", "C.f"), ("k", "ns", "C.f"), ("D", None, "C.f")} <= calls
    assert {"Foo", "Bar"} <= {r.name for r in refs if r.kind == "reference"}
    assert "p" not in {r.name for r in refs}


def test_tsx_component_use_is_a_call(tmp_path: Path) -> None:
    refs = _refs(
        tmp_path, "src/view.tsx", "import {Button} from './b';\nexport const V = () => <Button label='x' />;\n"
    )
    assert _find(refs, "call", "Button")


def test_go(tmp_path: Path) -> None:
    refs = _refs(
        tmp_path,
        "pkg/s.go",
        """
        package pkg
        import (
            f "fmt"
            "example.com/app/util"
        )
        type S struct { Base; *util.Other }
        func (s *S) M() { s.N(); f.Println(util.Twice(2)); helper() }
        """,
    )
    imports = {(r.name, r.module, r.alias) for r in refs if r.kind == "import"}
    assert imports == {("fmt", None, "f"), ("example.com/app/util", None, None)}
    assert {(r.name, r.receiver, r.enclosing) for r in refs if r.kind == "inherit"} == {
        ("Base", None, "S"),
        ("Other", "util", "S"),
    }
    calls = {(r.name, r.receiver, r.enclosing) for r in refs if r.kind == "call"}
    assert {("N", "self", "S.M"), ("Println", "f", "S.M"), ("Twice", "util", "S.M"), ("helper", None, "S.M")} <= calls


def test_java(tmp_path: Path) -> None:
    refs = _refs(
        tmp_path,
        "src/com/x/C.java",
        """
        package com.x;
        import java.util.List;
        import com.y.*;
        class C extends Base implements I {
          void f(Bar a) { this.g(a); g(); Util.k(); new D(); }
        }
        """,
    )
    imports = {(r.name, r.module) for r in refs if r.kind == "import"}
    assert imports == {("List", "java.util"), ("*", "com.y")}
    assert {r.name for r in refs if r.kind == "inherit"} == {"Base", "I"}
    calls = {(r.name, r.receiver) for r in refs if r.kind == "call"}
    assert {("g", "this"), ("g", None), ("k", "Util"), ("D", None)} <= calls


def test_rust(tmp_path: Path) -> None:
    refs = _refs(
        tmp_path,
        "src/lib.rs",
        """
        use std::collections::HashMap;
        use crate::a::b::{C, d as e};
        struct S { f: Foo }
        impl Trait for S {
            fn m(&self) { self.n(); helper(); a::b::c(); }
        }
        """,
    )
    imports = {(r.name, r.module, r.alias) for r in refs if r.kind == "import"}
    assert imports == {("HashMap", "std::collections", None), ("C", "crate::a::b", None), ("d", "crate::a::b", "e")}
    assert {(r.name, r.enclosing) for r in refs if r.kind == "inherit"} == {("Trait", "S")}
    calls = {(r.name, r.receiver) for r in refs if r.kind == "call"}
    assert {("n", "self"), ("helper", None), ("c", "a::b")} <= calls


def test_grammar_without_reference_query(tmp_path: Path) -> None:
    assert _refs(tmp_path, "notes.md", "# Title\n\nsome `code` here\n") == []


def test_unicode_columns_count_code_points(tmp_path: Path) -> None:
    refs = _refs(tmp_path, "u.py", "s = 'é' ; print(s)\n")
    (call,) = _find(refs, "call", "print")
    assert call.span == Span(0, 10, 0, 15)


def test_python_receivers_of_evident_type_become_instances(tmp_path: Path) -> None:
    refs = _refs(
        tmp_path,
        "t.py",
        """
        import mailbox

        class T:
            def setUp(self):
                self.box = mailbox.Maildir(p)
                self.idb = idb = Idb(self)

            def run(self, other: Headers, plain):
                self.box.next()
                self.idb.go()
                other.get_all("x")
                local = Parser()
                local.feed().close()
                twice = make()
                twice = other_make()
                twice.run()
                plain.run()
        """,
    )
    receivers = {(r.name, r.receiver) for r in refs if r.kind == "call" and r.receiver}
    assert {
        ("next", "mailbox.Maildir()"),  # from the class's one assignment of self.box
        ("go", "Idb()"),  # through a chained assignment
        ("get_all", "Headers()"),  # the annotation
        ("feed", "Parser()"),
        ("close", "Parser().feed()"),
        ("run", "twice"),  # two different callees: the type is not evident
        ("run", "plain"),
    } <= receivers

"""Name resolution on small TypeScript projects, and smoke tests for Go, Java and Rust."""

from __future__ import annotations

from pathlib import Path

import pytest
from graph_project import build_graph, edges, resolved

from maguyva_lsp.graph.build import CodeGraph

TYPESCRIPT = {
    "src/util/math.ts": """
        export function twice(x: number): number { return x * 2; }
        export default function half(x: number): number { return x / 2; }
        export function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
        """,
    "src/util/index.ts": """
        export { twice as double } from './math';
        export * from './math';
        """,
    "src/shapes.ts": """
        import { twice as dbl } from './util/math';
        import half from './util/math';
        import * as m from './util/math';
        export interface Shape { area(): number; }
        export class Base implements Shape {
          area(): number { return 0; }
          describe(): string { return String(this.area()); }
        }
        export class Square extends Base {
          constructor(private side: number) { super(); }
          area(): number { return dbl(this.side) + half(2) + m.fib(3); }
          label(): string { return this.describe(); }
        }
        """,
    "src/app.tsx": """
        import { Square } from './shapes';
        import { double, fib } from './util';
        const { twice } = require('./util/math');
        export function App() {
          const s = new Square(2);
          return <View size={double(s.area()) + fib(1) + twice(1)} />;
        }
        function View(props: { size: number }) { return null; }
        """,
}


@pytest.fixture(scope="module")
def ts(tmp_path_factory: pytest.TempPathFactory) -> CodeGraph:
    return build_graph(tmp_path_factory.mktemp("ts"), TYPESCRIPT)


def test_typescript_aliased_default_and_namespace_imports(ts: CodeGraph) -> None:
    calls = resolved(ts)
    assert ("src/shapes.ts::Square.area", "src/util/math.ts::twice") in calls
    assert ("src/shapes.ts::Square.area", "src/util/math.ts::half") in calls
    assert ("src/shapes.ts::Square.area", "src/util/math.ts::fib") in calls


def test_typescript_this_and_inherited_methods(ts: CodeGraph) -> None:
    calls = resolved(ts)
    assert ("src/shapes.ts::Base.describe", "src/shapes.ts::Base.area") in calls
    assert ("src/shapes.ts::Square.label", "src/shapes.ts::Base.describe") in calls
    inherits = resolved(ts, "inherits")
    assert ("src/shapes.ts::Square", "src/shapes.ts::Base") in inherits
    assert ("src/shapes.ts::Base", "src/shapes.ts::Shape") in inherits


def test_typescript_reexports_require_jsx_and_recursion(ts: CodeGraph) -> None:
    calls = resolved(ts)
    assert ("src/app.tsx::App", "src/shapes.ts::Square") in calls  # new Square()
    assert ("src/app.tsx::App", "src/util/math.ts::twice") in calls  # via index.ts `twice as double`, and require
    assert ("src/app.tsx::App", "src/util/math.ts::fib") in calls  # via index.ts `export *`
    assert ("src/app.tsx::App", "src/app.tsx::View") in calls  # <View />
    assert ("src/util/math.ts::fib", "src/util/math.ts::fib") in calls
    assert ("src/app.tsx", "src/shapes.ts::Square") in resolved(ts, "imports")


def test_go_packages_receivers_and_embedding(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "util/util.go": "package util\n\nfunc Twice(x int) int { return helper(x) }\n",
            "util/helper.go": "package util\n\nfunc helper(x int) int { return x * 2 }\n",
            "shapes/shapes.go": """
                package shapes

                import u "example.com/app/util"

                type Base struct{}

                func (b *Base) Area() int { return 0 }

                type Square struct {
                    Base
                    side int
                }
                """,
            "shapes/methods.go": """
                package shapes

                import "example.com/app/util"

                func (s *Square) Double() int { return util.Twice(s.side) + s.Area() + s.Half() }

                func (s *Square) Half() int { return s.side / 2 }
                """,
        },
    )
    calls = resolved(graph)
    assert ("util/util.go::Twice", "util/helper.go::helper") in calls  # same package, other file
    assert ("shapes/methods.go::Square.Double", "util/util.go::Twice") in calls
    assert ("shapes/methods.go::Square.Double", "shapes/methods.go::Square.Half") in calls
    assert ("shapes/methods.go::Square.Double", "shapes/shapes.go::Base.Area") in calls  # through embedding
    assert ("shapes/shapes.go::Square", "shapes/shapes.go::Base") in resolved(graph, "inherits")


def test_java_packages_imports_and_inheritance(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "src/main/java/com/acme/util/Strings.java": """
                package com.acme.util;
                public class Strings { public static String trim(String s) { return s.trim(); } }
                """,
            "src/main/java/com/acme/shapes/Base.java": """
                package com.acme.shapes;
                public class Base { public int area() { return 0; } }
                """,
            "src/main/java/com/acme/shapes/Square.java": """
                package com.acme.shapes;
                import com.acme.util.Strings;
                public class Square extends Base {
                  public String label() { return Strings.trim("x") + area() + this.twice(); }
                  int twice() { return new Base().area() * 2; }
                }
                """,
        },
    )
    calls = resolved(graph)
    square = "src/main/java/com/acme/shapes/Square.java"
    base = "src/main/java/com/acme/shapes/Base.java"
    assert (f"{square}::Square.label", "src/main/java/com/acme/util/Strings.java::Strings.trim") in calls
    assert (f"{square}::Square.label", f"{base}::Base.area") in calls  # implicit this, inherited
    assert (f"{square}::Square.label", f"{square}::Square.twice") in calls
    assert (f"{square}::Square.twice", f"{base}::Base") in calls  # same package, no import
    assert (f"{square}::Square", f"{base}::Base") in resolved(graph, "inherits")


def test_a_java_package_split_across_source_sets_is_one_package(tmp_path: Path) -> None:
    """A package's classes live in src/main and src/test alike: a test's import finds the main class even when the
    test tree has folders of that package too (one module name, several folders, is not several copies there)."""
    graph = build_graph(
        tmp_path,
        {
            "src/main/java/com/acme/util/Strings.java": """
                package com.acme.util;
                public class Strings { public static String trim(String s) { return s.trim(); } }
                """,
            "src/test/java/com/acme/util/Fixtures.java": """
                package com.acme.util;
                public class Fixtures { public static String text() { return " x "; } }
                """,
            "src/test/java/com/acme/util/StringsTest.java": """
                package com.acme.util;
                import com.acme.util.Strings;
                public class StringsTest { void trims() { Strings.trim(Fixtures.text()); } }
                """,
        },
    )
    calls = resolved(graph)
    test = "src/test/java/com/acme/util/StringsTest.java::StringsTest.trims"
    assert (test, "src/main/java/com/acme/util/Strings.java::Strings.trim") in calls
    assert (test, "src/test/java/com/acme/util/Fixtures.java::Fixtures.text") in calls


def test_rust_use_impl_trait_and_self(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "src/lib.rs": "pub mod geo;\npub mod util;\n",
            "src/util.rs": "pub fn twice(x: i32) -> i32 { x * 2 }\n",
            "src/geo.rs": """
                use crate::util::twice;
                pub trait Shape { fn area(&self) -> i32; }
                pub struct Square { side: i32 }
                impl Square {
                    pub fn new(side: i32) -> Self { Square { side } }
                    fn double(&self) -> i32 { twice(self.area()) }
                }
                impl Shape for Square {
                    fn area(&self) -> i32 { self.side * self.side }
                }
                pub fn make() -> i32 { Square::new(2).double() + crate::util::twice(1) }
                """,
        },
    )
    calls = resolved(graph)
    assert ("src/geo.rs::Square.double", "src/util.rs::twice") in calls
    assert ("src/geo.rs::Square.double", "src/geo.rs::Square.area") in calls
    assert ("src/geo.rs::make", "src/geo.rs::Square.new") in calls
    assert ("src/geo.rs::make", "src/util.rs::twice") in calls  # crate::util::twice(1)
    assert ("src/geo.rs::make", "src/geo.rs::Square.double") in calls  # on a call's result: the one `double`
    assert ("src/geo.rs::Square", "src/geo.rs::Shape") in resolved(graph, "inherits")


def test_c_and_cpp_includes_namespaces_and_bases(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "util/str.h": "int twice(int x);\n",
            "util/str.c": '#include "str.h"\nint twice(int x) { return x * 2; }\n',
            "main.cpp": """
                #include "util/str.h"
                namespace geo {
                int area(int s) { return twice(s); }
                class Base { public: virtual int size() { return 1; } };
                class Square : public Base {
                 public:
                  int size() override { return geo::area(2) + Base::size() + this->extra(); }
                  int extra() { return twice(3); }
                };
                }
                """,
        },
    )
    calls = resolved(graph)
    assert ("main.cpp::geo.area", "util/str.c::twice") in calls  # C has one namespace: the project's only `twice`
    assert ("main.cpp::geo.Square.size", "main.cpp::geo.area") in calls
    assert ("main.cpp::geo.Square.size", "main.cpp::geo.Base.size") in calls
    assert ("main.cpp::geo.Square.size", "main.cpp::geo.Square.extra") in calls
    assert ("main.cpp::geo.Square", "main.cpp::geo.Base") in resolved(graph, "inherits")
    assert {("main.cpp", "util/str.h"), ("util/str.c", "util/str.h")} <= resolved(graph, "imports")


def test_csharp_using_and_ruby_require(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "Acme/Util/Strings.cs": """
                namespace Acme.Util {
                  public static class Strings { public static string Pad(string s) { return s; } }
                }
                """,
            "Shapes.cs": """
                using Acme.Util;
                using S = Acme.Util.Strings;
                namespace Acme.Shapes {
                  public class Base { public int Area() { return 0; } }
                  public class Square : Base {
                    public string Label() { return Strings.Pad("x") + S.Pad("y") + Area(); }
                  }
                }
                """,
            "lib/util/str.rb": "module Util\n  def self.twice(x)\n    x * 2\n  end\nend\n",
            "lib/shapes.rb": """
                require_relative 'util/str'
                class Base
                  def area
                    0
                  end
                end
                class Square < Base
                  def label
                    Util.twice(area)
                  end
                end
                """,
        },
    )
    calls = resolved(graph)
    label = "Shapes.cs::Acme.Shapes.Square.Label"
    assert (label, "Acme/Util/Strings.cs::Acme.Util.Strings.Pad") in calls
    assert (label, "Shapes.cs::Acme.Shapes.Base.Area") in calls
    assert ("lib/shapes.rb::Square.label", "lib/util/str.rb::Util.twice") in calls
    assert ("lib/shapes.rb::Square", "lib/shapes.rb::Base") in resolved(graph, "inherits")
    assert ("lib/shapes.rb", "lib/util/str.rb") in resolved(graph, "imports")


def test_declared_and_constructed_types_pick_the_right_method(tmp_path: Path) -> None:
    graph = build_graph(
        tmp_path,
        {
            "ts/shapes.ts": "export class Sq { area(): number { return 1; } }\n"
            "export class Ci { area(): number { return 3; } }\n",
            "ts/use.ts": """
                import { Sq, Ci } from './shapes';
                class Board {
                  first: Sq;
                  constructor(private second: Ci) { this.first = new Sq(); }
                  total(c: Ci): number { const s = new Sq(); return s.area() + c.area() + this.first.area(); }
                }
                """,
            "java/Shapes.java": "class Sq { int area() { return 1; } }\nclass Ci { int area() { return 3; } }\n",
            "java/Use.java": "class Use { Sq field; int total(Ci c) { Sq s = null; return s.area() + c.area(); } }\n",
            "go/shapes.go": "package shapes\n\ntype Sq struct{}\n\nfunc (q *Sq) Area() int { return 1 }\n\n"
            "type Ci struct{}\n\nfunc (c *Ci) Area() int { return 3 }\n\n"
            "func Total(c *Ci) int { s := &Sq{}; return s.Area() + c.Area() }\n",
            "rs/lib.rs": "struct Sq;\nimpl Sq { fn area(&self) -> i32 { 1 } }\n"
            "struct Ci;\nimpl Ci { fn area(&self) -> i32 { 3 } }\n"
            "fn total(c: &Ci) -> i32 { let s = Sq {}; s.area() + c.area() }\n",
        },
    )
    sure = {(u, v) for u, v, k, r in edges(graph) if k == "calls" and r == "member"}
    assert {
        ("ts/use.ts::Board.total", "ts/shapes.ts::Sq.area"),
        ("ts/use.ts::Board.total", "ts/shapes.ts::Ci.area"),
    } <= sure
    assert {
        ("java/Use.java::Use.total", "java/Shapes.java::Sq.area"),
        ("java/Use.java::Use.total", "java/Shapes.java::Ci.area"),
    } <= sure
    assert {("go/shapes.go::Total", "go/shapes.go::Sq.Area"), ("go/shapes.go::Total", "go/shapes.go::Ci.Area")} <= sure
    assert {("rs/lib.rs::total", "rs/lib.rs::Sq.area"), ("rs/lib.rs::total", "rs/lib.rs::Ci.area")} <= sure
    assert not any(r == "ambiguous" for u, _, k, r in edges(graph) if k == "calls")

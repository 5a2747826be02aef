"""The outline scanner (a server's first pass) against tree-sitter's tag query: the same definitions, or a decline."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from maguyva_lsp.model import Definition, PathClass, SourceFile
from maguyva_lsp.parse.analyze import analyze_file, parse_source
from maguyva_lsp.parse.python_outline import python_definitions
from maguyva_lsp.parse.tags import extract_definitions

SAMPLES = Path(__file__).parent / "samples"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Packages of the running interpreter's standard library, read as they are: a few thousand definitions in many styles.
STDLIB_PACKAGES = ("json", "email", "asyncio", "collections", "importlib", "unittest", "logging", "xml", "idlelib")


def parsed_definitions(source: bytes) -> list[Definition]:
    parsed = parse_source("python", source)
    assert parsed.tree is not None
    return extract_definitions(parsed.tree, source, "python", "m.py")


def assert_same(source: bytes) -> list[Definition]:
    outlined = python_definitions(source, "m.py")
    assert outlined is not None, "the scanner declined a file it should read"
    assert outlined == parsed_definitions(source)
    return outlined


def src(*lines: str) -> bytes:
    """A source file of these lines."""
    return "\n".join(lines).encode()


READ_THE_GRAMMARS_WAY = {
    "constants": src(
        "MAX = 1", "if True:", "    INNER = 2", "X: int", "A = B = 3", "T: float = 1.5", "lower = 4", "X += 1"
    ),
    "lambda bindings": src(
        "f = lambda: 0",
        "class K:",
        "    g = lambda self: 1",
        "    h: object = lambda: (1, 2)",
        "def outer():",
        "    inner = lambda x, y=2: x",
        "    self.attr = lambda: 3",
        "    table[1] = lambda: 4",
    ),
    "a lambda in arguments is not a binding": src("items.sort(key=lambda item: item[0])", "F = dict(k=lambda: 1)"),
    "an upper-case lambda is a function": src("KEY = lambda item: item[0]"),
    "decorators, comments between them": src(
        "@dec", "# between", "@dec2(", "  x)", "async def h(a,", "    b) -> int:", "    pass"
    ),
    "decorated methods": src(
        "class C:",
        "    @property",
        "    def x(self):",
        "        return 1",
        "",
        "    @x.setter",
        "    def x(self, v): ...",
    ),
    "one-line bodies keep their trailing comment": src("def one(): return 1  # c   ", "class E: pass"),
    "a comment before the body joins the signature": src("def f():  # why", "    # first", "    return 1"),
    "multi-line headers": src(
        "class C(",
        "    B,",
        "    metaclass=M,",
        "):",
        "",
        "    '''doc'''",
        "    def m(self, a: dict[str, int] = {'a': 1},",
        "          *args) -> 'X':",
        "        pass",
    ),
    "trailing comments as deep as the body belong to it": src(
        "class K:",
        "    def m(self):",
        "        return 1",
        "      # six",
        "  # two",
        "",
        "class L:",
        "    def m(self):",
        "        return 1",
        "        # eight",
        "",
        "",
        "        # eight again",
        "    # four",
        "x = 1",
    ),
    "a shallower comment ends every block it is shallower than": src(
        "class M:",
        "    def m(self):",
        "        if x:",
        "            pass",
        "  # two",
        "        # eight after two",
        "    # four",
        "def z():",
        "    pass",
        "    # four at the end",
    ),
    "a shallower comment inside a block": src(
        "def f():",
        "    x = 1",
        "# col0 comment",
        "    y = 2",
        "def g():",
        "    if x:",
        "        y = 1",
        "  # two",
        "    z = 3",
        "    # four",
    ),
    "continuations, brackets and strings at column 0": src(
        "def h():",
        "    x = (1,",
        "# c0",
        "      2)",
        '    s = """',
        "def not_one():",
        "class Nope:",
        '"""',
        "    t = 1 \\",
        "+ 2",
        "# end",
        "Y = '''",
        "Z = 1",
        "'''",
    ),
    "nested definitions and their parents": src(
        "class A:",
        "    class B:",
        "        def m(self):",
        "            def inner():",
        "                class Local:",
        "                    pass",
        "            return inner",
        "    def n(self): pass",
        "def free():",
        "    def nested(): pass",
    ),
    "comprehension values end the signature at their body": src(
        "TABLE = [c for c in range(3)]",
        "PAIRS: dict = {k: v for k, v in x}",
        "GEN = (a for a in b)",
        "LIST = [1, 2]",
        "JOIN = [a for a in b] + [c]",
        "WRAPPED = \\",
        "    [x for x in y]",
    ),
    "multi-line constants sign with their first line": src("NAMES = [", "    'a',  # first", "    'b',", "]"),
    "non-ASCII text before names": src("DOC = 'é'", "def f(x='ü'):  # ß", "    return 'ñ'", "class K: 'ø'"),
    "strings hold what looks like code": src(
        "s = 'def x(): pass'",
        't = "class Y: pass"  # def z(): pass',
        "u = r'\\'' ",
        "def real():",
        '    return "#"',
    ),
    "async and keywords inside names": src(
        "async def fetch():", "    await x", "undefined = 1", "classify = 2", "def define(): pass"
    ),
    "a semicolon elsewhere does not decline": src(
        "import os; import sys", "def f():", "    a = 1; b = 2", "    return a"
    ),
    "empty and whitespace-only files": src("", "", "   "),
}


@pytest.mark.parametrize("source", READ_THE_GRAMMARS_WAY.values(), ids=READ_THE_GRAMMARS_WAY.keys())
def test_the_scanner_reads_each_form_as_the_grammar_does(source: bytes) -> None:
    assert_same(source)


def test_the_cases_hold_every_kind_the_python_query_gives() -> None:
    found = {d.kind for source in READ_THE_GRAMMARS_WAY.values() for d in assert_same(source)}
    assert found == {"function", "method", "class", "constant"}


DECLINED = {
    "tab indentation": b"def f():\n\treturn 1\n",
    "CRLF": b"def f():\r\n    return 1\r\n",
    "an unterminated string": b"def f():\n    return 'abc\n",
    "unbalanced brackets": b"def f(:\n    return 1\n",
    "a chained lambda binding": b"a = b = lambda: 0\n",
    "a lambda after a compound header": b"if x: f = lambda: 0\n",
    "two statements on a constant's line": b"X = 1; Y = 2\n",
    "a nested lambda": b"f = lambda x=lambda: 1: x\n",
    "a lambda bound in a tuple": b"f = lambda: 0, 1\n",
    "a non-ASCII name": "def ñame():\n    pass\n".encode(),
    "an inconsistent dedent": b"def f():\n        x = 1\n    y = 2\n",
    "a header without its colon": b"def f(x)\n    return x\n",
    "prose starting like a class": b"class notes for the course: see below\n",
    "a name without parameters": b"def f\n",
    "type parameters": b"class A[T]:\n    pass\n",
    "a lambda without its colon": b"f = lambda x\ng = {1: 2}\n",
}


@pytest.mark.parametrize("source", DECLINED.values(), ids=DECLINED.keys())
def test_the_scanner_declines_what_it_might_read_differently(source: bytes) -> None:
    assert python_definitions(source, "m.py") is None


def test_a_declined_file_is_parsed_in_the_first_pass() -> None:
    source = b"a = b = lambda: 0\nclass K:\n    def m(self):\n\treturn 1\n"
    analysis = analyze_file(python_file(len(source)), source, references=False)
    parsed = parse_source("python", source)
    assert parsed.tree is not None
    assert list(analysis.definitions) == extract_definitions(parsed.tree, source, "python", "m.py")
    assert [d.qualified_name for d in analysis.definitions] == ["b", "K", "K.m"]


def python_file(size: int) -> SourceFile:
    return SourceFile("m.py", "/nonexistent/m.py", "python", PathClass.SOURCE, size, 0)


def test_the_first_pass_analysis_equals_the_second_but_for_references() -> None:
    source = (SAMPLES / "sample.py").read_bytes()
    first = analyze_file(python_file(len(source)), source, references=False)
    second = analyze_file(python_file(len(source)), source, references=True)
    assert first.definitions == second.definitions and first.definitions
    assert first.chunks == second.chunks
    assert not first.references and second.references


def stdlib_sources() -> list[Path]:
    files = sorted(f for package in STDLIB_PACKAGES for f in (STDLIB / package).rglob("*.py"))
    assert len(files) > 200, f"the interpreter's standard library is missing from {STDLIB}"
    return files


def test_real_standard_library_files_read_the_same_or_are_declined() -> None:
    accepted = declined = 0
    mismatched: list[str] = []
    definitions = 0
    for path in stdlib_sources():
        source = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
        outlined = python_definitions(source, "m.py")
        if outlined is None:
            declined += 1
            continue
        accepted += 1
        definitions += len(outlined)
        if outlined != parsed_definitions(source):
            mismatched.append(str(path))
    assert not mismatched
    assert accepted >= 0.95 * (accepted + declined), f"{declined} of {accepted + declined} declined"
    assert definitions > 5000


def test_a_scanner_failure_costs_no_file(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A bug in the scanner (here: its block reader raising) makes the first pass parse the file, and says so."""
    import maguyva_lsp.parse.python_outline as outline

    def broken(self: object) -> None:
        raise IndexError("a scanner bug")

    monkeypatch.setattr(outline._Scanner, "_blocks", broken)
    source = b"def f():\n    return 1\n"
    assert python_definitions(source, "m.py") is None
    assert "outline scanner failed on m.py" in caplog.text
    analysis = analyze_file(python_file(len(source)), source, references=False)
    assert [d.name for d in analysis.definitions] == ["f"]

"""Tag extraction on real sample files of each language: names, kinds, parents, line ranges, signatures."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from tree_sitter import Query

from maguyva_lsp.model import Definition
from maguyva_lsp.parse.languages import grammar, language_for_path, parser_for
from maguyva_lsp.parse.tags import (
    KINDS,
    QUERY_DIR,
    QUERY_SUFFIX,
    SIGNATURE_MAX_CHARS,
    SUPPORTED_TAG_LANGUAGES,
    extract_definitions,
    query_source,
)

SAMPLES = Path(__file__).parent / "samples"
MAIN_LANGUAGES = {
    "python",
    "javascript",
    "typescript",
    "tsx",
    "go",
    "rust",
    "java",
    "c",
    "cpp",
    "csharp",
    "ruby",
    "php",
}
EXTRA_LANGUAGES = {"kotlin", "swift", "scala", "lua", "bash"}
CTAGS = shutil.which("ctags")


def _definitions(name: str, source: bytes | None = None) -> list[Definition]:
    language = language_for_path(name)
    assert language is not None
    data = (SAMPLES / name).read_bytes() if source is None else source
    parser = parser_for(language)
    assert parser is not None
    return extract_definitions(parser.parse(data), data, language, name)


def _by_name(definitions: list[Definition], qualified: str) -> Definition:
    (found,) = [d for d in definitions if d.qualified_name == qualified]
    return found


# (kind, qualified name, first line, last line) of every definition in each sample, 0-based, checked by reading them.
EXPECTED: dict[str, list[tuple[str, str, int, int]]] = {
    "Sample.cs": [
        ("module", "Example.App", 2, 35),
        ("interface", "Example.App.IGreeter", 4, 7),
        ("method", "Example.App.IGreeter.Greet", 6, 6),
        ("class", "Example.App.Greeter", 9, 23),
        ("constant", "Example.App.Greeter.MaxLength", 11, 11),
        ("method", "Example.App.Greeter.Greeter", 14, 17),
        ("method", "Example.App.Greeter.Greet", 19, 22),
        ("struct", "Example.App.Point", 25, 28),
        ("enum", "Example.App.Level", 30, 30),
        ("class", "Example.App.Person", 32, 32),
        ("type", "Example.App.Notify", 34, 34),
    ],
    "Sample.java": [
        ("class", "Sample", 4, 34),
        ("constant", "Sample.MAX_COUNT", 5, 5),
        ("method", "Sample.Sample", 8, 10),
        ("method", "Sample.run", 12, 15),
        ("class", "Sample.Helper", 17, 21),
        ("method", "Sample.Helper.help", 18, 20),
        ("interface", "Sample.Listener", 23, 25),
        ("method", "Sample.Listener.onEvent", 24, 24),
        ("enum", "Sample.Mode", 27, 33),
        ("method", "Sample.Mode.isFast", 30, 32),
        ("class", "Pair", 36, 36),
    ],
    "sample.c": [
        ("constant", "BUFFER_SIZE", 3, 3),
        ("macro", "SQUARE", 4, 4),
        ("struct", "point_t", 6, 9),
        ("struct", "node", 11, 14),
        ("enum", "color", 16, 16),
        ("type", "size_type", 18, 18),
        ("function", "add", 24, 28),
        ("function", "copy_name", 30, 32),
    ],
    "sample.cpp": [
        ("module", "geo", 2, 31),
        ("constant", "geo.kMaxShapes", 4, 4),
        ("class", "geo.Shape", 6, 11),
        ("method", "geo.Shape.~Shape", 8, 8),
        ("method", "geo.Shape.area", 9, 9),
        ("method", "geo.Shape.name", 10, 10),
        ("struct", "geo.Circle", 13, 16),
        ("method", "geo.Circle.area", 15, 15),
        ("method", "geo.Circle.area", 18, 20),
        ("function", "geo.clamp", 22, 25),
        ("module", "geo.detail", 27, 29),
        ("function", "geo.detail.log", 28, 28),
        ("method", "geo.Shape.reset", 33, 33),
        ("type", "Alias", 35, 35),
        ("function", "main", 37, 39),
    ],
    "sample.go": [
        ("constant", "DefaultPort", 7, 7),
        ("constant", "ModeFast", 10, 10),
        ("constant", "ModeSlow", 11, 11),
        ("struct", "Server", 16, 19),
        ("interface", "Handler", 21, 23),
        ("method", "Handler.Serve", 22, 22),
        ("type", "ID", 25, 25),
        ("struct", "Stack", 27, 29),
        ("function", "NewServer", 31, 33),
        ("method", "Server.Start", 35, 37),
        ("method", "Server.String", 39, 41),
        ("method", "Stack.Push", 43, 45),
    ],
    "sample.js": [
        ("constant", "MAX_RETRIES", 2, 2),
        ("function", "readConfig", 5, 7),
        ("function", "parseLine", 9, 11),
        ("function", "handler", 13, 15),
        ("class", "Server", 17, 33),
        ("method", "Server.constructor", 18, 21),
        ("method", "Server.start", 23, 28),
        ("function", "Server.start.local", 24, 26),
        ("method", "Server.create", 30, 32),
    ],
    "sample.kt": [
        ("constant", "MAX_USERS", 4, 4),
        ("type", "Callback", 6, 6),
        ("interface", "Repository", 8, 10),
        ("method", "Repository.find", 9, 9),
        ("class", "User", 12, 12),
        ("class", "UserService", 14, 22),
        ("method", "UserService.load", 15, 17),
        ("method", "UserService.create", 20, 20),
        ("class", "Registry", 24, 26),
        ("method", "Registry.register", 25, 25),
        ("enum", "Role", 28, 28),
        ("function", "topLevel", 30, 30),
    ],
    "sample.lua": [
        ("function", "helper", 4, 6),
        ("function", "M.process", 8, 10),
        ("method", "M.method", 12, 14),
        ("function", "global_fn", 16, 18),
        ("function", "M.handler", 20, 22),
    ],
    "sample.php": [
        ("module", r"App\Models", 2, 2),
        ("constant", "APP_VERSION", 6, 6),
        ("interface", "HasName", 8, 11),
        ("method", "HasName.getName", 10, 10),
        ("trait", "Greets", 13, 19),
        ("method", "Greets.greet", 15, 18),
        ("class", "User", 21, 38),
        ("constant", "User.TABLE", 25, 25),
        ("method", "User.__construct", 29, 32),
        ("method", "User.getName", 34, 37),
        ("enum", "Status", 40, 43),
        ("function", "helper", 45, 48),
    ],
    "sample.py": [
        ("constant", "MAX_SIZE", 7, 7),
        ("constant", "DEFAULT_NAME", 8, 8),
        ("function", "parse", 12, 17),
        ("function", "parse.helper", 15, 16),
        ("class", "Config", 20, 35),
        ("method", "Config.load", 26, 27),
        ("method", "Config.size", 29, 31),
        ("class", "Config.Inner", 33, 35),
        ("method", "Config.Inner.method", 34, 35),
        ("function", "fetch", 38, 39),
    ],
    "sample.rb": [
        ("constant", "MAX_DEPTH", 2, 2),
        ("module", "Parsing", 4, 24),
        ("constant", "Parsing.VERSION", 5, 5),
        ("class", "Parsing.Parser", 7, 19),
        ("method", "Parsing.Parser.initialize", 8, 10),
        ("method", "Parsing.Parser.parse", 12, 14),
        ("method", "Parsing.Parser.build", 16, 18),
        ("method", "Parsing.helper", 21, 23),
        ("function", "top_level", 26, 28),
    ],
    "sample.rs": [
        ("constant", "MAX_ITEMS", 2, 2),
        ("constant", "GREETING", 3, 3),
        ("struct", "Point", 7, 10),
        ("enum", "Shape", 12, 15),
        ("trait", "Area", 17, 22),
        ("method", "Area.area", 18, 18),
        ("method", "Area.describe", 19, 21),
        ("impl", "Point", 24, 28),
        ("method", "Point.new", 25, 27),
        ("impl", "Shape", 30, 34),
        ("method", "Shape.area", 31, 33),
        ("impl", "Point", 36, 40),
        ("method", "Point.fmt", 37, 39),
        ("type", "Pair", 42, 42),
        ("module", "geometry", 44, 48),
        ("function", "geometry.distance", 45, 47),
        ("macro", "square", 50, 54),
        ("function", "main", 56, 58),
    ],
    "sample.scala": [
        ("trait", "Greeter", 4, 6),
        ("method", "Greeter.greet", 5, 5),
        ("class", "Service", 8, 14),
        ("method", "Service.greet", 9, 9),
        ("method", "Service.run", 11, 13),
        ("module", "Service", 16, 20),
        ("constant", "Service.MaxSize", 17, 17),
        ("function", "Service.apply", 19, 19),
        ("class", "Point", 22, 22),
        ("type", "Pair", 24, 24),
        ("function", "topLevel", 26, 26),
    ],
    "sample.sh": [
        ("constant", "LOG_DIR", 3, 3),
        ("function", "log", 5, 7),
        ("function", "cleanup", 9, 11),
    ],
    "sample.swift": [
        ("constant", "maxCount", 2, 2),
        ("interface", "Shape", 4, 6),
        ("method", "Shape.area", 5, 5),
        ("struct", "Circle", 8, 14),
        ("method", "Circle.area", 11, 13),
        ("class", "Canvas", 16, 24),
        ("method", "Canvas.init", 19, 19),
        ("method", "Canvas.add", 21, 23),
        ("enum", "Direction", 26, 28),
        ("impl", "Canvas", 30, 34),
        ("method", "Canvas.clear", 31, 33),
        ("type", "Point", 36, 36),
        ("function", "distance", 38, 40),
    ],
    "sample.ts": [
        ("constant", "VERSION", 2, 2),
        ("interface", "Options", 4, 7),
        ("method", "Options.run", 6, 6),
        ("type", "Handler", 9, 9),
        ("enum", "Color", 11, 14),
        ("function", "parseConfig", 16, 18),
        ("class", "Repository", 20, 30),
        ("method", "Repository.constructor", 23, 23),
        ("method", "Repository.add", 25, 27),
        ("method", "Repository.find", 29, 29),
        ("module", "Utils", 32, 36),
        ("function", "Utils.clamp", 33, 35),
        ("function", "main", 38, 40),
    ],
    "sample.tsx": [
        ("interface", "ButtonProps", 2, 4),
        ("function", "Button", 6, 8),
        ("function", "App", 10, 12),
        ("class", "Counter", 14, 18),
        ("method", "Counter.render", 15, 17),
    ],
}


def test_sample_for_every_tag_language() -> None:
    assert {language_for_path(name) for name in EXPECTED} == MAIN_LANGUAGES | EXTRA_LANGUAGES
    assert MAIN_LANGUAGES | EXTRA_LANGUAGES <= SUPPORTED_TAG_LANGUAGES


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_definitions_of_sample(name: str) -> None:
    found = [(d.kind, d.qualified_name, d.span.start_line, d.span.end_line) for d in _definitions(name)]
    assert found == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_definitions_are_sorted_unique_and_well_formed(name: str) -> None:
    definitions = _definitions(name)
    language = language_for_path(name)
    positions = [
        (d.span.start_line, d.span.start_col, d.name_span.start_line, d.name_span.start_col) for d in definitions
    ]
    assert positions == sorted(positions)
    assert len({(d.name_span.start_line, d.name_span.start_col, d.kind) for d in definitions}) == len(definitions)
    lines = (SAMPLES / name).read_text(encoding="utf-8").split("\n")
    for d in definitions:
        assert d.kind in KINDS
        assert d.language == language
        assert d.path == name
        assert d.span.start_line <= d.name_span.start_line <= d.name_span.end_line <= d.span.end_line
        assert lines[d.name_span.start_line][d.name_span.start_col : d.name_span.end_col] == d.name
        assert d.signature and "\n" not in d.signature and len(d.signature) <= SIGNATURE_MAX_CHARS


def test_extraction_is_deterministic() -> None:
    assert _definitions("sample.cpp") == _definitions("sample.cpp")


@pytest.mark.parametrize(
    ("name", "qualified", "signature"),
    [
        ("sample.py", "parse", "def parse(text: str, strict: bool = False) -> dict[str, Any]:"),
        ("sample.py", "Config.size", "def size(self) -> int:"),
        ("sample.py", "Config", "class Config(Base):"),
        ("sample.py", "MAX_SIZE", "MAX_SIZE = 100"),
        ("sample.go", "Server.Start", "func (s *Server) Start() error"),
        ("sample.go", "Server", "type Server struct"),
        ("sample.rs", "Point.fmt", "fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result"),
        ("sample.ts", "parseConfig", "export const parseConfig = (text: string): Options =>"),
        ("sample.ts", "Repository", "export abstract class Repository<T> implements Store"),
        ("sample.cpp", "geo.clamp", "template <typename T> T clamp(T x, T lo, T hi)"),
        ("sample.cpp", "geo.Shape.reset", "void geo::Shape::reset()"),
        ("Sample.java", "Sample.run", "@Override public void run()"),
        ("sample.c", "copy_name", "char *copy_name(const char *name, size_t len)"),
        ("sample.rb", "Parsing.Parser.build", "def self.build(text)"),
        ("sample.scala", "Service.greet", "def greet(name: String): String"),
    ],
)
def test_signatures(name: str, qualified: str, signature: str) -> None:
    assert _by_name(_definitions(name), qualified).signature == signature


def test_rust_impl_blocks_are_named_after_their_type() -> None:
    definitions = _definitions("sample.rs")
    impls = [(d.name, d.signature) for d in definitions if d.kind == "impl"]
    assert impls == [
        ("Point", "impl Point"),
        ("Shape", "impl Area for Shape"),
        ("Point", "impl fmt::Display for Point"),
    ]
    assert {d.parent for d in definitions if d.name in ("new", "fmt")} == {"Point"}


def test_go_receivers_bind_methods_to_their_type() -> None:
    definitions = _definitions("sample.go")
    start = _by_name(definitions, "Server.Start")
    assert (start.kind, start.parent) == ("method", "Server")
    assert (start.name_span.start_line, start.name_span.start_col, start.name_span.end_col) == (35, 17, 22)
    assert _by_name(definitions, "Stack.Push").kind == "method"  # generic receiver `*Stack[T]`
    assert _by_name(definitions, "NewServer").parent is None


def test_cpp_out_of_class_methods_take_their_class_and_namespace() -> None:
    definitions = _definitions("sample.cpp")
    area = [d for d in definitions if d.name == "area" and d.parent == "geo.Circle"]
    assert [(d.kind, d.span.start_line) for d in area] == [("method", 15), ("method", 18)]  # declaration, definition
    assert _by_name(definitions, "geo.Shape.reset").kind == "method"
    assert _by_name(definitions, "geo.detail.log").kind == "function"  # a namespace does not make methods


def test_nested_classes_keep_their_outer_class() -> None:
    definitions = _definitions("sample.py")
    method = _by_name(definitions, "Config.Inner.method")
    assert (method.kind, method.parent, method.name) == ("method", "Config.Inner", "method")
    assert _by_name(definitions, "parse.helper").kind == "function"  # a closure is not a method
    java = _definitions("Sample.java")
    assert _by_name(java, "Sample.Helper.help").kind == "method"


def test_typescript_interfaces_aliases_and_arrow_consts() -> None:
    kinds = {d.qualified_name: d.kind for d in _definitions("sample.ts")}
    assert kinds["Options"] == "interface"
    assert kinds["Handler"] == "type"
    assert kinds["parseConfig"] == "function"
    assert kinds["VERSION"] == "constant"
    assert kinds["Color"] == "enum"
    assert kinds["Utils.clamp"] == "function"
    assert kinds["Repository.find"] == "method"


def test_python_constants_are_module_level_upper_case() -> None:
    constants = {d.name for d in _definitions("sample.py") if d.kind == "constant"}
    assert constants == {"MAX_SIZE", "DEFAULT_NAME"}
    source = b"def f():\n    LOCAL = 1\n\nclass K:\n    ATTR = 2\n"
    assert [d.kind for d in _definitions("x.py", source)] == ["function", "class"]


def test_decorators_are_inside_the_span() -> None:
    size = _by_name(_definitions("sample.py"), "Config.size")
    assert (size.span.start_line, size.name_span.start_line) == (29, 30)


def test_long_signature_is_capped() -> None:
    params = ", ".join(f"parameter_{i}: int = {i}" for i in range(40))
    (definition,) = _definitions("long.py", f"def wide({params}) -> None:\n    pass\n".encode())
    assert len(definition.signature) == SIGNATURE_MAX_CHARS
    assert definition.signature.startswith("def wide(parameter_0: int = 0,")
    assert definition.signature.endswith("…")


def test_definitions_survive_a_local_syntax_error() -> None:
    source = (SAMPLES / "sample.go").read_bytes().replace(b"func NewServer(port int)", b"func NewServer(port int", 1)
    names = {d.qualified_name for d in _definitions("sample.go", source)}
    assert {"Server.Start", "Server.String", "Stack.Push"} <= names


def test_language_without_query_gives_nothing() -> None:
    parser = parser_for("json")
    assert parser is not None
    assert "json" not in SUPPORTED_TAG_LANGUAGES
    assert extract_definitions(parser.parse(b'{"a": 1}'), b'{"a": 1}', "json", "a.json") == []


@pytest.mark.parametrize("path", sorted(QUERY_DIR.glob(f"*{QUERY_SUFFIX}")), ids=lambda p: p.name)
def test_every_query_compiles_with_known_captures(path: Path) -> None:
    name = path.name.removesuffix(QUERY_SUFFIX)
    if name.startswith("_"):  # shared patterns: checked through the files that inherit them
        assert any(f"inherits: {name}" in p.read_text() for p in QUERY_DIR.glob(f"*{QUERY_SUFFIX}"))
        return
    language = grammar(name)
    assert language is not None
    query = Query(language, query_source(name))
    captures = {query.capture_name(i) for i in range(query.capture_count)}
    allowed = {"name", "scope"} | {f"definition.{kind}" for kind in KINDS}
    assert {c for c in captures if not c.startswith("_")} <= allowed
    assert "name" in captures


def test_threads_share_compiled_queries() -> None:
    expected = {name: _definitions(name) for name in EXPECTED}
    results: list[bool] = []

    def work() -> None:
        results.append(all(_definitions(name) == defs for name, defs in expected.items()))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 4


@pytest.mark.skipif(CTAGS is None, reason="universal-ctags is not installed")
def test_python_agrees_with_universal_ctags(tmp_path: Path) -> None:
    """Functions, classes and methods with their scope, as an independent tool sees them, on a real stdlib module."""
    import json as json_module

    module = Path(json_module.__file__).parent / "decoder.py"
    files = [SAMPLES / "sample.py", module]
    for path in files:
        out = subprocess.run(
            [str(CTAGS), "--output-format=json", "--fields=+nKZ", "--language-force=Python", "-f", "-", str(path)],
            capture_output=True,
            check=True,
            text=True,
        ).stdout
        kinds = {"function": "function", "class": "class", "member": "method"}
        theirs = set()
        for line in out.splitlines():
            tag = json.loads(line)
            if tag.get("kind") in kinds:
                qualified = f"{tag['scope']}.{tag['name']}" if tag.get("scope") else tag["name"]
                theirs.add((kinds[tag["kind"]], qualified, tag["line"] - 1))
        data = path.read_bytes()
        ours = {
            (d.kind, d.qualified_name, d.name_span.start_line)
            for d in _definitions("x.py", data)
            if d.kind in ("function", "class", "method")
        }
        assert ours == theirs, path


# Real forms of JavaScript definitions outside declarations (express, npm's dependencies, compiled TypeScript).
ECMA_FORMS_JS = b"""\
var app = exports = module.exports = {};
app.init = function init() {
  this.cache = Object.create(null);
  this.on('mount', function onmount(parent) {
    this.settings = parent.settings;
  });
};
app.handle = function handle(req, res, callback) {
  var done = callback || finalhandler(req, res, { onerror: logerror.bind(this) });
};
exports.compileETag = function(val) {
  return val;
};
module.exports.isAbsolute = (path) => path[0] === '/';
View.prototype.lookup = function lookup(name) {
  return name;
};
View.prototype.render = function (options, callback) {
  callback();
};
defineGetter(req, 'hostname', function hostname() {
  return this.host;
});
defineGetter(req, 'xhr', function () {
  return true;
});
Object.defineProperty(req, 'protocol', {
  configurable: true,
  get: function () { return 'http'; }
});
Object.defineProperty(exports, "ASN1Obj", { enumerable: true, get: function () { return obj_1.ASN1Obj; } });
function createETagGenerator(options) {
  return function generateETag(body, encoding) {
    return body;
  };
}
onFinished(res, function onfinish(err) {
  done(err);
});
obj.cancel = function reject() {};
var proto = module.exports = {
  toJSON: function toJSON() { return {}; },
  'content-type': () => 'text/html',
  send(body) { return body; },
  get header() { return this._header; },
};
let retry;
retry = function* () {};
"""


def _forms(source: bytes, name: str = "forms.js") -> dict[str, list[tuple[str, str | None, int]]]:
    out: dict[str, list[tuple[str, str | None, int]]] = {}
    for d in _definitions(name, source):
        out.setdefault(d.name, []).append((d.kind, d.parent, d.name_span.start_line))
    return out


def test_javascript_functions_bound_outside_declarations() -> None:
    forms = _forms(ECMA_FORMS_JS)
    # assigned to an object's property: a method of it (one definition when the function has the same name)
    assert forms["init"] == [("method", "app", 1)]
    assert forms["handle"] == [("method", "app", 7)]
    assert forms["lookup"] == [("method", "View", 14)]
    assert forms["render"] == [("method", "View", 17)]
    # exports and module.exports: functions of the module
    assert forms["compileETag"] == [("function", None, 10)]
    assert forms["isAbsolute"] == [("function", None, 13)]
    # named function expressions: callbacks and returned values, each under its own name
    assert forms["onmount"] == [("function", "app.init", 3)]
    assert forms["generateETag"] == [("function", "createETagGenerator", 32)]
    assert forms["onfinish"] == [("function", None, 36)]
    # a function bound under another name is a definition of both names, the second not nested in the first
    assert forms["cancel"] == [("method", "obj", 39)]
    assert forms["reject"] == [("function", None, 39)]
    assert forms["retry"][-1] == ("function", None, 47)


def test_javascript_getters_and_object_literal_members() -> None:
    forms = _forms(ECMA_FORMS_JS)
    assert forms["hostname"] == [("method", "req", 20)]  # a define... helper, named by its string and its function
    assert forms["xhr"] == [("method", "req", 23)]
    assert forms["protocol"] == [("method", "req", 26)]  # Object.defineProperty
    assert "ASN1Obj" not in forms  # a re-export getter of compiled TypeScript is not a definition
    assert "get" not in forms  # nor is a property descriptor's get
    assert forms["toJSON"] == [("method", None, 41)]
    assert forms["content-type"] == [("method", None, 42)]
    assert forms["send"] == [("method", None, 43)]
    assert forms["header"] == [("method", None, 44)]


def test_javascript_binding_spans_and_signatures() -> None:
    definitions = {d.name: d for d in _definitions("forms.js", ECMA_FORMS_JS)}
    lookup = definitions["lookup"]
    assert (lookup.span.start_line, lookup.span.end_line) == (14, 16)
    assert lookup.signature == "View.prototype.lookup = function lookup(name)"
    assert definitions["protocol"].span.end_line == 29


TS_OVERLOADS = b"""\
export function parse(text: string): Config;
export function parse(text: string, strict: boolean): Config;
// the implementation
export function parse(text: string, strict = false): Config {
  return load(text, strict);
}
export class Store {
  get(key: string): string;
  get(key: string, fallback: string): string;
  get(key: string, fallback?: string): string {
    return fallback ?? key;
  }
}
export interface Reader {
  read(path: string): string;
  read(path: string, encoding: string): string;
}
export function promisify(fn: Function): Function;
export namespace promisify {
  const custom: unique symbol;
}
declare function setTimeout(callback: () => void, ms: number): number;
"""


def test_typescript_overloads_are_one_definition_with_their_implementation() -> None:
    definitions = _definitions("overloads.ts", TS_OVERLOADS)
    parse = [d for d in definitions if d.name == "parse"]
    assert [(d.kind, d.span.start_line, d.span.end_line, d.name_span.start_line) for d in parse] == [
        ("function", 0, 5, 3)
    ]
    assert parse[0].signature == "export function parse(text: string, strict = false): Config"
    get = [d for d in definitions if d.name == "get"]
    assert [(d.kind, d.parent, d.span.start_line, d.name_span.start_line) for d in get] == [("method", "Store", 7, 9)]
    # without an implementation after them, signatures are the definitions (interfaces, declarations)
    assert [d.name_span.start_line for d in definitions if d.name == "read"] == [14, 15]
    promisify = [(d.kind, d.name_span.start_line) for d in definitions if d.name == "promisify"]
    assert promisify == [("function", 17), ("module", 18)]
    assert [d.kind for d in definitions if d.name == "setTimeout"] == ["function"]


def test_typescript_shares_the_javascript_forms() -> None:
    source = b"app.use = function use(fn: Handler): App {\n  return this;\n};\nexports.run = async () => {};\n"
    forms = _forms(source, "forms.ts")
    assert forms == {"use": [("method", "app", 0)], "run": [("function", None, 3)]}

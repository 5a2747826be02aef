# ruff: noqa: E501
"""The reader of pasted text, on real output: each trace below was printed by the real runtime on this machine
(CPython 3.11, Node 20, OpenJDK 17, rustc) or is the documented format of a runtime that is not installed here
(Go, .NET, glog, logrus), copied as a user would paste it."""

from __future__ import annotations

import pytest

from maguyva_lsp.model import StackFrame
from maguyva_lsp.query.pasted import message_phrases, message_words, read_pasted

PY_JSON = """Traceback (most recent call last):
  File "<string>", line 4, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", line 337, in decode
    obj, end = self.raw_decode(s, idx=_w(s, 0).end())
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", line 353, in raw_decode
    obj, end = self.scan_once(s, idx)
               ^^^^^^^^^^^^^^^^^^^^^^
json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
"""
PY_KEY = """Traceback (most recent call last):
  File "<string>", line 3, in <module>
  File "<string>", line 2, in f
KeyError: 'user_id'
"""
PY_SYNTAX = """  File "x.py", line 3
    x = = 1
        ^
SyntaxError: invalid syntax
"""
NODE_SEND = """[eval]:1
function onfinish(err){ throw new TypeError('path must be a string to res.sendFile') }; onfinish()
                        ^

TypeError: path must be a string to res.sendFile
    at onfinish ([eval]:1:31)
    at [eval]:1:89
    at runScriptInThisContext (node:internal/vm:209:10)
    at node:internal/process/execution:118:14
    at [eval]-wrapper:6:24

Node.js v20.20.2
"""
NODE_ENOENT = """node:fs:573
  return binding.open(
                 ^

Error: ENOENT: no such file or directory, open '/nope/x.json'
    at Object.openSync (node:fs:573:18)
    at Object.readFileSync (node:fs:452:35)
    at [eval]:1:15 {
  errno: -2,
  code: 'ENOENT',
  syscall: 'open',
  path: '/nope/x.json'
}
"""
NODE_APP = """TypeError: Cannot read properties of undefined (reading 'x')
    at Object.<anonymous> (/home/u/app/lib/router.js:3:15)
    at Module._compile (node:internal/modules/cjs/loader:1256:14)
"""
JAVA = """Exception in thread "main" java.lang.RuntimeException: startup failed
\tat T.main(T.java:1)
Caused by: java.lang.IllegalStateException: Already connected to db
\tat T.connect(T.java:1)
\t... 1 more
"""
RUST = """
thread 'main' (27680) panicked at p.rs:1:38:
index out of bounds: the len is 3 but the index is 5
stack backtrace:
   0: __rustc::rust_begin_unwind
             at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5
   3: p::get
   4: p::main
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.
"""
RUST_OLD = "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/main.rs:4:37"
GO = """panic: runtime error: index out of range [5] with length 3

goroutine 1 [running]:
main.(*Server).Start(0xc000012345)
\t/home/u/app/server.go:42 +0x1d
main.main()
\t/home/u/app/main.go:8 +0x25
exit status 2
"""
CSHARP = """Unhandled exception. System.InvalidOperationException: Sequence contains no elements
   at System.Linq.ThrowHelper.ThrowNoElementsException()
   at Program.Main() in C:\\src\\App\\Program.cs:line 12
"""


@pytest.mark.parametrize(
    ("text", "form", "name", "message"),
    [
        (PY_JSON, "traceback", "JSONDecodeError", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        (PY_KEY, "traceback", "KeyError", "'user_id'"),
        (PY_SYNTAX, "traceback", "SyntaxError", "invalid syntax"),
        (NODE_SEND, "traceback", "TypeError", "path must be a string to res.sendFile"),
        (NODE_ENOENT, "traceback", "Error", "ENOENT: no such file or directory, open '/nope/x.json'"),
        (NODE_APP, "traceback", "TypeError", "Cannot read properties of undefined (reading 'x')"),
        (JAVA, "traceback", "RuntimeException", "startup failed"),
        (RUST, "panic", None, "index out of bounds: the len is 3 but the index is 5"),
        (RUST_OLD, "panic", None, "called `Option::unwrap()` on a `None` value"),
        (GO, "panic", None, "runtime error: index out of range [5] with length 3"),
        (CSHARP, "traceback", "InvalidOperationException", "Sequence contains no elements"),
        # single lines, as terminals print them
        ("RuntimeError: There is no request in this context.", "error_line", "RuntimeError", "There is no request in this context."),
        ("flask.cli.NoAppException: Could not import 'app'.", "error_line", "NoAppException", "Could not import 'app'."),
        ("Uncaught TypeError: app.use() requires a middleware function", "error_line", "TypeError", "app.use() requires a middleware function"),
        ('TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string. Received undefined', "error_line", "TypeError", 'The "path" argument must be of type string. Received undefined'),
        ("Caused by: java.io.FileNotFoundException: config.yml (No such file or directory)", "error_line", "FileNotFoundException", "config.yml (No such file or directory)"),
        ("MalformedRangeHeader: Range header: start must be less than end", "error_line", "MalformedRangeHeader", "Range header: start must be less than end"),
        ("error: called Execute() on a nil Command", "error_line", None, "called Execute() on a nil Command"),
        ("Error: unknown command \"foo\" for \"app\"", "error_line", "Error", 'unknown command "foo" for "app"'),
        ("panic: Eq called on unsupported type", "panic", None, "Eq called on unsupported type"),
        ("fatal: not a git repository (or any of the parent directories): .git", "error_line", None, "not a git repository (or any of the parent directories): .git"),
        # log lines: a timestamp and/or a level, then decorations, then the message
        ("ERROR:flask.app:Could not load plugin", "log_line", None, "Could not load plugin"),
        ("2024-01-02 15:04:05,123 ERROR [werkzeug] Exception on /login [POST]", "log_line", None, "Exception on /login [POST]"),
        ("[2024-05-01 12:00:01,234] ERROR in app: Exception on /login [POST]", "log_line", None, "Exception on /login [POST]"),
        ("2024/01/02 15:04:05 open config.json: no such file or directory", "log_line", None, "open config.json: no such file or directory"),
        ('time="2024-01-02T15:04:05Z" level=error msg="failed to connect to database" err="dial tcp: refused"', "log_line", None, "failed to connect to database"),
        ("E0102 15:04:05.123456    1234 controller.go:112] failed to sync pod default/web-0: timeout", "log_line", None, "failed to sync pod default/web-0: timeout"),
        ("Jan  2 15:04:05 host sshd[1234]: Connection closed by 10.0.0.1 port 22", "log_line", None, "Connection closed by 10.0.0.1 port 22"),
        ("[2024-01-02 15:04:05] WARNING: Retrying request to /api", "log_line", None, "Retrying request to /api"),
    ],
)  # fmt: skip
def test_the_error_line_of_real_output(text: str, form: str, name: str | None, message: str) -> None:
    pasted = read_pasted(text)
    assert pasted is not None
    assert (pasted.form, pasted.name, pasted.message) == (form, name, message)


def test_frames_are_read_innermost_first_with_their_functions() -> None:
    py = read_pasted(PY_JSON)
    assert py is not None
    assert py.frames[0] == StackFrame("/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", 353, "raw_decode")
    assert py.frames[-1] == StackFrame("<string>", 4, "<module>")
    go = read_pasted(GO)
    assert go is not None and go.frames[:2] == (
        StackFrame("/home/u/app/server.go", 42, "Start"),
        StackFrame("/home/u/app/main.go", 8, "main"),
    )
    java = read_pasted(JAVA)
    assert java is not None and java.frames[0] == StackFrame("T.java", 1, "main")
    node = read_pasted(NODE_APP)
    assert node is not None and node.frames[0] == StackFrame("/home/u/app/lib/router.js", 3, "anonymous")
    cs = read_pasted(CSHARP)
    assert cs is not None and StackFrame("C:\\src\\App\\Program.cs", 12, "Main") in cs.frames
    rust = read_pasted(RUST)
    assert rust is not None and rust.frames[0] == StackFrame("p.rs", 1, None)


@pytest.mark.parametrize(
    ("text", "frame"),
    [
        ('  File "src/flask/app.py", line 12, in foo', StackFrame("src/flask/app.py", 12, "foo")),
        ("    at foo (lib/x.js:12:5)", StackFrame("lib/x.js", 12, "foo")),
        ("    at new Router (file:///srv/app/router.mjs:3:9)", StackFrame("/srv/app/router.mjs", 3, "Router")),
        ("\t/home/u/go/pkg/mod/github.com/spf13/cobra@v1.8.0/command.go:1044 +0x1d", StackFrame("/home/u/go/pkg/mod/github.com/spf13/cobra@v1.8.0/command.go", 1044, None)),
        ("\tat com.example.Client.connect(Client.java:42)", StackFrame("Client.java", 42, "connect")),
    ],
)  # fmt: skip
def test_a_lone_stack_frame(text: str, frame: StackFrame) -> None:
    pasted = read_pasted(text)
    assert pasted is not None
    assert (pasted.form, pasted.frames) == ("stack_frame", (frame,))


@pytest.mark.parametrize(
    "text",
    [
        "ClassBuilder: eval only once",  # a commit scope, lower-case message
        "ENH: bundle inspect.isclass to avoid paying the cost",
        "docs: fix typo",
        "Note: this is prose",
        "Fix `attrs.field(converter=...)` type annotations",
        "how does authentication work",
        "ValueError",  # a bare error token: the error_name rule's, not a pasted line
        "error: str",  # a typed field
        "def f(x):\n    raise ValueError('bad')",  # code that raises
        "class Config:\n    error: str\n    name: str",
        "where is ValueError raised",
    ],
)
def test_what_is_not_pasted_output(text: str) -> None:
    assert read_pasted(text) is None


def test_dynamic_parts_are_not_message_words() -> None:
    message = "Popped wrong app context. (<AppContext 0x7f3a2b>) instead of '/srv/app' at 12:30"
    assert message_words(message) == ["popped", "wrong", "app", "context", "appcontext", "instead", "of", "at"]
    assert message_phrases("Too many files. Maximum number of files is 1000.") == [
        "too many",
        "many files",
        "files. maximum",
        "maximum number",
        "number of",
        "of files",
        "files is",
    ]

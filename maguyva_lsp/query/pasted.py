"""Reader of pasted text: what a user copies from a terminal or a log when they hunt a message.

It finds the error line (`KeyError: 'x'`, `error: ...`, `panic: ...`, `Exception in thread "main" java...: ...`,
`thread 'main' panicked at ...`, `Unhandled exception. System...: ...`), the stack frames (Python, JavaScript, Go, Java,
Rust, C#) and log lines (a timestamp and/or a level before the message), and returns the message, the error's name and
the frames. It runs before classification and is pure and cheap: each line is tried against anchored patterns only
after a one-character or keyword test that prose fails.
"""

from __future__ import annotations

import itertools
import re

from maguyva_lsp.model import PastedError, StackFrame
from maguyva_lsp.tokens import STOPWORDS

# A pasted text with more lines than this is read from its first and last lines only (a long log).
MAX_READ_LINES = 200
# The message is cut to this many words (a pasted page of output is not one message).
MAX_MESSAGE_WORDS = 48
# `error: message` needs a message of this many words at least.
MIN_PREFIXED_MESSAGE_WORDS = 2

# Dynamic parts of a printed message: quoted values, paths, URLs, hex and decimal numbers, long hashes.
_DYNAMIC_RE = re.compile(
    r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|‘[^’\n]*’|“[^”\n]*”|"
    r"\b[a-z][a-z0-9+.-]*://\S+|"
    r"(?<![\w.])(?:[A-Za-z]:)?(?:[\\/][\w.@+-]+){2,}[\\/]?|"
    r"(?<![\w.])[\w.@+-]+(?:/[\w.@+-]+)+|"
    r"\b0x[0-9a-fA-F]+\b|\b[0-9a-fA-F]{12,}\b|\b\d+(?:[.,:]\d+)*\b"
)
_WORD_RE = re.compile(r"[A-Za-z0-9_]+")

# --- stack frames ----------------------------------------------------------------------------------------------------

_PY_FRAME_RE = re.compile(r'^\s*File "(?P<path>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<func>[^\s,]+))?')
# `at foo (lib/x.js:12:5)`, `at async Foo.bar (/abs/x.ts:1:2)`, `at lib/x.js:12:5`, `at new Foo (file:///x.mjs:3:9)`
# (`node:internal/...` and `[eval]` frames are read too; they match no workspace file.)
_JS_FRAME_RE = re.compile(
    r"^\s*at (?:(?:async |new )?(?P<func>[^\s()]+)(?: \[as [^\]]+\])? \()?(?P<path>(?:file://)?[^\s()]+?)"
    r":(?P<line>\d+):\d+\)?\s*$"
)
# `at com.foo.Bar.baz(Bar.java:12)`, `at kotlinx.Foo$bar$1.invoke(Foo.kt:33)`
_JAVA_FRAME_RE = re.compile(
    r"^\s*at (?P<func>[\w$.<>/]+)\((?P<path>[\w$-]+\.(?:java|kt|kts|scala|groovy|clj)):(?P<line>\d+)\)"
)
# `at Foo.Bar.Baz(String x) in C:\src\Foo.cs:line 12`
_CS_FRAME_RE = re.compile(r"^\s*at (?P<func>[^\s(]+)\([^)\n]*\) in (?P<path>[^\n]+?\.cs):line (?P<line>\d+)")
# Go: `\t/home/u/x.go:12 +0x1d` after a `pkg.(*T).Method(...)` line
_GO_FRAME_RE = re.compile(r"^\s*(?P<path>\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-fA-F]+)?\s*$")
_GO_FUNC_RE = re.compile(r"^(?:created by )?[\w./*()\[\]@-]+$")
# The arguments (and goroutine note) after a Go frame's function: `(0xc000012345, {0x1, 0x2})`, ` in goroutine 1`.
_GO_ARGS_RE = re.compile(r"(?:\((?:[^()]|\([^()]*\))*\))?(?: in goroutine \d+)?$")
# Rust backtrace: `  12: crate::module::func` then `             at ./src/x.rs:10:5`
_RUST_FRAME_RE = re.compile(r"^\s*at (?P<path>\S+\.rs):(?P<line>\d+)(?::\d+)?\s*$")
_RUST_FUNC_RE = re.compile(r"^\s*\d+: (?P<func>[\w:<>$ ]+?)(?:::h[0-9a-f]{16})?\s*$")

# Something a stack trace has and code rarely does: one search decides whether a pasted block needs reading.
_TRACE_MARKER_RE = re.compile(
    r'(?m)^\s*(?:File "|at \S+(?: \(|\(|:\d))|\.go:\d+|\.rs:\d+|panicked at|^goroutine \d|^Traceback \(most'
)

# --- error lines -----------------------------------------------------------------------------------------------------

# Words runtimes put before the error line itself.
_LEAD_RE = re.compile(
    r"^(?:Uncaught (?:\(in promise\) )?|Unhandled exception\. |Unhandled Exception: |Exception in thread \"[^\"\n]*\" |"
    r"Caused by: |\(node:\d+\) (?:\[[\w-]+\] )?|Error in [\w.]+: |Fatal error: |raise |throw new |throw )",
)
# `Name: message` — a dotted type name (`java.lang.IllegalStateException`, `flask.cli.NoAppException`), maybe a Node
# error code (`TypeError [ERR_INVALID_ARG_TYPE]: ...`).
_NAMED_ERROR_RE = re.compile(
    r"^(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?: ?\[(?P<code>[\w-]+)\])?(?::\s+(?P<msg>\S.*?))?\s*$"
)
# Error-name endings that settle it; any other CamelCase name is only a weak sign (a commit scope looks the same).
_ERROR_SUFFIXES = ("Error", "Exception", "Warning", "Fault", "Failure", "Panic", "Exit", "Interrupt", "Iteration")
_KNOWN_ERROR_NAMES = frozenset(
    "Error Exception AssertionError KeyboardInterrupt SystemExit StopIteration StopAsyncIteration GeneratorExit "
    "Throwable Panic".split()
)
# `error: message`, `panic: message`, `fatal error: ...`, `Error: ...` (Go, cobra, git, cargo, Node).
_PREFIX_ERROR_RE = re.compile(
    r"^(?P<prefix>(?i:error|err|panic|fatal(?: error)?|exception|failure|failed|critical|severe|warning|warn|"
    r"uncaught exception|unhandled exception))(?:\[[\w-]+\])?:\s+(?P<msg>\S.*?)\s*$"
)
_PANIC_SUFFIX_RE = re.compile(r"\s*\[recovered\]\s*$")
# Rust, old: `thread 'main' panicked at 'msg', src/main.rs:3:5`; new: `thread 'main' panicked at src/main.rs:3:5:` and
# the message on the next line.
_RUST_PANIC_RE = re.compile(
    r"^thread '[^'\n]*' (?:\(\d+\) )?panicked at (?:'(?P<msg>.*)', )?(?P<path>[^\s:]+\.rs):(?P<line>\d+)(?::\d+)?:?\s*$"
)

# --- log lines -------------------------------------------------------------------------------------------------------

_TIMESTAMP = (
    r"(?:\d{4}[-/.]\d{2}[-/.]\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?)?|"
    r"\d{2}:\d{2}:\d{2}(?:[.,]\d+)?|"
    r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? )?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2}(?:,? \d{4})?"
    r"(?: \d{2}:\d{2}:\d{2})?)"
)
_LEVEL = r"(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRITICAL|CRIT|FATAL|PANIC|SEVERE|ALERT|EMERG)"
_LEVEL_RE = re.compile(rf"^\[?(?P<level>{_LEVEL}|(?i:{_LEVEL}))\]?(?=[\s:\]|]|$)")
_TIMESTAMP_RE = re.compile(rf"^\[?{_TIMESTAMP}\]?")
# glog / klog: `E0102 15:04:05.123456    1234 file.go:12] message`
_GLOG_RE = re.compile(r"^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ (?P<path>[\w.-]+):(?P<line>\d+)\] (?P<msg>.*)$")
# Python logging's default format: `ERROR:root:message`, `WARNING:flask.app:message`
_PY_LOGGING_RE = re.compile(rf"^{_LEVEL}:[\w.]+:(?P<msg>.*)$")
# logfmt: `level=error msg="failed to connect" err="dial tcp: ..."`
_LOGFMT_MSG_RE = re.compile(r'\b(?:msg|message)=(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<bare>\S+))')
_LOGFMT_LEVEL_RE = re.compile(r"\b(?:level|lvl|severity)=\"?(?P<level>\w+)", re.IGNORECASE)
# What may sit between a timestamp/level and the message: a logger name, a pid, a thread, a module in brackets.
_LOG_DECORATION_RE = re.compile(
    r"^(?:\s*(?:[-|:,]|\[[^\]\n]{1,60}\]|\([^)\n]{1,40}\)|<[^>\n]{1,40}>|(?:[\w.-]+ )?[\w./-]+\[\d+\]:|pid=\d+|\d+)"
    r"(?=\s|$|:))+\s*"
)
_LOGGER_NAME_RE = re.compile(r"^(?:in )?(?P<logger>[A-Za-z_][\w.]*)(?: -|:)\s+")


def message_words(message: str) -> list[str]:
    """The static words of a printed message, lower-cased: its dynamic parts removed."""
    return [w.lower() for w in _WORD_RE.findall(_DYNAMIC_RE.sub(" ", message))][:MAX_MESSAGE_WORDS]


def message_phrases(message: str) -> list[str]:
    """Each stretch of a message from one word to the next (`"files. maximum"`), lower-cased, where no dynamic part
    lies between them: the pieces a source literal holds verbatim, however the rest of the message was built."""
    phrases: list[str] = []
    for run in _DYNAMIC_RE.split(message):
        spans = [m.span() for m in _WORD_RE.finditer(run)]
        for a, b in itertools.pairwise(spans):
            first, second = run[a[0] : a[1]].lower(), run[b[0] : b[1]].lower()
            if first not in STOPWORDS or second not in STOPWORDS:  # "in this" is in every file
                phrases.append(run[a[0] : b[1]].lower())
    return list(dict.fromkeys(phrases))


def _is_error_name(name: str) -> bool:
    """True for a type name that is an error by itself: `KeyError`, `java.io.IOException`, `StopIteration`."""
    last = name.rsplit(".", 1)[-1]
    if "." in name and last.islower() and last.endswith(("error", "exception")):
        return True  # `re.error`, `socket.gaierror`: module-level errors named in lower case
    return last in _KNOWN_ERROR_NAMES or (last[:1].isupper() and last.endswith(_ERROR_SUFFIXES) and len(last) > 5)


def _is_weak_error_name(name: str) -> bool:
    """A CamelCase type name of two or more humps (`MalformedRangeHeader`, `BadParameter`): an error type by the
    looks of a line `Name: Message`, though a commit scope (`ClassBuilder: eval once`) looks the same."""
    last = name.rsplit(".", 1)[-1]
    if not last[:1].isupper() or not last.isalnum() or last.isupper():
        return False
    humps = sum(1 for i, ch in enumerate(last) if ch.isupper() and i > 0 and last[i - 1].islower())
    return humps >= 1


def _frame(path: str, line: str, function: str | None) -> StackFrame:
    if path.startswith("file://"):
        path = path[len("file://") :]
    return StackFrame(path, int(line), function or None)


def _go_function(previous: str) -> str | None:
    """`main.(*Server).Start(0x1, ...)` → `Start`; `github.com/x/y.Run(...)` → `Run`."""
    line = _GO_ARGS_RE.sub("", previous.strip())
    if _GO_FUNC_RE.match(line) is None:
        return None
    name = line.removeprefix("created by ").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].strip("()*") or None


def read_frames(lines: list[str]) -> list[StackFrame]:
    """Every stack frame in the lines, in the order printed."""
    frames: list[StackFrame] = []
    for number, line in enumerate(lines):
        if ":" not in line and '"' not in line:
            continue
        stripped = line.lstrip()
        if stripped.startswith("File "):
            m = _PY_FRAME_RE.match(line)
            if m:
                frames.append(_frame(m.group("path"), m.group("line"), m.group("func")))
            continue
        if stripped.startswith("at "):
            for pattern in (_JAVA_FRAME_RE, _CS_FRAME_RE, _RUST_FRAME_RE, _JS_FRAME_RE):
                m = pattern.match(line)
                if m is None:
                    continue
                func = m.groupdict().get("func")
                if pattern is _RUST_FRAME_RE and number > 0:
                    rust = _RUST_FUNC_RE.match(lines[number - 1])
                    func = rust.group("func").rsplit("::", 1)[-1] if rust else None
                elif func:
                    func = func.rsplit(".", 1)[-1].strip("<>") or None
                frames.append(_frame(m.group("path"), m.group("line"), func))
                break
            continue
        if ".go:" in line:
            m = _GO_FRAME_RE.match(line)
            if m:
                func = _go_function(lines[number - 1]) if number > 0 else None
                frames.append(_frame(m.group("path"), m.group("line"), func))
    return frames


def _innermost_first(frames: list[StackFrame], python_order: bool) -> tuple[StackFrame, ...]:
    """Python prints the innermost frame last; the others print it first."""
    return tuple(reversed(frames)) if python_order else tuple(frames)


def _named_error(line: str) -> tuple[str, str, bool] | None:
    """(name, message, strong) of a `Name: message` line, after runtime lead words; None when it is not one."""
    lead = _LEAD_RE.match(line)
    rest = line[lead.end() :] if lead else line
    m = _NAMED_ERROR_RE.match(rest)
    if m is None:
        return None
    name, message = m.group("name"), m.group("msg") or ""
    if not message:
        return None  # a bare name is an error token, not a pasted line
    last = name.rsplit(".", 1)[-1]
    if _is_error_name(name):
        return last, message, True
    if lead is not None and message and _is_weak_error_name(name):
        return last, message, True  # `Caused by: foo.BadThing: ...`
    if message and _is_weak_error_name(name) and not message[0].islower():
        return last, message, False
    return None


def _prefix_error(line: str) -> tuple[str, str] | None:
    """(prefix, message) of `error: message`, `panic: message`, `fatal error: message`."""
    m = _PREFIX_ERROR_RE.match(line)
    if m is None:
        return None
    message = _PANIC_SUFFIX_RE.sub("", m.group("msg"))
    if len(message.split()) < MIN_PREFIXED_MESSAGE_WORDS:
        return None  # `error: str` is a typed field, not a message
    # `Error: TypeError: x` (Node re-throwing): the inner name is the better tie-break.
    return m.group("prefix").lower(), message


def _strip_log_prefix(line: str) -> tuple[str, bool] | None:
    """The message of a log line and whether its level says error; None when the line has no timestamp or level."""
    glog = _GLOG_RE.match(line)
    if glog:
        return glog.group("msg"), line[0] in "EF"
    pylog = _PY_LOGGING_RE.match(line)
    if pylog:
        return pylog.group("msg"), not line.startswith(("INFO", "DEBUG"))
    if "=" in line:
        logfmt = _LOGFMT_MSG_RE.search(line)
        level = _LOGFMT_LEVEL_RE.search(line)
        if logfmt and level:
            message = logfmt.group("quoted") if logfmt.group("quoted") is not None else logfmt.group("bare")
            return message.replace('\\"', '"'), level.group("level").lower() in ("error", "fatal", "panic", "crit")
    rest = line
    stamped = _TIMESTAMP_RE.match(rest)
    if stamped:
        rest = _LOG_DECORATION_RE.sub("", rest[stamped.end() :], count=1).lstrip()
    level = _LEVEL_RE.match(rest)
    if level:
        rest = _LOG_DECORATION_RE.sub("", rest[level.end() :], count=1).lstrip()
        named = _LOGGER_NAME_RE.match(rest)
        if named and stamped:
            rest = rest[named.end() :]
    elif stamped is None:
        return None
    rest = rest.strip()
    words = len(rest.split())
    # `error: str` is a typed field: an unstamped level is written in capitals (`INFO: ...`) before a message.
    if stamped is None and (level is None or not level.group("level").isupper()):
        return None
    if words < (MIN_PREFIXED_MESSAGE_WORDS if stamped is None or level is None else 1):
        return None
    is_error = level is not None and level.group("level").upper() not in ("TRACE", "DEBUG", "INFO", "NOTICE")
    return rest, is_error


def read_pasted(text: str) -> PastedError | None:
    """The error a pasted text shows, or None when it is not an error line, a stack trace or a log line."""
    lines = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return None
    if len(lines) > 1 and _TRACE_MARKER_RE.search(text) is None and not _is_error_excerpt(lines[:1]):
        return None  # several lines, no frame, and the first is no error or log line: code or prose (the common case)
    if len(lines) > MAX_READ_LINES:
        lines = lines[: MAX_READ_LINES // 2] + lines[-MAX_READ_LINES // 2 :]
    frames = read_frames(lines)
    python_order = any(ln.startswith("Traceback (most recent call last)") for ln in lines) or any(
        ln.lstrip().startswith('File "') for ln in lines
    )
    ordered = _innermost_first(frames, python_order)
    # Rust panics name their location on the panic line itself.
    for number, line in enumerate(lines):
        if line.startswith("thread '") and " panicked at " in line:
            m = _RUST_PANIC_RE.match(line)
            if m:
                message = m.group("msg")
                if message is None and number + 1 < len(lines):
                    message = lines[number + 1].strip()
                where = _frame(m.group("path"), m.group("line"), None)
                return PastedError("panic", None, message or "", (where, *ordered))
    # The error line: Python prints it last, the others first; take the last named error for Python, else the first.
    candidates = [ln.strip() for ln in lines if not _is_frame_line(ln)]
    if len(lines) > 1 and not ordered and not _is_error_excerpt(candidates):
        return None  # several lines without a frame: code that mentions an error, unless every line is a log line
    if python_order:
        candidates.reverse()
    weak: PastedError | None = None
    for line in candidates:
        named = _named_error(line)
        if named is not None:
            name, message, strong = named
            form = "traceback" if ordered else "error_line"
            found = PastedError(form, name, message, ordered, certain=strong or bool(ordered))
            if found.certain:
                return found
            weak = weak or found
            continue
        prefixed = _prefix_error(line)
        if prefixed is not None:
            prefix, message = prefixed
            inner = _named_error(message)
            if inner is not None and inner[2]:
                return PastedError("panic" if prefix == "panic" else "error_line", inner[0], inner[1], ordered)
            return PastedError("panic" if prefix == "panic" else "error_line", None, message, ordered)
    if weak is not None:
        return weak
    for line in candidates:
        logged = _strip_log_prefix(line)
        if logged is not None:
            message, _ = logged
            inner = _named_error(message) or None
            if inner is not None and inner[2]:
                return PastedError("log_line", inner[0], inner[1], ordered)
            prefixed = _prefix_error(message)
            if prefixed is not None:
                return PastedError("log_line", None, prefixed[1], ordered)
            return PastedError("log_line", None, message, ordered)
    if ordered:
        return PastedError("stack_frame", None, "", ordered)
    return None


def _is_frame_line(line: str) -> bool:
    stripped = line.lstrip()
    if stripped.startswith(('File "', "at ", "Traceback (most recent call last)", "goroutine ", "...")):
        return True
    return bool(_GO_FRAME_RE.match(line) or _RUST_FUNC_RE.match(line))


def _is_error_excerpt(lines: list[str]) -> bool:
    """True when every line of a frameless paste is an error line or a log line (a log excerpt, not code)."""
    return all(
        _named_error(line) is not None or _prefix_error(line) is not None or _strip_log_prefix(line) is not None
        for line in lines
    )

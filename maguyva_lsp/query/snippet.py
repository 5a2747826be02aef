"""What a pasted code snippet is: its code without a prose lead-in, the names its definition headers define
(`def f`, `class C`, `func F`), and the unit it is (a function, a type, or loose lines).

For `find_similar`, the structural and graph retrievers have something to say only about the defined names; the body's
identifiers name what the snippet uses, not what it is, and matching them adds noise to the fused list. The unit says
which chunks can be the snippet's own: a pasted function is answered by function and method chunks, not by the class
header or the module lines around them.
"""

from __future__ import annotations

import re

from maguyva_lsp.parse.chunker import CHUNK_KINDS

_NAME = r"([A-Za-z_$][\w$]*)"
# One pattern per header shape, anchored at a line start (after indentation, decorators and modifiers).
_HEADER_RES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.MULTILINE)
    for pattern in (
        rf"^\s*(?:async\s+)?def\s+{_NAME}",  # Python
        rf"^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:data\s+)?class\s+{_NAME}",  # Python, JS/TS, Java...
        rf"^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*{_NAME}",  # JS/TS
        rf"^\s*func\s+(?:\([^)]*\)\s*)?{_NAME}",  # Go (with or without a receiver)
        rf"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+{_NAME}",  # Rust
        rf"^\s*(?:export\s+)?(?:interface|struct|enum|trait|type)\s+{_NAME}",  # TS, Go, Rust, C#
        rf"^\s*(?:export\s+)?(?:const|let)\s+{_NAME}\s*=\s*(?:async\s+)?(?:\([^)]*\)|\w+)\s*=>",  # JS arrow functions
    )
)
MAX_SNIPPET_NAMES = 8

# The chunk kinds (parse/chunker.py) a snippet of each unit is answered by.
FUNCTION_KINDS: frozenset[str] = frozenset({"function", "method"})
TYPE_KINDS: frozenset[str] = CHUNK_KINDS - FUNCTION_KINDS - {"module"}

# Lines above a snippet's first real line that do not decide what it is: decorators and annotations (`@app.get`,
# `#[derive]`, `[Fact]`) and comments.
_PREAMBLE_RE = re.compile(r"^\s*(?:@|#\[|\[[A-Z]\w*|#|//|/\*|\*|--)")
_MODIFIERS = (
    r"(?:(?:export|default|public|private|protected|internal|static|final|abstract|sealed|open|override|virtual|"
    r"async|unsafe|inline|extern|const|pub(?:\([^)]*\))?|suspend|synchronized|local)\s+)*"
)
# Words that start a statement or an expression, never a function header's return type or name.
_NOT_STATEMENT = (
    r"(?!(?:if|for|while|switch|catch|return|else|do|try|with|elif|except|new|throw|await|yield|print|raise|assert"
    r"|del|not|and|or|in|is|lambda|case|delete|typeof|go|defer|echo|puts)\b)"
)
# A first line that opens a function: `def`, `fn`, `func`, `fun`, `function`, a JS arrow or method shorthand, or a
# C-family header (`int parse(char *s) {`, `public Config load(Path p)`).
_C_HEADER = (  # `int parse(char *s) {`, `public Config load(Path p) throws IOException`: a type, then a name
    r"(?:" + _NOT_STATEMENT + r"[\w$<>\[\]*&:,.?]+\s+)+[*&]?[\w$]+\s*\([^;]*\)\s*"
    r"(?::\s*[^{;=]+|throws\s+[\w.,\s]+|const)?\s*\{?"
)
_METHOD_SHORTHAND = r"[\w$]+\s*\([^;]*\)\s*(?:->\s*[^{;]+|:\s*[^{;=]+)?\s*\{"  # `render() {` (JS/TS, Kotlin...)
_FUNCTION_HEAD_RE = re.compile(
    r"^\s*" + _MODIFIERS + r"(?:def\s+\w|fn\s+\w|fun\s+[\w.<]|func\s*[\w(]|function\b"
    r"|(?:(?:const|let|var)\s+)?[\w$.]+\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[\w$]+\s*=>)"
    r"|" + _NOT_STATEMENT + r"(?:" + _C_HEADER + r"|" + _METHOD_SHORTHAND + r")\s*$)"
)
_TYPE_HEAD_RE = re.compile(
    r"^\s*" + _MODIFIERS + r"(?:data\s+|case\s+)?(?:class|interface|struct|enum|trait|impl|object|record|protocol)\b"
    r"|^\s*type\s+\w+\s+(?:struct|interface)\b"
)
# A lead-in a user types above what they paste (`find code similar to:`, `Here is the function:`): words and a colon,
# no code punctuation, and not a line of code that ends in a colon (`else:`, `try:`, `class A:`).
_LEAD_IN_RE = re.compile(r"^\s*[A-Za-z][A-Za-z' ,-]*\s[A-Za-z' ,-]*:\s*$")
_CODE_COLON_RE = re.compile(r"^\s*(?:class|def|async|if|elif|else|for|while|try|except|finally|with|case|match)\b")


def defined_names(snippet: str) -> list[str]:
    """The names a snippet defines, in order of appearance, without repeats (at most MAX_SNIPPET_NAMES)."""
    found: list[tuple[int, str]] = []
    for pattern in _HEADER_RES:
        found.extend((m.start(1), m.group(1)) for m in pattern.finditer(snippet))
    names = list(dict.fromkeys(name for _, name in sorted(found)))
    return names[:MAX_SNIPPET_NAMES]


def snippet_code(text: str) -> str:
    """The pasted code alone: a first line of prose ending in a colon (`find code similar to:`) is dropped."""
    first, newline, rest = text.lstrip("\n").partition("\n")
    if newline and rest.strip() and _LEAD_IN_RE.match(first) and not _CODE_COLON_RE.match(first):
        return rest
    return text


def snippet_kinds(code: str) -> frozenset[str] | None:
    """The chunk kinds that can be the snippet's own, from its first line that is neither blank, a decorator nor a
    comment: FUNCTION_KINDS when it opens a function, TYPE_KINDS when it opens a type, None (any chunk) otherwise."""
    for line in code.split("\n"):
        if not line.strip() or _PREAMBLE_RE.match(line):
            continue
        if _TYPE_HEAD_RE.match(line):
            return TYPE_KINDS
        if _FUNCTION_HEAD_RE.match(line):
            return FUNCTION_KINDS
        return None
    return None

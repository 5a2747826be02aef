"""Python definitions without a parse: a scanner that finds what the tree-sitter tag query finds, or declines.

The first pass of a server's cold build only needs each file's definitions (for the symbol table and the chunks).
Over the standard library's 1,790 Python files, tree-sitter's parse and tag query take 9.9 s CPU; this scanner takes
3.5 s and gives the same definitions, field for field, for every file it reads (all but 11 there; 6,298 of 6,334 in a
venv's site-packages and the dev set's Python corpora). It masks strings and comments with one regex `split`, takes
bracket depth, line continuations and indentation as numpy arrays, reads every `def` and `class` at once (header
colon, body, block end, decorators) and the rarer lambda bindings and module-level UPPER_CASE assignments one by
one, with the spans, parents, kinds and signatures `parse/tags.py` gives. tree-sitter-python's rules it follows: a
block ends at its last statement, or at the trailing comment lines indented at least as deep as its body that follow
it (up to the first shallower one), its last line's trailing comment included; a statement ends at its last token;
a signature runs up to the body's first statement (a comment between included), a constant's to the end of its
first line or to the body of a comprehension that is its whole value.

It declines (returns None, and the caller parses) wherever its reading could differ from the grammar's: tabs or form
feeds in indentation, CRLF, an unterminated string, unbalanced brackets, a constant or lambda binding sharing its
line with another statement, inconsistent dedents, a lambda bound anywhere but at the start of a statement or
holding another lambda, a non-ASCII name. The second pass parses every file anyway and replaces what this produced;
`tests/unit/parse/test_python_outline.py` compares both on crafted forms and on real standard library packages.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from maguyva_lsp.model import Definition, Span
from maguyva_lsp.parse.positions import LineIndex
from maguyva_lsp.parse.python_lines import DeclineError, PythonLines
from maguyva_lsp.parse.tags import ContainerStack, final_kind, signature_text

log = logging.getLogger(__name__)

I64 = npt.NDArray[np.int64]

_NAME = rb"[A-Za-z_][A-Za-z0-9_]*"
# One literal each, which the regex engine finds by a fast search (an alternation tries every `c` and `d`).
_DEF = re.compile(rb"def[ ]+(" + _NAME + rb")")
_CLASS = re.compile(rb"class[ ]+(" + _NAME + rb")")
_BLOCK_LEAD = re.compile(rb"[ ]*(?:async[ ]+)?")
# `lambda` is rare: find it first, then read the binding before it.
_LAMBDA = re.compile(rb"lambda(?![A-Za-z0-9_])")
_LAMBDA_EQUALS = re.compile(rb"(?<![=<>!+\-*/%&|^@:])=[ ]*\Z")
_BINDING_TARGET = re.compile(rb"(" + _NAME + rb")[ ]*(?::[^=]*)?")
# A target that binds no name (`self.x = lambda`, `table[k] = lambda`): no definition, nothing to decline.
_ATTRIBUTE_TARGET = re.compile(rb"[A-Za-z_][A-Za-z0-9_. ]*(?:\[[^=]*\])?[ ]*")
_CONSTANT = re.compile(rb"\n(_*[A-Z][A-Z0-9_]*)[ ]*(:|=(?!=))")
_FOR = re.compile(rb"(?<![A-Za-z0-9_])for(?![A-Za-z0-9_])")
_NON_ASCII_NAME_TAIL = re.compile(rb"[\x80-\xff]")
# A definition whose name starts with a character outside ASCII, which the patterns above would not see.
_NON_ASCII_BINDING = re.compile(rb"[\x80-\xff][ ]*(?::[^=\n]*)?=[ ]*lambda")
_NON_ASCII_BLOCK = re.compile(rb"(?:def|class)[ ]+[\x80-\xff]")

_AT, _C = ord("@"), ord("c")
_COLON, _OPEN_PAREN = ord(":"), ord("(")
_OPEN_SET, _CLOSE_SET = frozenset(b"([{"), frozenset(b")]}")
# tags.py's pattern order in python-tags.scm: a lambda binding (pattern 2) wins over a constant (pattern 3) on one node.
_LAMBDA_PATTERN, _CONSTANT_PATTERN = 2, 3
# A row's kind as a code in its column.
_FUNCTION_CODE, _CLASS_CODE, _CONSTANT_CODE = 0, 1, 2
_KINDS = ("function", "class", "constant")
_ROW_COLUMNS = ("start", "end", "name_start", "name_end", "signature_start", "signature_end", "kind_code")


@dataclass(frozen=True, slots=True)
class _Row:
    pattern: int
    kind: str
    start: int  # the outer start (the first decorator), bytes
    end: int
    node_start: int  # the definition node's start (the `def`, `async`, `class` or the bound name)
    name_start: int
    name_end: int
    signature_start: int
    signature_end: int  # where the body starts (or the first line ends, for a constant)

    @property
    def kind_code(self) -> int:
        return _CONSTANT_CODE if self.kind == "constant" else _FUNCTION_CODE


def python_definitions(source: bytes, path: str, lines: LineIndex | None = None) -> list[Definition] | None:
    """The file's definitions as `tags.extract_definitions` gives them for Python, or None where it declines."""
    if not source.strip():
        return []
    try:
        return _Scanner(source).definitions(path, lines if lines is not None else LineIndex(source))
    except DeclineError:
        return None
    except Exception:  # a scanner bug must not cost the file: it is parsed instead (9,000 mutated files raised none)
        log.exception("the outline scanner failed on %s; parsing it instead", path)
        return None


class _Scanner(PythonLines):
    """The definitions of one file's lines: blocks (`def`, `class`: nearly all definitions) read for all matches at
    once in numpy, the rarer lambda bindings and constants one by one."""

    def __init__(self, source: bytes) -> None:
        if not source.isascii() and (_NON_ASCII_BLOCK.search(source) or _NON_ASCII_BINDING.search(source)):
            raise DeclineError
        super().__init__(source)

    def definitions(self, path: str, lines: LineIndex) -> list[Definition]:
        blocks = self._blocks()
        bindings = self._lambdas() + self._constants()
        if len(blocks[0]) == 0 and not bindings:
            return []
        best: dict[tuple[int, int, int], _Row] = {}
        for row in bindings:  # a lambda bound to an UPPER_CASE name is both patterns' match: the earlier one wins
            key = (row.node_start, row.end, row.name_start)
            previous = best.get(key)
            if previous is None or row.pattern < previous.pattern:
                best[key] = row
        kept = list(best.values())
        columns = [
            np.concatenate((column, np.array([getattr(r, name) for r in kept], dtype=np.int64)))
            for column, name in zip(blocks, _ROW_COLUMNS, strict=True)
        ]
        start, end, name_start, name_end, signature_start, signature_end, pattern_kind = columns
        order = np.lexsort((name_start, -end, start))
        start, end, name_start, name_end = start[order], end[order], name_start[order], name_end[order]
        count = len(order)
        rows, cols, end_rows, end_cols = (
            column.tolist()
            for column in lines.positions(np.concatenate((start, name_start)), np.concatenate((end, name_end)))
        )
        source = self.source
        result: list[Definition] = []
        containers = ContainerStack()
        for i, (first, last, named, named_end, sign, signed, kind_code) in enumerate(
            zip(
                start.tolist(),
                end.tolist(),
                name_start.tolist(),
                name_end.tolist(),
                signature_start[order].tolist(),
                signature_end[order].tolist(),
                pattern_kind[order].tolist(),
                strict=True,
            )
        ):
            enclosing = containers.enclosing(last)
            parent = enclosing[0] if enclosing else None
            kind = final_kind(_KINDS[kind_code], enclosing)
            name = source[named:named_end].decode("ascii")
            j = count + i
            result.append(
                Definition(
                    name,
                    kind,
                    path,
                    Span(rows[i], cols[i], end_rows[i], end_cols[i]),
                    Span(rows[j], cols[j], end_rows[j], end_cols[j]),
                    signature_text(source, sign, signed, has_body=kind_code != _CONSTANT_CODE, kind=kind),
                    parent,
                    "python",
                )
            )
            containers.open(first, last, parent=parent, name=name, kind=kind, owner=i)
        return result

    def _check_name(self, name_end: int) -> None:
        if not self.ascii and _NON_ASCII_NAME_TAIL.match(self.source, name_end):
            raise DeclineError

    def _blocks(self) -> tuple[I64, ...]:
        """Every `def` and `class` as columns (start, end, name start, name end, signature start, signature end,
        kind code): the header's colon, the body, the block's end and the decorators for all of them at once."""
        code = self.code
        matches = [(m.start(), m.start(1), m.end(1)) for m in _DEF.finditer(code)]
        matches += [(m.start(), m.start(1), m.end(1)) for m in _CLASS.finditer(code)]
        if not matches:
            return tuple(np.zeros(0, dtype=np.int64) for _ in _ROW_COLUMNS)
        keyword, name_start, name_end = np.array(matches, dtype=np.int64).T
        line = np.searchsorted(self.starts, keyword, side="right") - 1
        line_start = self.starts[line]
        indent = self.indents[line]
        statement = self.logical_lines[line] & (keyword - line_start == indent)
        for i in np.flatnonzero(self.logical_lines[line] & ~statement).tolist():  # `async def`
            lead = _BLOCK_LEAD.match(code, int(line_start[i]), int(keyword[i]))
            statement[i] = lead is not None and lead.end() == keyword[i]
        keyword, name_start, name_end = keyword[statement], name_start[statement], name_end[statement]
        line, line_start, indent = line[statement], line_start[statement], indent[statement]
        if not self.ascii:
            for end in name_end.tolist():
                self._check_name(end)
        node_start = line_start + indent
        is_class = self.code_array[keyword] == _C
        self._check_headers(name_end, is_class)
        colons = np.flatnonzero((self.code_array == _COLON) & (self.depth == 0))
        which = np.searchsorted(colons, name_end)
        if len(which) and int(which.max()) >= len(colons):
            raise DeclineError
        colon = colons[which]
        body_start = self.next_codes(colon + 1)
        colon_line = np.searchsorted(self.starts, colon, side="right") - 1
        if np.any(colon_line > self.statement_last_at[line]):
            raise DeclineError  # no colon ends the header's statement: not a definition (prose, broken code)
        one_line = body_start < self.ends[colon_line]
        end = np.empty(len(keyword), dtype=np.int64)
        # a one-line body: its statement, trailing comment included
        end[one_line] = self.last_seen(self.statement_last_at[line[one_line]])
        nested = ~one_line
        end[nested] = self._block_ends(colon_line[nested], indent[nested])
        start = self._decorated_starts(line, indent, node_start)
        kind = np.where(is_class, _CLASS_CODE, _FUNCTION_CODE)
        return start, end, name_start, name_end, node_start, body_start, kind

    def _check_headers(self, name_end: I64, is_class: npt.NDArray[np.bool_]) -> None:
        """Decline unless each name is followed by what a header allows there: `(` after a function's, `(` or `:`
        after a class's (a type parameter list, `class A[T]:`, is newer than the scanner)."""
        following = self.next_codes(name_end)
        if len(following) and int(following.max()) >= self.size:
            raise DeclineError
        after = self.code_array[following]
        if not np.all((after == _OPEN_PAREN) | (is_class & (after == _COLON))):
            raise DeclineError

    def _block_ends(self, header_line: I64, indent: I64) -> I64:
        """Where blocks whose headers end on these lines end: each one's last statement's line, or the trailing
        comment lines indented at least as deep as its body that follow it before the dedent (tree-sitter-python's
        rule)."""
        statements = self.statements
        first = np.searchsorted(statements, header_line, side="right")
        if len(first) and int(first.max()) >= len(statements):
            raise DeclineError
        body_indent = self.indents[statements[first]]
        if np.any(body_indent <= indent):
            raise DeclineError
        stop_index = np.empty(len(first), dtype=np.int64)
        for level in np.unique(body_indent).tolist():
            chosen = body_indent == level
            stop_index[chosen] = self.shallower_after(level)[first[chosen]]
        inside = stop_index < len(statements)
        stop_line = np.full(len(first), self.line_count, dtype=np.int64)
        stop_line[inside] = statements[stop_index[inside]]
        if np.any(self.indents[stop_line[inside]] > indent[inside]):
            raise DeclineError  # a dedent to no enclosing level
        end_line = self.code_lines[np.searchsorted(self.code_lines, stop_line) - 1]
        comments = self.comment_lines
        low = np.searchsorted(comments, end_line, side="right")
        high = np.searchsorted(comments, stop_line)
        for i in np.flatnonzero(high > low).tolist():
            level = int(body_indent[i])
            for comment in comments[low[i] : high[i]].tolist():
                if self.comment_indents[comment] < level:
                    break
                end_line[i] = comment
        return self.last_seen(end_line)

    def _decorated_starts(self, line: I64, indent: I64, node_start: I64) -> I64:
        """Each span's start: the first of the decorators directly above (comments between them are allowed)."""
        start = node_start.copy()
        statements = self.statements
        position = np.searchsorted(statements, line)
        previous = statements[np.maximum(position - 1, 0)]
        at = np.minimum(self.starts[previous] + indent, self.size - 1)
        decorated = (position > 0) & (self.indents[previous] == indent) & (self.code_array[at] == _AT)
        for i in np.flatnonzero(decorated).tolist():
            step, level = int(position[i]), int(indent[i])
            while step > 0:
                above = int(statements[step - 1])
                offset = int(self.starts[above]) + level
                if self.indents[above] != level or self.code[offset] != _AT:
                    break
                start[i] = offset
                step -= 1
        return start

    def _lambdas(self) -> list[_Row]:
        rows: list[_Row] = []
        code = self.code
        for match in _LAMBDA.finditer(code):
            keyword = match.start()
            line_start = self.line_starts[self.line_of(keyword)]
            equals = _LAMBDA_EQUALS.search(code, line_start, keyword)
            if equals is None or self.depth[keyword] != 0:
                continue  # not a binding's value, or a keyword argument or default inside brackets
            line = self.logical_of(self.line_of(equals.start()))
            begin = self.line_starts[line] + self.indent[line]
            target = _BINDING_TARGET.fullmatch(code, begin, equals.start())
            if target is None:
                if _ATTRIBUTE_TARGET.fullmatch(code, begin, equals.start()):
                    continue
                raise DeclineError  # `a = b = lambda`, `if x: f = lambda`: bindings the scanner does not place
            name_start, name_end = target.span(1)
            self._check_name(name_end)
            keyword_end = match.end()
            statement_end = self.statement_end(line)
            self._check_one_statement(begin, statement_end)
            if code.find(b"lambda", keyword_end, statement_end) >= 0:
                raise DeclineError  # nested lambdas: the parameters' colon need not be the first one
            colon = self.colon(keyword_end)
            if colon >= statement_end:
                raise DeclineError  # a lambda without its colon: broken code
            if self.find_at_depth(b",", colon, statement_end) >= 0:
                raise DeclineError  # `f = lambda: 0, 1` binds a tuple
            body_start = self.next_code(colon + 1)
            rows.append(
                _Row(_LAMBDA_PATTERN, "function", begin, statement_end, begin, name_start, name_end, begin, body_start)
            )
        return rows

    def _check_one_statement(self, begin: int, end: int) -> None:
        """Decline a logical line that holds more than one statement (`X = 1; Y = 2`)."""
        if self.semicolons and self.find_at_depth(b";", begin, end) >= 0:
            raise DeclineError

    def _constants(self) -> list[_Row]:
        rows: list[_Row] = []
        # a newline before the code finds a constant on the first line too; each offset moves by one
        for match in _CONSTANT.finditer(b"\n" + self.code):
            begin = match.start()  # the line after the matched newline, in the code's own offsets
            line = self.line_of(begin)
            if not self.logical[line]:
                continue
            name_start, name_end = match.start(1) - 1, match.end(1) - 1
            self._check_name(name_end)
            end = self.statement_end(line)
            self._check_one_statement(begin, end)
            value_from = match.end() - 1
            if match.group(2) == b":":  # an annotation, then maybe a value
                equals = self.find_at_depth(b"=", value_from, end)
                value_from = equals + 1 if equals >= 0 else end
            signature_end = self._comprehension_body(value_from, end)
            if signature_end < 0:  # no body: the first line
                first_newline = self.source.find(b"\n", begin, end)
                signature_end = end if first_newline < 0 else first_newline
            rows.append(
                _Row(_CONSTANT_PATTERN, "constant", begin, end, begin, name_start, name_end, begin, signature_end)
            )
        return rows

    def _comprehension_body(self, value_from: int, end: int) -> int:
        """Where the body of a comprehension that is the whole value starts (tags.py reads a value's `body` field for
        the signature: `X = [c for c in y]` → `X = [`), or -1."""
        value = self.next_code(value_from)
        code = self.code
        if value >= end or code[value] not in _OPEN_SET or code[end - 1] not in _CLOSE_SET:
            return -1
        inner = int(self.depth[value])
        closes = np.flatnonzero(self.depth[value:end] == inner - 1)
        if len(closes) == 0 or value + int(closes[0]) != end - 1:
            return -1  # the bracket closes before the value ends: `[a] + [b]`
        for keyword in _FOR.finditer(code, value + 1, end - 1):
            if self.depth[keyword.start()] == inner:
                return self.next_code(value + 1)
        return -1

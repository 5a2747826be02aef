"""Cases about text, sampled with a fixed seed: quoted strings (right answers from grep -F), pasted functions with their
local names and parameters renamed (the original must come back), and the hand-labelled natural-language questions.
"""

from __future__ import annotations

import ast
import json
import os
import random
import re
import subprocess
import textwrap
from pathlib import Path

from benchmarks.cases import Case, GrepSpec, Target
from benchmarks.cases_symbols import is_library_code
from benchmarks.truth_ctags import Tag

GREP = "/usr/bin/grep"
LITERAL_CHARS = (12, 60)  # length range of sampled string literals
LITERAL_FILES = 120  # files whose string literals are harvested
_LITERAL_RE = re.compile(r"^[A-Za-z0-9 ,.:;!?()\[\]{}<>=+*/%&|^~@#$_-]+$")  # printable, no quotes or backslashes
SNIPPET_LINES = (6, 40)  # body length range of functions pasted as find_similar queries
MIN_RENAMED = 2  # a pasted function must have at least this many locals and parameters to rename
NEW_NAMES = (
    "alpha", "bravo", "carrier", "delta_v", "entry_x", "fox", "glyph", "holder", "item_y", "jumble", "knot", "lumen",
    "morsel", "nub", "orb", "parcel", "quill", "rivet", "sprig", "tally", "umber", "vessel", "widget", "yarn",
)  # fmt: skip
_KEEP_NAMES = frozenset({"self", "cls"})
STOPWORDS_EN = frozenset(
    "a an and are as at be but by for from has have how i if in into is it its of on or that the their then there "
    "these they this to was what when where which while who why will with does do done".split()
)


def grep_files(root: Path, files: list[str], literal: str) -> list[str]:
    """The files that `grep -F` finds the literal in (byte-exact, case-sensitive)."""
    done = subprocess.run(
        [GREP, "-F", "-l", "-e", literal, "--", *files],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
    )
    return sorted(line for line in done.stdout.splitlines() if line)


def _literals(root: Path, path: str) -> list[str]:
    try:
        source = (root / path).read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []
    lines = source.splitlines()
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in docstrings:
            continue
        value = node.value
        if not LITERAL_CHARS[0] <= len(value) <= LITERAL_CHARS[1] or not _LITERAL_RE.match(value):
            continue
        if node.lineno == node.end_lineno and value in lines[node.lineno - 1]:  # written as is, no escapes
            out.append(value)
    return out


def exact_cases(root: Path, files: list[str], count: int, seed: int) -> list[Case]:
    """Quoted string literals of library code; right answers: every file grep -F finds them in."""
    rng = random.Random(seed)
    library = [p for p in files if p.endswith(".py") and is_library_code(p)]
    harvested = sorted(
        {lit for path in rng.sample(library, min(LITERAL_FILES, len(library))) for lit in _literals(root, path)}
    )
    cases: list[Case] = []
    for literal in rng.sample(harvested, min(count, len(harvested))):
        found = grep_files(root, files, literal)
        if not found:
            continue
        query = f'find the string "{literal}"' if len(cases) % 4 == 3 else f'"{literal}"'
        cases.append(
            Case(
                intent="exact_match",
                query=query,
                unit="file",
                relevant=tuple(Target(f) for f in found),
                grep=GrepSpec((literal,)),
                label=literal,
            )
        )
    return cases


def _renamed(source: str, rng: random.Random) -> str | None:
    """The function with its parameters and local names renamed, or None when that cannot be done safely."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    function = tree.body[0] if tree.body else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    declared = {n for node in ast.walk(function) if isinstance(node, ast.Global | ast.Nonlocal) for n in node.names}
    caught = {node.name for node in ast.walk(function) if isinstance(node, ast.ExceptHandler) and node.name}
    local = {a.arg for a in ast.walk(function) if isinstance(a, ast.arg)}
    local |= {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local -= declared | caught | _KEEP_NAMES
    if len(local) < MIN_RENAMED:
        return None
    taken = set(re.findall(r"[A-Za-z_]\w*", source))
    fresh = [n for n in rng.sample(NEW_NAMES, len(NEW_NAMES)) if n not in taken]
    if len(fresh) < len(local):
        return None
    mapping = dict(zip(sorted(local), fresh, strict=False))
    edits: list[tuple[int, int, int, str]] = []  # (line, byte column, byte length, new name)
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id in mapping:
            edits.append((node.lineno, node.col_offset, len(node.id.encode()), mapping[node.id]))
        elif isinstance(node, ast.arg) and node.arg in mapping:
            edits.append((node.lineno, node.col_offset, len(node.arg.encode()), mapping[node.arg]))
    lines = [line.encode() for line in source.split("\n")]
    for line, column, length, name in sorted(edits, reverse=True):
        raw = lines[line - 1]
        lines[line - 1] = raw[:column] + name.encode() + raw[column + length :]
    renamed = b"\n".join(lines).decode()
    return renamed if _same_but_renamed(source, renamed, mapping) else None


def _same_but_renamed(original: str, renamed: str, mapping: dict[str, str]) -> bool:
    """The renamed text parses to the original tree with exactly the mapped names replaced (f-string positions in
    old Pythons can be off; such functions are rejected rather than mangled)."""

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            node.id = mapping.get(node.id, node.id)
            return node

        def visit_arg(self, node: ast.arg) -> ast.AST:
            node.arg = mapping.get(node.arg, node.arg)
            return node

    try:
        parsed = ast.parse(renamed).body[0]
    except (SyntaxError, IndexError):
        return False
    expected = Rename().visit(ast.parse(original).body[0])
    return ast.dump(expected) == ast.dump(parsed)


def similar_cases(root: Path, tags: list[Tag], count: int, seed: int) -> list[Case]:
    """Library functions pasted with their locals and parameters renamed; the right answer: the original."""
    rng = random.Random(seed)
    pool = [
        t
        for t in tags
        if t.kind in ("function", "member")
        and t.end is not None
        and SNIPPET_LINES[0] <= t.end - t.line <= SNIPPET_LINES[1]
        and is_library_code(t.path)
    ]
    cases: list[Case] = []
    for tag in rng.sample(pool, len(pool)):
        assert tag.end is not None
        lines = (root / tag.path).read_text(encoding="utf-8", errors="replace").split("\n")
        source = textwrap.dedent("\n".join(lines[tag.line : tag.end + 1]))
        renamed = _renamed(source, rng)
        if renamed is None:
            continue
        longest = max((ln.strip() for ln in renamed.split("\n")), key=len)
        cases.append(
            Case(
                intent="find_similar",
                query=renamed,
                unit="span",
                relevant=(Target(tag.path, tag.line, tag.end),),
                grep=GrepSpec((longest,)),
                label=f"{tag.path}:{tag.line + 1} {tag.query_name}",
            )
        )
        if len(cases) == count:
            break
    return cases


def question_cases(questions_file: Path, files: frozenset[str]) -> list[Case]:
    """The hand-labelled questions whose answering files are in the corpus; right answers: those files."""
    data = json.loads(questions_file.read_text(encoding="utf-8"))
    cases = []
    for item in data["questions"]:
        wanted = sorted(f for f in item["files"] if f in files)
        if not wanted:
            continue
        words = tuple(
            dict.fromkeys(
                w for w in re.findall(r"[a-z0-9]+", item["q"].lower()) if len(w) > 2 and w not in STOPWORDS_EN
            )
        )
        cases.append(
            Case(
                intent="understand_code",
                query=item["q"],
                unit="file",
                relevant=tuple(Target(f) for f in wanted),
                grep=GrepSpec(words, words=True, ignore_case=True, rank_by_count=True),
                label=item["q"],
            )
        )
    return cases

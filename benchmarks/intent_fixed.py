"""The classification corpus's fixed sample: only sources that are the same for a given checkout and interpreter, so
that the test suite's gate (tests/benchmarks/test_intent_corpus.py) gives the same figures on every machine of a kind,
whatever else is installed (an extra package in the venv, Debian's changelogs of whatever apt installed, npm's version,
a JDK, the dev set's presence beside the checkout). The broader corpus of benchmarks/intent_corpus.py reads what the
machine has; benchmarks/bench_intents.py reports both.

Sources, all read from the running interpreter's own tree (nothing is committed, nothing comes from the network):
- the standard library, and the pip and setuptools wheels that `ensurepip` bundles with it (written by others, pinned
  by the interpreter): docstring and comment first lines (understand_code), raise sites and logging calls rendered as
  printed (exact_match), function bodies (find_similar) — the same readers as the broader corpus;
- `news`: the change entries of IDLE's NEWS files (`gh-NNN: Fix ...`), cleaned as the dev set cleans commit subjects
  (understand_code): descriptions of changes, like the dev set's commit subjects;
- `question`: the dev set's question forms for the symbol families (its README: `where is X defined`, `def X`, a bare
  identifier, `who calls X`, `what breaks if I change X` ...) and for literals (`"..."`, `find the string "..."`,
  a bare error token), filled with names and string literals these sources define.
"""

from __future__ import annotations

import ast
import random
import re
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

from intent_corpus import (
    SOURCE_TOTAL,
    Labelled,
    PythonSource,
    _capped,
    clean_subject,
    python_items,
    source_wanted,
    stdlib_root,
    tree_sources,
)

# Python files read for the sample (of about 1,000 in the stdlib and the bundled wheels).
FIXED_PYTHON_FILES = 500
# Per family of rendered questions: how many, and at most how many from one package.
QUESTION_TOTAL = {
    "find_definition": 250,
    "find_references": 180,
    "impact_analysis": 180,
    "exact_match": 220,
}
QUESTIONS_PER_REPO = 8
NEWS_TOTAL = 400

# The dev set README's forms, per family (its `phrasing` field).
DEFINITION_FORMS = ("where_defined", "keyword", "bare", "definition_of", "qualified")
REFERENCE_FORMS = ("who calls {}", "usages of {}", "references to {}", "where is {} used")
IMPACT_FORMS = ("what breaks if I change {}", "impact of changing {}", "blast radius of {}", "what depends on {}")
LITERAL_FORMS = ('"{}"', 'find the string "{}"', 'search for "{}"')

_ERROR_TOKEN_RE = re.compile(r"[A-Z]\w*(?:Error|Exception)$")
# A name as written in code rather than a word: an inner underscore or capital (the dev set's bare identifiers).
_CODE_NAME_RE = re.compile(r"[A-Za-z_]\w*(?:_[A-Za-z0-9]|[a-z][A-Z])\w*")
_LITERAL_RE = re.compile(r"[\w.:/@#%-]+(?: [\w.:/@#%'-]+){0,5}")


def bundled_wheels() -> list[Path]:
    return sorted((stdlib_root() / "ensurepip" / "_bundled").glob("*.whl"))


def wheel_sources(wheel: Path) -> list[PythonSource]:
    """The Python files of a wheel (vendored copies and tests left out), labelled like site-packages' files."""
    out: list[PythonSource] = []
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".py"))
    for name in names:
        parts = tuple(name.split("/"))
        if source_wanted(parts) and not parts[0].endswith((".dist-info", ".data")):
            out.append(PythonSource(parts[0].removesuffix(".py"), name, _member_reader(wheel, name)))
    return out


def _member_reader(wheel: Path, name: str) -> Callable[[], str]:
    def read() -> str:
        with zipfile.ZipFile(wheel) as archive:
            return archive.read(name).decode("utf-8")

    return read


def fixed_python_files(rng: random.Random) -> list[PythonSource]:
    """The stdlib of the running interpreter and the wheels its ensurepip bundles, in a seeded order."""
    out = tree_sources(stdlib_root(), "stdlib/")
    for wheel in bundled_wheels():
        out.extend(wheel_sources(wheel))
    rng.shuffle(out)
    return out


# --- IDLE's NEWS --------------------------------------------------------------------------------------------------

_NEWS_ENTRY_RE = re.compile(r"^(?:- )?(?:(?:gh|bpo)-\d+:?|Issue #?\d+:)\s*(?P<s>\S.*)$|^- (?P<d>[A-Za-z].*)$")
_SENTENCE_END_RE = re.compile(r"(?<![A-Z])(?<!\be\.g)(?<!\bi\.e)\.(?:\s|$)")


def news_subjects(text: str) -> Iterator[str]:
    """The first sentence of each entry of a NEWS file (an entry opens with its ticket or a dash and runs to the blank
    line), ticket references dropped."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        m = _NEWS_ENTRY_RE.match(line)
        if not m:
            continue
        entry = [m.group("s") or m.group("d")]
        for nxt in lines[number + 1 :]:
            if not nxt.strip() or _NEWS_ENTRY_RE.match(nxt):
                break
            entry.append(nxt.strip())
        joined = " ".join(entry)
        end = _SENTENCE_END_RE.search(joined)
        yield joined[: end.start()] if end else joined


def news_items(rng: random.Random) -> list[Labelled]:
    subjects: list[str] = []
    for path in sorted((stdlib_root() / "idlelib").glob("NEWS*.txt")):
        subjects.extend(s for s in (clean_subject(x) for x in news_subjects(path.read_text("utf-8"))) if s)
    unique = list(dict.fromkeys(subjects))
    rng.shuffle(unique)
    return [Labelled(s, "understand_code", "news", "stdlib/idlelib") for s in unique[:NEWS_TOTAL]]


# --- questions in the dev set's forms ------------------------------------------------------------------------------


def _definitions(tree: ast.Module) -> Iterator[tuple[str, str, str | None]]:
    """(name, kind, enclosing class) of the functions, classes and methods a module defines."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, "function", None
        elif isinstance(node, ast.ClassDef):
            yield node.name, "class", None
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield member.name, "method", node.name


def _literals(tree: ast.Module) -> Iterator[str]:
    """String literals a person might search for: a word, a name or a short phrase, not a docstring."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
            if 4 <= len(text) <= 48 and '"' not in text and _LITERAL_RE.fullmatch(text) and re.search("[a-z]{3}", text):
                yield text


def definition_question(name: str, kind: str, parent: str | None, rng: random.Random) -> str | None:
    form = rng.choice(DEFINITION_FORMS)
    if form == "qualified":
        return f"where is {parent}.{name} defined" if parent else None
    if form == "keyword":
        return f"{'class' if kind == 'class' else 'def'} {name}"
    if form == "bare":
        return name if _CODE_NAME_RE.fullmatch(name) else None
    return f"where is {name} defined" if form == "where_defined" else f"definition of {name}"


def question_items(files: list[PythonSource], rng: random.Random) -> list[Labelled]:
    """Questions of the symbol families and literal searches, in the dev set's forms, about what the files define."""
    found: dict[str, list[Labelled]] = defaultdict(list)
    per_repo: dict[tuple[str, str], int] = defaultdict(int)

    def add(family: str, repo: str, query: str | None) -> None:
        if query and per_repo[(family, repo)] < QUESTIONS_PER_REPO:
            per_repo[(family, repo)] += 1
            found[family].append(Labelled(query, family, "question", repo))

    for file in files:
        try:
            tree = ast.parse(file.read())
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        names = [d for d in _definitions(tree) if len(d[0]) >= 3]
        rng.shuffle(names)
        for name, kind, parent in names[:6]:
            family = rng.choice(("find_definition", "find_references", "impact_analysis"))
            if family == "find_definition":
                add(family, file.repo, definition_question(name, kind, parent, rng))
            else:
                forms = REFERENCE_FORMS if family == "find_references" else IMPACT_FORMS
                add(family, file.repo, rng.choice(forms).format(name))
            if kind == "class" and _ERROR_TOKEN_RE.fullmatch(name) and rng.random() < 0.5:
                add("exact_match", file.repo, name)
        literals = list(dict.fromkeys(_literals(tree)))
        rng.shuffle(literals)
        for literal in literals[:2]:
            add("exact_match", file.repo, rng.choice(LITERAL_FORMS).format(literal))
    items: list[Labelled] = []
    for family, total in QUESTION_TOTAL.items():
        unique = list({item.query: item for item in found[family]}.values())
        items.extend(_capped(unique, total, rng))
    return items


def build_fixed_corpus(seed: int = 13, *, max_python_files: int = FIXED_PYTHON_FILES) -> list[Labelled]:
    """The sample the test suite judges the rules on: the same on every machine for a given checkout and interpreter."""
    rng = random.Random(seed)
    files = fixed_python_files(rng)[:max_python_files]
    python = python_items(files, rng, max_python_files)
    items = news_items(rng)
    for source in ("docstring", "comment", "raise", "log", "function"):
        items.extend(_capped(python[source], SOURCE_TOTAL[source], rng))
    items.extend(question_items(files, rng))
    return items

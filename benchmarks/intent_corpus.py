"""A labelled classification corpus from sources this team does not write, built on the running machine.

Sources (each item keeps the repository or package it came from, for a held-out split by repository):
- `devset`: every question of the dev set (`shared/devset/queries`), labelled by its family;
- `git`: commit subjects of this repository's history (cleaned as the dev set cleans them) → understand_code;
- `changelog`: commit subjects from the upstream changelogs Debian installs (`/usr/share/doc/*/changelog.gz`: git
  shortlogs, curl-style and GNU-style entries) → understand_code;
- `docstring`, `comment`: first lines of docstrings and of comment blocks in the stdlib and installed packages →
  understand_code;
- `raise`, `log`: raise sites and logging calls of Python sources, `throw`: throw sites of JavaScript (npm's own
  packages) and Java (a JDK's src.zip), rendered as the line a terminal or a log prints (values filled in for the
  dynamic parts, sometimes inside a traceback) → exact_match;
- `function`: real function bodies, pasted raw or after "find code similar to:" → find_similar.

Deterministic for a given machine and seed. Nothing here is committed: it is read from what is installed.
"""

from __future__ import annotations

import ast
import gzip
import json
import random
import re
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

# Python files read at most (a seeded sample of the stdlib and site-packages).
MAX_PYTHON_FILES = 2500
# One repository in this many (by a hash of its name) is held out: rules are tuned on the rest only.
HELD_OUT_MODULUS = 5
# Caps per source and per repository, so that one big package does not dominate a source.
PER_REPO = {"changelog": 25, "docstring": 6, "comment": 3, "raise": 6, "log": 3, "throw": 5, "function": 3}
SOURCE_TOTAL = {
    "changelog": 700,
    "docstring": 450,
    "comment": 150,
    "raise": 450,
    "log": 120,
    "throw": 300,
    "function": 300,
}

_TICKET_RE = re.compile(r"\s*\((?:#\d+|closes #\d+|fixes #\d+|gh-\d+|bpo-\d+)\)\s*$", re.IGNORECASE)
_CONVENTIONAL_RE = re.compile(
    r"^(?:feat|fix|docs|chore|refactor|perf|test|tests|build|ci|style|revert)(?:\([^)]*\))?!?:\s+"
)
_SKIP_SUBJECT_RE = re.compile(
    r"^(?:merge|revert|bump|release|version|prepare|update changelog|changelog|v?\d+\.\d+)|"
    r"^\W|signed-off-by|^\S+@\S+$|^[A-Z][\w .-]+ \(\d+\):$",
    re.IGNORECASE,
)
MIN_SUBJECT_WORDS = 3
MAX_SUBJECT_CHARS = 110


@dataclass(frozen=True, slots=True)
class Labelled:
    query: str
    intent: str
    source: str
    repo: str

    @property
    def held_out(self) -> bool:
        return is_held_out(self.repo)


def is_held_out(repo: str) -> bool:
    return zlib.crc32(repo.encode()) % HELD_OUT_MODULUS == 0


def clean_subject(subject: str) -> str | None:
    """A commit subject as the dev set keeps it (ticket refs, conventional prefix and final period dropped), or None
    for merges, reverts, releases and subjects too short or too long to be a question."""
    text = _TICKET_RE.sub("", subject.strip())
    text = _CONVENTIONAL_RE.sub("", text).rstrip(". ")
    if _SKIP_SUBJECT_RE.search(text) or len(text) > MAX_SUBJECT_CHARS or len(text.split()) < MIN_SUBJECT_WORDS:
        return None
    return text


# --- the dev set and git ----------------------------------------------------------------------------------------------


def devset_items(devset: Path) -> list[Labelled]:
    items: list[Labelled] = []
    for path in sorted((devset / "queries").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            items.append(Labelled(row["query"], row["family"], "devset", row["repo"]))
    return items


def git_items(repo: Path, name: str) -> list[Labelled]:
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "log", "--no-merges", "--format=%s"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    subjects = [s for s in (clean_subject(line) for line in out.splitlines()) if s]
    return [Labelled(s, "understand_code", "git", name) for s in dict.fromkeys(subjects)]


# --- changelogs -------------------------------------------------------------------------------------------------------

_SHORTLOG_AUTHOR_RE = re.compile(r"^\S.*\(\d+\):\s*$")
_SHORTLOG_ENTRY_RE = re.compile(r"^ {4,8}(?P<s>[A-Za-z][^\n]{8,200})$")
_DASH_ENTRY_RE = re.compile(r"^- (?P<s>[A-Za-z][^\n]{8,200})$")
_STAR_ENTRY_RE = re.compile(r"^\s{0,4}\* (?:[\w./-]+(?: \([\w., ]+\))?: )?(?P<s>[A-Z][^\n]{8,200})$")


def changelog_subjects(text: str) -> Iterator[str]:
    """Entry subjects of a changelog in the shapes upstream projects write (git shortlog, `- subject`, `* subject`);
    continuation lines are not subjects."""
    lines = text.splitlines()
    shortlog = sum(1 for line in lines[:400] if _SHORTLOG_AUTHOR_RE.match(line)) >= 2
    for number, line in enumerate(lines):
        if shortlog:
            m = _SHORTLOG_ENTRY_RE.match(line)
        else:
            m = _DASH_ENTRY_RE.match(line) or _STAR_ENTRY_RE.match(line)
            nxt = lines[number + 1] if number + 1 < len(lines) else ""
            goes_on = m and nxt.strip() and nxt.startswith("  ") and not nxt.lstrip().startswith(("-", "*"))
            if goes_on and not nxt.strip()[0].isupper() and not line.rstrip().endswith((".", ")")):
                continue  # the subject goes on on the next line: not a whole subject
        if m:
            yield m.group("s").strip()


def changelog_items(doc_root: Path, rng: random.Random) -> list[Labelled]:
    items: list[Labelled] = []
    seen: set[str] = set()  # packages built from one source share one changelog: each subject once
    for path in sorted(doc_root.glob("*/changelog.gz")):
        package = path.parent.name
        try:
            text = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        except (OSError, EOFError, zlib.error):
            continue
        subjects = [s for s in dict.fromkeys(clean_subject(x) for x in changelog_subjects(text)) if s and s not in seen]
        seen.update(subjects)
        rng.shuffle(subjects)
        items.extend(Labelled(s, "understand_code", "changelog", package) for s in subjects[: PER_REPO["changelog"]])
    return items


# --- Python sources ---------------------------------------------------------------------------------------------------

_VALUES = ("foo", "bar.txt", "42", "3", "None", "/srv/app/data.json", "user_id", "0x7f3a2c", "utf-8", "list")


def _fill(value: ast.expr, conversion: int, rng: random.Random) -> str:
    filled = rng.choice(_VALUES)
    return f"'{filled}'" if conversion == ord("r") else filled


def render_message(node: ast.expr, rng: random.Random) -> str | None:
    """The text a Python message expression prints, with a plausible value for each dynamic part; None when the
    message is not built from a literal."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif isinstance(value, ast.FormattedValue):
                parts.append(_fill(value.value, value.conversion, rng))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        template = render_message(node.left, rng)
        if template is None:
            return None
        return re.sub(
            r"%(?:\([\w]+\))?[-#0 +]*\d*(?:\.\d+)?[sdrifgxXc]", lambda m: _fill(node, ord(m.group()[-1]), rng), template
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        template = render_message(node.func.value, rng)
        return None if template is None else re.sub(r"\{[^{}]*\}", lambda m: rng.choice(_VALUES), template)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = render_message(node.left, rng), render_message(node.right, rng)
        if left is None and right is None:
            return None
        return (left if left is not None else rng.choice(_VALUES)) + (
            right if right is not None else rng.choice(_VALUES)
        )
    return None


def _error_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _good_message(message: str) -> bool:
    words = re.findall(r"[A-Za-z]{2,}", message)
    return len(words) >= 2 and len(message) <= 160 and "\n" not in message.strip()


def render_raise(name: str, message: str, module: str, where: tuple[str, int], rng: random.Random) -> str:
    """The line (or trace) a terminal shows for an uncaught exception raised at `where` (path, line)."""
    path, line = where
    form = rng.random()
    if form < 0.55:
        return f"{name}: {message}"
    if form < 0.7:
        return f"{module}.{name}: {message}"
    if form < 0.9:
        return (
            "Traceback (most recent call last):\n"
            f'  File "/home/user/project/app.py", line {rng.randint(5, 300)}, in main\n'
            "    run()\n"
            f'  File "/usr/lib/python3/site-packages/{path}", line {line}, in f\n'
            f"    raise {name}(...)\n"
            f"{name}: {message}"
        )
    return f"Error: {message}" if rng.random() < 0.5 else f"error: {message}"


_LOG_METHODS = {"error": "ERROR", "warning": "WARNING", "warn": "WARNING", "exception": "ERROR", "critical": "CRITICAL"}


def logging_call(node: ast.Call) -> bool:
    """`log.error("...", ...)`, `logger.warning(...)`, `logging.exception(...)` with a first argument."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in _LOG_METHODS
        and bool(node.args)
        and isinstance(func.value, ast.Name)
        and func.value.id in ("log", "logger", "logging", "_log", "_logger", "LOG", "LOGGER")
    )


def render_log_message(node: ast.Call, rng: random.Random) -> str | None:
    """The message a logging call prints: logging fills its %-placeholders from the call's arguments."""
    message = render_message(node.args[0], rng)
    return (
        None if message is None else re.sub(r"%[-#0 +]*\d*(?:\.\d+)?[sdrifgx]", lambda _: rng.choice(_VALUES), message)
    )


def render_log(level: str, message: str, module: str, rng: random.Random) -> str:
    form = rng.random()
    stamp = (
        f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)} 1{rng.randint(0, 9)}:0{rng.randint(0, 9)}:3{rng.randint(0, 9)}"
    )
    if form < 0.35:
        return f"{stamp},{rng.randint(100, 999)} {level} {module}: {message}"
    if form < 0.6:
        return f"{level}:{module}:{message}"
    if form < 0.8:
        return f"[{stamp}] {level} in {module.rsplit('.', 1)[-1]}: {message}"
    return f'time="{stamp.replace(" ", "T")}Z" level={level.lower()} msg="{message}"'


_CODE_COMMENT_RE = re.compile(r"(?:from|import|return|if|for|while|def|class|raise|assert|print)\b|.*[=(]\s*\S")


def _comment_blocks(source: str) -> Iterator[str]:
    block: list[str] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and not stripped.startswith("#!"):
            block.append(stripped.lstrip("#").strip())
            continue
        if block:
            yield block[0]
        block = []


def _first_sentence_line(doc: str) -> str | None:
    first = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    words = first.split()
    if len(words) < 4 or len(first) > 100 or first.startswith((">>>", ":", "..", "-", "=", "*")) or "::" in first:
        return None
    if not re.match(r"[A-Za-z]", first) or sum(1 for w in words if re.fullmatch(r"[A-Za-z][a-z'-]*[,.;]?", w)) < 3:
        return None
    return first.rstrip(".")


@dataclass(frozen=True, slots=True)
class PythonSource:
    """One Python file of a source tree: its package (for the held-out split), its path below the tree's root
    (`json/decoder.py`, as a traceback shows it) and how to read it (a file on disk, or a member of a wheel)."""

    repo: str
    rel: str
    read: Callable[[], str]

    @property
    def module(self) -> str:
        return self.rel.removesuffix(".py").replace("/", ".")


def python_items(
    files: list[PythonSource], rng: random.Random, max_files: int = MAX_PYTHON_FILES
) -> dict[str, list[Labelled]]:
    """Docstring and comment first lines, raise sites, logging calls and function bodies of Python files, each
    labelled with its package (the first folder under the site-packages or stdlib root)."""
    found: dict[str, list[Labelled]] = {s: [] for s in ("docstring", "comment", "raise", "log", "function")}
    per_repo: dict[tuple[str, str], int] = {}

    def add(source: str, repo: str, query: str, intent: str) -> None:
        key = (source, repo)
        if per_repo.get(key, 0) >= PER_REPO[source]:
            return
        per_repo[key] = per_repo.get(key, 0) + 1
        found[source].append(Labelled(query, intent, source, repo))

    for file in files[:max_files]:
        repo, module = file.repo, file.module
        try:
            source = file.read()
            tree = ast.parse(source)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        lines = source.splitlines()
        nodes = list(ast.walk(tree))
        rng.shuffle(nodes)
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                doc = ast.get_docstring(node)
                first = _first_sentence_line(doc) if doc else None
                if first:
                    add("docstring", repo, first, "understand_code")
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno:
                    length = node.end_lineno - node.lineno + 1
                    if 3 <= length <= 40:
                        body = textwrap.dedent("\n".join(lines[node.lineno - 1 : node.end_lineno]))
                        pasted = body if rng.random() < 0.5 else f"find code similar to:\n{body}"
                        add("function", repo, pasted, "find_similar")
            elif isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                name = _error_name(node.exc.func)
                message = render_message(node.exc.args[0], rng)
                if name and message and _good_message(message):
                    add("raise", repo, render_raise(name, message, module, (file.rel, node.lineno), rng), "exact_match")
            elif isinstance(node, ast.Call) and logging_call(node):
                message = render_log_message(node, rng)
                if message and _good_message(message):
                    add("log", repo, render_log(_LOG_METHODS[node.func.attr], message, module, rng), "exact_match")
        for first in _comment_blocks(source):
            line = _first_sentence_line(first)
            # directives and commented-out code are not comments a person writes
            directive = re.search(r"\b(?:noqa|type:|pragma|pylint|fmt:|TODO|XXX|FIXME)\b", line or "")
            if line and not directive and not _CODE_COMMENT_RE.match(line):
                add("comment", repo, line, "understand_code")
    return found


def stdlib_root() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def source_wanted(parts: tuple[str, ...]) -> bool:
    """A file below a source root that a person wrote as library code: not tests, vendored copies, caches, nested
    site-packages, nor IDLE and lib2to3 (applications and data more than library code)."""
    if not parts or "test" in parts[0] or parts[0] in ("__pycache__", "site-packages", "idlelib", "lib2to3"):
        return False
    return not any(part in ("tests", "test", "_vendor", "vendor") for part in parts)


def tree_sources(root: Path, prefix: str = "") -> list[PythonSource]:
    """The Python files of a folder, each labelled with its first folder (prefixed: `stdlib/json`), in path order."""
    out: list[PythonSource] = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if source_wanted(parts):
            rel = "/".join(parts)
            out.append(PythonSource(prefix + parts[0].removesuffix(".py"), rel, partial(path.read_text, "utf-8")))
    return out


def python_files(rng: random.Random) -> list[PythonSource]:
    """The stdlib of the running interpreter and its site-packages, in a seeded order."""
    out = tree_sources(stdlib_root(), "stdlib/")
    for p in sys.path:
        if p.endswith("site-packages"):
            out.extend(tree_sources(Path(p)))
    rng.shuffle(out)
    return out


# --- JavaScript and Java ----------------------------------------------------------------------------------------------

_JS_THROW_RE = re.compile(r"throw new (?P<name>[A-Z]\w*)\(\s*(?P<q>['\"`])(?P<msg>(?:(?!(?P=q)).){6,160})(?P=q)")
_JAVA_THROW_RE = re.compile(r"throw new (?P<name>[A-Z]\w*(?:Exception|Error))\(\s*\"(?P<msg>[^\"\n]{6,160})\"")
_JS_FUNCTION_RE = re.compile(r"^(?P<indent>[ \t]*)(?:async\s+)?function\s+\w+\s*\([^)]*\)\s*\{\s*$", re.MULTILINE)


def js_items(root: Path, rng: random.Random) -> dict[str, list[Labelled]]:
    found: dict[str, list[Labelled]] = {"throw": [], "function": []}
    per_repo: dict[tuple[str, str], int] = {}
    paths = sorted(p for p in root.rglob("*.js") if ".min." not in p.name and "/test/" not in p.as_posix())
    rng.shuffle(paths)
    for path in paths:
        parts = path.relative_to(root).parts
        repo = "npm/" + (parts[1] if parts[0] == "node_modules" and len(parts) > 1 else parts[0])
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for m in _JS_THROW_RE.finditer(text):
            message = re.sub(r"\$\{[^}]*\}", lambda _: rng.choice(_VALUES), m.group("msg"))
            if not _good_message(message) or per_repo.get(("throw", repo), 0) >= PER_REPO["throw"]:
                continue
            per_repo[("throw", repo)] = per_repo.get(("throw", repo), 0) + 1
            name = m.group("name")
            line = f"{name}: {message}" if rng.random() < 0.7 else f"Uncaught {name}: {message}"
            if rng.random() < 0.3:
                line += f"\n    at Object.<anonymous> ({path.name}:{rng.randint(2, 400)}:{rng.randint(3, 30)})"
            found["throw"].append(Labelled(line, "exact_match", "throw", repo))
        for m in _JS_FUNCTION_RE.finditer(text):
            end = text.find("\n" + m.group("indent") + "}", m.end())
            body = text[m.start() : end + len(m.group("indent")) + 2] if end > 0 else ""
            if 3 <= body.count("\n") <= 40 and per_repo.get(("function", repo), 0) < PER_REPO["function"]:
                per_repo[("function", repo)] = per_repo.get(("function", repo), 0) + 1
                body = textwrap.dedent(body)
                found["function"].append(Labelled(body, "find_similar", "function", repo))
    return found


def java_items(src_zip: Path, rng: random.Random) -> list[Labelled]:
    items: list[Labelled] = []
    per_repo: dict[str, int] = {}
    with zipfile.ZipFile(src_zip) as archive:
        names = sorted(n for n in archive.namelist() if n.endswith(".java"))
        rng.shuffle(names)
        for name in names[:3000]:
            repo = "jdk/" + "/".join(name.split("/")[:2])
            if per_repo.get(repo, 0) >= PER_REPO["throw"]:
                continue
            text = archive.read(name).decode("utf-8", "replace")
            for m in _JAVA_THROW_RE.finditer(text):
                message = m.group("msg").strip()
                if not _good_message(message) or per_repo.get(repo, 0) >= PER_REPO["throw"]:
                    continue
                per_repo[repo] = per_repo.get(repo, 0) + 1
                qualified = name.split("/", 1)[-1].rsplit("/", 1)[0].replace("/", ".") + "." + m.group("name")
                cls = name.rsplit("/", 1)[-1]
                if rng.random() < 0.5:
                    frame = f"\tat {cls[:-5]}.run({cls}:{rng.randint(10, 900)})"
                    line = f'Exception in thread "main" {qualified}: {message}\n{frame}'
                else:
                    line = f"{qualified}: {message}"
                items.append(Labelled(line, "exact_match", "throw", repo))
    return items


# --- the whole corpus -------------------------------------------------------------------------------------------------


def _capped(items: Iterable[Labelled], total: int, rng: random.Random) -> list[Labelled]:
    pool = list(items)
    rng.shuffle(pool)
    return pool[:total]


def find_devset(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        candidate = folder / "shared" / "devset"
        if (candidate / "queries").is_dir():
            return candidate
    return None


def build_corpus(
    seed: int = 13,
    *,
    devset: Path | None = None,
    repo_root: Path | None = None,
    max_python_files: int = MAX_PYTHON_FILES,
) -> list[Labelled]:
    """Every source that this machine has; a source it lacks (no changelogs, no npm, no JDK) is left out."""
    rng = random.Random(seed)
    repo_root = repo_root or Path(__file__).resolve().parents[1]
    devset = devset or find_devset(repo_root)
    items: list[Labelled] = []
    if devset is not None:
        items.extend(devset_items(devset))
    items.extend(git_items(repo_root, "maguyva-lsp"))
    items.extend(_capped(changelog_items(Path("/usr/share/doc"), rng), SOURCE_TOTAL["changelog"], rng))
    python = python_items(python_files(rng), rng, max_python_files)
    js: dict[str, list[Labelled]] = {"throw": [], "function": []}
    npm = Path("/usr/lib/node_modules/npm")
    if npm.is_dir():
        js = js_items(npm, rng)
    java: list[Labelled] = []
    for src_zip in sorted(Path("/usr/lib/jvm").glob("*/lib/src.zip")):
        if src_zip.is_file():
            java = java_items(src_zip, rng)
            break
    for source in ("docstring", "comment", "raise", "log"):
        items.extend(_capped(python[source], SOURCE_TOTAL[source], rng))
    items.extend(_capped(js["throw"] + java, SOURCE_TOTAL["throw"], rng))
    items.extend(_capped(python["function"] + js["function"], SOURCE_TOTAL["function"], rng))
    return items

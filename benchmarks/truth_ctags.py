"""Universal-ctags as an independent source of definitions (ground truth), and a classic tags file with the binary
search editors do on it (the speed baseline for definition lookup).
"""

from __future__ import annotations

import bisect
import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

CTAGS = "/usr/bin/ctags"
# ctags' Python kinds that are definitions people look up: `member` is ctags' name for a method.
DEFINITION_KINDS = frozenset({"class", "function", "member"})
TAG_FIELDS = "+nKse"  # line number, long kind names, scope, end line


@dataclass(frozen=True, slots=True)
class Tag:
    """One ctags definition; lines are 0-based like the engine's."""

    name: str
    kind: str
    path: str
    line: int
    end: int | None
    scope: str | None  # the enclosing class or function, dotted ("Outer.Inner")
    scope_kind: str | None

    @property
    def is_method(self) -> bool:
        return self.kind == "member" and self.scope_kind == "class"

    @property
    def query_name(self) -> str:
        """How a person names it: `Class.method` for a method (innermost class), the bare name otherwise."""
        if self.is_method and self.scope:
            return f"{self.scope.rsplit('.', 1)[-1]}.{self.name}"
        return self.name


def _run_ctags(root: Path, files: list[str], extra: list[str]) -> subprocess.CompletedProcess[str]:
    command = [CTAGS, "-L", "-", "--languages=Python", f"--fields={TAG_FIELDS}", *extra]
    return subprocess.run(command, cwd=root, input="\n".join(files), capture_output=True, text=True, check=True)


def python_tags(root: Path, files: list[str]) -> list[Tag]:
    """ctags' class/function/method definitions in these (root-relative) Python files."""
    done = _run_ctags(root, files, ["--output-format=json", "-f", "-"])
    tags: list[Tag] = []
    for line in done.stdout.splitlines():
        if not line.startswith("{"):
            continue
        raw = json.loads(line)
        if raw.get("_type") != "tag" or raw.get("kind") not in DEFINITION_KINDS:
            continue
        end = raw.get("end")
        tags.append(
            Tag(
                name=str(raw["name"]),
                kind=str(raw["kind"]),
                path=str(raw["path"]).removeprefix("./"),
                line=int(raw["line"]) - 1,
                end=int(end) - 1 if end is not None else None,
                scope=raw.get("scope"),
                scope_kind=raw.get("scopeKind"),
            )
        )
    tags.sort(key=lambda t: (t.path, t.line, t.name))
    return tags


def build_tags_file(root: Path, files: list[str], out: Path) -> float:
    """Write a sorted classic tags file for these files; returns the seconds ctags took."""
    started = time.perf_counter()
    _run_ctags(root, files, ["--sort=yes", "-f", str(out)])
    return time.perf_counter() - started


class TagsFile:
    """A sorted tags file loaded once; each lookup is a binary search over its names (as editors do on the file)."""

    def __init__(self, path: Path) -> None:
        lines = [
            ln for ln in path.read_text(encoding="utf-8", errors="replace").splitlines() if not ln.startswith("!_")
        ]
        self._names = [ln.split("\t", 1)[0] for ln in lines]
        self._lines = lines
        if self._names != sorted(self._names):
            raise ValueError(f"{path} is not sorted: build it with --sort=yes")

    def __len__(self) -> int:
        return len(self._lines)

    def lookup(self, name: str) -> list[tuple[str, str]]:
        """(path, ex command) of every tag named exactly `name`."""
        out: list[tuple[str, str]] = []
        index = bisect.bisect_left(self._names, name)
        while index < len(self._names) and self._names[index] == name:
            fields = self._lines[index].split("\t")
            out.append((fields[1], fields[2]))
            index += 1
        return out

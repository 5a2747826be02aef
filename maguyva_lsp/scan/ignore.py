"""Git-style ignore rules: nested `.gitignore`, `.git/info/exclude`, `.maguyvaignore` and the user's extra excludes.

Semantics follow git: a file's patterns are relative to the folder holding it, a deeper file overrides a shallower one,
the last matching pattern wins, and an ignored folder is never entered (so a negation cannot revive files inside it).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pathspec

from maguyva_lsp.scan.read import read_source
from maguyva_lsp.scan.skips import Skip, SkipReason

log = logging.getLogger(__name__)

IGNORE_FILE_NAMES: tuple[str, ...] = (".gitignore", ".maguyvaignore")
# An ignore file larger than this is not one a person wrote: not read.
MAX_IGNORE_FILE_BYTES = 1 << 20
# Folders no one wants searched: version-control internals and tool caches. Not configurable on purpose: indexing them
# is never useful and can be enormous.
ALWAYS_SKIPPED_DIRS: frozenset[str] = frozenset(
    {".git", ".hg", ".svn", ".bzr", "_darcs", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
     ".tox", ".nox", ".cache", ".idea", ".gradle", "node_modules", ".maguyva"}
)  # fmt: skip
_ALWAYS_SKIPPED_FOLDED: frozenset[str] = frozenset(name.casefold() for name in ALWAYS_SKIPPED_DIRS)


@dataclass(frozen=True, slots=True)
class _Rules:
    """The patterns of one ignore source, anchored at `base` (a root-relative POSIX folder, "" for the root)."""

    base: str  # case-folded when the rules ignore case
    spec: pathspec.GitIgnoreSpec

    def verdict(self, rel_path: str, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included by a negation, None: these rules say nothing about the path."""
        if self.base:
            if not rel_path.startswith(self.base + "/"):
                return None
            rel_path = rel_path[len(self.base) + 1 :]
        result = self.spec.check_file(rel_path + "/" if is_dir else rel_path)
        return None if result.include is None else bool(result.include)


def _spec(lines: list[str], case_insensitive: bool) -> pathspec.GitIgnoreSpec:
    """Patterns compiled as git does; case folded, with the paths they are matched against, where case is ignored
    (git's core.ignorecase, on by default on Windows and macOS)."""
    return pathspec.GitIgnoreSpec.from_lines([line.casefold() for line in lines] if case_insensitive else lines)


def _read_rules(path: Path, base: str, case_insensitive: bool = False) -> _Rules | None:
    """The rules of one ignore file, or None when there is none (or it cannot be read: the walker reports that file)."""
    data = read_source(str(path), MAX_IGNORE_FILE_BYTES)  # never a blocking open: it may be a FIFO
    if isinstance(data, Skip):
        if data.reason not in (SkipReason.VANISHED, SkipReason.CHANGED_TYPE):  # no such file: the usual case
            log.debug("cannot read ignore file %s: %s", path, data)
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    try:
        spec = _spec(lines, case_insensitive)
    except Exception as exc:  # pathspec raises various errors on malformed patterns
        log.warning("ignoring malformed ignore file %s: %s", path, exc)
        return None
    return _Rules(base.casefold() if case_insensitive else base, spec) if spec.patterns else None


class IgnoreRules:
    """The ignore rules in force for one folder; `child()` adds a sub-folder's own ignore files."""

    __slots__ = ("_rules", "case_insensitive")

    def __init__(self, rules: tuple[_Rules, ...] = (), *, case_insensitive: bool = False) -> None:
        self._rules = rules
        self.case_insensitive = case_insensitive

    @classmethod
    def for_root(cls, root: Path, extra_patterns: Iterable[str] = (), *, case_insensitive: bool = False) -> IgnoreRules:
        """Rules at the workspace root: the user's extra excludes, `.git/info/exclude`, then the root's ignore files.
        `case_insensitive`: match as a file system that ignores case would (patterns and paths case-folded)."""
        rules: list[_Rules] = []
        extra = [p for p in extra_patterns if p.strip()]
        if extra:
            rules.append(_Rules("", _spec(extra, case_insensitive)))
        exclude = _read_rules(root / ".git" / "info" / "exclude", "", case_insensitive)
        if exclude is not None:
            rules.append(exclude)
        return cls(tuple(rules), case_insensitive=case_insensitive).child(root, "")

    def child(self, folder: Path, rel_folder: str, names: Iterable[str] | None = None) -> IgnoreRules:
        """The rules for `folder` (root-relative `rel_folder`): these plus its own ignore files, if it has any.
        `names`: the folder's listing, when the caller has it (only ignore files it holds are opened)."""
        wanted: Iterable[str] = IGNORE_FILE_NAMES
        if names is not None:
            listed = {n.casefold() for n in names} if self.case_insensitive else set(names)
            wanted = [n for n in IGNORE_FILE_NAMES if (n.casefold() if self.case_insensitive else n) in listed]
        added = [
            rules
            for name in wanted
            if (rules := _read_rules(folder / name, rel_folder, self.case_insensitive)) is not None
        ]
        return IgnoreRules(self._rules + tuple(added), case_insensitive=self.case_insensitive) if added else self

    def always_skipped(self, folder_name: str) -> bool:
        """Whether a folder is one no one wants searched (.git, node_modules...), in the file system's case rules."""
        if self.case_insensitive:
            return folder_name.casefold() in _ALWAYS_SKIPPED_FOLDED
        return folder_name in ALWAYS_SKIPPED_DIRS

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        """Whether a root-relative POSIX path is ignored: the deepest, last matching pattern decides."""
        if self.case_insensitive:
            rel_path = rel_path.casefold()
        for rules in reversed(self._rules):
            verdict = rules.verdict(rel_path, is_dir)
            if verdict is not None:
                return verdict
        return False

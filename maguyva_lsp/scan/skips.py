"""Why an entry of the workspace is not indexed: a fixed set of reasons, counted for status and one warning per run.

Each skipped entry costs only itself. Reasons split in two: *problems* the user should hear about (an unreadable
folder, a broken symlink, a file that vanished mid-read) and *policy* the README promises (binary and huge files,
virtual environments), which status counts but no warning repeats at every start.
"""

from __future__ import annotations

import errno
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

# Example paths kept per reason in status and in the warning: enough to find the culprit, never a flood.
EXAMPLES_PER_REASON = 3
WARNING_REASONS_SHOWN = 4


class SkipReason(StrEnum):
    """Why an entry is not indexed. The values are the keys of `maguyva/status`'s `skips`."""

    UNREADABLE = "unreadable"  # permission denied (or another read error) on a file or folder
    VANISHED = "vanished"  # listed, then gone before it could be read
    CHANGED_TYPE = "changed_type"  # listed as one kind of entry, found another when read (a folder became a file)
    SPECIAL_FILE = "special_file"  # a FIFO, socket or device: never opened for reading
    BROKEN_SYMLINK = "broken_symlink"
    SYMLINK_LOOP = "symlink_loop"
    BAD_NAME = "bad_name"  # a name that is not UTF-8 or holds control characters (a newline)
    ANALYSIS_FAILED = "analysis_failed"
    TOO_LARGE = "too_large"
    BINARY = "binary"
    VIRTUALENV = "virtualenv"
    DUPLICATE_FOLDER = "duplicate_folder"  # a folder already indexed through another path (a symlink to it)
    IGNORED = "ignored"  # only for single-path checks: a walk skips ignored entries without a word
    MISSING = "missing"  # only for single-path checks: nothing there (a deleted file), not a skip to report
    OUTSIDE = "outside"  # only for single-path checks: not under the workspace root


# Reasons the user is told about once per indexing run; the others are counted in status only.
PROBLEM_REASONS: frozenset[SkipReason] = frozenset(
    {SkipReason.UNREADABLE, SkipReason.VANISHED, SkipReason.CHANGED_TYPE, SkipReason.SPECIAL_FILE,
     SkipReason.BROKEN_SYMLINK, SkipReason.SYMLINK_LOOP, SkipReason.BAD_NAME, SkipReason.ANALYSIS_FAILED}
)  # fmt: skip
# Verdicts of a single-path check that are not skips at all: nothing to count, nothing to show.
NOT_RECORDED: frozenset[SkipReason] = frozenset({SkipReason.IGNORED, SkipReason.MISSING, SkipReason.OUTSIDE})

_LABELS: dict[SkipReason, str] = {
    SkipReason.UNREADABLE: "unreadable",
    SkipReason.VANISHED: "vanished while indexing",
    SkipReason.CHANGED_TYPE: "changed type while indexing",
    SkipReason.SPECIAL_FILE: "not a regular file",
    SkipReason.BROKEN_SYMLINK: "broken symlink",
    SkipReason.SYMLINK_LOOP: "symlink loop",
    SkipReason.BAD_NAME: "unusable name",
    SkipReason.ANALYSIS_FAILED: "analysis failed",
    SkipReason.TOO_LARGE: "too large",
    SkipReason.BINARY: "binary",
    SkipReason.VIRTUALENV: "a Python virtual environment",
    SkipReason.DUPLICATE_FOLDER: "already indexed through another path",
    SkipReason.IGNORED: "ignored by an ignore file",
    SkipReason.MISSING: "no such file",
    SkipReason.OUTSIDE: "outside the workspace",
}


@dataclass(frozen=True, slots=True)
class Skip:
    """One entry's reason for not being indexed, with a detail for people (an errno text, a size)."""

    reason: SkipReason
    detail: str = ""

    @property
    def problem(self) -> bool:
        return self.reason in PROBLEM_REASONS

    def __str__(self) -> str:
        label = _LABELS[self.reason]
        return f"{label}: {self.detail}" if self.detail else label


def skip_for_os_error(exc: OSError, *, broken_link: bool = False) -> Skip:
    """The skip an OSError from stat, open or listing means. `broken_link`: the entry itself is a symlink."""
    detail = exc.strerror or str(exc)
    code = exc.errno
    if code == errno.ELOOP:
        return Skip(SkipReason.SYMLINK_LOOP, detail)
    if code == errno.ENOENT:
        return Skip(SkipReason.BROKEN_SYMLINK if broken_link else SkipReason.VANISHED, detail)
    if code == errno.ENOTDIR:  # a folder on the way was replaced by a file
        return Skip(SkipReason.CHANGED_TYPE, detail)
    if code == errno.ENXIO:  # opening a socket
        return Skip(SkipReason.SPECIAL_FILE, detail)
    return Skip(SkipReason.UNREADABLE, detail)


def kind_of_mode(mode: int) -> str:
    """A file type in words, for skip details."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "a regular file" if stat.S_ISREG(mode) else "an unknown kind of entry"


_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")


def name_problem(name: str) -> str | None:
    """Why a file name cannot be indexed, or None. Undecodable bytes arrive as surrogates (os.fsdecode)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "not valid UTF-8"
    if _CONTROL_CHARACTER.search(name):
        return "holds a control character (a newline or tab)"
    return None


def printable_path(path: str) -> str:
    """A path safe to show and to put in JSON: undecodable bytes as \\xNN, control characters escaped."""
    text = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        text = "".join(repr(c)[1:-1] if ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)
    return text


def summarize(skipped: Mapping[str, Skip]) -> dict[str, Any]:
    """`maguyva/status`'s `skips`: per reason, how many entries and a few example paths (sorted, printable)."""
    by_reason: dict[str, list[str]] = {}
    for path in sorted(skipped):
        by_reason.setdefault(skipped[path].reason.value, []).append(path)
    return {
        reason: {
            "count": len(paths),
            "problem": SkipReason(reason) in PROBLEM_REASONS,
            "examples": [printable_path(p) for p in paths[:EXAMPLES_PER_REASON]],
        }
        for reason, paths in sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0]))
    }


def problem_warning(folder_name: str, skipped: Mapping[str, Skip]) -> str | None:
    """One sentence for the user about the problem skips of a run (None when there are none), never one per file."""
    problems = {path: skip for path, skip in skipped.items() if skip.problem}
    if not problems:
        return None
    summary = summarize(problems)
    parts = [
        f"{info['count']} {_LABELS[SkipReason(reason)]} (e.g. {info['examples'][0]})"
        for reason, info in list(summary.items())[:WARNING_REASONS_SHOWN]
    ]
    more = len(summary) - WARNING_REASONS_SHOWN
    if more > 0:
        parts.append(f"{more} more kind(s)")
    entries = "entry" if len(problems) == 1 else "entries"
    return (
        f"{len(problems)} {entries} in {folder_name} could not be indexed and were skipped: {'; '.join(parts)}. "
        "Everything else is indexed; `maguyva/status` lists them under `skips`."
    )

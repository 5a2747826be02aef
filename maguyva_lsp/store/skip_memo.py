"""Files the analysis turned away for what they hold, remembered between starts.

A binary file (NUL bytes) or one found too large once read is not in any segment, so without a memory every start
would read it again to learn the same thing — and on a big folder with many such files (test data, images without a
known suffix) those files alone were enough to start the worker pool on a warm, unchanged folder. The memo keeps, per
root-relative path, the size and modification time the scan saw with the verdict; a file whose size or mtime moved is
read again. It is advisory: a lost or damaged memo only costs those reads, so it lives in its own small JSON file
beside the manifest (written whole, atomically, by the writer), not in the manifest's commit.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from maguyva_lsp.scan.skips import Skip, SkipReason
from maguyva_lsp.store.manifest import replace_file

log = logging.getLogger(__name__)

MEMO_NAME = "skipped.json"
MEMO_VERSION = 1
# Verdicts that follow from the bytes alone, so they hold while size and mtime hold. Read errors, vanished files and
# analyzer failures are not remembered: the next start should try again.
REMEMBERED: frozenset[SkipReason] = frozenset({SkipReason.BINARY, SkipReason.TOO_LARGE})


class SkipMemo:
    """path → (size, mtime_ns, skip) for files skipped for their content; `folder` None keeps it in memory only."""

    def __init__(self, folder: Path | None, *, writable: bool) -> None:
        self._path = folder / MEMO_NAME if folder is not None else None
        self._writable = writable and folder is not None
        self._entries: dict[str, tuple[int, int, Skip]] = {}
        self._dirty = False
        if self._path is not None:
            self._entries = _read(self._path)

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, path: str, size: int, mtime_ns: int) -> Skip | None:
        """The remembered verdict for this file, if it was skipped at exactly this size and mtime."""
        entry = self._entries.get(path)
        if entry is None or (entry[0], entry[1]) != (size, mtime_ns):
            return None
        return entry[2]

    def record(self, path: str, size: int, mtime_ns: int, skip: Skip) -> None:
        """Remember a skip if it is one that follows from the content; any other verdict forgets the path."""
        if skip.reason not in REMEMBERED:
            self.forget(path)
            return
        if self._entries.get(path) != (size, mtime_ns, skip):
            self._entries[path] = (size, mtime_ns, skip)
            self._dirty = True

    def forget(self, path: str) -> None:
        if self._entries.pop(path, None) is not None:
            self._dirty = True

    def keep_only(self, paths: set[str]) -> None:
        """Drop the entries of files no longer in the folder."""
        for path in [p for p in self._entries if p not in paths]:
            del self._entries[path]
            self._dirty = True

    def save(self) -> None:
        """Write the memo if it changed (the writer only; a failure is logged and costs only later reads)."""
        if not self._dirty or not self._writable or self._path is None:
            return
        data = {
            "version": MEMO_VERSION,
            "files": {p: [size, mtime, str(s.reason), s.detail] for p, (size, mtime, s) in self._entries.items()},
        }
        try:
            replace_file(self._path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        except OSError as exc:
            log.warning("cannot write %s: %s", self._path, exc.strerror or exc)
            return
        self._dirty = False


def _read(path: Path) -> dict[str, tuple[int, int, Skip]]:
    """The memo's entries; a missing, foreign or damaged file is an empty memo (logged unless missing)."""
    try:
        raw = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return {}
    entries: dict[str, tuple[int, int, Skip]] = {}
    try:
        if raw.get("version") != MEMO_VERSION:
            return {}
        for rel, (size, mtime, reason, detail) in raw["files"].items():
            skip = Skip(SkipReason(reason), str(detail))
            if skip.reason in REMEMBERED and isinstance(size, int) and isinstance(mtime, int) and isinstance(rel, str):
                entries[rel] = (size, mtime, skip)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        log.warning("ignoring %s: not a skip memo (%s)", path, exc)
        return {}
    return entries

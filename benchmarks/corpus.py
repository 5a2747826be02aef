"""The benchmark corpus: the CPython standard library of the running interpreter (without site-packages) by default,
copied to a scratch folder (edit benchmarks never touch the original; files the engine would not index are left
out, so that ripgrep over the folder searches the engine's files), with a content fingerprint.

On these machines the stdlib is about 1,800 Python files and 31 MB (plus ~500 other text files).
"""

from __future__ import annotations

import hashlib
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from maguyva_lsp.config import DEFAULT_MAX_FILE_SIZE
from maguyva_lsp.scan.walker import WorkspaceScanner

# Third-party packages installed into the base interpreter live inside the stdlib folder; they are not the stdlib.
STDLIB_EXCLUDES: tuple[str, ...] = ("site-packages/", "dist-packages/")
# Folders never copied: the excluded ones above, byte-code caches and version-control data.
COPY_SKIPPED_DIRS = frozenset({"site-packages", "dist-packages", "__pycache__", ".git", ".hg", ".svn"})
FINGERPRINT_CHARS = 16


def stdlib_root() -> Path:
    """The folder of the running interpreter's standard library."""
    return Path(sysconfig.get_paths()["stdlib"]).resolve()


def stdlib_python_files() -> list[Path]:
    """Every .py file of the standard library (site-packages excluded), sorted."""
    root = stdlib_root()
    return sorted(
        p for p in root.rglob("*.py") if not any(part in ("site-packages", "dist-packages") for part in p.parts)
    )


@dataclass(frozen=True, slots=True)
class Corpus:
    """A corpus ready to benchmark: the original folder, its working copy and the files a scan of it accepts."""

    source: Path  # the folder as named (read only)
    root: Path  # the working copy that the engine indexes and the edit benchmarks write to
    files: tuple[str, ...]  # root-relative POSIX paths the engine's scanner accepts, sorted
    total_bytes: int
    fingerprint: str  # of every accepted file's path and content: caches of ground truth are keyed by it
    excludes: tuple[str, ...]

    @property
    def python_files(self) -> tuple[str, ...]:
        return tuple(p for p in self.files if p.endswith(".py"))

    @property
    def is_stdlib(self) -> bool:
        return self.source == stdlib_root()


def _ignore_dirs(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n in COPY_SKIPPED_DIRS and (Path(folder) / n).is_dir()}


def prepare_corpus(source: Path, workdir: Path, excludes: tuple[str, ...] = STDLIB_EXCLUDES) -> Corpus:
    """Copy `source` (minus skipped folders) into `workdir` and list the files the engine would index there."""
    source = source.resolve()
    root = workdir.resolve() / source.name
    shutil.copytree(source, root, symlinks=True, ignore=_ignore_dirs)
    report = WorkspaceScanner(root, max_file_size=DEFAULT_MAX_FILE_SIZE, exclude=excludes).scan()
    for rel in report.skipped:  # binary, oversized, excluded: gone, so that grep tools see the engine's files
        skipped = root / rel
        if skipped.is_file() or skipped.is_symlink():
            skipped.unlink()
    files = tuple(f.path for f in report.files)
    digest = hashlib.sha256()
    total = 0
    for rel in files:
        data = (root / rel).read_bytes()
        total += len(data)
        digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return Corpus(source, root, files, total, digest.hexdigest()[:FINGERPRINT_CHARS], excludes)


def prune_to(corpus: Corpus, indexed: set[str]) -> list[str]:
    """Delete the copy's files the engine did not index (unreadable, NUL bytes): the grep tools then search the very
    files the engine holds. Returns the paths removed."""
    removed = [p for p in corpus.files if p not in indexed]
    for rel in removed:
        (corpus.root / rel).unlink(missing_ok=True)
    return removed

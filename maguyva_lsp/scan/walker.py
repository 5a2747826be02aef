"""Walk a workspace folder: respect ignore files, skip huge and obviously binary files, survive symlink loops."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from maguyva_lsp.model import SourceFile
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.scan.ignore import ALWAYS_SKIPPED_DIRS, IgnoreRules

log = logging.getLogger(__name__)

# Suffixes that are never text: skipped without reading a byte (the NUL-byte check catches the rest at read time).
BINARY_SUFFIXES: frozenset[str] = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff", ".psd", ".pdf", ".zip",
     ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".jar", ".war", ".whl", ".egg", ".so", ".dylib", ".dll", ".exe",
     ".o", ".a", ".lib", ".obj", ".pyc", ".pyo", ".class", ".wasm", ".mp3", ".mp4", ".wav", ".ogg", ".flac", ".mov",
     ".avi", ".mkv", ".ttf", ".otf", ".woff", ".woff2", ".eot", ".db", ".sqlite", ".sqlite3", ".bin", ".dat",
     ".npy", ".npz", ".pkl", ".pickle", ".parquet", ".onnx", ".pt", ".safetensors", ".iso", ".dmg", ".deb", ".rpm"}
)  # fmt: skip


@dataclass(slots=True)
class ScanReport:
    """What a scan found and what it skipped, with a reason for each skip."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # root-relative path → reason

    def skip(self, rel_path: str, reason: str) -> None:
        self.skipped[rel_path] = reason
        log.debug("skipped %s: %s", rel_path, reason)


class WorkspaceScanner:
    """Enumerates the files of one workspace root that the index should hold."""

    def __init__(self, root: Path, *, max_file_size: int, exclude: tuple[str, ...] = ()) -> None:
        self.root = root.resolve()
        self.max_file_size = max_file_size
        self._root_rules = IgnoreRules.for_root(self.root, exclude)

    def scan(self) -> ScanReport:
        """Walk the whole root."""
        report = ScanReport()
        visited: set[tuple[int, int]] = set()
        for entry in self._walk(self.root, "", self._root_rules, visited, report):
            report.files.append(entry)
        report.files.sort(key=lambda f: f.path)
        return report

    def scan_folder(self, rel_folder: str) -> ScanReport:
        """Walk one sub-folder (root-relative) with the rules in force there, e.g. a folder moved into the workspace."""
        report = ScanReport()
        rules = self._rules_for(rel_folder, report)
        if rules is not None:
            report.files.extend(self._walk(self.root / rel_folder, rel_folder, rules, set(), report))
            report.files.sort(key=lambda f: f.path)
        return report

    def check(self, abs_path: Path) -> SourceFile | str:
        """One path, as the scan would judge it: the SourceFile, or the reason it is not indexed."""
        rel = abs_path.as_posix() if not abs_path.is_absolute() else self.relative(abs_path)
        if rel is None:
            return "outside the workspace"
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        report = ScanReport()
        rules = self._rules_for(parent, report)
        if rules is None:
            return next(iter(report.skipped.values()))
        if rules.ignored(rel, is_dir=False):
            return "ignored by an ignore file"
        try:
            st = (self.root / rel).stat()
        except OSError as exc:
            return f"cannot stat: {exc.strerror or exc}"
        return self._accept(rel, str(self.root / rel), st)

    def describe(self, rel: str) -> SourceFile:
        """A SourceFile for a path known only by name (an unsaved editor buffer with no file on disk yet)."""
        return SourceFile(rel, str(self.root / rel), language_for_path(rel), classify_path(rel), 0, 0)

    def _rules_for(self, rel_folder: str, report: ScanReport) -> IgnoreRules | None:
        """The ignore rules inside a root-relative folder, or None (with the reason in `report`) if it is ignored."""
        rules = self._root_rules
        if not rel_folder:
            return rules
        parts = rel_folder.split("/")
        folder = self.root
        for depth, part in enumerate(parts):
            sub = "/".join(parts[: depth + 1])
            if part in ALWAYS_SKIPPED_DIRS or rules.ignored(sub, is_dir=True):
                report.skip(rel_folder, f"inside ignored folder {sub}")
                return None
            folder = folder / part
            rules = rules.child(folder, sub)
        return rules

    def relative(self, abs_path: Path) -> str | None:
        """The root-relative POSIX path of an absolute path, or None when it lies outside the root."""
        try:
            return abs_path.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError):
            return None

    def _accept(self, rel: str, abs_path: str, st: os.stat_result) -> SourceFile | str:
        if not stat.S_ISREG(st.st_mode):
            return "not a regular file"
        if st.st_size > self.max_file_size:
            return f"larger than max_file_size ({st.st_size} > {self.max_file_size} bytes)"
        if Path(rel).suffix.lower() in BINARY_SUFFIXES:
            return "binary file type"
        return SourceFile(
            path=rel,
            abs_path=abs_path,
            language=language_for_path(rel),
            path_class=classify_path(rel),
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
        )

    def _walk(
        self, folder: Path, rel_folder: str, rules: IgnoreRules, visited: set[tuple[int, int]], report: ScanReport
    ) -> Iterator[SourceFile]:
        try:
            folder_stat = folder.stat()
        except OSError as exc:
            report.skip(rel_folder or ".", f"cannot stat folder: {exc.strerror or exc}")
            return
        identity = (folder_stat.st_dev, folder_stat.st_ino)
        if identity in visited:
            report.skip(rel_folder or ".", "symlink loop (folder already visited)")
            return
        visited.add(identity)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            report.skip(rel_folder or ".", f"unreadable folder: {exc.strerror or exc}")
            return
        for entry in entries:
            rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError as exc:
                report.skip(rel, f"cannot stat: {exc.strerror or exc}")
                continue
            if is_dir:
                if entry.name in ALWAYS_SKIPPED_DIRS or rules.ignored(rel, is_dir=True):
                    continue
                if (Path(entry.path) / "pyvenv.cfg").is_file():
                    report.skip(rel, "a Python virtual environment")
                    continue
                child = Path(entry.path)
                yield from self._walk(child, rel, rules.child(child, rel), visited, report)
                continue
            if rules.ignored(rel, is_dir=False):
                continue
            try:
                st = entry.stat(follow_symlinks=True)
            except OSError as exc:
                report.skip(rel, f"cannot stat (dangling symlink?): {exc.strerror or exc}")
                continue
            accepted = self._accept(rel, entry.path, st)
            if isinstance(accepted, str):
                report.skip(rel, accepted)
            else:
                yield accepted

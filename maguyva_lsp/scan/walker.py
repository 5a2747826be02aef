"""Walk a workspace folder: respect ignore files, skip huge and obviously binary files, survive every bad entry.

An unreadable folder, a broken or looping symlink, a FIFO, a name that is not UTF-8, an entry that vanishes or changes
type while it is listed: each is skipped alone with its reason (scan/skips.py) and the walk goes on.
"""

from __future__ import annotations

import functools
import logging
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from maguyva_lsp.model import SourceFile
from maguyva_lsp.parse.languages import language_for_path, name_suffix, path_name
from maguyva_lsp.scan.casing import folder_ignores_case
from maguyva_lsp.scan.classify import ROOT_FOLDER, FolderClass, classify_file, classify_path
from maguyva_lsp.scan.ignore import IgnoreRules
from maguyva_lsp.scan.skips import Skip, SkipReason, kind_of_mode, name_problem, printable_path, skip_for_os_error

log = logging.getLogger(__name__)

# Suffixes that are never text: skipped without reading a byte (the NUL-byte check catches the rest at read time).
BINARY_SUFFIXES: frozenset[str] = frozenset(
    {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".icns", ".webp", ".tif", ".tiff", ".psd", ".pdf", ".zip",
     ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".jar", ".war", ".whl", ".egg", ".so", ".dylib", ".dll", ".exe",
     ".o", ".a", ".lib", ".obj", ".pyc", ".pyo", ".class", ".wasm", ".mp3", ".mp4", ".wav", ".ogg", ".flac", ".mov",
     ".avi", ".mkv", ".ttf", ".otf", ".woff", ".woff2", ".eot", ".db", ".sqlite", ".sqlite3", ".bin", ".dat",
     ".npy", ".npz", ".pkl", ".pickle", ".parquet", ".onnx", ".pt", ".safetensors", ".iso", ".dmg", ".deb", ".rpm"}
)  # fmt: skip
# A folder holding this file is a Python virtual environment: skipped whole, however it is named.
VENV_MARKER = "pyvenv.cfg"


@dataclass(slots=True)
class ScanReport:
    """What a scan found and what it skipped, with a reason for each skip (keyed by printable root-relative path)."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: dict[str, Skip] = field(default_factory=dict)

    def skip(self, rel_path: str, skip: Skip) -> None:
        shown = printable_path(rel_path or ".")
        self.skipped[shown] = skip
        log.debug("skipped %s: %s", shown, skip)


class WorkspaceScanner:
    """Enumerates the files of one workspace root that the index should hold; each bad entry costs only itself."""

    def __init__(
        self,
        root: Path,
        *,
        max_file_size: int,
        exclude: tuple[str, ...] = (),
        case_insensitive: bool | None = None,
    ) -> None:
        """`case_insensitive`: match ignore rules ignoring case; None asks the root's file system."""
        self.root = root.resolve()
        self.max_file_size = max_file_size
        if case_insensitive is None:
            case_insensitive = folder_ignores_case(self.root)
        self._root_rules = IgnoreRules.for_root(self.root, exclude, case_insensitive=case_insensitive)

    def scan(self) -> ScanReport:
        """Walk the whole root."""
        report = ScanReport()
        report.files.extend(self.walk(report))
        report.files.sort(key=lambda f: f.path)
        return report

    def walk(self, report: ScanReport) -> Iterator[SourceFile]:
        """The root's files as they are listed (skips go to `report`): lazily, so entries may change meanwhile."""
        yield from self._walk(self.root, "", self._root_rules, ROOT_FOLDER, report, visited=set(), own_rules=True)

    def scan_folder(self, rel_folder: str) -> ScanReport:
        """Walk one sub-folder (root-relative) with the rules in force there, e.g. a folder moved into the workspace."""
        report = ScanReport()
        rules = self._rules_for(rel_folder, report)
        if rules is not None:
            folder_class = ROOT_FOLDER
            for part in rel_folder.split("/"):
                folder_class = folder_class.inside(part)
            walk = self._walk(
                self.root / rel_folder, rel_folder, rules, folder_class, report, visited=set(), own_rules=True
            )
            report.files.extend(walk)
            report.files.sort(key=lambda f: f.path)
        return report

    def check(self, abs_path: Path) -> SourceFile | Skip:
        """One path, as the scan would judge it: the SourceFile, or the Skip saying why it is not indexed."""
        rel = abs_path.as_posix() if not abs_path.is_absolute() else self.relative(abs_path)
        if rel is None:
            return Skip(SkipReason.OUTSIDE)
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        report = ScanReport()
        rules = self._rules_for(parent, report)
        if rules is None:
            return next(iter(report.skipped.values()))
        if rules.ignored(rel, is_dir=False):
            return Skip(SkipReason.IGNORED)
        for part in rel.split("/"):
            if (problem := name_problem(part)) is not None:
                return Skip(SkipReason.BAD_NAME, problem)
        path = self.root / rel
        try:
            st = path.stat()
        except FileNotFoundError as exc:
            return (
                Skip(SkipReason.BROKEN_SYMLINK, exc.strerror or "") if path.is_symlink() else Skip(SkipReason.MISSING)
            )
        except OSError as exc:
            return skip_for_os_error(exc)
        except ValueError as exc:  # an embedded NUL byte
            return Skip(SkipReason.BAD_NAME, str(exc))
        return self._accept(rel, str(path), st)

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
            if rules.always_skipped(part) or rules.ignored(sub, is_dir=True):
                report.skip(rel_folder, Skip(SkipReason.IGNORED, f"inside ignored folder {sub}"))
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

    def _accept(
        self, rel: str, abs_path: str, st: os.stat_result, folder: FolderClass | None = None, name: str | None = None
    ) -> SourceFile | Skip:
        """A listed entry as a SourceFile, or why not. A walk passes the entry's folder class and name, which a
        single-path check works out from `rel`."""
        if stat.S_ISDIR(st.st_mode):
            return Skip(SkipReason.CHANGED_TYPE, "a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            return Skip(SkipReason.SPECIAL_FILE, kind_of_mode(st.st_mode))
        if st.st_size > self.max_file_size:
            return Skip(SkipReason.TOO_LARGE, f"{st.st_size} bytes > max_file_size {self.max_file_size}")
        if name is None:
            name = path_name(rel)
        if _lower_suffix(name) in BINARY_SUFFIXES:
            return Skip(SkipReason.BINARY, "binary file type")
        return SourceFile(
            path=rel,
            abs_path=abs_path,
            language=_language_of_name(name),
            path_class=classify_path(rel) if folder is None else classify_file(folder, name),
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
        )

    def _walk(
        self,
        folder: Path,
        rel_folder: str,
        rules: IgnoreRules,
        folder_class: FolderClass,
        report: ScanReport,
        *,
        visited: set[tuple[int, int]],
        ancestors: tuple[tuple[int, int], ...] = (),
        own_rules: bool = False,
    ) -> Iterator[SourceFile]:
        """The files under one folder. Anything wrong with the folder itself skips it alone; its entries one by one.
        `rules`: the parent's, to which this folder's own ignore files are added once it is listed (only the names the
        listing holds are opened); `own_rules`: they already include them (the root, a folder walked alone)."""
        try:
            folder_stat = folder.stat()
        except OSError as exc:
            report.skip(rel_folder, skip_for_os_error(exc, broken_link=_is_symlink(folder)))
            return
        if not stat.S_ISDIR(folder_stat.st_mode):
            report.skip(
                rel_folder,
                Skip(SkipReason.CHANGED_TYPE, f"listed as a folder, now {kind_of_mode(folder_stat.st_mode)}"),
            )
            return
        identity = (folder_stat.st_dev, folder_stat.st_ino)
        if identity in ancestors:
            report.skip(rel_folder, Skip(SkipReason.SYMLINK_LOOP, "links back to a folder that contains it"))
            return
        if identity in visited:
            report.skip(rel_folder, Skip(SkipReason.DUPLICATE_FOLDER))
            return
        visited.add(identity)
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            report.skip(rel_folder, skip_for_os_error(exc))
            return
        if rel_folder and any(e.name == VENV_MARKER for e in entries):
            report.skip(rel_folder, Skip(SkipReason.VIRTUALENV, f"holds {VENV_MARKER}"))
            return
        if not own_rules:
            rules = rules.child(folder, rel_folder, names=[e.name for e in entries])
        inside = (*ancestors, identity)
        for entry in entries:
            rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=True)
            except OSError as exc:
                report.skip(rel, skip_for_os_error(exc, broken_link=_is_symlink(entry)))
                continue
            if is_dir and rules.always_skipped(entry.name):
                continue
            if rules.ignored(rel, is_dir=is_dir):
                continue
            if (problem := name_problem(entry.name)) is not None:
                report.skip(rel, Skip(SkipReason.BAD_NAME, problem))
                continue
            if is_dir:
                child = Path(entry.path)
                inner = folder_class.inside(entry.name)
                yield from self._walk(child, rel, rules, inner, report, visited=visited, ancestors=inside)
                continue
            try:
                st = entry.stat(follow_symlinks=True)
            except OSError as exc:
                report.skip(rel, skip_for_os_error(exc, broken_link=_is_symlink(entry)))
                continue
            accepted = self._accept(rel, entry.path, st, folder_class, entry.name)
            if isinstance(accepted, Skip):
                report.skip(rel, accepted)
            else:
                yield accepted


def _is_symlink(entry: os.DirEntry[str] | Path) -> bool:
    """Whether an entry is itself a symlink, false when even that cannot be told."""
    try:
        return entry.is_symlink()
    except OSError:
        return False


@functools.lru_cache(maxsize=1 << 14)
def _language_of_name(name: str) -> str | None:
    """The grammar for a file name (a name decides it alone; names repeat across folders: `__init__.py`)."""
    return language_for_path(name)


def _lower_suffix(name: str) -> str:
    return name_suffix(name).lower()

"""Classify a path as source, test, vendor, build/generated or archive, so that fusion can demote the noise (by its
folders and name; `generated.py` judges the content)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from maguyva_lsp.model import PathClass

# Python environments are found by their `pyvenv.cfg` (the walker skips them whole) and by `site-packages`, not by a
# folder name: `venv` and `virtualenv` are also the names of real packages (the stdlib's venv module, virtualenv).
VENDOR_DIRS: frozenset[str] = frozenset(
    {"vendor", "vendors", "third_party", "third-party", "thirdparty", "3rdparty", "node_modules", "bower_components",
     "jspm_packages", "site-packages", "dist-packages", "Pods", "Carthage", "external", "extern", "deps", ".venv"}
)  # fmt: skip
BUILD_DIRS: frozenset[str] = frozenset(
    {"build", "builds", "dist", "target", "out", "_build", "obj", ".next", ".nuxt", ".svelte-kit", ".output",
     "coverage", "htmlcov", "generated", "gen", "__generated__", ".terraform", "cmake-build-debug",
     "cmake-build-release", "bazel-bin", "bazel-out", "bazel-genfiles", "DerivedData", "storybook-static"}
)  # fmt: skip
ARCHIVE_DIRS: frozenset[str] = frozenset({"archive", "archives", "archived", "attic", "deprecated", "old", "backup"})
TEST_DIRS: frozenset[str] = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs", "testdata", "e2e"})
# Test folders named for what they test: `typing_tests`, `integration-tests`, `idle_test`, `tests_utils`, `test-data`.
_TEST_DIR_RE = re.compile(r"^(?:.+[_-]tests?|tests?[_-].+)$")

# Folders of example programs, demos and samples: how to use the code, not the code itself. A question about the code
# reads them with its documents, after the code (search.py).
EXAMPLE_DIRS: frozenset[str] = frozenset({"examples", "example", "samples", "sample", "demo", "demos", "_examples"})

# File names that say "generated", "minified" or "archive" whatever folder they are in.
_BUILD_FILE_RE = re.compile(
    r"(\.min\.(js|css|mjs)|\.bundle\.js|\.chunk\.js|\.map|_pb2(_grpc)?\.pyi?|\.pb\.(go|cc|h)|\.g\.dart|\.freezed\.dart"
    r"|\.generated\.\w+|\.gen\.\w+|_generated\.\w+|-lock\.json|\.lock|\.designer\.cs)$",
    re.IGNORECASE,
)
_ARCHIVE_FILE_RE = re.compile(
    r"(\.(zip|tar|tgz|gz|bz2|xz|7z|rar|jar|war|whl|egg|bak|orig|rej|old)|~)$",
    re.IGNORECASE,
)
_TEST_FILE_RE = re.compile(
    r"(^test_.*\.py$|_test\.(py|go|rs|c|cc|cpp)$|\.(test|spec)\.[cm]?[jt]sx?$|Tests?\.(java|kt|cs|scala|swift)$"
    r"|_spec\.rb$|_test\.rb$|^conftest\.py$)"
)


@dataclass(frozen=True, slots=True)
class FolderClass:
    """What a folder's own name and its ancestors' say about every file in it (classify_file adds the file name).
    The walker carries it down one folder at a time instead of re-splitting each file's path."""

    vendor: bool = False
    build: bool = False
    archive: bool = False
    test: bool = False

    def inside(self, name: str) -> FolderClass:
        """The class of this folder's sub-folder `name`."""
        return FolderClass(
            self.vendor or name in VENDOR_DIRS,
            self.build or name in BUILD_DIRS,
            self.archive or name in ARCHIVE_DIRS,
            self.test or name in TEST_DIRS or _TEST_DIR_RE.match(name) is not None,
        )


ROOT_FOLDER = FolderClass()


def classify_file(folder: FolderClass, name: str) -> PathClass:
    """The class of a file called `name` in a folder of this class."""
    if folder.vendor:
        return PathClass.VENDOR
    if folder.build or _BUILD_FILE_RE.search(name):
        return PathClass.BUILD
    if folder.archive or _ARCHIVE_FILE_RE.search(name):
        return PathClass.ARCHIVE
    if folder.test or _TEST_FILE_RE.search(name):
        return PathClass.TEST
    return PathClass.SOURCE


def classify_path(rel_path: str) -> PathClass:
    """The class of a root-relative POSIX path from its folders and name alone."""
    # String splitting, not PurePosixPath: same parts for these paths.
    parts = [part for part in rel_path.split("/") if part and part != "."]
    folder = ROOT_FOLDER
    for part in parts[:-1]:
        folder = folder.inside(part)
    return classify_file(folder, parts[-1] if parts else "")


@lru_cache(maxsize=1 << 16)
def is_example(rel_path: str) -> bool:
    """Whether a root-relative POSIX path lies in a folder of examples, demos or samples (EXAMPLE_DIRS)."""
    return any(folder in EXAMPLE_DIRS for folder in [p for p in rel_path.split("/") if p and p != "."][:-1])

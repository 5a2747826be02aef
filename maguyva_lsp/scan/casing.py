"""Whether a folder's file system ignores case (Windows, macOS by default): then ignore rules and URIs match so too."""

from __future__ import annotations

import functools
import os
from pathlib import Path


@functools.lru_cache(maxsize=64)
def folder_ignores_case(folder: Path) -> bool:
    """True when the folder is found under its name with letters' case swapped and it is the same folder.

    Windows always ignores case. Elsewhere the probe needs a letter in the path; a path with none is taken as
    case-sensitive (the POSIX default)."""
    if os.name == "nt":
        return True
    for candidate in (folder, *folder.parents):
        if candidate.name != candidate.name.swapcase():
            swapped = candidate.with_name(candidate.name.swapcase())
            try:
                return os.path.samefile(candidate, swapped)
            except OSError:
                return False
    return False

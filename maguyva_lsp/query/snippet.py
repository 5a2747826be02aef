"""What a pasted code snippet itself defines: the names in its definition headers (`def f`, `class C`, `func F`).

For `find_similar`, the structural and graph retrievers have something to say only about those names; the body's
identifiers name what the snippet uses, not what it is, and matching them adds noise to the fused list.
"""

from __future__ import annotations

import re

_NAME = r"([A-Za-z_$][\w$]*)"
# One pattern per header shape, anchored at a line start (after indentation, decorators and modifiers).
_HEADER_RES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.MULTILINE)
    for pattern in (
        rf"^\s*(?:async\s+)?def\s+{_NAME}",  # Python
        rf"^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:data\s+)?class\s+{_NAME}",  # Python, JS/TS, Java...
        rf"^\s*(?:export\s+)?(?:async\s+)?function\s*\*?\s*{_NAME}",  # JS/TS
        rf"^\s*func\s+(?:\([^)]*\)\s*)?{_NAME}",  # Go (with or without a receiver)
        rf"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+{_NAME}",  # Rust
        rf"^\s*(?:export\s+)?(?:interface|struct|enum|trait|type)\s+{_NAME}",  # TS, Go, Rust, C#
        rf"^\s*(?:export\s+)?(?:const|let)\s+{_NAME}\s*=\s*(?:async\s+)?(?:\([^)]*\)|\w+)\s*=>",  # JS arrow functions
    )
)
MAX_SNIPPET_NAMES = 8


def defined_names(snippet: str) -> list[str]:
    """The names a snippet defines, in order of appearance, without repeats (at most MAX_SNIPPET_NAMES)."""
    found: list[tuple[int, str]] = []
    for pattern in _HEADER_RES:
        found.extend((m.start(1), m.group(1)) for m in pattern.finditer(snippet))
    names = list(dict.fromkeys(name for _, name in sorted(found)))
    return names[:MAX_SNIPPET_NAMES]

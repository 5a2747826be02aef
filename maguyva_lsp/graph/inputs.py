"""What the graph takes of a file — its definitions and references, language, content hash and line count — and
where it reads the references of stored files from when it does not keep them itself.

The engine's segments hold every file's references already; with a reference source set, the graph stores only each
file's imports and base-class lists (what other files' resolution reads of it) and asks the source for the rest when
a stored file must be resolved again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy.typing as npt

from maguyva_lsp.graph.modules import system_of
from maguyva_lsp.model import Definition, FileAnalysis, Reference

# (path, content hash) → that version's references, or None when the source does not hold that version.
ReferenceSource = Callable[[str, str], "tuple[Reference, ...] | None"]


class GraphSourceError(RuntimeError):
    """The reference source could not give a stored file's references: the graph and the segments disagree on the
    files' versions. The batch is not applied (the graph keeps its previous state)."""


@dataclass(frozen=True, slots=True)
class GraphInput:
    """One file as the graph needs it (no text, no chunks)."""

    path: str
    language: str | None
    content_hash: str
    lines: int  # newlines in the text: the file node spans lines 0..lines
    definitions: tuple[Definition, ...]
    references: tuple[Reference, ...]
    complete: bool = True  # False: only the imports and base lists among its references (the source has the rest)

    @staticmethod
    def of(analysis: FileAnalysis) -> GraphInput:
        return GraphInput(
            analysis.path,
            analysis.file.language,
            analysis.content_hash,
            analysis.text.count("\n"),
            analysis.definitions,
            tuple(analysis.references),  # an extracted file's ReferenceTable: its objects, built once
        )

    @property
    def belongs(self) -> bool:
        """Files the graph holds: code with a module system (even an empty `__init__.py` makes a package), or with
        definitions or references. Prose, data and configuration files would only add isolated nodes."""
        return system_of(self.language) is not None or bool(self.definitions or self.references)


@dataclass(frozen=True, slots=True)
class ReferenceRows:
    """One file's references as the stored columns hold them (no object per reference): string ids into `pool`
    (-1: none, which `pool[-1]` reads as None), kinds as indexes of `kinds`, spans one row of four per reference."""

    names: npt.NDArray[Any]
    kinds: npt.NDArray[Any]
    enclosing: npt.NDArray[Any]
    receivers: npt.NDArray[Any]
    modules: npt.NDArray[Any]
    aliases: npt.NDArray[Any]
    spans: npt.NDArray[Any]  # (references, 4): start line, start column, end line, end column
    pool: Sequence[str | None]  # ends with None
    kind_names: Sequence[str]

    def __len__(self) -> int:
        return len(self.names)

"""The manifest: which immutable containers make up the index now, and which of their files are dead.

One small JSON file, replaced atomically (temp file, fsync, rename, folder fsync) by the single writer at each commit:
a reader that reads it sees one consistent generation, and a crash leaves the previous manifest or the next one, never
a mix. Everything it names is immutable; a newer generation names new containers instead of changing old ones.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from maguyva_lsp.store.container import ContainerRecord

# The on-disk layout's version (1 was the SQLite store of analyses). Another format is rebuilt, with the reason said.
STORE_FORMAT = 2
MANIFEST_NAME = "manifest.json"


class ManifestError(Exception):
    """The manifest is unreadable or of another kind; the message says why."""


@dataclass(frozen=True, slots=True)
class SegmentEntry:
    """One segment: its id, its file count, its containers by part name, and the local ids of its dead files.

    `pending`: its files' references are not extracted yet (the first pass of a two-pass cold build published it
    for text and definition search); the next writer analyses its files again if the second pass did not replace it.
    Written only when set, so a store without pending segments reads the same in a version that does not know it."""

    id: str
    files: int
    containers: Mapping[str, ContainerRecord]
    dead: tuple[int, ...] = ()
    pending: bool = False

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id,
            "files": self.files,
            "containers": {name: record.to_json() for name, record in self.containers.items()},
            "dead": list(self.dead),
        }
        if self.pending:
            out["pending"] = "references"
        return out

    @staticmethod
    def from_json(value: Any) -> SegmentEntry:
        containers = {str(k): ContainerRecord.from_json(v) for k, v in dict(value["containers"]).items()}
        dead = tuple(int(i) for i in value.get("dead", ()))
        pending = value.get("pending") is not None
        return SegmentEntry(str(value["id"]), int(value["files"]), containers, dead, pending)

    def with_dead(self, dead: tuple[int, ...]) -> SegmentEntry:
        return SegmentEntry(self.id, self.files, self.containers, dead, self.pending)

    @property
    def live_files(self) -> int:
        return self.files - len(self.dead)


@dataclass(frozen=True, slots=True)
class Manifest:
    """One generation of the index."""

    schema: str  # what the analyzers and the parts' layouts are (the engine's version string)
    fingerprint: str  # the settings that shape the index (chunk size ...)
    generation: int = 0
    next_id: int = 0  # the next container id to hand out
    segments: tuple[SegmentEntry, ...] = ()
    # Parts that are not split by file (the graph, the vectors): per name, the containers to open in order.
    chains: Mapping[str, tuple[ContainerRecord, ...]] = field(default_factory=dict)
    meta: Mapping[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "format": STORE_FORMAT,
            "schema": self.schema,
            "fingerprint": self.fingerprint,
            "generation": self.generation,
            "next_id": self.next_id,
            "segments": [s.to_json() for s in self.segments],
            "chains": {name: [r.to_json() for r in chain] for name, chain in self.chains.items()},
            "meta": dict(self.meta),
        }

    @staticmethod
    def from_json(value: Any) -> Manifest:
        if not isinstance(value, dict):
            raise ManifestError("the manifest is not a JSON object")
        if value.get("format") != STORE_FORMAT:
            raise ManifestError(f"store format {value.get('format')!r}, this version reads {STORE_FORMAT}")
        try:
            return Manifest(
                schema=str(value["schema"]),
                fingerprint=str(value["fingerprint"]),
                generation=int(value["generation"]),
                next_id=int(value["next_id"]),
                segments=tuple(SegmentEntry.from_json(s) for s in value["segments"]),
                chains={
                    str(name): tuple(ContainerRecord.from_json(r) for r in chain)
                    for name, chain in dict(value.get("chains", {})).items()
                },
                meta=dict(value.get("meta", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ManifestError(f"the manifest is malformed ({exc})") from exc

    def container_names(self) -> set[str]:
        """Every container file this generation needs."""
        names = {r.name for s in self.segments for r in s.containers.values()}
        names.update(r.name for chain in self.chains.values() for r in chain)
        return names


def read_manifest(folder: Path) -> Manifest | None:
    """The folder's manifest, or None when it has none. Raises ManifestError when it is unreadable or foreign."""
    path = folder / MANIFEST_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ManifestError(f"the manifest cannot be read ({exc.strerror or exc})") from exc
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise ManifestError(f"the manifest is not JSON ({exc})") from exc
    return Manifest.from_json(value)


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Replace the folder's manifest atomically and durably."""
    data = json.dumps(manifest.to_json(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    replace_file(folder / MANIFEST_NAME, data)


def replace_file(path: Path, data: bytes) -> None:
    """Write a small file whole, atomically and durably: a temporary file beside it, fsynced, renamed over it, the
    folder fsynced (a reader sees the old bytes or the new, never a mix)."""
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if os.name == "posix":
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

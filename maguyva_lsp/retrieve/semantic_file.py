"""The vectors of a semantic retriever that keeps them itself (given a store_dir, outside an engine's manifest).

One container, `vectors.mgv`, holds the whole chain compacted into a base (store/container.py: written atomically,
mapped when read); a second, empty one, `vectors.record.mgv`, records the first one's size and CRC-32 in its meta,
checked when it is read, so a damaged file is detected and the vectors are rebuilt from the embedding cache.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from maguyva_lsp.index.vectors import BinaryVectorStore
from maguyva_lsp.store.container import Container, ContainerError, ContainerRecord, open_container, write_container

VECTORS_FILE = "vectors.mgv"
RECORD_FILE = "vectors.record.mgv"


class VectorFile:
    """The vector container of one folder and its record."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @property
    def path(self) -> Path:
        return self.folder / VECTORS_FILE

    def read(self) -> list[Container]:
        """The stored chain (one container, or none). Raises ContainerError when it is damaged or unrecorded."""
        record_path = self.folder / RECORD_FILE
        if not self.path.exists():
            return []
        try:
            record = ContainerRecord.from_json(open_container(record_path).meta.get("record"))
        except ValueError as exc:
            raise ContainerError(f"{RECORD_FILE}: unreadable ({exc})") from exc
        if record.name != VECTORS_FILE:
            raise ContainerError(f"{RECORD_FILE} names {record.name!r}")
        container = open_container(self.path, record)
        container.verify(record)
        return [container]

    def write(self, store: BinaryVectorStore) -> None:
        """Store the whole chain as one container (the store compacts itself into a base on the way)."""
        store.export_failed()  # whatever was written before is replaced, not appended to
        exported = store.export()
        if not exported.containers:
            for name in (RECORD_FILE, VECTORS_FILE):
                with contextlib.suppress(FileNotFoundError):
                    (self.folder / name).unlink()
            return
        arrays, meta = exported.containers[0]
        try:
            record = write_container(self.path, arrays, meta)
            write_container(self.folder / RECORD_FILE, {}, {"record": record.to_json()})
        except BaseException:
            store.export_failed()
            raise

"""Several workspace roots at once: one engine per root, requests routed by path, searches merged by score."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.scan.casing import folder_ignores_case
from maguyva_lsp.uris import same_file_key

log = logging.getLogger(__name__)


def _relative(path: Path, root: Path) -> str | None:
    """A path's POSIX form below a root, matched ignoring case where the root's file system does (macOS, Windows)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        pass
    if not folder_ignores_case(root):
        return None
    text, prefix = str(path), str(root).rstrip("/\\")
    if same_file_key(text[: len(prefix)], case_insensitive=True) != same_file_key(prefix, case_insensitive=True):
        return None
    rest = text[len(prefix) :]
    if rest and rest[0] not in "/\\":
        return None
    return PurePath(rest.lstrip("/\\")).as_posix() if rest else "."


class WorkspaceSet:
    """The engines of every open workspace folder. Thread-safe for adding/removing folders while serving."""

    def __init__(self, settings: Settings, *, persist: bool = True) -> None:
        self.settings = settings
        self.persist = persist
        self._engines: dict[Path, Engine] = {}
        self._lock = threading.Lock()

    def use_settings(self, settings: Settings) -> None:
        """Adopt settings that need no re-index (preset, limit, log level) in every open engine."""
        self.settings = settings
        for engine in self.engines():
            engine.settings = engine.settings.replace(
                preset=settings.preset, limit=settings.limit, log_level=settings.log_level
            )

    def add(self, root: Path) -> Engine | None:
        """Open an engine for a root (not yet indexed); None when that root is already open."""
        resolved = root.resolve()
        with self._lock:
            if resolved in self._engines:
                return None
        engine = Engine(resolved, self.settings, persist=self.persist)
        with self._lock:
            self._engines[resolved] = engine
        return engine

    def remove(self, root: Path) -> bool:
        with self._lock:
            engine = self._engines.pop(root.resolve(), None)
        if engine is None:
            return False
        engine.close()
        return True

    def engines(self) -> list[Engine]:
        with self._lock:
            return list(self._engines.values())

    def __iter__(self) -> Iterator[Engine]:
        return iter(self.engines())

    def __len__(self) -> int:
        return len(self._engines)

    def locate(self, absolute_path: str | Path) -> tuple[Engine, str] | None:
        """The engine whose root holds a path (the deepest root wins for nested folders) and the relative path."""
        path = Path(absolute_path)
        best: tuple[Engine, str] | None = None
        best_depth = -1
        for engine in self.engines():
            rel = _relative(path, engine.root)
            if rel is None:
                continue
            depth = len(engine.root.parts)
            if depth > best_depth:
                best, best_depth = (engine, rel), depth
        return best

    def search(
        self,
        query: str,
        preset: str | None,
        limit: int | None,
        explain: bool,
        *,
        regex: bool = False,
        case_sensitive: bool = False,
    ) -> dict[str, Any]:
        """One `maguyva/search` answer over every root: each engine's results merged by fused score."""
        engines = self.engines()
        if not engines:
            raise ValueError("no workspace folder is open")
        payloads: list[dict[str, Any]] = []
        for engine in engines:
            try:
                response = engine.search(query, preset, limit, explain, regex=regex, case_sensitive=case_sensitive)
            except RuntimeError:
                if engine.closed:
                    continue  # its folder was dropped while this search ran
                raise
            payloads.append(response.to_json())
        if not payloads:
            raise ValueError("no workspace folder is open")
        if len(payloads) == 1:
            return payloads[0]
        merged = dict(payloads[0])
        results = [r for p in payloads for r in p["results"]]
        results.sort(key=lambda r: -float(r["score"]))
        merged["results"] = results[: limit or self.settings.limit]
        merged["elapsed_ms"] = round(sum(float(p["elapsed_ms"]) for p in payloads), 3)
        merged["partial"] = any(p.get("partial") for p in payloads)
        skipped: dict[str, Any] = {}
        for p in payloads:
            for s in p.get("modalities_skipped", []):
                skipped.setdefault(s["modality"], s)
        merged["modalities_skipped"] = list(skipped.values())
        return merged

    def status(self) -> dict[str, Any]:
        """Totals over every root, plus each root's own status."""
        statuses = [e.status() for e in self.engines()]
        total = {key: sum(int(s[key]) for s in statuses) for key in ("files", "chunks", "symbols", "edges", "nodes")}
        return {
            "indexing": any(s["indexing"] for s in statuses),
            **total,
            "embedder": statuses[0]["embedder"] if statuses else None,
            "folders": statuses,
        }

    def close(self) -> None:
        with self._lock:
            engines = list(self._engines.values())
            self._engines.clear()
        for engine in engines:
            engine.close()

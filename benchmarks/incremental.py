"""Save-to-searchable latency: write a file (an edit to an existing one, or a new one), then poll until a search finds
the symbol it added — through `Engine.update` in process, and through the real server's file watcher over stdio.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.cases_symbols import is_library_code
from benchmarks.corpus import Corpus
from benchmarks.lsp_client import StdioClient
from benchmarks.quality import percentile
from maguyva_lsp.engine import Engine

POLL_SECONDS = 0.02
EDIT_TIMEOUT_SECONDS = 60.0
SERVER_READY_TIMEOUT_SECONDS = 900.0
STATUS_POLL_SECONDS = 0.25
EDITED_FILE_BYTES = (2_000, 40_000)  # existing files edited are of an ordinary size
SEARCH_LIMIT = 5


@dataclass(frozen=True, slots=True)
class Edit:
    path: str  # root-relative
    symbol: str
    new_file: bool


def plan_edits(corpus: Corpus, count: int, seed: int, prefix: str) -> list[Edit]:
    """Alternately: append a function to an existing library file, or create a new file beside one."""
    library = [p for p in corpus.python_files if is_library_code(p)]
    sized = [p for p in library if EDITED_FILE_BYTES[0] <= (corpus.root / p).stat().st_size <= EDITED_FILE_BYTES[1]]
    pool = sized or library  # a tiny corpus has no file of ordinary size
    picked = random.Random(seed).sample(pool, min(count, len(pool)))
    edits = []
    for index, path in enumerate(picked):
        symbol = f"{prefix}_{index}"
        if index % 2:
            folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
            edits.append(Edit(f"{folder}{symbol}_module.py", symbol, new_file=True))
        else:
            edits.append(Edit(path, symbol, new_file=False))
    return edits


def _apply_edit(root: Path, edit: Edit, originals: dict[str, bytes | None]) -> None:
    target = root / edit.path
    if edit.path not in originals:
        originals[edit.path] = None if edit.new_file else target.read_bytes()
    body = f"\n\ndef {edit.symbol}(value):\n    return value + 1\n".encode()
    target.write_bytes((originals[edit.path] or b"") + body)


def _restore(root: Path, originals: dict[str, bytes | None]) -> None:
    for path, data in originals.items():
        if data is None:
            (root / path).unlink(missing_ok=True)
        else:
            (root / path).write_bytes(data)


def _wait_until(found: Callable[[], bool], timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if found():
            return True
        time.sleep(POLL_SECONDS)
    return False


def _summary(latencies: list[float], failures: int, **extra: Any) -> dict[str, Any]:
    return {
        "edits": len(latencies) + failures,
        "not_found_in_time": failures,
        "p50_ms": round(percentile(latencies, 0.5) * 1e3, 1),
        "p95_ms": round(percentile(latencies, 0.95) * 1e3, 1),
        "max_ms": round(max(latencies, default=0.0) * 1e3, 1),
        **extra,
    }


def engine_edits(engine: Engine, corpus: Corpus, count: int, seed: int) -> dict[str, Any]:
    """In process: write, then `update([path])` and search until the new symbol is found."""
    originals: dict[str, bytes | None] = {}
    latencies: list[float] = []
    updates: list[float] = []
    failures = 0
    for edit in plan_edits(corpus, count, seed, "maguyva_bench_edit"):
        started = time.perf_counter()
        _apply_edit(corpus.root, edit, originals)

        def found(edit: Edit = edit) -> bool:
            began = time.perf_counter()
            engine.update([edit.path])
            updates.append(time.perf_counter() - began)
            response = engine.search(f"where is {edit.symbol} defined", limit=SEARCH_LIMIT)
            return any(edit.symbol in (r.symbol or "") for r in response.results)

        if _wait_until(found, EDIT_TIMEOUT_SECONDS):
            latencies.append(time.perf_counter() - started)
        else:
            failures += 1
    _restore(corpus.root, originals)
    engine.update(list(originals))
    return _summary(
        latencies,
        failures,
        update_p50_ms=round(percentile(updates, 0.5) * 1e3, 1),
        update_p95_ms=round(percentile(updates, 0.95) * 1e3, 1),
    )


def server_edits(corpus: Corpus, index_dir: Path, count: int, seed: int) -> dict[str, Any]:
    """Through the real server: start it over stdio (warm from `index_dir`), wait for its index, then write files
    and poll `maguyva/search` until the watcher has brought each change in."""
    client = StdioClient(corpus.root)
    originals: dict[str, bytes | None] = {}
    try:
        started = time.perf_counter()
        client.initialize(corpus.root, {"indexDir": str(index_dir), "exclude": list(corpus.excludes)})
        ready = _wait_until(
            lambda: not client.request("maguyva/status", {})["indexing"],
            SERVER_READY_TIMEOUT_SECONDS,
        )
        if not ready:
            return {"error": "the server did not finish indexing in time"}
        ready_seconds = time.perf_counter() - started
        latencies: list[float] = []
        failures = 0
        for edit in plan_edits(corpus, count, seed + 1, "maguyva_bench_saved"):
            began = time.perf_counter()
            _apply_edit(corpus.root, edit, originals)

            def found(edit: Edit = edit) -> bool:
                answer = client.request("maguyva/search", {"query": f"def {edit.symbol}", "limit": SEARCH_LIMIT})
                return any(edit.symbol in (r.get("symbol") or "") for r in answer["results"])

            if _wait_until(found, EDIT_TIMEOUT_SECONDS):
                latencies.append(time.perf_counter() - began)
            else:
                failures += 1
        return _summary(latencies, failures, server_ready_seconds=round(ready_seconds, 2))
    finally:
        client.close()
        _restore(corpus.root, originals)

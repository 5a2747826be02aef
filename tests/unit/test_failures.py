"""Background failures are never silent: the failure log (failures.py) and the server's writer-thread safety net."""

from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from maguyva_lsp.api import StatusRequest
from maguyva_lsp.failures import BACKGROUND, Failure, failure_log
from maguyva_lsp.server.app import MaguyvaServer

log = logging.getLogger("maguyva_lsp.tests.failures")


def test_only_marked_records_are_failures_with_their_exception() -> None:
    seen: list[Failure] = []
    failures = failure_log()
    failures.listen(seen.append)
    try:
        before = failures.last
        log.error("an ordinary error, a per-file problem say")
        assert failures.last is before and seen == []
        try:
            raise KeyError("chunk-7")
        except KeyError:
            log.exception("the text retriever failed to apply a batch", extra=BACKGROUND)
        (failure,) = seen
        assert failure.message == "the text retriever failed to apply a batch: KeyError: 'chunk-7'"
        assert failures.last == failure and failure.to_json()["message"] == failure.message
        assert failure.at.endswith("+00:00") and failure.count >= 1
    finally:
        failures.forget(seen.append)


def test_the_log_survives_a_handler_reset() -> None:
    package = logging.getLogger("maguyva_lsp")
    for handler in list(package.handlers):
        package.removeHandler(handler)  # what a logging set-up (the server's, the CLI's) may do
    failures = failure_log()
    assert failures in package.handlers
    log.error("store write failed", extra=BACKGROUND)
    assert failures.last is not None and failures.last.message == "store write failed"


def test_a_failing_writer_task_reaches_status_and_the_index_keeps_serving() -> None:
    server = MaguyvaServer()
    try:

        def reindex_that_breaks() -> None:
            raise OSError(28, "No space left on device")

        future = server.on_writer(reindex_that_breaks)
        with pytest.raises(OSError):
            future.result(timeout=30)
        deadline = time.monotonic() + 5
        while _status(server)["last_error"] is None and time.monotonic() < deadline:
            time.sleep(0.01)
        last = _status(server)["last_error"]
        assert last["message"] == (
            "background task reindex_that_breaks failed: OSError: [Errno 28] No space left on device"
        )
        assert server.on_writer(lambda: 42).result(timeout=30) == 42  # the writer thread goes on
    finally:
        server.shutdown_all()


def _status(server: MaguyvaServer) -> dict[str, Any]:
    """`maguyva/status` as the server answers it (through the contract)."""
    return server.workspaces.handle(StatusRequest()).to_json()

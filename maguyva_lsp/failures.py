"""Failures of background work, kept so that none is silent: the latest is in status (`last_error`) and the server
tells the client as it happens.

Background code reports a failure by logging it with `extra=BACKGROUND` (it logs anyway; no other plumbing): a
batch a retriever could not apply, the store that could not be written, a writer-thread task that raised. Per-file
problems are skips (scan/skips.py), not failures. One process-wide log, because background threads belong to the
process, not to one workspace folder.
"""

from __future__ import annotations

import datetime
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

# Pass as `extra=` to a log call that reports a failure of background work.
BACKGROUND: Final[dict[str, Any]] = {"maguyva_background": True}
PACKAGE_LOGGER = "maguyva_lsp"


@dataclass(frozen=True, slots=True)
class Failure:
    """One background failure: what failed, why (the exception's type and text), when (UTC, ISO 8601)."""

    message: str
    at: str
    count: int  # failures recorded in this process so far, this one included

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "at": self.at, "count": self.count}


FailureListener = Callable[[Failure], None]


class FailureLog(logging.Handler):
    """Keeps the latest background failure and tells listeners; installed on the package's logger."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self._lock = threading.Lock()
        self._last: Failure | None = None
        self._count = 0
        self._listeners: list[FailureListener] = []

    @property
    def last(self) -> Failure | None:
        return self._last

    def last_json(self) -> dict[str, Any] | None:
        last = self._last
        return last.to_json() if last is not None else None

    def listen(self, listener: FailureListener) -> None:
        with self._lock:
            self._listeners.append(listener)

    def forget(self, listener: FailureListener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def emit(self, record: logging.LogRecord) -> None:
        if not getattr(record, "maguyva_background", False):
            return
        try:
            message = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                message = f"{message}: {type(exc).__name__}: {exc}"
            at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
            with self._lock:
                self._count += 1
                failure = self._last = Failure(message, at, self._count)
                listeners = list(self._listeners)
            for listener in listeners:
                listener(failure)
        except Exception:  # logging must never raise into the code that logs
            self.handleError(record)


_LOG = FailureLog()


def failure_log() -> FailureLog:
    """The process's failure log, (re)attached to the package logger: handler set-ups that reset it cannot lose it."""
    logger = logging.getLogger(PACKAGE_LOGGER)
    if _LOG not in logger.handlers:
        logger.addHandler(_LOG)
    return _LOG

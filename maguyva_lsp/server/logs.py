"""Logging for the server: stderr always, and the client's log (window/logMessage) at the chosen verbosity."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from lsprotocol import types

from maguyva_lsp.server.stderr_log import log_package_to_stderr


class LogClient(Protocol):
    """What the handler needs of the server: its log method, and a way to call it on the event loop."""

    def from_thread(self, fn: Callable[..., Any], *args: Any) -> None: ...

    def window_log_message(self, params: types.LogMessageParams) -> None: ...


_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}
_MESSAGE_TYPES = {
    logging.ERROR: types.MessageType.Error,
    logging.WARNING: types.MessageType.Warning,
    logging.INFO: types.MessageType.Info,
    logging.DEBUG: types.MessageType.Log,
}


class ClientLogHandler(logging.Handler):
    """Forwards the package's log records to the client through the event loop (records come from any thread)."""

    def __init__(self, server: LogClient) -> None:
        super().__init__(logging.INFO)
        self._server = server
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            kind = _MESSAGE_TYPES.get(record.levelno, types.MessageType.Log)
            if record.levelno >= logging.ERROR:
                kind = types.MessageType.Error
            params = types.LogMessageParams(type=kind, message=self.format(record))
            self._server.from_thread(self._server.window_log_message, params)
        except Exception:  # logging must never raise into the code that logs
            self.handleError(record)

    def set_level(self, name: str) -> None:
        level = _LEVELS.get(name, logging.INFO)
        self.setLevel(level)
        logging.getLogger("maguyva_lsp").setLevel(min(level, logging.INFO))


def install_client_logging(server: LogClient) -> ClientLogHandler:
    """Route the `maguyva_lsp` loggers to stderr and the client. pygls itself logs whole messages (settings with
    the Voyage key among them) at INFO and DEBUG, so its loggers are held at WARNING and never sent to the client."""
    package = log_package_to_stderr()
    client = ClientLogHandler(server)
    package.addHandler(client)
    logging.getLogger("pygls").setLevel(logging.WARNING)
    return client

"""JSON-RPC as the SPEC wants it: every request with an id gets a reply, whatever is wrong with it.

pygls drops a request whose params do not fit lsprotocol's types (it logs a traceback and the client waits forever),
and answers requests before `initialize` or after `shutdown` with nothing either. This protocol answers them: the
contract's methods get their params as plain JSON (the contract parses them and names the bad field); any other
request whose params do not fit its type gets -32602 with cattrs' account of the fields; a request before
`initialize` gets -32002, one after `shutdown` -32600.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

from cattrs import transform_error
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCRequestMessage, JsonRPCResponseMessage

log = logging.getLogger(__name__)

# Methods whose params the contract (api/requests.py) parses itself, from plain JSON.
CONTRACT_METHODS: frozenset[str] = frozenset(
    {
        types.WORKSPACE_SYMBOL,
        types.TEXT_DOCUMENT_DEFINITION,
        types.TEXT_DOCUMENT_REFERENCES,
        "maguyva/search",
        "maguyva/impact",
        "maguyva/status",
    }
)
INVALID_PARAMS = -32602
INVALID_REQUEST = -32600
SERVER_NOT_INITIALIZED = -32002
# LSP's RequestFailed: a well-formed request the server cannot answer now (no folder open).
REQUEST_FAILED = -32803
# Errors that are answers to the client's mistakes, not the server's: no traceback in the log.
QUIET_ERRORS: frozenset[int] = frozenset({INVALID_PARAMS, REQUEST_FAILED})
# Requests allowed before `initialize` has been answered.
BEFORE_INITIALIZE: frozenset[str] = frozenset({types.INITIALIZE, types.SHUTDOWN})


class _Answered:
    """A request already answered with an error while it was read: nothing more to do for it."""

    jsonrpc = "answered"


ANSWERED = _Answered()


class MaguyvaProtocol(LanguageServerProtocol):
    """pygls' language server protocol, answering every request."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        if "jsonrpc" not in data or "id" not in data or not isinstance(data.get("method"), str):
            return super().structure_message(data)
        method: str = data["method"]
        if method in CONTRACT_METHODS:
            return JsonRPCRequestMessage(
                id=data["id"], method=method, jsonrpc=data["jsonrpc"], params=data.get("params")
            )
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            cause = exc.__cause__
            detail = "; ".join(transform_error(cause)) if isinstance(cause, Exception) else str(exc)
            self._refuse(data["id"], INVALID_PARAMS, f"invalid params for {method}: {detail}")
            return ANSWERED

    def handle_message(self, message: Any) -> None:
        if message is ANSWERED:
            return
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if method is not None and msg_id is not None:  # a request
            if self._workspace is None and method not in BEFORE_INITIALIZE:
                self._refuse(msg_id, SERVER_NOT_INITIALIZED, f"{method} before initialize: send initialize first")
                return
            if self._shutdown and method != types.EXIT:
                self._refuse(msg_id, INVALID_REQUEST, f"{method} after shutdown: the server is shutting down")
                return
        super().handle_message(message)

    def _serialize_message(self, data: Any) -> Any:
        """A reply whose result is plain JSON (every answer of the contract: `to_json()`) goes to json.dumps as it is:
        pygls would copy the whole result through cattrs first (the same values, one Python call per value of a
        search answer's results). Anything else as pygls serializes it."""
        if type(data) is JsonRPCResponseMessage and type(data.result) in (dict, list):
            return {"id": data.id, "jsonrpc": data.jsonrpc, "result": data.result}
        return super()._serialize_message(data)

    def _send_handler_result(self, future: Future[Any], *, msg_id: Any) -> None:
        """A request the contract refused is answered with its error, logged in one line (pygls would log a
        traceback, as for a crash)."""
        error = None if future.cancelled() else future.exception()
        if isinstance(error, JsonRpcException) and error.code in QUIET_ERRORS:
            self._request_futures.pop(msg_id, None)
            log.info("request %s refused: %s", msg_id, error.message)
            self._send_response(msg_id, None, error.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    def _refuse(self, msg_id: Any, code: int, message: str) -> None:
        log.warning("request %s refused: %s", msg_id, message)
        self._send_response(msg_id, None, types.ResponseError(code=code, message=message))

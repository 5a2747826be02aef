"""The language server's stdio transport: one thread reads whole messages, the event loop handles them.

pygls' own stdio reader asks a worker thread for every header line and for the body (`run_in_executor` three times
per message): each message then costs six thread wake-ups before its handler starts, each a trip through the
scheduler, which on a loaded machine is most of a fast request's round trip. Here one thread blocks on stdin, reads
a message whole (headers, then the Content-Length bytes of its body: server/framing.py) and hands it to the event
loop: two wake-ups. What happens to a message then is pygls' own: parsed with the protocol's `structure_message`,
handled by `handle_message`, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from pygls.exceptions import JsonRpcException
from pygls.protocol import JsonRPCProtocol

from maguyva_lsp.server.framing import read_message

log = logging.getLogger(__name__)


class MessageWriter:
    """pygls' writer over stdout, one whole message at a time: replies leave from the query threads that made them,
    notifications from the event loop."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self._lock:
            self._stream.write(data)
            self._stream.flush()

    def close(self) -> None:
        with self._lock:
            self._stream.close()


class StdinMessages:
    """Whole messages from a binary stream, read by a daemon thread, delivered in order on the event loop. `read`:
    what was read off the stream before (the first message, read ahead of pygls' import: server/early_open.py), as
    its body (None for none) and whether the stream went on."""

    def __init__(
        self, stream: BinaryIO, loop: asyncio.AbstractEventLoop, read: tuple[bytes | None, bool] = (None, True)
    ) -> None:
        self._stream = stream
        self._loop = loop
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._read_before = read
        self._thread = threading.Thread(target=self._read, name="maguyva-stdin", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _read(self) -> None:
        body, more = self._read_before
        if body is not None:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, body)
        try:
            while more:
                body, more = read_message(self._stream)
                if body is not None:
                    self._loop.call_soon_threadsafe(self._queue.put_nowait, body)
        except (OSError, ValueError) as exc:  # stdin closed under us
            log.debug("stdin reader stopped: %s", exc)
        except RuntimeError:  # the loop closed first (the server is shutting down)
            return
        with contextlib.suppress(RuntimeError):  # the same
            self._loop.call_soon_threadsafe(self._queue.put_nowait, None)

    async def next(self) -> bytes | None:
        """The next message's body; None once the stream has ended."""
        return await self._queue.get()


async def serve_messages(
    messages: StdinMessages,
    protocol: JsonRPCProtocol,
    stop: threading.Event,
    report_error: Callable[[Exception, type[JsonRpcException]], Any],
) -> None:
    """Handle each message as pygls' `run_async` does, until the stream ends or the server stops."""
    messages.start()
    while not stop.is_set():
        body = await messages.next()
        if body is None:
            break
        try:
            protocol.handle_message(json.loads(body, object_hook=protocol.structure_message))
        except Exception as exc:
            log.exception("Unable to handle message")
            report_error(exc, JsonRpcException)

"""The stdio transport's framing (server/stdio.py): what pygls' own reader would make of the same bytes, read whole."""

from __future__ import annotations

import asyncio
import io
import json
import os
import threading
from typing import Any

from maguyva_lsp.server.framing import read_message
from maguyva_lsp.server.stdio import StdinMessages


def framed(body: bytes, *extra: bytes) -> bytes:
    return b"".join(extra) + b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_messages_are_read_whole_with_any_other_headers() -> None:
    first, second = b'{"id": 1}', '{"id": 2, "q": "é"}'.encode()
    stream = io.BytesIO(framed(first) + framed(second, b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"))
    assert read_message(stream) == (first, True)
    assert read_message(stream) == (second, True)
    assert read_message(stream) == (None, False)


def test_headers_without_a_length_carry_no_message_and_reading_goes_on() -> None:
    stream = io.BytesIO(b"X-Noise: 1\r\n\r\n" + framed(b"{}"))
    assert read_message(stream) == (None, True)
    assert read_message(stream) == (b"{}", True)


def test_a_body_cut_short_by_the_end_of_the_stream_ends_it() -> None:
    assert read_message(io.BytesIO(b"Content-Length: 10\r\n\r\n{}")) == (b"{}", False)
    assert read_message(io.BytesIO(b"Content-Length: 10\r\n\r\n")) == (None, False)
    assert read_message(io.BytesIO(b"Content-Length: 10\r\n")) == (None, False)


def test_the_loop_gets_every_message_in_order_then_the_end() -> None:
    """Through a pipe, written in pieces by another thread (as a client writes), large and small bodies."""
    bodies = [json.dumps({"id": i, "pad": "x" * (i * 997)}).encode() for i in range(50)]
    read, write = os.pipe()
    read_end, write_end = os.fdopen(read, "rb"), os.fdopen(write, "wb")

    async def collect() -> list[Any]:
        messages = StdinMessages(read_end, asyncio.get_running_loop())
        messages.start()
        got = []
        while (body := await messages.next()) is not None:
            got.append(body)
        return got

    def feed() -> None:
        for body in bodies:
            write_end.write(framed(body))
            write_end.flush()
        write_end.close()

    feeder = threading.Thread(target=feed)
    feeder.start()
    assert asyncio.run(collect()) == bodies
    feeder.join()

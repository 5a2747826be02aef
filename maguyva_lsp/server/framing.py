"""LSP's base protocol framing over a byte stream, without pygls: the server reads its first message (the client's
`initialize`) with this before pygls is imported (server/early_open.py), and its stdin thread every message after.

Framing as pygls reads it: header lines up to an empty one; a body only after a `Content-Length` header; other
headers ignored."""

from __future__ import annotations

import os
import re
import sys
from typing import BinaryIO

CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


def read_message(stream: BinaryIO) -> tuple[bytes | None, bool]:
    """The body of the next message (None when its headers named no length), and whether the stream goes on."""
    length = 0
    while True:
        header = stream.readline()
        if not header:
            return None, False
        if not length and (found := CONTENT_LENGTH.fullmatch(header)) is not None:
            length = int(found.group(1))
        if not header.strip():
            break
    if not length:
        return None, True
    body = stream.read(length)
    return body or None, len(body) == length


def own_stdin() -> BinaryIO:
    """The server's input: a file object of its own over a duplicate of standard input. The thread that reads it is
    a daemon blocked in a read when the client says `exit`; had it `sys.stdin.buffer`, the interpreter's shutdown
    would close that object under the reader's lock and abort the process ("could not acquire lock for <stdin> at
    interpreter shutdown", exit status -6). An object only that thread holds is never finalized while it waits."""
    return os.fdopen(os.dup(sys.stdin.fileno()), "rb")

"""Build the language server (state from app.py, handlers from handlers.py) and serve it."""

from __future__ import annotations

from typing import BinaryIO

from maguyva_lsp.server.app import MaguyvaServer
from maguyva_lsp.server.early_open import EarlyOpen
from maguyva_lsp.server.handlers import register


def build_server(early: EarlyOpen | None = None) -> MaguyvaServer:
    server = MaguyvaServer(early)
    register(server)
    return server


def run_server(
    *,
    tcp: bool = False,
    host: str = "127.0.0.1",
    port: int = 2087,
    early: EarlyOpen | None = None,
    stdin: BinaryIO | None = None,
) -> None:
    """Serve LSP over stdio (or TCP) until the client says exit. `stdin`: the server's own input (server/framing.py);
    `early`: the client's first message, read from it before pygls was imported, and the folder it opened
    (server/early_open.py)."""
    server = build_server(early)
    try:
        if tcp:
            server.start_tcp(host, port)
        else:
            server.start_io(stdin)
    finally:
        server.shutdown_all()

"""Build the language server (state from app.py, handlers from handlers.py) and serve it."""

from __future__ import annotations

from maguyva_lsp.server.app import MaguyvaServer
from maguyva_lsp.server.handlers import register


def build_server() -> MaguyvaServer:
    server = MaguyvaServer()
    register(server)
    return server


def run_server(*, tcp: bool = False, host: str = "127.0.0.1", port: int = 2087) -> None:
    """Serve LSP over stdio (or TCP) until the client says exit."""
    server = build_server()
    try:
        if tcp:
            server.start_tcp(host, port)
        else:
            server.start_io()
    finally:
        server.shutdown_all()

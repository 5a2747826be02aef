"""Start the real server over stdio (pytest-lsp) on workspaces the tests write."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER_COMMAND = [sys.executable, "-m", "maguyva_lsp", "--stdio"]
INDEX_TIMEOUT_SECONDS = 60.0
CHANGE_TIMEOUT_SECONDS = 15.0

CONFIG_PY = '''"""Configuration loading."""
import json

DEFAULT_PORT = 8080


class ConfigError(Exception):
    """Raised when a configuration document is invalid."""


def parse_config(text: str) -> dict:
    """Parse a JSON configuration document."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError("ECONNREFUSED while reading config") from exc


def load_config(path: str) -> dict:
    with open(path) as handle:
        return parse_config(handle.read())
'''

SERVER_PY = """from app.config import DEFAULT_PORT, load_config


class Server:
    def __init__(self, path):
        self.config = load_config(path)

    def start(self):
        port = self.config.get("port", DEFAULT_PORT)
        return self.listen(port)

    def listen(self, port):
        return port
"""

ROUTES_TS = """import { Server } from "./server";

export function handleRequest(path: string): number {
  return new Server().route(path);
}
"""


def write_workspace(root: Path) -> Path:
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "config.py").write_text(CONFIG_PY)
    (root / "app" / "server.py").write_text(SERVER_PY)
    (root / "web").mkdir()
    (root / "web" / "routes.ts").write_text(ROUTES_TS)
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "secret_module.py").write_text("def hidden_function():\n    pass\n")
    return root


def options(index_dir: Path, **extra: Any) -> dict[str, Any]:
    return {"indexDir": str(index_dir), "logLevel": "debug", **extra}


@contextlib.asynccontextmanager
async def lsp_session(
    root: Path,
    init_options: dict[str, Any],
    capabilities: str = "visual-studio-code",
    server_command: list[str] | None = None,
    server_env: dict[str, str] | None = None,
) -> AsyncIterator[LanguageClient]:
    """A started and initialised server on `root`; shut down cleanly at the end."""
    config = ClientServerConfig(server_command=server_command or SERVER_COMMAND, server_env=server_env)
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities(capabilities),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
                initialization_options=init_options,
            )
        )
        yield client
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.shutdown_session(), 20)
        await client.stop()


async def request(client: LanguageClient, method: str, params: Any) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async(method, params), 30)


async def wait_until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll an async check until it returns something truthy."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = await check()  # type: ignore[misc]
        if last:
            return last
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last answer: {last!r}")


async def wait_indexed(client: LanguageClient) -> Any:
    async def done() -> Any:
        status = await request(client, "maguyva/status", {})
        return status if not status.indexing and status.files > 0 else None

    return await wait_until(done, INDEX_TIMEOUT_SECONDS, "the initial index")


async def search(client: LanguageClient, query: str, **params: Any) -> Any:
    return await request(client, "maguyva/search", {"query": query, **params})


def result_paths(response: Any) -> list[str]:
    return [r.uri.rsplit("/", 2)[-2] + "/" + r.uri.rsplit("/", 1)[-1] for r in response.results]

"""No background failure is silent: the real server with a full disk (RLIMIT_FSIZE) tells the user, says it in
`maguyva/status` (`last_error`), and keeps answering from the index it holds."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from tests.e2e.lsp_session import lsp_session, options, search, wait_indexed, wait_until

pytestmark = pytest.mark.e2e

# Files the server may write: enough to create the store, far too little to save a 150 KB file's analysis.
FILE_SIZE_LIMIT = 48 * 1024
# The server under a file-size limit: a write past it fails with EFBIG ("disk full" for SQLite), as on a full disk.
FULL_DISK_SERVER = [
    sys.executable,
    "-c",
    "import resource, runpy, sys; "
    f"resource.setrlimit(resource.RLIMIT_FSIZE, ({FILE_SIZE_LIMIT}, {FILE_SIZE_LIMIT})); "
    "sys.argv = ['maguyva_lsp', '--stdio']; runpy.run_module('maguyva_lsp', run_name='__main__', alter_sys=True)",
]


def big_module(lines: int) -> str:
    """Source that compresses badly (hex names and strings), so its stored analysis is large."""
    out = []
    for i in range(lines):
        digest = hashlib.sha256(str(i).encode()).hexdigest()
        out.append(f"def f_{digest[:16]}():\n    return '{digest[16:]}'\n")
    return "".join(out)


async def test_a_store_that_cannot_be_written_is_reported_and_search_keeps_working(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.py").write_text(big_module(1500))
    (root / "small.py").write_text("def full_disk_survivor():\n    return 1\n")
    async with lsp_session(root, options(tmp_path / "idx"), server_command=FULL_DISK_SERVER) as client:
        status = await wait_indexed(client)
        assert status.files == 2

        async def failure_told() -> list[types.ShowMessageParams]:
            return [m for m in client.messages if "could not write the index store" in m.message]

        (told,) = await wait_until(failure_told, 30, "the store failure message")
        assert told.type == types.MessageType.Error
        assert "disk I/O error" in told.message and "maguyva/status" in told.message
        status = await wait_indexed(client)
        assert "could not write the index store" in status.last_error.message
        assert status.last_error.at and status.last_error.count >= 1
        found = await search(client, "where is full_disk_survivor defined")
        assert found.results[0].uri == (root / "small.py").as_uri()
        found = await search(client, '"f_' + hashlib.sha256(b"7").hexdigest()[:16] + '"')
        assert found.results and found.results[0].uri == (root / "big.py").as_uri()

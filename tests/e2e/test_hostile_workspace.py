"""One hostile workspace, every bad entry at once, served by the real server run as an ordinary user sees the disk.

Every normal file must be found; each bad entry is counted by reason in `maguyva/status`; the user hears one warning
per indexing run, never one per file. A second run after files turned binary or huge and a folder became a file
drops exactly those, with their reasons. The CLI shows the same in `status`.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests import hostile_workspace
from tests.e2e.lsp_session import SERVER_COMMAND, lsp_session, options, request, search, wait_indexed, wait_until
from tests.unprivileged import as_ordinary_user, assert_readable_by_us, assert_unreadable, ordinary_user_env

pytestmark = pytest.mark.e2e

WARNING_TEXT = "could not be indexed and were skipped"


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[hostile_workspace.Hostile]:
    ws = hostile_workspace.build(tmp_path / "ws")
    yield ws
    hostile_workspace.restore_permissions(ws.root)


def skip_counts(ws: hostile_workspace.Hostile) -> dict[str, int]:
    counts: dict[str, int] = {}
    for reason in ws.expected_skips.values():
        counts[reason.value] = counts.get(reason.value, 0) + 1
    return counts


def fields(obj: Any) -> dict[str, Any]:
    """A JSON object of an answer (pygls gives objects with attribute access) as a dict."""
    return dict(obj._asdict()) if hasattr(obj, "_asdict") else dict(vars(obj))


def warnings(client: Any) -> list[str]:
    return [m.message for m in client.messages if WARNING_TEXT in m.message]


async def assert_every_normal_file_found(client: Any, ws: hostile_workspace.Hostile) -> None:
    for rel, token in ws.normal.items():
        found = await search(client, f'"{token}"', limit=50)
        uris = {r.uri for r in found.results}
        assert (ws.root / rel).as_uri() in uris, f"{rel} not found by its token {token}: {uris}"


async def test_hostile_workspace_end_to_end(hostile: hostile_workspace.Hostile, tmp_path: Path) -> None:
    assert_unreadable(hostile.unreadable)  # really unreadable to the server started below
    assert_readable_by_us(hostile.unreadable)  # ...because of the dropped capability, not because they are broken
    init = options(tmp_path / "idx", maxFileSize=hostile_workspace.MAX_FILE_SIZE)
    async with lsp_session(hostile.root, init, server_command=as_ordinary_user(SERVER_COMMAND)) as client:
        status = await wait_indexed(client)
        (folder,) = status.folders
        assert status.files == len(hostile.normal)
        skips = {reason: info.count for reason, info in fields(folder.skips).items()}
        assert skips == skip_counts(hostile)
        assert folder.skips.unreadable.problem is True
        assert set(folder.skips.unreadable.examples) <= {"app/private.py", "env", "listable/inside.py", "listable/sub"}
        assert folder.skips.bad_name.examples == ["caf\\xe9.py", "d\\xfcr", "new\\nline.py"]
        await assert_every_normal_file_found(client, hostile)
        never = await search(client, '"never_seen_secret"')
        assert never.results == []

        await wait_until(lambda: _async(len(warnings(client)) >= 1), 10, "the skip warning")
        (warning,) = warnings(client)
        total = len(hostile.expected_skips)
        assert warning.startswith(f"Maguyva: {total} entries in ws {WARNING_TEXT}: ")
        assert "unreadable (e.g. " in warning and "`maguyva/status`" in warning

        # Second run: a file turned binary, one grew past the limit, a folder became a file.
        hostile_workspace.second_scan(hostile)
        await request(
            client,
            types.WORKSPACE_EXECUTE_COMMAND,
            types.ExecuteCommandParams(command="maguyva.reindex", arguments=[]),
        )
        await wait_until(lambda: _async(len(warnings(client)) >= 2), 60, "the second run's warning")
        status = await wait_indexed(client)
        (folder,) = status.folders
        assert status.files == len(hostile.normal)
        skips = {reason: info.count for reason, info in fields(folder.skips).items()}
        assert skips == skip_counts(hostile)
        assert folder.skips.binary.examples == ["turns_binary.py"]
        assert folder.skips.too_large.examples == ["turns_huge.py"]
        await assert_every_normal_file_found(client, hostile)
        for gone in ("hostile_turns_binary", "hostile_turns_huge", "hostile_becomes_file_module"):
            assert (await search(client, f'"{gone}"')).results == [], gone
        await asyncio.sleep(0.5)
        assert len(warnings(client)) == 2  # one per indexing run


async def _async(value: Any) -> Any:
    return value


def test_cli_status_and_warning_as_an_ordinary_user(hostile: hostile_workspace.Hostile, tmp_path: Path) -> None:
    assert_unreadable(hostile.unreadable)
    command = [sys.executable, "-m", "maguyva_lsp.cli", "status", str(hostile.root), "--index-dir", str(tmp_path)]
    command += ["--max-file-size", str(hostile_workspace.MAX_FILE_SIZE)]
    result = subprocess.run(
        as_ordinary_user(command), capture_output=True, text=True, timeout=300, check=False, env=ordinary_user_env()
    )
    assert result.returncode == 0, result.stderr
    status = json.loads(result.stdout)
    assert status["files"] == len(hostile.normal)
    skips = status["skips"]  # the CLI prints maguyva/status as the server answers it: skips totalled over folders
    assert {reason: info["count"] for reason, info in skips.items()} == skip_counts(hostile)
    assert skips["symlink_loop"]["examples"] == ["app/parent", "loop_a.py", "loop_b.py"]
    warning_lines = [line for line in result.stderr.splitlines() if WARNING_TEXT in line]
    assert len(warning_lines) == 1, result.stderr

"""A second real editor as the client: headless Neovim drives the server with its own LSP client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (apt install neovim)"),
]

CLIENT_SCRIPT = Path(__file__).parent / "neovim" / "client.lua"


def test_neovim_searches_navigates_and_gets_errors(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "answers.json"
    home = tmp_path / "nvim-home"
    env = {
        **os.environ,
        "MAGUYVA_PYTHON": sys.executable,
        "MAGUYVA_ROOT": str(workspace),
        "MAGUYVA_INDEX_DIR": str(tmp_path / "idx"),
        "MAGUYVA_OUT": str(out),
        # Nothing of Neovim's state lands in the real home folder.
        **{f"XDG_{kind}_HOME": str(home / kind.lower()) for kind in ("DATA", "STATE", "CACHE", "CONFIG")},
    }
    run = subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {CLIENT_SCRIPT}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert out.exists(), f"Neovim wrote no answers (exit {run.returncode}): {run.stderr[-2000:]}"
    answers = json.loads(out.read_text())
    assert answers["ok"], answers["message"]
    assert answers["status"]["files"] == 5
    search = answers["search"]
    assert (search["intent"], search["fusion_strategy"]) == ("find_definition", "direct")
    assert search["results"][0]["uri"] == (workspace / "app" / "config.py").as_uri()
    assert answers["symbols"][0]["name"] == "load_config"
    assert "query" in answers["bad"]["error"]
    (definition,) = answers["definition"]
    assert definition["uri"] == (workspace / "app" / "config.py").as_uri()
    assert definition["range"]["start"]["line"] == 18

"""Run a command as an ordinary user sees the disk: root without the capabilities that read everything.

CI runs as root, and root reads chmod-000 files (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). `setpriv` starts the
command with both dropped from its inheritable and bounding sets, so neither it nor its children have them; an
ordinary user needs no wrapper. `assert_unreadable` proves, in a process started the same way, that the entries a
test means to be unreadable really are: a test whose chmod did nothing must fail, not pass for the wrong reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

DROPPED = "-dac_override,-dac_read_search"

PROBE = """
import json, os, sys
answers = {}
for path in json.loads(sys.argv[1]):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            os.listdir(path)
        else:
            with open(path, "rb"):
                pass
        answers[path] = "readable"
    except PermissionError:
        answers[path] = "denied"
    except OSError as exc:
        answers[path] = f"other: {exc}"
print(json.dumps(answers))
"""


def as_ordinary_user(command: Sequence[str]) -> list[str]:
    """`command`, wrapped so that root runs it without the read-everything capabilities."""
    if os.geteuid() != 0:
        return list(command)
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "running as root needs setpriv (util-linux) to drop CAP_DAC_OVERRIDE for this test"
    return [setpriv, f"--inh-caps={DROPPED}", f"--bounding-set={DROPPED}", *command]


def ordinary_user_env() -> dict[str, str]:
    """The environment for such a process: the tests' own, with the repository importable."""
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "") if env.get("PYTHONPATH") else root
    return env


def assert_unreadable(paths: Sequence[Path]) -> None:
    """Every path is refused (PermissionError) to a process started by `as_ordinary_user`."""
    names = [str(p) for p in paths]
    result = subprocess.run(
        as_ordinary_user([sys.executable, "-c", PROBE, json.dumps(names)]),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answers = json.loads(result.stdout)
    assert answers == dict.fromkeys(names, "denied"), f"meant to be unreadable, but: {answers}"


def assert_readable_by_us(paths: Sequence[Path]) -> None:
    """The same paths, read by this (root) process: proof that the refusal above comes from the dropped capability."""
    if os.geteuid() != 0:
        return
    for path in paths:
        if path.is_dir():
            os.listdir(path)
        else:
            path.read_bytes()

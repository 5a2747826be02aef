"""The start path imports nothing POSIX-only: the server, the CLI and every module import as they would on Windows.

CI is Linux, so Windows' missing modules are simulated: a fresh interpreter makes the POSIX-only standard modules
unimportable (as they are on Windows), records every attempt to import one and by whom, then imports the package.
A guarded stdlib import (`subprocess` tries `fcntl`) survives that, exactly as on Windows; an unguarded import
anywhere on our start path fails it. Our own modules must not even try.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The standard library's modules documented as "Availability: Unix" that a cross-platform module might import.
POSIX_ONLY = ("fcntl", "termios", "tty", "pty", "pwd", "grp", "resource", "syslog", "crypt", "spwd", "nis", "posix")

SIMULATE_WINDOWS = """
import importlib, json, pkgutil, sys, traceback
POSIX_ONLY = set(json.loads(sys.argv[1]))
targets = json.loads(sys.argv[2])
attempts = []

class Absent:
    # A meta-path finder that makes POSIX-only modules missing, as they are on Windows.
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in POSIX_ONLY:
            frames = [f for f in traceback.extract_stack() if "importlib" not in f.filename]
            frames = [f for f in frames if f.filename != "<string>"]
            attempts.append([name, frames[-1].filename if frames else "?"])
            raise ModuleNotFoundError(f"No module named {name!r} (simulated Windows)", name=name)
        return None

for name in POSIX_ONLY - {"posix"}:  # posix is os's own back end, loaded before any user code on POSIX
    sys.modules.pop(name, None)
sys.meta_path.insert(0, Absent)
failures = {}
for target in targets:
    try:
        module = importlib.import_module(target)
        if target == "maguyva_lsp":
            for info in pkgutil.walk_packages(module.__path__, "maguyva_lsp."):
                importlib.import_module(info.name)
    except Exception as exc:
        failures[target] = f"{type(exc).__name__}: {exc}"
loaded = sorted(set(sys.modules) & (POSIX_ONLY - {"posix"}))
print(json.dumps({"failures": failures, "attempts": attempts, "loaded": loaded}))
"""


def simulate_windows(*targets: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", SIMULATE_WINDOWS, json.dumps(POSIX_ONLY), json.dumps(list(targets))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answer: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


def test_the_server_imports_without_posix_only_modules() -> None:
    """`python -c "import maguyva_lsp.server"` and the rest of the start path, with Windows' module set."""
    answer = simulate_windows(
        "maguyva_lsp.server", "maguyva_lsp.server.app", "maguyva_lsp.server.handlers", "maguyva_lsp.__main__",
        "maguyva_lsp.cli", "maguyva_lsp.engine", "maguyva_lsp.store.segment_store", "maguyva_lsp.store.lock",
    )  # fmt: skip
    assert answer["failures"] == {}
    assert answer["loaded"] == []
    ours = [attempt for attempt in answer["attempts"] if "maguyva_lsp" in str(attempt[1])]  # type: ignore[attr-defined]
    assert ours == [], "our own modules import POSIX-only modules"


def test_every_module_of_the_package_imports_without_posix_only_modules() -> None:
    answer = simulate_windows("maguyva_lsp")
    assert answer["failures"] == {}
    ours = [attempt for attempt in answer["attempts"] if "maguyva_lsp" in str(attempt[1])]  # type: ignore[attr-defined]
    assert ours == []


def test_the_simulation_catches_an_unguarded_posix_import() -> None:
    """The check can fail: a module importing fcntl at top level does not import under the simulation."""
    answer = simulate_windows("fcntl", "tty")
    failures = answer["failures"]
    assert isinstance(failures, dict) and set(failures) == {"fcntl", "tty"}
    assert "simulated Windows" in failures["tty"]

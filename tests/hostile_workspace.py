"""A workspace holding every kind of bad entry at once, beside normal files that must all be indexed.

Built for real on disk: chmod-000 files and folders, a folder that can be listed but not entered, a FIFO, a Unix
socket, a device (through a symlink to /dev/null), broken and looping symlinks, a folder linking to its parent, names
with a newline and with bytes that are not UTF-8, a virtual environment that cannot be read. `second_scan` then
changes what was fine: a file turns binary, one grows past the size limit, a folder is replaced by a file.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from maguyva_lsp.scan.skips import SkipReason

# The size limit the tests index with: small, so that "grows past it" needs few bytes.
MAX_FILE_SIZE = 4096


@dataclass
class Hostile:
    root: Path
    normal: dict[str, str] = field(default_factory=dict)  # root-relative path → a token found only in that file
    expected_skips: dict[str, SkipReason] = field(default_factory=dict)  # printable path → reason
    unreadable: list[Path] = field(default_factory=list)  # what an ordinary user cannot read or enter

    def write(self, rel: str, token: str, body: str = "") -> Path:
        """A normal file defining a function named after `token` (so it is findable by name and as text)."""
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".ts"):
            path.write_text(f"export function {token}(): number {{\n  return 1;\n}}\n{body}")
        else:
            path.write_text(f"def {token}():\n    return {token!r}\n{body}")
        self.normal[rel] = token
        return path


def build(root: Path) -> Hostile:
    """Lay out the hostile workspace under `root` (which must not exist)."""
    root.mkdir(parents=True)
    ws = Hostile(root)
    ws.write("app/main.py", "hostile_main_entry")
    ws.write("app/util.py", "hostile_util_helper")
    ws.write("web/view.ts", "hostileViewRender")
    ws.write("docs/notes.md", "hostile_notes_marker")
    ws.write("turns_binary.py", "hostile_turns_binary")
    ws.write("turns_huge.py", "hostile_turns_huge")
    ws.write("becomes_file/mod.py", "hostile_becomes_file_module")

    # Unreadable: a folder (with a normal sibling whose name shares its prefix), a file, a venv-looking folder (the
    # scanner used to stat its pyvenv.cfg and die), and a folder that lists but cannot be entered.
    locked = root / "locked"
    (locked / "deep").mkdir(parents=True)
    (locked / "deep" / "secret.py").write_text("def never_seen_secret(): pass\n")
    ws.write("locked_sibling/kept.py", "hostile_locked_sibling")
    locked_file = root / "app" / "private.py"
    locked_file.write_text("def never_seen_private(): pass\n")
    locked_venv = root / "env"
    locked_venv.mkdir()
    (locked_venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    no_entry = root / "listable"
    no_entry.mkdir()
    (no_entry / "inside.py").write_text("def never_seen_inside(): pass\n")
    (no_entry / "sub").mkdir()
    ws.expected_skips.update(
        {
            "locked": SkipReason.UNREADABLE,
            "app/private.py": SkipReason.UNREADABLE,
            "env": SkipReason.UNREADABLE,
            "listable/inside.py": SkipReason.UNREADABLE,
            "listable/sub": SkipReason.UNREADABLE,
        }
    )

    # Special files: a FIFO (a plain open would block the indexer forever), a socket, a device.
    os.mkfifo(root / "app" / "pipe.py")
    with contextlib.closing(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)) as sock:
        sock.bind(str(root / "app" / "server.sock"))
    os.symlink("/dev/null", root / "app" / "device.py")
    ws.expected_skips.update(
        {
            "app/pipe.py": SkipReason.SPECIAL_FILE,
            "app/server.sock": SkipReason.SPECIAL_FILE,
            "app/device.py": SkipReason.SPECIAL_FILE,
        }
    )

    # Symlinks: dangling, a two-link loop, a folder linking back to its parent; and a good link to a file.
    os.symlink(root / "gone.py", root / "dangling.py")
    os.symlink("loop_b.py", root / "loop_a.py")
    os.symlink("loop_a.py", root / "loop_b.py")
    os.symlink("..", root / "app" / "parent")
    os.symlink("main.py", root / "app" / "alias.py")
    ws.normal["app/alias.py"] = "hostile_main_entry"
    ws.expected_skips.update(
        {
            "dangling.py": SkipReason.BROKEN_SYMLINK,
            "loop_a.py": SkipReason.SYMLINK_LOOP,
            "loop_b.py": SkipReason.SYMLINK_LOOP,
            "app/parent": SkipReason.SYMLINK_LOOP,
        }
    )

    # Names: a newline inside, bytes that are not UTF-8 (a Latin-1 "é"), and a folder so named holding a file.
    (root / "new\nline.py").write_text("def never_seen_newline(): pass\n")
    raw_root = os.fsencode(root)
    with open(os.path.join(raw_root, b"caf\xe9.py"), "w") as handle:
        handle.write("def never_seen_latin1(): pass\n")
    os.mkdir(os.path.join(raw_root, b"d\xfcr"))
    with open(os.path.join(raw_root, b"d\xfcr", b"ok.py"), "w") as handle:
        handle.write("def never_seen_in_bad_folder(): pass\n")
    ws.expected_skips.update(
        {
            "new\\nline.py": SkipReason.BAD_NAME,
            "caf\\xe9.py": SkipReason.BAD_NAME,
            "d\\xfcr": SkipReason.BAD_NAME,
        }
    )

    # Permissions last: the files above had to be written first.
    locked.chmod(0)
    locked_file.chmod(0)
    locked_venv.chmod(0)
    no_entry.chmod(0o444)  # names can be listed; nothing inside can be opened or entered
    ws.unreadable = [locked, locked_file, locked_venv, no_entry / "inside.py", no_entry / "sub"]
    return ws


def second_scan(ws: Hostile) -> None:
    """What changes before the next run: a file turns binary, one grows past the limit, a folder becomes a file."""
    (ws.root / "turns_binary.py").write_bytes(b"def hostile_turns_binary():\n\x00\x00\x00 binary now\n")
    (ws.root / "turns_huge.py").write_text("def hostile_turns_huge():\n" + "    x = 1\n" * (MAX_FILE_SIZE // 8))
    folder = ws.root / "becomes_file"
    (folder / "mod.py").unlink()
    folder.rmdir()
    folder.write_text("hostile_now_a_plain_file\n")
    for rel in ("turns_binary.py", "turns_huge.py", "becomes_file/mod.py"):
        del ws.normal[rel]
    ws.normal["becomes_file"] = "hostile_now_a_plain_file"
    ws.expected_skips["turns_binary.py"] = SkipReason.BINARY
    ws.expected_skips["turns_huge.py"] = SkipReason.TOO_LARGE


def restore_permissions(root: Path) -> None:
    """Give every folder back its permissions so that pytest can delete the tree."""
    for path in _walk_dirs(root):
        with contextlib.suppress(OSError):
            path.chmod(0o755)


def _walk_dirs(root: Path) -> Iterator[Path]:
    for current, dirs, files in os.walk(root):
        yield Path(current)
        for name in dirs + files:
            path = Path(current) / name
            if not path.is_symlink():
                yield path

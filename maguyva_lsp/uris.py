"""File URIs ⇄ file-system paths on POSIX and Windows: drive letters, UNC shares, percent-encoding, any bytes.

VS Code writes a Windows file as `file:///c%3A/Users/me/a%20b.py` (lower-case drive, colon encoded) and a share as
`file://server/share/x.py`; other clients write `file:///C:/...`. Both parse here, and paths are written back in VS
Code's form. On POSIX a name's bytes need not be UTF-8: they are percent-encoded as bytes and decoded with
`os.fsdecode`, so every name round-trips. `windows=None` means the running system; tests pass `windows=True` to check
the Windows rules on Linux (the functions are pure string work, no file-system access).
"""

from __future__ import annotations

import os
import re
from pathlib import PurePath
from urllib.parse import quote, quote_from_bytes, unquote_to_bytes, urlsplit

_DRIVE_PATH = re.compile(r"^/?([A-Za-z]):(.*)$", re.DOTALL)  # "/c:/x" in a URI, "C:\x" in a path
_LONG_PREFIX = "\\\\?\\"  # \\?\C:\... and \\?\UNC\server\share\...
_LOCAL_HOSTS = ("", "localhost")


def _is_windows(windows: bool | None) -> bool:
    return os.name == "nt" if windows is None else windows


def path_from_uri(uri: str, *, windows: bool | None = None) -> str:
    """The file-system path of a `file:` URI. Raises ValueError for another scheme, or a host POSIX cannot reach."""
    parts = urlsplit(uri)
    if parts.scheme.lower() != "file":
        raise ValueError(f"not a file URI: {uri}")
    host = parts.netloc
    raw = unquote_to_bytes(parts.path)
    if not _is_windows(windows):
        if host.lower() not in _LOCAL_HOSTS:
            raise ValueError(f"file URI on another host ({host}): {uri}")
        return os.fsdecode(raw) if windows is None else raw.decode("utf-8", "surrogateescape")
    try:
        path = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"file URI is not UTF-8: {uri}") from exc
    if host.lower() not in _LOCAL_HOSTS:  # a UNC share: file://server/share/x → \\server\share\x
        return "\\\\" + host + path.replace("/", "\\")
    drive = _DRIVE_PATH.match(path)
    if drive is not None:
        rest = drive.group(2).replace("/", "\\")
        return f"{drive.group(1).upper()}:{rest or chr(92)}"
    return path.replace("/", "\\")


def uri_from_path(path: str | os.PathLike[str], *, windows: bool | None = None) -> str:
    """The `file:` URI of an absolute path (Windows: VS Code's form, `file:///c%3A/...`, shares as file://host/...)."""
    text = os.fspath(path)
    if not _is_windows(windows):
        if not text.startswith("/"):
            raise ValueError(f"not an absolute path: {text!r}")
        return "file://" + quote_from_bytes(
            os.fsencode(text) if windows is None else text.encode("utf-8", "surrogateescape")
        )
    text = text.replace("/", "\\")
    if text.upper().startswith(_LONG_PREFIX + "UNC\\"):
        text = "\\\\" + text[len(_LONG_PREFIX) + 4 :]
    elif text.startswith(_LONG_PREFIX):
        text = text[len(_LONG_PREFIX) :]
    if text.startswith("\\\\"):
        host, _, rest = text[2:].partition("\\")
        if not host:
            raise ValueError(f"UNC path without a server: {text!r}")
        return f"file://{quote(host)}" + quote("/" + rest.replace("\\", "/"), safe="/")
    drive = _DRIVE_PATH.match(text)
    if drive is None:
        raise ValueError(f"not an absolute Windows path: {text!r}")
    rest = drive.group(2).replace("\\", "/")
    rest = rest if rest.startswith("/") else "/" + rest
    return "file:///" + quote(f"{drive.group(1).lower()}:{rest}", safe="/")


def same_file_key(path: str | PurePath, *, case_insensitive: bool) -> str:
    """A string equal for two spellings of one path: case folded where the file system ignores case."""
    text = os.fspath(path)
    return text.casefold() if case_insensitive else text

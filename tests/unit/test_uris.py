"""File URIs ⇄ paths with Windows-style inputs (drive letters, UNC shares, long-path prefixes) and POSIX bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from maguyva_lsp.uris import path_from_uri, same_file_key, uri_from_path


@pytest.mark.parametrize(
    ("uri", "path"),
    [
        ("file:///c%3A/Users/me/a%20b.py", "C:\\Users\\me\\a b.py"),  # VS Code's own form
        ("file:///C:/Users/me/x.py", "C:\\Users\\me\\x.py"),  # Python's Path.as_uri() form
        ("file:///c:/Projects/app", "C:\\Projects\\app"),
        ("file:///d%3A/", "D:\\"),
        ("file:///c%3A", "C:\\"),
        ("file:///c%3A/%E6%97%A5%E6%9C%AC/%C3%BC%20%23%25.py", "C:\\日本\\ü #%.py"),
        ("file://server/share/dir/f.py", "\\\\server\\share\\dir\\f.py"),
        ("file://localhost/c%3A/x.py", "C:\\x.py"),
        ("FILE:///C:/upper/scheme.py", "C:\\upper\\scheme.py"),
    ],
)
def test_windows_uri_to_path(uri: str, path: str) -> None:
    assert path_from_uri(uri, windows=True) == path


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("C:\\Users\\me\\a b.py", "file:///c%3A/Users/me/a%20b.py"),
        ("c:\\Users\\me\\x.py", "file:///c%3A/Users/me/x.py"),
        ("C:/forward/slashes\\mixed.py", "file:///c%3A/forward/slashes/mixed.py"),
        ("D:\\", "file:///d%3A/"),
        ("C:\\日本\\ü #%.py", "file:///c%3A/%E6%97%A5%E6%9C%AC/%C3%BC%20%23%25.py"),
        ("\\\\server\\share\\dir\\f.py", "file://server/share/dir/f.py"),
        ("\\\\?\\C:\\very\\long\\path.py", "file:///c%3A/very/long/path.py"),
        ("\\\\?\\UNC\\server\\share\\x.py", "file://server/share/x.py"),
    ],
)
def test_windows_path_to_uri(path: str, uri: str) -> None:
    assert uri_from_path(path, windows=True) == uri


@pytest.mark.parametrize(
    "path", ["C:\\Users\\me\\a b.py", "\\\\server\\share\\x\\y.ts", "E:\\Ünïcødé\\日本語\\file name (1).py"]
)
def test_windows_round_trip(path: str) -> None:
    assert path_from_uri(uri_from_path(path, windows=True), windows=True) == path


def test_posix_paths_and_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    assert path_from_uri("file:///home/me/a%20b.py", windows=False) == "/home/me/a b.py"
    assert path_from_uri("file://localhost/etc/hosts", windows=False) == "/etc/hosts"
    assert uri_from_path("/tmp/a b/ü.py", windows=False) == "file:///tmp/a%20b/%C3%BC.py"
    # On this system: the same text as Path.as_uri(), and a Latin-1 name round-trips through its bytes.
    latin1 = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9.py")
    assert uri_from_path(tmp_path / "x y.py") == (tmp_path / "x y.py").as_uri()
    assert uri_from_path(latin1).endswith("/caf%E9.py")
    assert path_from_uri(uri_from_path(latin1)) == latin1


@pytest.mark.parametrize(
    ("uri", "windows", "message"),
    [
        ("https://example.com/x.py", False, "not a file URI"),
        ("untitled:Untitled-1", True, "not a file URI"),
        ("file://server/share/x.py", False, "another host"),
        ("file:///c%3A/caf%E9.py", True, "not UTF-8"),
    ],
)
def test_bad_uris_are_refused_clearly(uri: str, windows: bool, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        path_from_uri(uri, windows=windows)


@pytest.mark.parametrize(
    ("path", "windows"), [("relative\\x.py", True), ("\\\\\\no-server", True), ("relative/x.py", False)]
)
def test_relative_paths_have_no_uri(path: str, windows: bool) -> None:
    with pytest.raises(ValueError):
        uri_from_path(path, windows=windows)


def test_same_file_key_folds_case_only_where_the_file_system_does() -> None:
    assert same_file_key("C:\\Users\\Me\\App.PY", case_insensitive=True) == same_file_key(
        "c:\\users\\me\\app.py", case_insensitive=True
    )
    assert same_file_key("/src/App.py", case_insensitive=False) != same_file_key("/src/app.py", case_insensitive=False)

"""The workspace scanner on real folders: ignore files, size and binary limits, classes, symlink loops."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from maguyva_lsp.model import PathClass
from maguyva_lsp.scan.classify import classify_path
from maguyva_lsp.scan.generated import looks_generated
from maguyva_lsp.scan.skips import Skip, SkipReason
from maguyva_lsp.scan.walker import WorkspaceScanner


def write(root: Path, rel: str, content: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def scanned(root: Path, **kwargs: object) -> list[str]:
    scanner = WorkspaceScanner(root, max_file_size=int(kwargs.pop("max_file_size", 1 << 20)), **kwargs)  # type: ignore[arg-type]
    return [f.path for f in scanner.scan().files]


def test_nested_gitignore_negation_and_info_exclude(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.log\nbuild/\n!keep.log\n")
    write(tmp_path, "app.py")
    write(tmp_path, "debug.log", "noise")
    write(tmp_path, "keep.log", "kept")
    write(tmp_path, "build/out.py")
    write(tmp_path, "pkg/.gitignore", "secret.py\n!app.log\n")
    write(tmp_path, "pkg/secret.py")
    write(tmp_path, "pkg/app.log", "re-included by the deeper file")
    write(tmp_path, "pkg/mod.py")
    write(tmp_path, ".git/info/exclude", "local_only.py\n")
    write(tmp_path, ".git/HEAD", "ref: refs/heads/main\n")
    write(tmp_path, "local_only.py")
    write(tmp_path, ".maguyvaignore", "generated/\n")
    write(tmp_path, "generated/big.py")
    assert scanned(tmp_path) == [
        ".gitignore",
        ".maguyvaignore",
        "app.py",
        "keep.log",
        "pkg/.gitignore",
        "pkg/app.log",
        "pkg/mod.py",
    ]


def test_extra_excludes_and_size_limit(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    write(tmp_path, "docs/b.md", "# doc\n")
    write(tmp_path, "big.txt", "y" * 5000)
    scanner = WorkspaceScanner(tmp_path, max_file_size=1000, exclude=("docs/",))
    report = scanner.scan()
    assert [f.path for f in report.files] == ["a.py"]
    assert report.skipped["big.txt"].reason is SkipReason.TOO_LARGE
    assert str(report.skipped["big.txt"]) == "too large: 5000 bytes > max_file_size 1000"


def test_binary_suffix_skipped_and_languages_detected(tmp_path: Path) -> None:
    write(tmp_path, "logo.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    write(tmp_path, "main.go", "package main\n")
    write(tmp_path, "lib.rs", "fn main() {}\n")
    write(tmp_path, "Makefile", "all:\n")
    files = {f.path: f for f in WorkspaceScanner(tmp_path, max_file_size=1 << 20).scan().files}
    assert set(files) == {"main.go", "lib.rs", "Makefile"}
    assert files["main.go"].language == "go"
    assert files["lib.rs"].language == "rust"
    assert files["Makefile"].language == "make"


def test_symlink_loop_is_skipped_with_reason(tmp_path: Path) -> None:
    write(tmp_path, "src/a.py")
    os.symlink(tmp_path / "src", tmp_path / "src" / "loop")
    os.symlink(tmp_path / "missing-target.py", tmp_path / "dangling.py")
    report = WorkspaceScanner(tmp_path, max_file_size=1 << 20).scan()
    assert [f.path for f in report.files] == ["src/a.py"]
    assert report.skipped["src/loop"].reason is SkipReason.SYMLINK_LOOP
    assert report.skipped["dangling.py"].reason is SkipReason.BROKEN_SYMLINK


def test_virtualenv_and_vcs_folders_skipped(tmp_path: Path) -> None:
    write(tmp_path, "env/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "env/lib/site.py")
    write(tmp_path, "node_modules/left-pad/index.js", "module.exports = 1\n")
    write(tmp_path, "src/ok.py")
    assert scanned(tmp_path) == ["src/ok.py"]


def test_check_single_paths(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "ignored/\n*.tmp\n")
    write(tmp_path, "ignored/a.py")
    write(tmp_path, "b.tmp")
    write(tmp_path, "src/c.py")
    scanner = WorkspaceScanner(tmp_path, max_file_size=1 << 20)
    assert scanner.check(tmp_path / "ignored" / "a.py") == Skip(SkipReason.IGNORED, "inside ignored folder ignored")
    assert scanner.check(tmp_path / "b.tmp") == Skip(SkipReason.IGNORED)
    checked = scanner.check(tmp_path / "src" / "c.py")
    assert not isinstance(checked, str) and checked.path == "src/c.py"
    assert scanner.check(tmp_path / "src" / "gone.py") == Skip(SkipReason.MISSING)
    assert scanner.check(Path("/elsewhere/x.py")) == Skip(SkipReason.OUTSIDE)
    assert [f.path for f in scanner.scan_folder("src").files] == ["src/c.py"]
    assert scanner.scan_folder("ignored").files == []


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/app.py", PathClass.SOURCE),
        ("tests/test_app.py", PathClass.TEST),
        ("pkg/app_test.go", PathClass.TEST),
        ("web/button.spec.ts", PathClass.TEST),
        ("src/main/java/FooTest.java", PathClass.TEST),
        ("typing_tests/mypy.py", PathClass.TEST),  # attrs: tests named for what they test
        ("Lib/idlelib/idle_test/test_run.py", PathClass.TEST),
        ("integration-tests/api.js", PathClass.TEST),
        ("tests_utils/fixtures.py", PathClass.TEST),
        ("test-data/input.json", PathClass.TEST),
        ("src/contest/rules.py", PathClass.SOURCE),  # "test" inside a word is no test folder
        ("src/latest/api.py", PathClass.SOURCE),
        ("src/attestation/verify.go", PathClass.SOURCE),
        ("src/testament/book.py", PathClass.SOURCE),
        ("vendor/lib/x.go", PathClass.VENDOR),
        ("third_party/zlib/inflate.c", PathClass.VENDOR),
        ("node_modules/react/index.js", PathClass.VENDOR),
        ("env/lib/python3.12/site-packages/requests/api.py", PathClass.VENDOR),
        (".venv/lib/helpers.py", PathClass.VENDOR),
        ("Lib/venv/__init__.py", PathClass.SOURCE),  # the stdlib's venv module, not an environment
        ("src/virtualenv/create/creator.py", PathClass.SOURCE),
        ("dist/bundle.js", PathClass.BUILD),
        ("target/debug/build.rs", PathClass.BUILD),
        ("static/app.min.js", PathClass.BUILD),
        ("api/service_pb2.py", PathClass.BUILD),
        ("proto/service.pb.go", PathClass.BUILD),
        ("archive/old_parser.py", PathClass.ARCHIVE),
        ("src/parser.py.orig", PathClass.ARCHIVE),
    ],
)
def test_classify_path(path: str, expected: PathClass) -> None:
    assert classify_path(path) == expected


def test_generated_and_minified_detection() -> None:
    assert looks_generated("// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n")
    assert looks_generated("var a=1;" * 400)
    assert not looks_generated("def f():\n    return 1\n")


def test_ignore_rules_ignore_case_where_the_file_system_does(tmp_path: Path) -> None:
    """Windows and macOS match `.gitignore` patterns ignoring case (git's core.ignorecase): simulated on Linux."""
    write(tmp_path, ".gitignore", "build/\n*.LOG\nSecrets.py\n")
    write(tmp_path, "Build/out.py")
    write(tmp_path, "debug.log", "noise")
    write(tmp_path, "secrets.PY")
    write(tmp_path, "Node_Modules/pkg/index.js", "x")
    write(tmp_path, "src/App.py")
    insensitive = WorkspaceScanner(tmp_path, max_file_size=1 << 20, case_insensitive=True)
    assert [f.path for f in insensitive.scan().files] == [".gitignore", "src/App.py"]
    sensitive = WorkspaceScanner(tmp_path, max_file_size=1 << 20, case_insensitive=False)
    assert [f.path for f in sensitive.scan().files] == [
        ".gitignore", "Build/out.py", "Node_Modules/pkg/index.js", "debug.log", "secrets.PY", "src/App.py",
    ]  # fmt: skip
    assert insensitive.check(tmp_path / "BUILD" / "x.py") == Skip(SkipReason.IGNORED, "inside ignored folder BUILD")


def test_this_file_system_is_probed_not_assumed(tmp_path: Path) -> None:
    from maguyva_lsp.scan.casing import folder_ignores_case

    (tmp_path / "Probe").mkdir()
    # Linux file systems here are case-sensitive; the probe must say so from the disk, not from the platform.
    assert folder_ignores_case(tmp_path / "Probe") is os.path.exists(tmp_path / "PROBE")


def test_example_folders() -> None:
    from maguyva_lsp.scan.classify import is_example

    examples = ["examples/tutorial/flaskr/db.py", "examples/mvc/index.js", "docs/_examples/app.go", "demo/main.rs"]
    code = ["src/example.py", "lib/examples.js", "src/exampleapp/x.py", "tests/test_app.py", "app.py"]
    assert [p for p in examples if not is_example(p)] == []
    assert [p for p in code if is_example(p)] == []
    assert classify_path("examples/mvc/index.js") is PathClass.SOURCE  # only a question's order reads it

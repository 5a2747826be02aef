"""A small multi-language workspace, analysed with the real tree-sitter pipeline, and independent ground truth
(GNU grep, Python `re` line by line) to compare the text retriever against."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from maguyva_lsp.index.text_results import TextMatches
from maguyva_lsp.model import ChangeBatch, FileAnalysis, SourceFile
from maguyva_lsp.parse.analyze import analyze_file
from maguyva_lsp.parse.languages import language_for_path
from maguyva_lsp.retrieve.text import TextRetriever
from maguyva_lsp.scan.classify import classify_path

ALL = 1_000_000  # a limit that returns every hit
LONG_LINE = "var a=1;" * 6000 + "needle_in_long_line();" + "b=2;" * 3000 + "ECONNREFUSED"

FILES: dict[str, str] = {
    "src/config.py": '''"""Configuration loading."""
import os

DEFAULT_PATH = "~/.app.cfg"


def parse_config(path):
    """Parse the config file at path."""
    with open(path) as handle:
        return dict(line.split("=", 1) for line in handle if "=" in line)


def load(path=DEFAULT_PATH):
    config = parse_config(os.path.expanduser(path))
    return config


class ConfigError(Exception):
    pass


def parseConfigs(paths):
    return [parse_config(p) for p in paths]
''',
    "src/app.js": """// Application entry point.
const net = require('net');

function parseConfig(text) {
  return JSON.parse(text);
}

function connect(port) {
  const socket = net.connect(port);
  socket.on('error', (err) => {
    if (err.code === 'ECONNREFUSED') {
      console.log("connection refused: ECONNREFUSED on " + port);
    }
  });
  return socket;
}

module.exports = { parseConfig, connect };
""",
    "src/server.go": """package server

import "errors"

// ErrRefused is returned when the peer refuses the connection.
var ErrRefused = errors.New("ECONNREFUSED")

type Server struct {
\tAddr string
\tretry_count int
}

func (s *Server) Listen() error {
\tif s.Addr == "" {
\t\treturn ErrRefused
\t}
\treturn nil
}
""",
    "src/lib.rs": """/// Parses a configuration string.
pub fn parse_config(input: &str) -> Result<Config, String> {
    let retry_count = 3;
    if input.is_empty() { return Err("empty".to_string()); }
    Ok(Config { retry_count })
}

pub struct Config { pub retry_count: u32 }
""",
    "src/util.c": """#include <stdio.h>
#define MAX_RETRY 5

int retry_count = 0;

int retry(int (*fn)(void)) {
    while (retry_count < MAX_RETRY) {
        if (fn() == 0) return 0;
        retry_count++;
    }
    return -1;
}
""",
    "tests/test_config.py": """from src.config import parse_config


def test_parse_config(tmp_path):
    path = tmp_path / "a.cfg"
    path.write_text("a=1\\n")
    assert parse_config(path) == {"a": "1\\n"}
    assert parse_config(path) != {}
""",
    "docs/notes.md": """# Notes — café and naïve résumé

The CAFÉ opens at 8. Ωmega and ωmega are the same letter, ÉCOLE vs école.
日本語のテキスト and an emoji 🙂 in the middle 🙂 of a line.
Straße, STRASSE, e.g. this is a sentence; i.e. another.
Tabs\tand  double  spaces.
""",
    "src/crlf.py": "def crlf_function():\r\n    value = 'CRLF line'\r\n    return value\r\n\r\nCRLF_CONSTANT = 42\r\n",
    "src/long.js": LONG_LINE + "\nconst after = 'line after long';\n",
    "src/empty.py": "",
    "src/tiny.txt": "ab",
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))


def analyze_path(root: Path, rel: str) -> FileAnalysis:
    path = root / rel
    data = path.read_bytes()
    source = SourceFile(rel, str(path), language_for_path(rel), classify_path(rel), len(data), path.stat().st_mtime_ns)
    return analyze_file(source, data)


_analysed: dict[tuple[str, tuple[tuple[str, int, int], ...]], list[FileAnalysis]] = {}


def analyze_tree(root: Path) -> list[FileAnalysis]:
    """Every file under root, analysed (memoised on the paths, sizes and mtimes, so ground truth is cheap)."""
    paths = sorted(p for p in root.rglob("*") if p.is_file())
    key = (str(root), tuple((p.as_posix(), p.stat().st_size, p.stat().st_mtime_ns) for p in paths))
    if key not in _analysed:
        _analysed[key] = [analyze_path(root, p.relative_to(root).as_posix()) for p in paths]
    return _analysed[key]


def build(root: Path) -> TextRetriever:
    retriever = TextRetriever()
    retriever.apply(ChangeBatch(updated=tuple(analyze_tree(root))))
    return retriever


def grep_lines(root: Path, flags: Iterable[str], pattern: str) -> set[tuple[str, int]]:
    """(path, 0-based line) of every line GNU grep reports (UTF-8 locale, all files, binary files as text)."""
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    done = subprocess.run(
        ["grep", "-r", "-n", "-Z", "-a", *flags, "-e", pattern, "."],
        cwd=root,
        capture_output=True,
        env=env,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    out: set[tuple[str, int]] = set()
    for raw in done.stdout.split(b"\n"):
        if raw:
            name, rest = raw.split(b"\0", 1)
            out.add((name.decode().removeprefix("./"), int(rest.split(b":", 1)[0]) - 1))
    return out


def python_lines(root: Path, pattern: str, flags: int = 0) -> set[tuple[str, int]]:
    """(path, 0-based line) of every line where Python's re finds the pattern, each line searched on its own."""
    compiled = re.compile(pattern, flags)
    out: set[tuple[str, int]] = set()
    for analysis in analyze_tree(root):
        for number, line in enumerate(analysis.text.split("\n")):
            if compiled.search(line):
                out.add((analysis.path, number))
    return out


def hit_lines(result: TextMatches) -> set[tuple[str, int]]:
    assert result.complete, result.note
    return {(hit.path, hit.span.start_line) for hit in result.hits}

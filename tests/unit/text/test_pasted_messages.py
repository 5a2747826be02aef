# ruff: noqa: E501
"""A pasted error finds the place that writes its message, as the source writes it: split over literals and lines,
with placeholders where the printed text has values; stack frames find their line and function; a bare error token
finds its definition first, then its raise sites. Real tree-sitter analyses of small files in six languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from text_corpus import build, write_tree

from maguyva_lsp.index.text_message import common_subsequence, site_score
from maguyva_lsp.model import RetrievalQuery
from maguyva_lsp.query.intent import classify
from maguyva_lsp.retrieve.text import TextRetriever

FILES: dict[str, str] = {
    "app/config.py": '''"""Configuration.

Probably the most interesting way to load configurations is from an
environment variable pointing to a file.
"""
import os


class ConfigError(Exception):
    """Raised when the configuration cannot be loaded."""


def from_envvar(variable_name, silent=False):
    """Load from the file the environment variable names."""
    rv = os.environ.get(variable_name)
    if not rv:
        if silent:
            return False
        raise RuntimeError(
            f"The environment variable {variable_name!r} is not set"
            " and as such configuration could not be loaded. Set"
            " this variable and make it point to a configuration"
            " file"
        )
    return rv


def check(directory):
    if not os.path.isdir(directory):
        raise ConfigError("StaticFiles directory '%s' does not exist." % directory)


def parse(text):
    if not text:
        raise ConfigError("empty configuration")
    return text
''',
    "app/other.py": """def unrelated(variable):
    # The environment is read elsewhere; this variable is not set here.
    return variable


def noisy():
    raise ValueError("configuration could not be parsed")
""",
    "tests/test_config.py": """import pytest
from app.config import ConfigError, check


def test_check(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        check(tmp_path / "missing")
""",
    "lib/response.js": """'use strict';

function sendFile(path, options) {
  if (!path) {
    throw new TypeError('path argument is required to res.sendFile');
  }
  if (typeof path !== 'string') {
    throw new TypeError('path must be a string to res.sendFile')
  }
  if (!options.root && !isAbsolute(path)) {
    throw new TypeError('path must be absolute or specify root to res.sendFile');
  }
}

function lookup(name, root) {
  var err = new Error('Failed to lookup view "' + name + '" in views ' +
    'directory "' + root + '"');
  return err;
}

module.exports = { sendFile: sendFile, lookup: lookup };
""",
    "args.go": """package cobra

import "fmt"

// MaximumNArgs returns an error if there are more than N args.
func MaximumNArgs(n int) PositionalArgs {
	return func(cmd *Command, args []string) error {
		if len(args) > n {
			return fmt.Errorf("accepts at most %d arg(s), received %d", n, len(args))
		}
		return nil
	}
}

var ErrHelp = fmt.Errorf("flag: help requested")

func run(args []string) error {
	if len(args) == 0 {
		return ErrHelp
	}
	return nil
}
""",
    "src/main.rs": """fn get(v: &[i32], i: usize) -> i32 {
    if i >= v.len() {
        panic!("index {} is past the end of a slice of {} items", i, v.len());
    }
    v[i]
}
""",
    "src/Client.java": """package example;

public class Client {
    private boolean connected;

    public void connect(String host) {
        if (connected) {
            throw new IllegalStateException("Already connected to " + host + ", disconnect first");
        }
        connected = true;
    }
}
""",
    "src/Program.cs": """using System;

public static class Program {
    public static void Check(int count) {
        if (count > 10) {
            throw new ArgumentOutOfRangeException(nameof(count), $"Count {count} is above the limit of {10}.");
        }
    }
}
""",
    "docs/errors.md": """# Errors

If you see `accepts at most 1 arg(s), received 2`, pass fewer arguments.
""",
}


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> TextRetriever:
    root: Path = tmp_path_factory.mktemp("pasted")
    write_tree(root, FILES)
    return build(root)


def top(retriever: TextRetriever, query: str, n: int = 1) -> list[tuple[str, int]]:
    hits = retriever.search(RetrievalQuery(classify(query)), 20)
    return [(h.path, h.span.start_line + 1) for h in hits[:n]]


@pytest.mark.parametrize(
    ("pasted", "where"),
    [
        # Python: an f-string over four implicitly concatenated literals, with the value filled in
        (
            "RuntimeError: The environment variable 'APP_SETTINGS' is not set and as such configuration could not be"
            " loaded. Set this variable and make it point to a configuration file",
            ("app/config.py", 20),
        ),
        # the same message cut short, as the dev set writes it
        ("RuntimeError: The environment variable", ("app/config.py", 20)),
        # a %-format with a quoted value
        ("app.config.ConfigError: StaticFiles directory 'static' does not exist.", ("app/config.py", 30)),
        # JavaScript: three messages that share words; the right one first
        ("TypeError: path must be a string to res.sendFile", ("lib/response.js", 8)),
        ("TypeError: path must be absolute or specify root to res.sendFile", ("lib/response.js", 11)),
        # JavaScript: concatenation around two values, over two lines
        ('Error: Failed to lookup view "index" in views directory "/srv/app/views"', ("lib/response.js", 16)),
        # Go: printf verbs
        ("Error: accepts at most 1 arg(s), received 2", ("args.go", 9)),
        # Rust: `{}` placeholders, as a panic prints it
        (
            "thread 'main' panicked at src/main.rs:3:9:\nindex 7 is past the end of a slice of 3 items",
            ("src/main.rs", 3),
        ),
        # Java: `+` concatenation, from a real trace's error line
        (
            'Exception in thread "main" java.lang.IllegalStateException: Already connected to db.local, disconnect first',
            ("src/Client.java", 8),
        ),
        # C#: an interpolated string
        ("Unhandled exception. System.ArgumentOutOfRangeException: Count 12 is above the limit of 10.", ("src/Program.cs", 6)),
        # a log line
        ("2024-05-01 12:00:01,234 ERROR app.config: empty configuration", ("app/config.py", 35)),
    ],
)  # fmt: skip
def test_a_pasted_message_finds_the_line_that_writes_it(
    retriever: TextRetriever, pasted: str, where: tuple[str, int]
) -> None:
    assert top(retriever, pasted) == [where]


def test_the_error_name_breaks_a_tie_between_equal_messages(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "a.py": 'def f():\n    raise KeyError("no such entry")\n',
            "b.py": 'def g():\n    raise LookupError("no such entry")\n',
        },
    )
    retriever = build(tmp_path)
    assert top(retriever, "LookupError: no such entry") == [("b.py", 2)]
    assert top(retriever, "KeyError: no such entry") == [("a.py", 2)]


def test_frames_answer_with_their_line_and_function(retriever: TextRetriever) -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/.venv/lib/python3.12/site-packages/app/config.py", line 30, in check\n'
        "    raise ConfigError(...)\n"
        "app.config.ConfigError: something the source never says"
    )
    hits = retriever.search(RetrievalQuery(classify(trace)), 20)
    assert [(h.path, h.span.start_line + 1, h.detail["match"]) for h in hits[:2]] == [
        ("app/config.py", 30, "stack frame"),
        ("app/config.py", 28, "stack frame's function"),
    ]
    assert hits[0].symbol == "check"


def test_a_lone_frame_and_an_ambiguous_file_name(retriever: TextRetriever) -> None:
    assert top(retriever, "    at sendFile (/srv/app/node_modules/express/lib/response.js:8:11)", 2) == [
        ("lib/response.js", 8),
        ("lib/response.js", 3),
    ]
    # a file name alone that no workspace file shares a folder with: nothing to point at, honestly
    assert retriever.search(RetrievalQuery(classify('  File "/x/y/other_name.py", line 3, in f')), 20) == []


def test_a_bare_error_token_puts_its_definition_first_then_its_raise_sites(retriever: TextRetriever) -> None:
    hits = retriever.search(RetrievalQuery(classify("ConfigError")), 20)
    lines = [(h.path, h.span.start_line + 1) for h in hits]
    assert lines[0] == ("app/config.py", 9)  # class ConfigError(Exception):
    assert set(lines[1:3]) == {("app/config.py", 30), ("app/config.py", 35)}  # raise ConfigError(...)
    assert ("tests/test_config.py", 2) in lines[3:]  # the import comes after
    go = retriever.search(RetrievalQuery(classify("ErrHelp")), 20)
    assert [(h.path, h.span.start_line + 1) for h in go] == [("args.go", 15), ("args.go", 19)]


def test_an_unwritten_message_of_a_project_error_finds_the_error_type(retriever: TextRetriever) -> None:
    # the message is built at run time (or comes from another version): ConfigError's definition, then its raises
    lines = top(retriever, "app.config.ConfigError: something the source never says", 3)
    assert lines[0] == ("app/config.py", 9)
    assert set(lines[1:3]) == {("app/config.py", 30), ("app/config.py", 35)}
    # a generic error type points nowhere: no answer from the error name
    assert retriever.search(RetrievalQuery(classify("RuntimeError: something the source never says")), 20) == []


def test_the_subsequence_and_the_score() -> None:
    assert common_subsequence(["a", "b", "c"], ["x", "a", "c", "b", "c"]) == 3
    assert common_subsequence(["a", "b"], []) == 0
    score, recall = site_score(["path", "must", "be", "a", "string"], ["path", "must", "be", "absolute"])
    assert recall == pytest.approx(0.6)
    assert score == pytest.approx(0.6 * (0.8 + 0.2 * 3 / 4))

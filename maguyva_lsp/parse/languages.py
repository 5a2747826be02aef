"""Which tree-sitter-language-pack grammar parses a file, and cached per-thread parsers for it."""

from __future__ import annotations

import logging
import re
import threading
from functools import cache, lru_cache
from typing import Any

from tree_sitter import Language, Parser, Query
from tree_sitter_language_pack import get_language

log = logging.getLogger(__name__)

# File suffix (lower-case, with the dot) → grammar name in tree-sitter-language-pack.
_SUFFIXES: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".lua": "lua",
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "bash",
    ".fish": "fish",
    ".m": "objc",
    ".mm": "objc",
    ".cu": "cuda",
    ".cuh": "cuda",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hrl": "erlang",
    ".elm": "elm",
    ".hs": "haskell",
    ".lhs": "haskell",
    ".ml": "ocaml",
    ".mli": "ocaml_interface",
    ".fs": "fsharp",
    ".fsx": "fsharp",
    ".fsi": "fsharp_signature",
    ".clj": "clojure",
    ".cljs": "clojure",
    ".cljc": "clojure",
    ".edn": "clojure",
    ".lisp": "commonlisp",
    ".cl": "commonlisp",
    ".el": "elisp",
    ".scm": "scheme",
    ".ss": "scheme",
    ".rkt": "racket",
    ".fnl": "fennel",
    ".janet": "janet",
    ".jl": "julia",
    ".r": "r",
    ".pl": "perl",
    ".pm": "perl",
    ".t": "perl",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".hx": "haxe",
    ".nim": "nim",
    ".zig": "zig",
    ".v": "v",
    ".odin": "odin",
    ".d": "d",
    ".gleam": "gleam",
    ".sol": "solidity",
    ".cairo": "cairo",
    ".f": "fortran",
    ".f90": "fortran",
    ".f95": "fortran",
    ".f03": "fortran",
    ".for": "fortran",
    ".pas": "pascal",
    ".pp": "pascal",
    ".adb": "ada",
    ".ads": "ada",
    ".cob": "cobol",
    ".cbl": "cobol",
    ".vhd": "vhdl",
    ".vhdl": "vhdl",
    ".sv": "verilog",
    ".svh": "verilog",
    ".vh": "verilog",
    ".glsl": "glsl",
    ".vert": "glsl",
    ".frag": "glsl",
    ".hlsl": "hlsl",
    ".wgsl": "wgsl",
    ".ispc": "ispc",
    ".html": "html",
    ".htm": "html",
    ".xml": "xml",
    ".xsd": "xml",
    ".svg": "xml",
    ".css": "css",
    ".scss": "scss",
    ".vue": "vue",
    ".svelte": "svelte",
    ".astro": "astro",
    ".twig": "twig",
    ".json": "json",
    ".jsonnet": "jsonnet",
    ".libsonnet": "jsonnet",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".properties": "properties",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".org": "org",
    ".tex": "latex",
    ".bib": "bibtex",
    ".typ": "typst",
    ".sql": "sql",
    ".graphql": "graphql",
    ".gql": "graphql",
    ".proto": "proto",
    ".thrift": "thrift",
    ".capnp": "capnp",
    ".prisma": "prisma",
    ".smithy": "smithy",
    ".tf": "hcl",
    ".tfvars": "hcl",
    ".hcl": "hcl",
    ".nix": "nix",
    ".cmake": "cmake",
    ".mk": "make",
    ".ninja": "ninja",
    ".gn": "gn",
    ".gni": "gn",
    ".bzl": "starlark",
    ".star": "starlark",
    ".ps1": "powershell",
    ".psm1": "powershell",
    ".vim": "vim",
    ".tcl": "tcl",
    ".lean": "lean",
    ".agda": "agda",
    ".purs": "purescript",
    ".re": "ocaml",
    ".asm": "asm",
    ".s": "asm",
    ".ll": "llvm",
    ".wat": "wat",
    ".wast": "wast",
    ".rego": "rego",
    ".kdl": "kdl",
    ".ron": "ron",
    ".csv": "csv",
    ".tsv": "tsv",
    ".dockerfile": "dockerfile",
    ".bicep": "bicep",
    ".apex": "apex",
    ".cls": "apex",
    ".gd": "gdscript",
    ".luau": "luau",
    ".matlab": "matlab",
    ".hack": "hack",
    ".pony": "pony",
    ".hare": "hare",
    ".qml": "qmljs",
    ".smali": "smali",
    ".td": "tablegen",
    ".po": "po",
    ".pem": "pem",
    ".mermaid": "mermaid",
    ".erb": "embeddedtemplate",
    ".ejs": "embeddedtemplate",
    ".heex": "heex",
}

# Whole file names that say their language.
_NAMES: dict[str, str] = {
    "Dockerfile": "dockerfile",
    "Containerfile": "dockerfile",
    "Makefile": "make",
    "makefile": "make",
    "GNUmakefile": "make",
    "CMakeLists.txt": "cmake",
    "BUILD": "starlark",
    "BUILD.bazel": "starlark",
    "WORKSPACE": "starlark",
    "Rakefile": "ruby",
    "Gemfile": "ruby",
    "Vagrantfile": "ruby",
    "go.mod": "gomod",
    "go.sum": "gosum",
    ".gitignore": "gitignore",
    ".gitattributes": "gitattributes",
    "meson.build": "meson",
    "Kconfig": "kconfig",
    "requirements.txt": "requirements",
    "MANIFEST.in": "pymanifest",
    ".bashrc": "bash",
    ".zshrc": "bash",
    ".profile": "bash",
    "PKGBUILD": "bash",
}

# Grammars of prose and data rather than code: documentation, configuration, data and lock files. A question about
# how code works is answered by code before these (search.py).
DOCUMENT_LANGUAGES: frozenset[str] = frozenset(
    {
        "markdown", "rst", "org", "latex", "typst", "bibtex", "po", "mermaid",
        "json", "yaml", "toml", "ini", "properties", "xml", "csv", "tsv", "pem",
        "gitignore", "gitattributes", "requirements", "pymanifest", "gomod", "gosum",
    }
)  # fmt: skip

# Interpreter names in a `#!` line → grammar.
_SHEBANGS: dict[str, str] = {
    "python": "python",
    "python3": "python",
    "node": "javascript",
    "bash": "bash",
    "sh": "bash",
    "zsh": "bash",
    "ruby": "ruby",
    "perl": "perl",
    "lua": "lua",
    "php": "php",
    "deno": "typescript",
    "fish": "fish",
}


@cache
def _pack_languages() -> frozenset[str]:
    """The grammar names this tree-sitter-language-pack ships (so the tables above never name a missing one)."""
    import typing

    import tree_sitter_language_pack as pack

    return frozenset(typing.get_args(pack.SupportedLanguage))


def path_name(path: str) -> str:
    """The last component of a POSIX path (PurePosixPath's `name`, by string operations: this runs for every file of
    every scan)."""
    parts = [part for part in path.split("/") if part and part != "."]
    return parts[-1] if parts else ""


def name_suffix(name: str) -> str:
    """A file name's suffix as PurePosixPath's `suffix` gives it ("" for `.bashrc` or `a.`)."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def path_suffix(path: str) -> str:
    return name_suffix(path_name(path))


def language_for_path(path: str, first_line: bytes | None = None) -> str | None:
    """The grammar for a file, from its name, its suffix, or a `#!` line; None when no grammar fits."""
    name = path_name(path)
    language = _NAMES.get(name)
    if language is None:
        suffix = name_suffix(name).lower()
        language = _SUFFIXES.get(suffix)
        if language is None and name.lower().endswith(".d.ts"):
            language = "typescript"
    if language is None and first_line is not None and first_line.startswith(b"#!"):
        language = _shebang_language(first_line)
    if language is not None and language not in _pack_languages():
        return None
    return language


def _shebang_language(first_line: bytes) -> str | None:
    words = first_line[2:].decode("utf-8", "replace").strip().split()
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program == "env" and len(words) > 1:
        program = next((w for w in words[1:] if not w.startswith("-")), "")
    program = program.rstrip("0123456789.") or program
    return _SHEBANGS.get(program) or _SHEBANGS.get(program.rstrip("0123456789."))


@lru_cache(maxsize=1 << 16)
def is_document(path: str) -> bool:
    """A file of prose or data by its name (DOCUMENT_LANGUAGES), or one no grammar reads (LICENSE, notes.txt)."""
    language = language_for_path(path)
    return language is None or language in DOCUMENT_LANGUAGES


def known_suffixes() -> frozenset[str]:
    return frozenset(s for s, lang in _SUFFIXES.items() if lang in _pack_languages())


@cache
def grammar(language: str) -> Language | None:
    """The tree-sitter Language for a grammar name, or None (logged once) when the pack cannot load it."""
    try:
        return get_language(language)  # type: ignore[arg-type]
    except Exception as exc:  # the pack raises LookupError or a loader error depending on the grammar
        log.warning("tree-sitter grammar %r unavailable: %s", language, exc)
        return None


_local = threading.local()


def parser_for(language: str) -> Parser | None:
    """A parser for this grammar, one per thread (tree-sitter parsers are not safe to share across threads)."""
    parsers: dict[str, Parser | None] = getattr(_local, "parsers", None) or {}
    _local.parsers = parsers
    if language not in parsers:
        lang = grammar(language)
        parsers[language] = Parser(lang) if lang is not None else None
    return parsers[language]


# A query comment: from `;` to the end of its line (no query of ours holds a `;` inside a string).
_QUERY_COMMENT_RE = re.compile(r";[^\n]*")


def pattern_texts(query: Query, source: str) -> list[str]:
    """Each pattern of a query compiled from `source`, as its own text without comments, in pattern order (the
    readers that rewrite or split a grammar's query: `ref_query.split_patterns`, `tags.tag_roots`)."""
    encoded = source.encode("utf-8")
    return [
        _QUERY_COMMENT_RE.sub(
            "", encoded[query.start_byte_for_pattern(i) : query.end_byte_for_pattern(i)].decode()
        ).strip()
        for i in range(query.pattern_count)
    ]


def node_text(node: Any, source: bytes) -> str:
    """The source text of a tree-sitter node."""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")

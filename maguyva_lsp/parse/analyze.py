"""Analyse one file's bytes: decode, parse once, read definitions and references off the tree, and chunk it.

Never raises on bad content: undecodable bytes are replaced, and a tree too broken to trust yields window chunks only.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from functools import cache

from tree_sitter import Node, Query, QueryCursor, Tree

from maguyva_lsp.model import Definition, FileAnalysis, Reference, SourceFile
from maguyva_lsp.parse.chunker import DEFAULT_WINDOW_LINES, chunk_file
from maguyva_lsp.parse.languages import grammar, parser_for
from maguyva_lsp.parse.positions import LineIndex
from maguyva_lsp.parse.tags import SUPPORTED_TAG_LANGUAGES, extract_definitions

log = logging.getLogger(__name__)

# Git's rule: a NUL byte in the first 8 KiB makes a file binary.
BINARY_SNIFF_BYTES = 8 * 1024
# tree-sitter recovers from local errors, so a few ERROR nodes leave a useful tree; when more than this share of the
# file's bytes sits inside ERROR nodes (wrong grammar, garbage, a template language), its definitions are noise.
MAX_ERROR_FRACTION = 0.5
CONTENT_HASH_BYTES = 16  # blake2b-128
# A grammar to try when the file's own leaves errors: `.h` maps to C, yet many headers are C++.
FALLBACK_GRAMMARS: dict[str, str] = {"c": "cpp"}
# Editors drop a UTF-8 byte order mark from the text they show, so positions are computed without it.
UTF8_BOM = b"\xef\xbb\xbf"


def is_binary(data: bytes) -> bool:
    """Whether content looks binary: a NUL byte in its first 8 KiB."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def content_hash(data: bytes) -> str:
    """Stable hash of a file's bytes (blake2b-128, hex)."""
    return hashlib.blake2b(data, digest_size=CONTENT_HASH_BYTES).hexdigest()


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """A usable syntax tree and the grammar that built it, or why there is none (no error: no grammar at all)."""

    tree: Tree | None
    language: str
    error: str | None = None


def parse_source(language: str, source: bytes) -> ParsedSource:
    """Parse with the grammar's per-thread parser; a parse that fails or is mostly ERROR nodes gives no tree.

    A `.h` file may be C++: when the C tree has errors, the C++ grammar gets a try and the cleaner tree wins.
    """
    parsed, fraction = _parse(language, source)
    fallback = FALLBACK_GRAMMARS.get(language)
    if fallback is not None and fraction > 0:
        other, other_fraction = _parse(fallback, source)
        if other.tree is not None and other_fraction < fraction:
            parsed, fraction = other, other_fraction
    if parsed.tree is not None and fraction > MAX_ERROR_FRACTION:
        message = f"{parsed.language} syntax tree unusable: {fraction:.0%} of the file does not parse"
        return ParsedSource(None, parsed.language, message)
    return parsed


def _parse(language: str, source: bytes) -> tuple[ParsedSource, float]:
    """One grammar's attempt and the share of the source inside its ERROR nodes."""
    parser = parser_for(language)
    if parser is None:
        return ParsedSource(None, language), 0.0
    try:
        tree = parser.parse(source)
    except Exception as exc:  # the binding raises ValueError/RuntimeError on internal failures; none may escape
        log.warning("tree-sitter %s parse failed: %s", language, exc)
        return ParsedSource(None, language, f"{language} parse failed: {exc}"), 1.0
    root = tree.root_node
    fraction = error_fraction(language, root, len(source)) if root.has_error else 0.0
    return ParsedSource(tree, language), fraction


def error_fraction(language: str, root: Node, size: int) -> float:
    """The share of the source's bytes covered by ERROR nodes (nested ones counted once)."""
    if size == 0:
        return 0.0
    if root.is_error:
        return 1.0
    query = _error_query(language)
    if query is None:
        return 0.0
    ranges = sorted((n.start_byte, n.end_byte) for n in QueryCursor(query).captures(root).get("error", []))
    covered, reach = 0, 0
    for start, end in ranges:
        fresh = max(start, reach)  # nested and overlapping ERROR nodes count once
        if end > fresh:
            covered += end - fresh
            reach = end
    return covered / size


@cache
def _error_query(language: str) -> Query | None:
    lang = grammar(language)
    return Query(lang, "(ERROR) @error") if lang is not None else None


def analyze_file(file: SourceFile, data: bytes, *, chunk_lines: int = DEFAULT_WINDOW_LINES) -> FileAnalysis:
    """Everything the engine indexes for one file: text, hash, definitions, references, chunks, parse error."""
    source = data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data
    text = source.decode("utf-8", "replace")
    language = file.language
    definitions: list[Definition] = []
    references: list[Reference] = []
    parse_error: str | None = None
    if language is not None:
        parsed = parse_source(language, source)
        parse_error = parsed.error
        if parsed.tree is not None:
            definitions, references = _read_tree(parsed.tree, source, parsed.language, file.path)
    chunks = chunk_file(file.path, language, text, definitions, window_lines=chunk_lines)
    return FileAnalysis(
        file=file,
        text=text,
        content_hash=content_hash(data),
        definitions=tuple(definitions),
        references=tuple(references),
        chunks=tuple(chunks),
        parse_error=parse_error,
    )


def _read_tree(tree: Tree, source: bytes, language: str, path: str) -> tuple[list[Definition], list[Reference]]:
    """The one place every extractor reads the file's single syntax tree (definitions first: references use them).

    `language` is the grammar that built the tree, which is not always the file's (see FALLBACK_GRAMMARS).
    """
    lines = LineIndex(source)
    definitions: list[Definition] = []
    if language in SUPPORTED_TAG_LANGUAGES:
        definitions = extract_definitions(tree, source, language, path, lines=lines)
    references: list[Reference] = []
    return definitions, references

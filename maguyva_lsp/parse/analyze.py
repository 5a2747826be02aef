"""Analyse one file's bytes: decode, parse once, read definitions and references off the tree, and chunk it.

Never raises on bad content: undecodable bytes are replaced, and a tree too broken to trust yields window chunks only.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Node, Tree

from maguyva_lsp.model import Definition, FileAnalysis, Reference, SourceFile
from maguyva_lsp.parse.chunker import DEFAULT_WINDOW_LINES, chunk_file
from maguyva_lsp.parse.languages import parser_for
from maguyva_lsp.parse.positions import LineIndex
from maguyva_lsp.parse.python_outline import python_definitions
from maguyva_lsp.parse.ref_single import shared_captures
from maguyva_lsp.parse.references import extract_references
from maguyva_lsp.parse.tags import SUPPORTED_TAG_LANGUAGES, TAG_ROOT_PREFIX, extract_definitions, tag_roots

log = logging.getLogger(__name__)

# Git's rule: a NUL byte in the first 8 KiB makes a file binary.
BINARY_SNIFF_BYTES = 8 * 1024
# tree-sitter recovers from local errors, so a few ERROR nodes leave a useful tree; when more than this share of the
# file's bytes sits in ERROR nodes outside sound subtrees (wrong grammar, prose, garbage), its definitions are noise.
# Measured: C sources and headers with preprocessor-split braces or unclosed guards 0.0-0.5; English prose 0.8-1.0
# as C, C++, C#, Go, Rust, Python or JS (the Java, Ruby and Kotlin grammars accept much of it).
MAX_ERROR_FRACTION = 0.6
# An error-free subtree this large inside an ERROR node is taken for real code (prose seldom builds one).
MIN_SOUND_SUBTREE_BYTES = 32
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
    fraction = error_fraction(root, len(source))
    return ParsedSource(tree, language), fraction


def error_fraction(root: Node, size: int) -> float:
    """The share of the source's bytes inside ERROR nodes that tree-sitter could not organise into sound subtrees.

    Error recovery often wraps long runs of valid code in one ERROR node (a C function whose opening brace sits in
    both branches of an `#ifdef`, a header guard that never closes); error-free named subtrees of at least
    MIN_SOUND_SUBTREE_BYTES inside it are real code, so they do not count as errors.
    """
    if size <= 0 or not root.has_error:
        return 0.0
    bad = 0
    stack = [root]
    while stack:  # only nodes on the way to an error are visited, not the whole tree
        node = stack.pop()
        inside_error = node.is_error
        if inside_error:
            bad += node.end_byte - node.start_byte
        for child in node.children:
            if child.has_error:
                stack.append(child)
                if inside_error:
                    bad -= child.end_byte - child.start_byte  # the child accounts for its own bytes
            elif inside_error and child.is_named and child.end_byte - child.start_byte >= MIN_SOUND_SUBTREE_BYTES:
                bad -= child.end_byte - child.start_byte
    return min(1.0, max(0, bad) / size)


def analyze_file(
    file: SourceFile, data: bytes, *, chunk_lines: int = DEFAULT_WINDOW_LINES, references: bool = True
) -> FileAnalysis:
    """Everything the engine indexes for one file: text, hash, definitions, references, chunks, parse error.
    `references=False`: none extracted (the first pass of a server's cold build: the larger half of the work), and a
    Python file's definitions come from the outline scanner (`python_outline`) without a parse where it reads the
    file, and a file of a grammar without a tag query is not parsed (the parse would only tell its parse error); the
    second pass parses both."""
    source = data[len(UTF8_BOM) :] if data.startswith(UTF8_BOM) else data
    text = source.decode("utf-8", "replace")
    language = file.language
    definitions: list[Definition] = []
    found: Sequence[Reference] = ()
    parse_error: str | None = None
    outlined = None if references or language != "python" else python_definitions(source, file.path)
    if outlined is not None:
        definitions = outlined
    elif language is not None and (references or language in SUPPORTED_TAG_LANGUAGES):
        parsed = parse_source(language, source)
        parse_error = parsed.error
        if parsed.tree is not None:
            definitions, found = _read_tree(parsed.tree, source, parsed.language, file.path, references)
    chunks = chunk_file(file.path, language, text, definitions, window_lines=chunk_lines)
    return FileAnalysis(
        file=file,
        text=text,
        content_hash=content_hash(data),
        definitions=tuple(definitions),
        references=found,  # a ReferenceTable: its objects are built only if read
        chunks=tuple(chunks),
        parse_error=parse_error,
    )


def _read_tree(
    tree: Tree, source: bytes, language: str, path: str, references: bool = True
) -> tuple[list[Definition], Sequence[Reference]]:
    """The one place every extractor reads the file's single syntax tree (definitions first: references use them).

    `language` is the grammar that built the tree, which is not always the file's (see FALLBACK_GRAMMARS).
    """
    lines = LineIndex(source)
    definitions: list[Definition] = []
    roots = tag_roots(language) if references and language in SUPPORTED_TAG_LANGUAGES else None
    shared = shared_captures(language, tree.root_node, roots.patterns) if roots is not None else None
    if shared is not None:
        # One walk of the tree for both: the tag patterns are matched at the nodes it captured for them (a walk
        # costs about as much per node whatever it finds: 1.2 s of the stdlib's Python for the tags alone).
        captured = shared[1]
        found = {name: captured.pop(name) for name in [n for n in captured if n.startswith(TAG_ROOT_PREFIX)]}
        definitions = extract_definitions(tree, source, language, path, lines=lines, roots=found)
        return definitions, extract_references(tree, source, language, path, definitions, lines=lines, shared=shared)
    if language in SUPPORTED_TAG_LANGUAGES:
        definitions = extract_definitions(tree, source, language, path, lines=lines)
    if not references:
        return definitions, ()
    return definitions, extract_references(tree, source, language, path, definitions, lines=lines)

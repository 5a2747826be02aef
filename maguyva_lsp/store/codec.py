"""A compact, fast on-disk encoding of FileAnalysis: flat tuples of primitives through `marshal`.

Pickle spends most of a warm start in the generic dataclass `__setstate__` (a `fields()` call per object); flat tuples
decode about three times faster and hold no class references, so renaming a class cannot break an old store (the
schema version guards the field layout instead).
"""

from __future__ import annotations

import marshal
import zlib
from typing import Any

from maguyva_lsp.model import Chunk, Definition, FileAnalysis, PathClass, Reference, SourceFile, Span

MARSHAL_VERSION = 4
ZLIB_LEVEL = 1  # fast: the store is written during indexing, on the critical path
# The layout below; part of the store's schema version.
CODEC_VERSION = 1


def _span(s: Span) -> tuple[int, int, int, int]:
    return (s.start_line, s.start_col, s.end_line, s.end_col)


def encode(analysis: FileAnalysis) -> bytes:
    """FileAnalysis → bytes."""
    f = analysis.file
    payload = (
        (f.path, f.abs_path, f.language, f.path_class.value, f.size, f.mtime_ns),
        analysis.text,
        analysis.content_hash,
        tuple(
            (d.name, d.kind, *_span(d.span), *_span(d.name_span), d.signature, d.parent, d.language)
            for d in analysis.definitions
        ),
        tuple(
            (r.name, r.kind, *_span(r.span), r.enclosing, r.receiver, r.module, r.alias) for r in analysis.references
        ),
        tuple(
            (c.language, c.start_line, c.end_line, c.text, c.content_hash, c.symbol, c.kind, c.parent, c.signature)
            for c in analysis.chunks
        ),
        analysis.parse_error,
    )
    return zlib.compress(marshal.dumps(payload, MARSHAL_VERSION), ZLIB_LEVEL)


def decode(blob: bytes) -> FileAnalysis:
    """bytes → FileAnalysis; raises ValueError (or a zlib/marshal error) on damaged input."""
    payload: Any = marshal.loads(zlib.decompress(blob))
    file_fields, text, content_hash, definitions, references, chunks, parse_error = payload
    path, abs_path, language, path_class, size, mtime_ns = file_fields
    file = SourceFile(path, abs_path, language, PathClass(path_class), size, mtime_ns)
    return FileAnalysis(
        file=file,
        text=text,
        content_hash=content_hash,
        definitions=tuple(
            Definition(name, kind, path, Span(a, b, c, d), Span(e, f, g, h), signature, parent, lang)
            for (name, kind, a, b, c, d, e, f, g, h, signature, parent, lang) in definitions
        ),
        references=tuple(
            Reference(name, kind, path, Span(a, b, c, d), enclosing, receiver, module, alias)
            for (name, kind, a, b, c, d, enclosing, receiver, module, alias) in references
        ),
        chunks=tuple(
            Chunk(path, lang, start, end, chunk_text, chunk_hash, symbol, kind, parent, signature)
            for (lang, start, end, chunk_text, chunk_hash, symbol, kind, parent, signature) in chunks
        ),
        parse_error=parse_error,
    )

"""Columns in a client's units: the engine counts code points; LSP clients mostly count UTF-16 code units."""

from __future__ import annotations

from collections.abc import Callable

from maguyva_lsp.model import Span

# Every door but the language server speaks code points (LSP's `utf-32` position encoding).
CODE_POINTS = "utf-32"


class ColumnCodec:
    """Columns in the negotiated position encoding: the engine counts code points, clients mostly UTF-16 units."""

    def __init__(self, encoding: str | None) -> None:
        value = str(getattr(encoding, "value", encoding) or "utf-16").lower()
        self.encoding = value if value in ("utf-8", "utf-16", "utf-32") else "utf-16"

    def to_client(self, line: str, column: int) -> int:
        if self.encoding == "utf-32" or line.isascii():
            return column
        prefix = line[:column]
        if self.encoding == "utf-8":
            return len(prefix.encode("utf-8", "surrogatepass"))
        return len(prefix.encode("utf-16-le", "surrogatepass")) // 2

    def from_client(self, line: str, units: int) -> int:
        if self.encoding == "utf-32" or line.isascii():
            return units
        codec = "utf-8" if self.encoding == "utf-8" else "utf-16-le"
        width = 1 if self.encoding == "utf-8" else 2
        encoded = line.encode(codec, "surrogatepass")[: units * width]
        return len(encoded.decode(codec, "ignore"))

    def span_to_client(self, line_text: Callable[[int], str], span: Span) -> Span:
        """A span of the engine in the client's units (line texts as the index holds them)."""
        if self.encoding == CODE_POINTS:
            return span
        first = line_text(span.start_line)
        last = first if span.end_line == span.start_line else line_text(span.end_line)
        if first.isascii() and last.isascii():
            return span
        return Span(
            span.start_line,
            self.to_client(first, span.start_col),
            span.end_line,
            self.to_client(last, span.end_col),
        )

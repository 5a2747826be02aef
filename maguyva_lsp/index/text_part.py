"""The text retriever's part of each segment: trigram postings of the files and BM25 postings of the chunks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from maguyva_lsp.index.analysis_columns import CoreColumns
from maguyva_lsp.index.bm25 import Bm25Postings, bm25_arrays
from maguyva_lsp.index.segment_parts import PartSource
from maguyva_lsp.index.text_merge import merged_text_arrays
from maguyva_lsp.index.trigram import TrigramPostings, trigram_arrays
from maguyva_lsp.store.container import Array

TEXT_PART = "text"
# 1: trigram postings, ASCII-folding files, BM25 postings with term frequencies, chunk lengths and files.
# 2: the same, narrow where the values fit (uint32 offsets, uint16 file ids, uint8/uint16 term frequencies).
# 3: BM25 chunk rows as uint16 low halves with where their high halves step, term frequencies uint8 (larger ones
#    kept aside), no stored term keys (they are the ranks 0..n-1), chunk lengths and files uint16 where they fit.
# 4: trigram postings' file ids gap-coded as uint8 (wider gaps kept aside).
TEXT_PART_VERSION = 4


@dataclass(frozen=True, slots=True)
class TextSegment:
    """What text search reads of one segment."""

    trigrams: TrigramPostings
    bm25: Bm25Postings

    @property
    def nbytes(self) -> int:
        return self.trigrams.nbytes + self.bm25.nbytes


class TextPart:
    """Builds and opens the text part (see index/segment_parts.py for the contract)."""

    name = TEXT_PART
    version = TEXT_PART_VERSION

    def build(self, core: CoreColumns) -> dict[str, Array]:
        return {**trigram_arrays(core), **bm25_arrays(core)}

    def merge(self, sources: Sequence[PartSource], merged: CoreColumns) -> dict[str, Array]:
        """The part of a merged segment from its sources' parts (the same arrays `build(merged)` gives)."""
        return merged_text_arrays(sources, merged)

    def open(self, arrays: Mapping[str, Array], core: CoreColumns) -> TextSegment:
        return TextSegment(TrigramPostings.open(arrays), Bm25Postings.open(arrays))

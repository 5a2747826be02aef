"""The systems compared on the same cases: Maguyva's search (standard, thorough), each of its retrievers alone, its
navigation API (references, impact), and the alternatives: ripgrep, BM25 (bm25s) over the same chunks, and a plain
BM25 + dense Reciprocal Rank Fusion without intents.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from benchmarks.cases import Case, Result
from maguyva_lsp.engine import Engine
from maguyva_lsp.model import Chunk, Classification, Intent, Modality, RetrievalQuery
from maguyva_lsp.query.intent import classify

# The `ripgrep` wheel puts its binary beside the interpreter (the venv's bin folder), whichever checkout runs.
RG = Path(sys.executable).parent / "rg"
CANDIDATES = 30  # results asked of each retriever or baseline (the top 10 are scored)
SEARCH_LIMIT = 20  # Maguyva's default result limit: what a user gets (its candidate pools follow from it)
FUSION_CANDIDATES = 100  # per list fed to the plain RRF baseline
PLAIN_RRF_K = 60  # the original RRF constant, equal weights: the textbook fusion without intents
BM25_STOPWORDS = "en"


class System(Protocol):
    name: str

    def applies(self, case: Case) -> bool: ...

    def rank(self, case: Case) -> list[Result]: ...


class MaguyvaSearch:
    """`Engine.search` under a preset, as the CLI and the server run it; remembers each query's strategy."""

    def __init__(self, engine: Engine, preset: str) -> None:
        self.name = f"maguyva {preset}"
        self.engine = engine
        self.preset = preset
        self.strategies: dict[str, str] = {}

    def applies(self, case: Case) -> bool:
        return True

    def rank(self, case: Case) -> list[Result]:
        response = self.engine.search(case.query, preset=self.preset, limit=SEARCH_LIMIT)
        self.strategies[case.query] = response.fusion_strategy
        return [(r.path, r.span.start_line, r.span.end_line) for r in response.results]


class RetrieverAlone:
    """One of Maguyva's retrievers on its own, given the query as the classifier reads it (for diagnosis)."""

    def __init__(self, engine: Engine, modality: Modality) -> None:
        self.name = f"{modality} alone"
        self.retriever = engine.retrievers[modality]

    def applies(self, case: Case) -> bool:
        return True

    def rank(self, case: Case) -> list[Result]:
        hits = self.retriever.search(RetrievalQuery(classify(case.query)), CANDIDATES)
        return [(h.path, h.span.start_line, h.span.end_line) for h in hits]


class MaguyvaNavigation:
    """The navigation API at the symbol's definition: `references` (textDocument/references) and `impact`
    (maguyva/impact, depth 2) — what an editor asks when the cursor is on the name."""

    name = "maguyva references/impact API"

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def applies(self, case: Case) -> bool:
        return case.position is not None and case.intent in ("find_references", "impact_analysis")

    def rank(self, case: Case) -> list[Result]:
        assert case.position is not None
        path, line, column = case.position
        if case.intent == "find_references":
            found = self.engine.references(path, line, column, include_declaration=False)
            return [(p, s.start_line, s.end_line) for p, s in found]
        result = self.engine.impact(path=path, line=line, column=column, max_depth=2)
        if result is None:
            return []
        return [(i.node.path, i.node.span.start_line, i.node.span.end_line) for i in result.impacted]


class Ripgrep:
    """ripgrep over the corpus folder (which holds exactly the engine's files), given what a grep user would type
    (see GrepSpec); lines in path order, or files by number of matching lines for a bag of words."""

    name = "ripgrep"

    def __init__(self, root: Path) -> None:
        self.root = root

    def applies(self, case: Case) -> bool:
        return True

    def command(self, case: Case) -> list[str]:
        spec = case.grep
        flags = ["--no-messages", "--no-ignore", "--hidden", "--color", "never", "--null", "--fixed-strings"]
        flags += ["--count"] if spec.rank_by_count else ["--line-number", "--max-columns", "1"]
        flags += (["--word-regexp"] if spec.words else []) + (["--ignore-case"] if spec.ignore_case else [])
        patterns = [arg for pattern in spec.patterns for arg in ("-e", pattern)]
        return [str(RG), *flags, *patterns, "--", "."]

    def rank(self, case: Case) -> list[Result]:
        done = subprocess.run(self.command(case), cwd=self.root, capture_output=True, text=True, check=False)
        rows: list[tuple[str, int]] = []
        for line in done.stdout.splitlines():
            path, _, rest = line.partition("\0")
            path = path.removeprefix("./")
            number = rest.split(":", 1)[0]
            if number.isdigit():
                rows.append((path, int(number)))
        if case.grep.rank_by_count:
            rows.sort(key=lambda row: (-row[1], row[0]))
            return [(path, 0, 0) for path, _ in rows]
        rows.sort()
        return [(path, n - 1, n - 1) for path, n in rows]


class Bm25Chunks:
    """BM25 (bm25s, an independent implementation, English stop words) over the raw text of the engine's chunks."""

    name = "BM25 (bm25s)"

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        import bm25s

        self._bm25s: Any = bm25s
        self.chunks = list(chunks)
        self.model = bm25s.BM25()
        tokens = bm25s.tokenize([c.text for c in self.chunks], stopwords=BM25_STOPWORDS, show_progress=False)
        self.model.index(tokens, show_progress=False)

    def applies(self, case: Case) -> bool:
        return True

    def ranked_chunks(self, text: str, k: int) -> list[Chunk]:
        tokens = self._bm25s.tokenize([text], stopwords=BM25_STOPWORDS, return_ids=False, show_progress=False)
        if not tokens[0]:
            return []
        documents, scores = self.model.retrieve(tokens, k=min(k, len(self.chunks)), show_progress=False)
        return [self.chunks[int(d)] for d, s in zip(documents[0], scores[0], strict=True) if s > 0]

    def rank(self, case: Case) -> list[Result]:
        return [(c.path, c.start_line, c.end_line) for c in self.ranked_chunks(case.query, CANDIDATES)]


class PlainRrf:
    """BM25 (bm25s) and Maguyva's semantic retriever alone, fused by plain RRF (k = 60, equal weights) per chunk:
    the usual hybrid search, with no intents, no graph boost, no demotion and no per-file dedup."""

    name = "BM25+dense RRF"

    def __init__(self, bm25: Bm25Chunks, engine: Engine) -> None:
        self.bm25 = bm25
        self.semantic = engine.semantic

    def applies(self, case: Case) -> bool:
        return True

    def rank(self, case: Case) -> list[Result]:
        classification = Classification(case.query, Intent.UNDERSTAND_CODE, 0.0, "plain", case.query)
        dense = self.semantic.search(RetrievalQuery(classification), FUSION_CANDIDATES)
        sparse = self.bm25.ranked_chunks(case.query, FUSION_CANDIDATES)
        scores: dict[str, float] = {}
        where: dict[str, Result] = {}
        for rank, chunk in enumerate(sparse):
            scores[chunk.chunk_id] = scores.get(chunk.chunk_id, 0.0) + 1.0 / (PLAIN_RRF_K + rank + 1)
            where[chunk.chunk_id] = (chunk.path, chunk.start_line, chunk.end_line)
        for rank, hit in enumerate(dense):
            key = str(hit.detail.get("chunk", f"{hit.path}#{hit.span.start_line}"))
            scores[key] = scores.get(key, 0.0) + 1.0 / (PLAIN_RRF_K + rank + 1)
            where.setdefault(key, (hit.path, hit.span.start_line, hit.span.end_line))
        return [where[key] for key in sorted(scores, key=lambda k: (-scores[k], k))[:CANDIDATES]]


def engine_chunks(engine: Engine, files: Sequence[str]) -> list[Chunk]:
    """Every chunk the engine holds for these files, in file order."""
    out: list[Chunk] = []
    for path in files:
        analysis = engine.analysis(path)
        if analysis is not None:
            out.extend(analysis.chunks)
    return out


def indexed_files(engine: Engine, files: Sequence[str]) -> list[str]:
    return [p for p in files if engine.analysis(p) is not None]


def rg_available() -> bool:
    return RG.exists() and os.access(RG, os.X_OK)

"""What a user would reach for instead, on the dev set's questions, in the same run: ripgrep handed what a grep user
would type, BM25 (bm25s) over the engine's chunks (over its function chunks for pasted functions), the engine's dense
retriever alone, and BM25 + dense fused by plain RRF. Each answers with 1-based inclusive results.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from benchmarks.cases import Case, GrepSpec
from benchmarks.cases_text import STOPWORDS_EN
from benchmarks.devset_questions import Question
from benchmarks.devset_scoring import Result
from benchmarks.systems import RG, Bm25Chunks, PlainRrf, Ripgrep
from maguyva_lsp.engine import Engine
from maguyva_lsp.model import Chunk, Classification, Intent, RetrievalQuery

FUNCTION_KINDS = frozenset({"function", "method"})
ALTERNATIVE_DEPTH = 20  # results asked of each alternative: what the metrics look at
_WORD = re.compile(r"[A-Za-z0-9_]+")
DEFINITION_KEYWORDS = (
    r"\b(?:def|class|func|function\*?|type|interface|struct|enum|const|let|var|async\s+def|async\s+function)"
)


class Alternative(Protocol):
    name: str

    def applies(self, question: Question) -> bool: ...

    def answer(self, question: Question) -> list[Result]: ...


def grep_spec(question: Question) -> GrepSpec:
    """What a grep user would type: the symbol as a word, the literal (as a word for a bare token), the longest line of
    a pasted function, or the words of a question (files then ranked by how many lines hold them)."""
    family = question.family
    if family in ("find_definition", "find_references", "impact_analysis"):
        name = (question.symbol or question.name).rsplit(".", 1)[-1]
        return GrepSpec((name,), words=True)
    if family == "exact_match":
        return GrepSpec((question.literal or question.query,), words=question.word)
    if family == "find_similar":
        lines = [ln.strip() for ln in question.snippet.split("\n") if ln.strip()]
        return GrepSpec((max(lines, key=len) if lines else question.snippet,))
    words = tuple(dict.fromkeys(w for w in _WORD.findall(question.query.lower()) if len(w) > 2
                                and w not in STOPWORDS_EN))  # fmt: skip
    return GrepSpec(words or (question.query,), words=True, ignore_case=True, rank_by_count=True)


def _case(question: Question, spec: GrepSpec) -> Case:
    return Case(question.family, question.query, "file", (), spec, question.id)


def definition_line(name: str) -> re.Pattern[str]:
    """A line that looks like it defines `name`: a definition keyword before it (Go receivers and dotted owners
    allowed), or an assignment or object-literal key to it."""
    word = re.escape(name)
    return re.compile(
        rf"{DEFINITION_KEYWORDS}\s+(?:\([^)]*\)\s*)?(?:[\w$]+\.)*{word}\b"
        rf"|(?<![\w$]){word}\s*(?::[^=]*)?=(?![=>])|(?<![\w$]){word}\s*:\s*(?:async\s+)?function\b"
    )


class RipgrepAlternative:
    """ripgrep (the wheel's binary) over the unpacked corpus, in path then line order (files by count for words).
    For a definition question it is handed the symbol as a word and lists the lines that look like a definition of
    it first, as a user scanning grep's output would (in plain path order it scored 0.592 on the dev set)."""

    name = "ripgrep"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ripgrep = Ripgrep(root)

    def applies(self, question: Question) -> bool:
        return True

    def answer(self, question: Question) -> list[Result]:
        if question.family == "find_definition":
            return self.definitions_first(question)[:ALTERNATIVE_DEPTH]
        ranked = self.ripgrep.rank(_case(question, grep_spec(question)))
        return [(path, first + 1, last + 1) for path, first, last in ranked[:ALTERNATIVE_DEPTH]]

    def matching_lines(self, word: str) -> list[tuple[str, int, str]]:
        """(path, 1-based line, text) of every line holding word as a whole word, in path then line order."""
        command = [str(RG), "--no-messages", "--no-ignore", "--hidden", "--color", "never", "--null", "--line-number",
                   "--fixed-strings", "--word-regexp", "-e", word, "--", "."]  # fmt: skip
        done = subprocess.run(command, cwd=self.root, capture_output=True, text=True, errors="replace", check=False)
        rows = []
        for line in done.stdout.splitlines():
            path, _, rest = line.partition("\0")
            number, _, text = rest.partition(":")
            if number.isdigit():
                rows.append((path.removeprefix("./"), int(number), text))
        rows.sort(key=lambda row: (row[0], row[1]))
        return rows

    def definitions_first(self, question: Question) -> list[Result]:
        name = grep_spec(question).patterns[0]
        looks = definition_line(name)
        rows = self.matching_lines(name)
        ordered = sorted(rows, key=lambda row: 0 if looks.search(row[2]) else 1)  # stable: path order within
        return [(path, line, line) for path, line, _ in ordered]


class Bm25Alternative:
    """bm25s over the engine's chunks with the query as typed; pasted functions go to BM25 over function chunks only,
    with the pasted code alone as the query."""

    name = "BM25"

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.all = Bm25Chunks(chunks)
        functions = [c for c in chunks if c.kind in FUNCTION_KINDS]
        self.functions = Bm25Chunks(functions) if functions else None

    def applies(self, question: Question) -> bool:
        return True

    def answer(self, question: Question) -> list[Result]:
        if question.family == "find_similar" and self.functions is not None:
            chunks = self.functions.ranked_chunks(question.snippet, ALTERNATIVE_DEPTH)
        else:
            chunks = self.all.ranked_chunks(question.query, ALTERNATIVE_DEPTH)
        return [(c.path, c.start_line + 1, c.end_line + 1) for c in chunks]


def oracle_query(question: Question) -> RetrievalQuery:
    """The question as a perfect classifier would hand it to one retriever: its family, the snippet as the target."""
    target = question.snippet if question.family == "find_similar" else question.query
    return RetrievalQuery(Classification(question.query, Intent(question.family), 0.0, "oracle", target))


class DenseAlternative:
    """The engine's semantic retriever alone (its local model), handed the question's right intent."""

    name = "dense"

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def applies(self, question: Question) -> bool:
        return True

    def answer(self, question: Question) -> list[Result]:
        hits = self.engine.semantic.search(oracle_query(question), ALTERNATIVE_DEPTH)
        return [(h.path, h.span.start_line + 1, h.span.end_line + 1) for h in hits]


class PlainRrfAlternative:
    """BM25 and the dense retriever fused by plain RRF (k = 60, equal weights): hybrid search without intents."""

    name = "BM25+dense RRF"

    def __init__(self, bm25: Bm25Alternative, engine: Engine) -> None:
        self.rrf = PlainRrf(bm25.all, engine)

    def applies(self, question: Question) -> bool:
        return question.family not in ("find_similar",)  # BM25 over function chunks is its own column there

    def answer(self, question: Question) -> list[Result]:
        ranked = self.rrf.rank(_case(question, GrepSpec(())))
        return [(path, first + 1, last + 1) for path, first, last in ranked[:ALTERNATIVE_DEPTH]]


def timed(alternative: Alternative, question: Question) -> tuple[list[Result], float]:
    started = time.perf_counter()
    results = alternative.answer(question)
    return results, (time.perf_counter() - started) * 1e3

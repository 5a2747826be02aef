"""The dev set's questions as the harness reads them (`queries/<corpus>.jsonl`), and one system's answer to one."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.devset_scoring import Result

SIMILAR_PREFIX = re.compile(r"^\s*find code similar to:\s*\n?", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Question:
    """One dev-set question, with what the families need beyond the query."""

    id: str
    corpus: str
    language: str
    family: str
    form: str
    query: str
    gold: tuple[dict[str, Any], ...]
    symbol: str | None = None
    literal: str | None = None
    word: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The name a user types into the symbol palette: `Cls.meth` for a qualified question, else the symbol."""
        if self.form == "qualified":
            match = re.search(r"where is (\S+) defined", self.query)
            if match:
                return match.group(1)
        return self.symbol or self.query

    @property
    def snippet(self) -> str:
        """The pasted code of a find_similar question (its lead-in line dropped)."""
        return SIMILAR_PREFIX.sub("", self.query, count=1)


@dataclass(frozen=True, slots=True)
class Observation:
    """One system's answer to one question."""

    question: Question
    system: str
    results: list[Result]
    latency_ms: float
    intent: str | None = None
    confidence: float | None = None
    strategy: str | None = None
    rule: str | None = None
    target: str | None = None
    server_ms: float | None = None
    skipped: tuple[str, ...] = ()  # modalities the server skipped (with their reasons)
    partial: bool = False
    error: str | None = None


def load_questions(devset: Path, corpus: str, language: str) -> list[Question]:
    """The corpus's questions in file order."""
    out = []
    for line in (devset / "queries" / f"{corpus}.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        known = {"id", "repo", "family", "intent", "query", "gold", "symbol", "literal", "word", "phrasing"}
        out.append(
            Question(
                id=item["id"],
                corpus=corpus,
                language=language,
                family=item["family"],
                form=item.get("phrasing") or "all",
                query=item["query"],
                gold=tuple(item["gold"]),
                symbol=item.get("symbol"),
                literal=item.get("literal"),
                word=bool(item.get("word", False)),
                extra={k: v for k, v in item.items() if k not in known},
            )
        )
    return out

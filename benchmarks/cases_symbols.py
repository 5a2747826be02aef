"""Cases about symbols, sampled with a fixed seed from universal-ctags' definitions: where is it defined (ctags),
who uses it (jedi's references) and what depends on it (the definitions enclosing jedi's references, two levels deep).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.cases import Case, GrepSpec, Target
from benchmarks.truth_ctags import Tag
from benchmarks.truth_jedi import JediTruth, Position

# Folders and files of tests: sampled symbols are library code, as people mostly look up (truth still counts tests).
TEST_PART_PREFIXES = ("test", "idle_test")
# Depth 2 of impact asks jedi about the definitions enclosing depth-1 references: at most this many per symbol.
SCOPES_PER_TARGET = 4

DEFINITION_PHRASES = ("where is {} defined", "definition of {}", "{keyword} {}", "{}")
REFERENCE_PHRASES = ("who calls {}", "usages of {}", "where is {} used", "references to {}", "callers of {}")
IMPACT_PHRASES = ("what breaks if I change {}", "impact of changing {}", "blast radius of {}", "what depends on {}")
_CODE_LIKE_RE = re.compile(r"_[A-Za-z0-9]|[a-z][A-Z]|\.")  # snake_case, camelCase or dotted: what a bare query names


@dataclass(frozen=True, slots=True)
class SymbolPick:
    """A sampled definition and the position of its name (for jedi and for LSP-style requests)."""

    tag: Tag
    position: Position


def is_library_code(path: str) -> bool:
    return not any(part.startswith(TEST_PART_PREFIXES) for part in path.split("/"))


def _is_plain(tag: Tag) -> bool:
    return not (tag.name.startswith("__") and tag.name.endswith("__"))  # dunders are everywhere and called implicitly


def name_position(root: Path, tag: Tag, lines_of: dict[str, list[str]]) -> Position | None:
    """Where the name of a `def`/`class` sits on its line (ctags gives the line only)."""
    lines = lines_of.get(tag.path)
    if lines is None:
        lines = (root / tag.path).read_text(encoding="utf-8", errors="replace").splitlines()
        lines_of[tag.path] = lines
    if tag.line >= len(lines):
        return None
    match = re.search(rf"\b(?:def|class)\s+({re.escape(tag.name)})\b", lines[tag.line])
    return (tag.path, tag.line, match.start(1)) if match else None


def _phrase(template: str, tag: Tag) -> str:
    keyword = "class" if tag.kind == "class" else "def"
    return template.replace("{keyword}", keyword).format(tag.query_name)


def definition_cases(tags: list[Tag], count: int, seed: int) -> list[Case]:
    """'where is X defined' and its variants; right answers: every ctags definition X can mean."""
    by_name: dict[str, list[Tag]] = defaultdict(list)
    by_method: dict[str, list[Tag]] = defaultdict(list)
    for tag in tags:
        by_name[tag.name].append(tag)
        if tag.is_method:
            by_method[tag.query_name].append(tag)
    pool = [t for t in tags if _is_plain(t) and is_library_code(t.path)]
    picked = random.Random(seed).sample(pool, min(count, len(pool)))
    cases = []
    for index, tag in enumerate(picked):
        phrases = [p for p in DEFINITION_PHRASES if p != "{}" or _CODE_LIKE_RE.search(tag.query_name)]
        if tag.is_method:
            phrases = [p for p in phrases if "{keyword}" not in p]  # "def Class.method" is not how people write it
        template = phrases[index % len(phrases)]
        meant = by_method[tag.query_name] if tag.is_method else by_name[tag.name]
        cases.append(
            Case(
                intent="find_definition",
                query=_phrase(template, tag),
                unit="definition",
                relevant=tuple(Target(t.path, t.line, t.line) for t in meant),
                grep=GrepSpec((tag.name,), words=True),
                label=tag.query_name,
            )
        )
    return cases


def symbol_candidates(root: Path, tags: list[Tag], count: int, seed: int) -> list[SymbolPick]:
    """A seeded sample of library functions and methods (dunders excluded) with their name positions."""
    pool = [t for t in tags if t.kind in ("function", "member") and _is_plain(t) and is_library_code(t.path)]
    rng = random.Random(seed)
    lines_of: dict[str, list[str]] = {}
    picks: list[SymbolPick] = []
    for tag in rng.sample(pool, min(len(pool), count * 2)):
        position = name_position(root, tag, lines_of)
        if position is not None:
            picks.append(SymbolPick(tag, position))
        if len(picks) == count:
            break
    return picks


def _files_of(positions: Iterable[Position], corpus_files: frozenset[str]) -> list[str]:
    return sorted({p[0] for p in positions if p[0] in corpus_files})


def _file_case(intent: str, phrases: tuple[str, ...], index: int, pick: SymbolPick, files: list[str]) -> Case:
    """A question about a sampled symbol (its phrasing rotating through `phrases`) whose answers are files."""
    return Case(
        intent=intent,
        query=phrases[index % len(phrases)].format(pick.tag.query_name),
        unit="file",
        relevant=tuple(Target(f) for f in files),
        grep=GrepSpec((pick.tag.name,), words=True),
        label=pick.tag.query_name,
        position=pick.position,
    )


def reference_cases(
    picks: list[SymbolPick], truth: JediTruth, corpus_files: frozenset[str], count: int
) -> tuple[list[Case], dict[str, int]]:
    """'who calls X' and its variants; right answers: the files holding jedi's references (one per file, as the
    engine returns one result per file). Symbols jedi could not answer, or with no reference, are left out."""
    cases: list[Case] = []
    skipped = {"jedi_failed": 0, "no_references": 0, "not_asked": 0}
    for pick in picks:
        answer = truth.get(pick.position)
        if answer is None:
            skipped["not_asked"] += 1
            continue
        if answer.error:
            skipped["jedi_failed"] += 1
            continue
        files = _files_of(answer.refs, corpus_files)
        if not files:
            skipped["no_references"] += 1
            continue
        cases.append(_file_case("find_references", REFERENCE_PHRASES, len(cases), pick, files))
        if len(cases) == count:
            break
    return cases, skipped


def depth_one_scopes(picks: list[SymbolPick], truth: JediTruth, count: int) -> list[Position]:
    """The definitions enclosing the references of the first `count` answered symbols (what depth 2 needs)."""
    scopes: list[Position] = []
    for pick in _impact_picks(picks, truth, count):
        answer = truth.get(pick.position)
        assert answer is not None
        enclosing = sorted({s for s in answer.scopes if s[1] >= 0})
        scopes.extend(enclosing[:SCOPES_PER_TARGET])
    return scopes


def _impact_picks(picks: list[SymbolPick], truth: JediTruth, count: int) -> list[SymbolPick]:
    chosen = []
    for pick in picks:
        answer = truth.get(pick.position)
        if answer is not None and not answer.error and answer.refs:
            chosen.append(pick)
        if len(chosen) == count:
            break
    return chosen


def impact_cases(
    picks: list[SymbolPick], truth: JediTruth, corpus_files: frozenset[str], count: int
) -> tuple[list[Case], dict[str, int]]:
    """'what breaks if I change X' and its variants; right answers: the files of the definitions enclosing jedi's
    references (depth 1) and of those enclosing the references to them (depth 2)."""
    cases: list[Case] = []
    skipped = {"depth2_unanswered": 0, "outside_corpus": 0}
    for pick in _impact_picks(picks, truth, count):
        answer = truth.get(pick.position)
        assert answer is not None
        impacted = set(answer.scopes)
        enclosing = sorted({s for s in answer.scopes if s[1] >= 0})[:SCOPES_PER_TARGET]
        second = [truth.get(scope) for scope in enclosing]
        if any(a is None for a in second):
            skipped["depth2_unanswered"] += 1
            continue
        for more in second:
            if more is not None and not more.error:
                impacted.update(more.scopes)
        files = _files_of(impacted, corpus_files)
        if not files:
            skipped["outside_corpus"] += 1
            continue
        cases.append(_file_case("impact_analysis", IMPACT_PHRASES, len(cases), pick, files))
    return cases, skipped

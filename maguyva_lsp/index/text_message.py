"""Find where a pasted message is written in the source, as the source writes it.

A printed message differs from its source: its dynamic parts (numbers, quoted values, paths) were filled in, and the
source may build it from several string literals (`"a " + x + " b"`, implicit concatenation over lines) with
placeholders (`{}`, `{name!r}`, `%s`, `%d`, `%q`, `${x}`). So both sides become word sequences: the message without
its dynamic parts, and each candidate site's string literals (over a few lines) without their placeholders. A site's
score is the longest common subsequence of the two, as recall of the message's words (mostly) and precision of the
site's words; the error's name near the site breaks ties.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from maguyva_lsp.index.text_match import Deadline
from maguyva_lsp.index.text_results import PATH_CLASS_RANK, enclosing_symbol, line_snippet
from maguyva_lsp.index.trigram import TextDocument
from maguyva_lsp.query.pasted import message_words
from maguyva_lsp.tokens import STOPWORDS

# Candidate files are those holding at least this share of the anchor words (some words may be dynamic after all).
ANCHOR_SHARE = 0.5
# At most this many anchor words (the longest) narrow the candidates.
MAX_ANCHORS = 6
# A site is the line that holds a trigger and this many after it (the rest of a concatenated message); the error's
# name is looked for this many lines before it too (`raise Error(` on a line of its own).
SITE_LINES_BEFORE = 2
SITE_LINES_AFTER = 3
# A site is reported when it holds at least this share of the message's words.
MIN_RECALL = 0.5
# A site's score is scaled down by up to this much for words outside string literals in code (comments, docstrings),
# and raised by this much when the error's name is written at the site.
NOT_LITERAL_PENALTY = 0.1
NAMED_BONUS = 0.05
# Sites are looked at around the lines that hold one of this many rarest anchor words.
TRIGGER_ANCHORS = 2
# Bounds that keep one search cheap on a large workspace.
MAX_CANDIDATE_FILES = 400
MAX_SITES = 4000

# Placeholders inside a source string: str.format / f-strings / Rust / C# `{...}`, printf and Go verbs, JS `${...}`.
_PLACEHOLDER_RE = re.compile(
    r"\$\{[^}\n]*\}|\{[^{}\n]*\}|"
    r"%(?:\([\w.]+\))?[-#+ 0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[hlLqjzt]*[diouxXeEfFgGcrsaqvTtpbw]"
)
# String literals of most languages: optional prefix, then '...', "...", `...` with escapes; triple quotes too.
_STRING_RE = re.compile(
    r"(?:\b[rRbBuUfF]{1,2}|@|\$)?(?:\"\"\"(?P<t1>[\s\S]*?)\"\"\"|'''(?P<t2>[\s\S]*?)'''|"
    r"\"(?P<d>(?:[^\"\\\n]|\\.)*)\"|'(?P<s>(?:[^'\\\n]|\\.)*)'|`(?P<b>(?:[^`\\]|\\.)*)`)"
)
_WORD_RE = re.compile(r"[A-Za-z0-9_]+")
_PREFIXED_STRING_RE = re.compile(r"\s*[rRbBuUfF]{1,2}[\"']")
# A line that raises, throws, panics, builds an error or logs one.
_RAISING_RE = re.compile(
    r"\b(?:raise|throw|panic!?|Errorf|errors\.New|new\s+\w*(?:Error|Exception)|\w*(?:Error|Exception)\(|"
    r"bail!|anyhow!|(?:log|logger|logging|console)\.(?:error|warn|warning|fatal|critical|exception|Fatal\w*|Panic\w*))"
)
# Languages whose text is prose or markup: a site there is the raw line, not its string literals.
_PLAIN_TEXT_LANGUAGES = frozenset({None, "markdown", "rst", "text", "html", "xml", "yaml", "toml", "json", "css"})


def template_words(literal: str) -> list[str]:
    """The static words of one source string literal, lower-cased: its placeholders removed."""
    return [w.lower() for w in _WORD_RE.findall(_PLACEHOLDER_RE.sub(" ", literal))]


def common_subsequence(message: list[str], site: list[str]) -> int:
    """Length of the longest common subsequence of two word lists (Hunt–Szymanski: fast when words repeat little)."""
    positions: dict[str, list[int]] = {}
    for index, word in enumerate(site):
        positions.setdefault(word, []).append(index)
    thresholds: list[int] = []
    for word in message:
        for pos in reversed(positions.get(word, ())):
            at = bisect.bisect_left(thresholds, pos)
            if at == len(thresholds):
                thresholds.append(pos)
            else:
                thresholds[at] = pos
    return len(thresholds)


def site_score(message: list[str], site: list[str], relevant: int | None = None) -> tuple[float, float]:
    """(score, recall) of a site: recall of the message's words, scaled a little by the site's precision (over its
    `relevant` words: those of the lines that hold a word of the message; all of them when not given)."""
    if not message or not site:
        return 0.0, 0.0
    common = common_subsequence(message, site)
    if common == 0:
        return 0.0, 0.0
    recall = common / len(message)
    precision = common / max(common, relevant if relevant is not None else len(site))
    return recall * (0.8 + 0.2 * precision), recall


@dataclass(frozen=True, slots=True)
class MessageSite:
    """A place that writes a message: the file, the 0-based line where the match starts, and how well it matches."""

    doc: TextDocument
    line: int
    score: float
    recall: float
    named: bool  # the error's name is written at the site (`raise Name(`, `new Name(`)

    def sort_key(self) -> tuple[float, int, int, str, int]:
        return (
            -self.score,
            0 if self.named else 1,
            PATH_CLASS_RANK.get(self.doc.path_class, 2),
            self.doc.path,
            self.line,
        )


def anchor_words(words: list[str]) -> list[str]:
    """The words that narrow the candidates: the longest distinct ones of three letters or more, stopwords aside
    (unless the message has nothing else)."""
    distinct = {w for w in words if len(w) >= 3 and not w.isdigit()}
    content = {w for w in distinct if w not in STOPWORDS} or distinct
    return sorted(content, key=lambda w: (-len(w), w))[:MAX_ANCHORS]


class _DocumentWords:
    """The static words of each line of one document, extracted on first use: the string literals of a code line that
    has any, else the whole line (prose, markup, comments, regex literals)."""

    __slots__ = ("_cache", "_lines", "_plain")

    def __init__(self, lines: list[str], plain: bool) -> None:
        self._lines = lines
        self._plain = plain
        self._cache: dict[int, tuple[list[str], bool]] = {}

    def line(self, number: int) -> tuple[list[str], bool]:
        """The line's words, and whether they come from string literals."""
        found = self._cache.get(number)
        if found is None:
            text = self._lines[number]
            if not self._plain and ('"' in text or "'" in text or "`" in text):
                words: list[str] = []
                for m in _STRING_RE.finditer(text):
                    words.extend(template_words(next((g for g in m.groups() if g is not None), "")))
                found = (words, True)
            else:  # prose, or a code line without a string: a comment, a regex literal in a test, a docstring
                found = (template_words(text), self._plain)
            self._cache[number] = found
        return found

    def window(self, first: int, last: int) -> tuple[list[str], list[int], float]:
        """The words of lines first..last-1, the line each came from, and the share of them from string literals
        (prose files count as literal throughout)."""
        words: list[str] = []
        origin: list[int] = []
        literal = 0
        for number in range(first, last):
            found, from_literal = self.line(number)
            words.extend(found)
            origin.extend([number] * len(found))
            literal += len(found) if from_literal else 0
        return words, origin, literal / len(words) if words else 0.0


def _first_matched_line(message: list[str], words: list[str], origin: list[int]) -> int:
    """The line of the site where the message's first word that the site holds appears."""
    present = set(words)
    for word in message:
        if word in present:
            return origin[words.index(word)]
    return origin[0] if origin else 0


def find_message_sites(
    docs: Iterable[TextDocument],
    message: str,
    name: str | None,
    deadline: Deadline,
    *,
    triggers: list[str] | None = None,
) -> list[MessageSite]:
    """Sites in the documents that write the message, best first (one per statement). A site is looked at around
    each line that holds one of `triggers` (default: the anchor words; the caller passes the rarest ones)."""
    words = message_words(message)
    anchors = anchor_words(words)
    if not words or not anchors:
        return []
    triggers = triggers or anchors
    wanted = set(words)
    needed = max(1, round(len(anchors) * ANCHOR_SHARE))
    name_word = (name or "").rsplit(".", 1)[-1]
    sites: list[MessageSite] = []
    scored = 0
    for doc in docs:
        if deadline.passed() or scored >= MAX_SITES:
            break
        lowered = doc.text.lower()
        if sum(1 for a in anchors if a in lowered) < needed:
            continue
        lines = doc.text.split("\n")
        extracted = _DocumentWords(lines, doc.language in _PLAIN_TEXT_LANGUAGES)
        found: list[MessageSite] = []
        for number in _lines_holding(lowered, lines, triggers):
            first = max(0, number - SITE_LINES_BEFORE)
            last = number + 1
            while last < min(len(lines), number + SITE_LINES_AFTER + 1) and _continues(lines[last - 1], lines[last]):
                last += 1
            site, origin, literal_share = extracted.window(number, last)
            scored += 1
            holding = {origin[i] for i, word in enumerate(site) if word in wanted}
            score, recall = site_score(words, site, sum(1 for line in origin if line in holding))
            if recall < MIN_RECALL:
                continue
            at = _first_matched_line(words, site, origin)
            before = lines[first : number + 1]
            # `error: ...` names no type: a site that builds an error (`errors.New(`, `panic(`) says it instead.
            named = any(name_word in ln for ln in before) if name_word else any(_RAISING_RE.search(ln) for ln in before)
            # A program prints what its string literals say; a comment or a docstring only talks about it.
            score *= 1.0 - NOT_LITERAL_PENALTY * (1.0 - literal_share)
            found.append(MessageSite(doc, at, score + (NAMED_BONUS if named else 0.0), recall, named))
        sites.extend(_one_per_statement(found))
    sites.sort(key=MessageSite.sort_key)
    return sites


def _continues(line: str, following: str) -> bool:
    """True when the statement of `line` goes on on the next line: an open call or an operator at its end, or a
    string (implicit concatenation), an operator or a closing bracket at the start of the next."""
    end = line.rstrip()[-1:]
    start = following.lstrip()[:1]
    return (
        (bool(end) and end in "+(,\\[{%.&|:=")
        or (bool(start) and start in "\"'`+.)]}%$@")
        or bool(_PREFIXED_STRING_RE.match(following))
    )


def _lines_holding(lowered: str, lines: list[str], needles: list[str]) -> list[int]:
    """The 0-based numbers of the lines that hold one of the needles, in order (str.find over the whole text)."""
    starts: list[int] | None = None
    found: set[int] = set()
    for needle in needles:
        pos = lowered.find(needle)
        while pos >= 0:
            if starts is None:
                starts = list(itertools.accumulate((len(line) + 1 for line in lines), initial=0))
            found.add(bisect.bisect_right(starts, pos) - 1)
            pos = lowered.find(needle, pos + 1)
    return sorted(found)


def _one_per_statement(found: list[MessageSite]) -> list[MessageSite]:
    """Overlapping windows see one statement several times: keep the best site of each run of close lines."""
    kept: list[MessageSite] = []
    for site in sorted(found, key=MessageSite.sort_key):
        if all(abs(site.line - other.line) > SITE_LINES_AFTER for other in kept):
            kept.append(site)
    return kept


def site_snippet(site: MessageSite) -> str:
    return line_snippet(site.doc.text, site.line)


def site_symbol(site: MessageSite) -> tuple[str | None, str | None]:
    return enclosing_symbol(site.doc, site.line)

"""Intent classifier: SPEC §3's ordered rules in one table, first match wins.

Each rule has a name (shown by `explain`), an intent, a confidence band, and a matcher that extracts the query's target
(a symbol, a literal, or the pasted snippet). Pure and deterministic; every pattern is compiled once at import.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from maguyva_lsp.config import MAX_QUERY_CHARS
from maguyva_lsp.model import Classification, Intent, PastedError
from maguyva_lsp.query.pasted import message_words, read_pasted
from maguyva_lsp.tokens import STOPWORDS, split_identifier

# The identifier rule fires only when at most this many other content words surround the identifier.
MAX_WORDS_BESIDE_IDENTIFIER = 2
# A quoted string, an error code or an error name decides the intent only with at most this many other content words
# (or with words that ask for a literal): inside a longer sentence it is a detail of prose.
MAX_WORDS_BESIDE_TOKEN = 3
# A phrase ("references to", "impact of") with a plain-word target, or without a target, counts only when at most this
# many words come before it.
MAX_WORDS_BEFORE_PHRASE = 3
# A change description has at least this many words, and at least this share of its words (quoted strings and inline
# code set aside) are plain words.
MIN_DESCRIPTION_WORDS = 3
PROSE_SHARE = 0.5
# A single line counts as pasted code when it shows at least this many distinct kinds of code punctuation.
MIN_CODE_MARKERS_ONE_LINE = 2

# --- building blocks -------------------------------------------------------------------------------------------------

_IDENT = r"[A-Za-z_$][\w$]*"
# A symbol as people write it: `parse`, `Config.load`, `std::fs::read`.
_SYMBOL = rf"{_IDENT}(?:(?:\.|::){_IDENT})*"
SYMBOL_RE = re.compile(_SYMBOL)
# Words between a phrase and its symbol that are not the symbol: "who calls the `parse` function".
_KIND = (
    r"(?:method|function|func|class|symbol|variable|var|constant|const|type|struct|interface|module|package|field|"
    r"property|attribute|macro|trait|enum|member|def|fn)"
)
_FILLER = rf"(?:(?:the|a|an|this|that|{_KIND})\s+)*"
# A symbol target in a phrase, possibly quoted or back-ticked, possibly followed by `()`.
_TARGET = rf"{_FILLER}[`'\"“‘]?(?P<target>{_SYMBOL})(?:\(\))?[`'\"”’]?(?![\w$])"

_VERBS = (
    r"(?:change|changes|changed|changing|modify|modifies|modified|modifying|remove|removes|removed|removing|delete|"
    r"deletes|deleted|deleting|rename|renames|renamed|renaming|edit|edits|edited|editing|touch|touching|refactor|"
    r"refactoring|update|updates|updated|updating|break|breaks|breaking|drop|dropping|deprecate|deprecating|replace|"
    r"replacing)"
)

# Definition keywords: SPEC's explicit four plus "the like". Modifiers such as `pub` or `export` may precede them.
_FROM_IMPORT_RE = re.compile(rf"^from\s+\.*(?:{_SYMBOL})?\s+import\s+\(?\s*(?P<target>{_SYMBOL})")
_DEF_KEYWORD_RE = re.compile(
    r"^(?:(?:export|default|pub(?:\([a-z]+\))?|public|private|protected|internal|static|abstract|final|async|unsafe|"
    r"extern|inline|virtual|sealed|open|data|const)\s+)*"
    r"(?P<kw>(?i:def|class|func|fn|function|interface|type|struct|enum|trait|import))\s+"
    r"(?:\([^)\n]*\)\s*)?"  # a Go method receiver: `func (s *Server) Start`
    rf"(?P<target>{_SYMBOL})(?P<tail>[^\n]*)$"
)
# What may follow the name on the same line: a signature, not more prose ("class hierarchy of the parser").
_DEF_TAIL_RE = re.compile(
    r"\s*(?:$|[(:{<\[=]|->|\b(?:extends|implements|struct|interface|as|for|where|with)\b)",
)
# What may follow `import name`: nothing, an alias, more names.
_IMPORT_TAIL_RE = re.compile(r"\s*(?:$|as\s+[\w$]+\s*$|[,;])")
# English words that are also definition keywords: their target must look like code, or carry a signature.
_AMBIGUOUS_DEF_KEYWORDS = frozenset({"function", "interface", "type", "trait"})
# Endings of English nouns that follow "function" in prose ("function overloading", "function composition").
_NOUN_ENDINGS = ("ing", "tion", "sion", "ment", "ness", "ity")

# Each phrase family has a gate: word stems that every one of its patterns needs, so that prose without any of them
# skips the family's slower patterns.
_DEF_GATE = ("defin", "declar", "implement", "locat")
_DEF_PHRASE_RES = (
    re.compile(
        rf"\bwhere(?:\s+is|\s+are|\s+was|'s|’s)?\s+{_TARGET}(?:\s+{_KIND})?\s+(?:defined|declared|implemented|located)\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?:definition|declaration|implementation)s?\s+(?:of|for)\s+{_TARGET}", re.IGNORECASE),
)
_DEF_SUFFIX_RE = re.compile(rf"^(?P<target>{_SYMBOL})(?:\(\))?\s+(?:definition|declaration)\??$", re.IGNORECASE)

_REF_GATE = ("call", "use", "usage", "refer", "refs", "invo", "import", "instantiat", "subclass", "extend", "inherit")
_REF_PHRASE_RES = (
    re.compile(
        r"\b(?:who|what|which(?:\s+\w+)?)\s+(?:calls|call|uses|use|invokes|invoke|references|reference|imports|"
        rf"import|instantiates|subclasses|extends|inherits\s+from)\s+{_TARGET}",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:callers|usages|usage|uses|references|refs|call\s*sites|invocations|calls|importers)\s+(?:of|to|for)\s+"
        + _TARGET,
        re.IGNORECASE,
    ),
    re.compile(
        rf"\bwhere(?:\s+is|\s+are|\s+was|'s|’s)?\s+{_TARGET}(?:\s+{_KIND})?\s+(?:used|called|referenced|invoked|imported|"
        r"instantiated)\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\bfind\s+(?:all\s+)?(?:references|usages|callers)\s+{_TARGET}", re.IGNORECASE),
)
_REF_SUFFIX_RE = re.compile(rf"^(?P<target>{_SYMBOL})(?:\(\))?\s+(?:callers|usages|references)\??$", re.IGNORECASE)
_REF_KEYWORD_RE = re.compile(
    r"\b(?:who\s+calls|what\s+calls|callers\s+of|usages\s+of|uses\s+of|references\s+to|references\s+of|"
    r"find\s+(?:all\s+)?(?:references|usages|callers))\b",
    re.IGNORECASE,
)

_IMPACT_GATE = ("impact", "blast", "ripple", "consequence", "break", "affect", "depend", "rely", "relies")
_IMPACT_PHRASE_RES = (
    re.compile(
        r"\b(?:impact|blast\s+radius|ripple\s+effects?|consequences)\s+(?:analysis\s+)?(?:of|for|on|from)\s+"
        rf"(?:{_VERBS}\s+)?{_TARGET}",
        re.IGNORECASE,
    ),
    re.compile(
        r"\bwhat\s+(?:\w+\s+){0,2}?(?:breaks?|affected)\s+(?:if|when)\s+(?:(?:i|we|you|someone|they)\s+)?"
        rf"{_VERBS}\s+{_TARGET}",
        re.IGNORECASE,
    ),
    re.compile(rf"\bwhat\s+(?:\w+\s+){{0,2}}?breaks?\s+(?:if|when)\s+{_TARGET}\s+{_VERBS}\b", re.IGNORECASE),
    re.compile(rf"\b(?:what|who|which(?:\s+\w+)?)\s+(?:depends|depend|relies|rely)\s+on\s+{_TARGET}", re.IGNORECASE),
    re.compile(rf"\b(?:dependents|dependants)\s+of\s+{_TARGET}", re.IGNORECASE),
)
_IMPACT_SUFFIX_RE = re.compile(
    rf"^(?P<target>{_SYMBOL})(?:\(\))?\s+(?:blast\s+radius|impact|dependents)\??$", re.IGNORECASE
)
_IMPACT_KEYWORD_RE = re.compile(
    r"\b(?:impact|blast\s+radius|what\s+depends\s+on|who\s+depends\s+on|depends\s+on\s+it|"
    r"what\s+(?:\w+\s+){0,2}?breaks?\s+(?:if|when))\b",
    re.IGNORECASE,
)

# Pasted code. Quoted strings are masked first so that `find "a = b"` is not code but `log("x")` is.
_QUOTED_ANY_RE = re.compile(r"\"[^\"\n]*\"|(?<![\w])'[^'\n]*'(?![\w])")
# Each marker with the characters it cannot match without (empty: always tried), to skip it cheaply on prose.
_CODE_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (";", re.compile(r";\s*(?:$|\S)")),  # statement separator
    ("{}", re.compile(r"[{}]")),  # blocks
    ("=-:", re.compile(r"=>|->|::|:=")),  # arrows, scopes, walrus
    ("=&|", re.compile(r"==|!=|<=|>=|&&|\|\|")),  # comparison and logic operators
    ("=", re.compile(r"[\w)\]]\s*(?:[-+*/%|&^]|<<|>>)?=(?![=>])\s*\S")),  # assignment
    ("(", re.compile(r"[\w$]\((?!\s*\))")),  # a call with arguments
    (".", re.compile(r"\b(?:self|this|cls)\.\w|\w\.\w+\(")),  # member access / method call
    ("[", re.compile(r"\w\[[^\]\n]*\]")),  # subscript
    (
        "",
        re.compile(
            r"(?m)^\s*(?:return|if|elif|else|for|while|with|try|except|catch|throw|raise|let|const|var|await|yield|"
            r"assert|switch|case|lambda|def|class|import|from|func|fn|pub|async|export|package)\b|"
            r"^\s*(?:#include|#define|@\w|>>>\s|(?:#|//|/\*)\s)"
        ),
    ),  # a statement keyword, decorator, doctest prompt or comment leading a line
    (
        "=",
        re.compile(r"(?m)^\s*[A-Za-z_$][\w$.]*(?:\s*,\s*[A-Za-z_$][\w$.]*)*\s*(?:[-+*/%|&^]|<<|>>|\*\*|//)?=(?![=>])"),
    ),  # a line that is an assignment statement (counts beside the assignment itself)
    (":{;,", re.compile(r"(?m)[:{;,]\s*$")),  # a line ending like a block header or a continued statement
)
_INDENTED_LINE_RE = re.compile(r"\n[ \t]+\S")
# A pasted stack trace is an error to look up, not code to imitate.
_STACK_TRACE_RE = re.compile(
    r"(?m)^Traceback \(most recent call last\)|^\s*File \"[^\"\n]+\", line \d+|^\s+at \S[^\n]*:\d+|"
    r"goroutine \d+ \[|panicked at|^\s*#\d+\s+0x[0-9a-fA-F]+"
)

_DOUBLE_QUOTED_RE = re.compile(r"[\"“”](?P<lit>[^\"“”\n]*\S[^\"“”\n]*)[\"“”]")
_SINGLE_QUOTED_RE = re.compile(r"(?<![\w])['‘’](?P<lit>[^'‘’\n]*\S[^'‘’\n]*)['‘’](?![\w])")
_LITERAL_PHRASE_RE = re.compile(
    r"^(?:grep(?:\s+for)?|rg|find\s+(?:the\s+)?(?:string|text|literal)|"
    r"search\s+(?:for\s+)?(?:the\s+)?(?:string|text|literal))\s+(?P<lit>\S.*)$",
    re.IGNORECASE,
)

# Errno names: the platform's table plus common ones some platforms or runtimes (Node's DNS errors) lack.
ERRNO_NAMES: frozenset[str] = frozenset(errno.errorcode.values()) | frozenset(
    "ECONNREFUSED ECONNRESET ECONNABORTED ENOENT EACCES EPERM EEXIST ENOTDIR EISDIR EINVAL EPIPE EAGAIN EWOULDBLOCK "
    "ETIMEDOUT EADDRINUSE EADDRNOTAVAIL EHOSTUNREACH ENETUNREACH EMFILE ENOSPC ENOTEMPTY EBADF EBUSY EINTR ENOMEM "
    "ENOTFOUND EAI_AGAIN".split()
)
_ERROR_CODE_RE = re.compile(r"\b(?:E[A-Z0-9]{2,}|EAI_[A-Z]+|ERR_[A-Z0-9_]+)\b")
# `KeyError`, `NullPointerException`; the bare words `Error`/`Exception` only as the whole query.
# Go's sentinel errors too: `ErrHelp`, `errNotFound`.
_ERROR_NAME_RE = re.compile(
    r"\b[A-Z][A-Za-z0-9_]*(?:Error|Exception)\b|^(?:Error|Exception)$|\b[Ee]rr[A-Z][A-Za-z0-9]*\b"
)
_ERROR_WORD_RE = re.compile(
    r"\b(?:traceback|stack\s*trace|backtrace|segfault|segmentation\s+fault|core\s+dumped|panicked\s+at|"
    r"uncaught\s+exception|unhandled\s+exception|null\s+pointer\s+dereference)\b|\bpanic:",
    re.IGNORECASE,
)

_ASKS_FOR_TOKEN_RE = re.compile(
    r"\b(?:find|search|grep|where|raised|thrown|printed|logged|emitted|literal|string|message|fails|failed|failing)\b",
    re.IGNORECASE,
)
_INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
_PLAIN_WORD_RE = re.compile(r"[A-Za-z][a-z'-]+[,.;:!?]?")
_OPENER_EDGE_CHARS = "`'\"*_:,.()[]"


def _load_words(name: str) -> frozenset[str]:
    """A word list shipped in maguyva_lsp/query/data/ (one word a line, `#` comments)."""
    text = resources.files("maguyva_lsp.query").joinpath("data", name).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


# Words that open a description of a change or a behaviour: learned phrasings, kept as data the rules read.
DESCRIPTION_OPENERS: frozenset[str] = _load_words("description_openers.txt")

_UNDERSTAND_RE = re.compile(
    r"\b(?:how|why|explain|explains|explained|explanation|architecture|architectural|overview|describe|"
    r"walk\s+me\s+through|what\s+does|purpose\s+of)\b",
    re.IGNORECASE,
)
_UNDERSTAND_WORDS = frozenset(
    "how why explain explains explained explanation architecture architectural overview describe purpose".split()
)
_KIND_WORDS = frozenset(
    "method function func class symbol variable var constant const type struct interface module package field "
    "property attribute macro trait enum member def fn".split()
)
# Words a phrase may capture where a symbol belongs ("who calls this"): never a target.
_NOT_TARGETS = STOPWORDS | _KIND_WORDS | frozenset({"it", "them", "these", "those"})
# What may follow a plain-word target: a scope ("who calls parse in tests").
_SCOPE_RE = re.compile(r"\s+(?:in|inside|within|from|under|across|outside|throughout)\s", re.IGNORECASE)
_WORD_RE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")
# Punctuation around a word that is not part of it: "`parseConfig`?", "(parse_config)".
_WORD_EDGE_CHARS = "`'\"“”‘’()[]{},;:!?."
_INNER_UPPER_RE = re.compile(r".[A-Z]")
_DIGIT_AFTER_LETTER_RE = re.compile(r"[A-Za-z][0-9]")


# --- the rule table ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleMatch:
    """What a matching rule extracted. `strength` in [0, 1] places the confidence within the rule's band."""

    target: str
    literal: bool = False
    strength: float = 1.0
    pasted: PastedError | None = None


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the classifier: a name for `explain`, an intent, a confidence band, and a matcher."""

    name: str
    intent: Intent
    confidence_low: float
    confidence_high: float
    match: Callable[[str], RuleMatch | None]

    def confidence(self, strength: float) -> float:
        return round(self.confidence_low + (self.confidence_high - self.confidence_low) * strength, 2)


def is_code_shaped(word: str) -> bool:
    """True when a word looks like an identifier rather than an English word: an underscore anywhere (snake_case,
    SCREAMING_CASE, `__init__`), a capital after the first letter (camelCase, HTTPServer, MAX), letters followed by
    digits (`utf8`), or a qualified name (`os.path`, `std::fs`)."""
    if len(word) < 2:
        return False
    if word.isascii() and word.isalpha():  # the common case, decided without a regex
        return not word[1:].islower()
    if SYMBOL_RE.fullmatch(word) is None:
        return False
    return (
        "_" in word
        or "." in word
        or ":" in word
        or _INNER_UPPER_RE.search(word) is not None
        or _DIGIT_AFTER_LETTER_RE.search(word) is not None
    )


def _first_code_word(text: str) -> str | None:
    for m in _WORD_RE.finditer(text):
        if is_code_shaped(m.group(0)):
            return m.group(0)
    return None


def _content_words(text: str) -> str:
    """The words of a question that carry its subject: single letters, stopwords and question words removed."""
    kept = [
        w
        for w in (m.group(0) for m in _WORD_RE.finditer(text))
        if len(w) > 1 and w.lower() not in STOPWORDS and w.lower() not in _UNDERSTAND_WORDS
    ]
    return " ".join(kept)


def _only_filler(text: str) -> bool:
    """True when a text has no content word: nothing but punctuation, stopwords and kind words."""
    return all(m.group(0).lower() in _NOT_TARGETS for m in _WORD_RE.finditer(text))


def _loose_target(text: str, whole: str) -> str:
    """The best target when no rule pinned one: a code-shaped word, else the content words, else the whole query."""
    return _first_code_word(text) or _content_words(text) or whole


def _code_marker_count(text: str, enough: int) -> int:
    """How many kinds of code punctuation the text shows, counting no further than `enough`."""
    masked = _QUOTED_ANY_RE.sub("_", text) if ('"' in text or "'" in text) else text
    found = 0
    for needs, marker in _CODE_MARKERS:
        if (not needs or any(ch in masked for ch in needs)) and marker.search(masked):
            found += 1
            if found >= enough:
                break
    return found


def _match_pasted_lines(text: str) -> RuleMatch | None:
    # The text is stripped, so an inner newline means at least two non-blank lines.
    if "\n" not in text or _STACK_TRACE_RE.search(text):
        return None
    if _INDENTED_LINE_RE.search(text) or _code_marker_count(text, 1) >= 1:
        return RuleMatch(text)
    return None


def _match_pasted_error(text: str) -> RuleMatch | None:
    """An error line, a traceback, a stack frame or a log line (query/pasted.py): the target is the message; when the
    message has no word that is not a dynamic part (`KeyError: 'user_id'`), its quoted value or the error's name; for
    bare frames, the innermost one. Strength 1 for a certain form, 0 for a line that only looks like one."""
    if ":" not in text and '"' not in text:
        return None  # every form has a colon (or a quoted path)
    pasted = read_pasted(text)
    if pasted is None:
        return None
    target = pasted.message if message_words(pasted.message) else ""
    if not target:
        quoted = _DOUBLE_QUOTED_RE.search(pasted.message) or _SINGLE_QUOTED_RE.search(pasted.message)
        target = quoted.group("lit") if quoted else pasted.name or ""
    if not target and pasted.frames:
        frame = pasted.frames[0]
        target = f"{frame.path}:{frame.line}"
    if not target:
        return None
    return RuleMatch(target, literal=True, strength=1.0 if pasted.certain else 0.0, pasted=pasted)


def _match_stack_trace(text: str) -> RuleMatch | None:
    if not _STACK_TRACE_RE.search(text):
        return None
    names = _ERROR_NAME_RE.findall(text)
    if names:  # the last one: a traceback ends with the exception that was finally raised
        return RuleMatch(names[-1])
    code = _find_error_code(text)
    return RuleMatch(code.group(0)) if code is not None else RuleMatch(text.splitlines()[0].strip())


def _match_definition_keyword(text: str) -> RuleMatch | None:
    if text.startswith("from "):  # `from pkg.mod import name`, `from . import name`: the imported name
        imported = _FROM_IMPORT_RE.match(text)
        return RuleMatch(imported.group("target")) if imported and "\n" not in text else None
    m = _DEF_KEYWORD_RE.match(text)
    if m is None:
        return None
    keyword, target, tail = m.group("kw").lower(), m.group("target"), m.group("tail")
    if not _DEF_TAIL_RE.match(tail) or (keyword == "import" and not _IMPORT_TAIL_RE.match(tail)):
        return None  # "import only for linter run" is a sentence
    # "type checking" is English, "type Config" and "function parse_args" are code; so is "function onfinish" (SPEC:
    # the `function ` keyword), though not "function overloading" or "function composition".
    if keyword in _AMBIGUOUS_DEF_KEYWORDS and not tail.strip() and not (target[0].isupper() or is_code_shaped(target)):
        plain_name = keyword == "function" and target.lower() not in _NOT_TARGETS and not target.endswith(_NOUN_ENDINGS)
        if not plain_name:
            return None
    return RuleMatch(target)


def _leads(text: str, start: int) -> bool:
    """True when at most MAX_WORDS_BEFORE_PHRASE words come before `start` ("show me who calls", "find all usages")."""
    return len(text[text.rfind("\n", 0, start) + 1 : start].split()) <= MAX_WORDS_BEFORE_PHRASE


def _phrase_matcher(
    gate: tuple[str, ...],
    phrases: tuple[re.Pattern[str], ...],
    suffix: re.Pattern[str],
    keyword: re.Pattern[str] | None,
) -> Callable[[str], RuleMatch | None]:
    """A matcher for a family of phrasings: a phrase naming a symbol, a `symbol <noun>` suffix form (code-shaped
    symbols only), and optionally a bare keyword that still decides the intent when no symbol follows it. `gate` holds
    the word stems these patterns need: a query with none of them skips the patterns."""

    def match(text: str) -> RuleMatch | None:
        lowered = text.lower()
        if not any(word in lowered for word in gate):
            return None  # none of the family's words: skip its slower patterns
        for phrase in phrases:
            m = phrase.search(text)
            if m is None or m.group("target").lower() in _NOT_TARGETS:
                continue
            # A plain word is a target only where the phrase ends ("impact of the new caching layer" names no symbol)
            # and when the phrase leads the query: "Return a list of weak references to the keys" is a docstring.
            rest = text[m.end() :]
            ends_here = _only_filler(rest) or _SCOPE_RE.match(rest) is not None
            # A code-shaped target may be followed by one more word ("who calls parse_config first"), not a phrase
            # ("An implementation of the JSON Pointer syntax").
            if is_code_shaped(m.group("target")) and (ends_here or len(_content_words(rest).split()) <= 1):
                return RuleMatch(m.group("target"))
            if _leads(text, m.start()) and ends_here:
                return RuleMatch(m.group("target"))
        m = suffix.match(text)
        if m is not None and is_code_shaped(m.group("target")):
            return RuleMatch(m.group("target"))
        if keyword is not None:
            k = keyword.search(text)
            if k is not None and _leads(text, k.start()):
                return RuleMatch(_loose_target(text[k.end() :], text))
        return None

    return match


def _match_one_code_line(text: str) -> RuleMatch | None:
    if "\n" in text or _code_marker_count(text, MIN_CODE_MARKERS_ONE_LINE) < MIN_CODE_MARKERS_ONE_LINE:
        return None
    return RuleMatch(text)


def _match_literal_phrase(text: str) -> RuleMatch | None:
    m = _LITERAL_PHRASE_RE.match(text)
    if m is None:
        return None
    literal = m.group("lit").strip()
    if len(literal) >= 2 and literal[0] == literal[-1] and literal[0] in "\"'`":
        literal = literal[1:-1]
    return RuleMatch(literal, literal=True) if literal else None


def _token_strength(text: str, start: int, end: int) -> float | None:
    """How plainly a query is about the token at [start, end) — a quoted string, an error code or name: 1 when it
    stands alone, or among at most MAX_WORDS_BESIDE_TOKEN other content words one of which asks for a literal
    (`find`, `where`, `raised`, `message` ...); 0 among a few other words (`"connection reset" in tests`); None inside a
    longer sentence (a commit subject, a docstring), where it is a detail of prose."""
    rest = text[:start] + " " + text[end:]
    others = sum(1 for m in _WORD_RE.finditer(rest) if len(m.group(0)) > 1 and m.group(0).lower() not in STOPWORDS)
    if others == 0:
        return 1.0
    if others > MAX_WORDS_BESIDE_TOKEN:
        return None
    return 1.0 if _ASKS_FOR_TOKEN_RE.search(rest) is not None else 0.0


def _match_quoted(text: str) -> RuleMatch | None:
    m = _DOUBLE_QUOTED_RE.search(text) or _SINGLE_QUOTED_RE.search(text)
    strength = None if m is None else _token_strength(text, m.start(), m.end())
    if m is None or strength is None:
        return None
    return RuleMatch(m.group("lit"), literal=True, strength=strength)


def _find_error_code(text: str) -> re.Match[str] | None:
    for m in _ERROR_CODE_RE.finditer(text):
        code = m.group(0)
        if code in ERRNO_NAMES or code.startswith(("ERR_", "EAI_")):
            return m
    return None


def _match_error_code(text: str) -> RuleMatch | None:
    m = _find_error_code(text)
    if m is None:
        return None
    # `ENOENT: no such file or directory` leads with its code; inside a sentence a code is a detail.
    strength = 1.0 if m.start() == 0 else _token_strength(text, m.start(), m.end())
    return None if strength is None else RuleMatch(m.group(0), strength=strength)


def _match_error_name(text: str) -> RuleMatch | None:
    # The last one: a pasted traceback ends with the exception that was finally raised.
    found = list(_ERROR_NAME_RE.finditer(text))
    if not found:
        return None
    start = found[-1].start()
    while start > 0 and (text[start - 1] == "." or text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1  # its qualifier is part of it: `java.lang.NullPointerException`
    strength = _token_strength(text, start, found[-1].end())
    return None if strength is None else RuleMatch(found[-1].group(0), strength=strength)


def _match_error_word(text: str) -> RuleMatch | None:
    m = _ERROR_WORD_RE.search(text)
    strength = None if m is None else _token_strength(text, m.start(), m.end())
    if m is None or strength is None:
        return None
    rest = text[: m.start()] + " " + text[m.end() :]
    target = _first_code_word(rest) or _content_words(rest) or m.group(0).rstrip(":").lower()
    return RuleMatch(target, strength=strength)


def _match_change_description(text: str) -> RuleMatch | None:
    """A sentence that describes a change or a behaviour (`Fix TypeError for asdict(...)`, `Remove res.jsonp(status,
    obj) signature`, `Support allow_origin_regex in CORSMiddleware`): it opens with a word of DESCRIPTION_OPENERS
    (learned from commit subjects and docstrings, see benchmarks/learn_phrasings.py), has MIN_DESCRIPTION_WORDS words
    or more, and reads as prose once quoted strings and inline code are set aside (half its words plain words)."""
    if "\n" in text:
        return None
    words = text.split()
    if len(words) < MIN_DESCRIPTION_WORDS or words[0].strip(_OPENER_EDGE_CHARS).lower() not in DESCRIPTION_OPENERS:
        return None
    if _ASKS_FOR_TOKEN_RE.search(text) and (_find_error_code(text) or _ERROR_NAME_RE.search(text)):
        return None  # `connect fails with EADDRINUSE`: a question about an error, not a change
    tokens = _INLINE_CODE_RE.sub(" ", _QUOTED_ANY_RE.sub(" ", text)).split()
    plain = sum(1 for token in tokens if _PLAIN_WORD_RE.fullmatch(token))
    if plain < 2 or plain < PROSE_SHARE * len(tokens):
        return None
    return RuleMatch(_loose_target(text, text))


def _match_identifier(text: str) -> RuleMatch | None:
    """A query that is mostly one identifier. Confidence grows in four 0.05 steps from 0.60 (strength = points / 4):
    +2 points when the identifier is the whole query, +1 when one other content word accompanies it; +1 when it has at
    least two sub-words (`parseConfig`, `parse_config`), +1 more when it has three or more sub-words, is qualified
    (`os.path`), or is written as a call (`parse()`)."""
    if _UNDERSTAND_RE.search(text):
        return None  # a question about the identifier, not a lookup
    symbol: str | None = None
    called = False
    others = 0
    for raw in text.split():
        word = raw.strip(_WORD_EDGE_CHARS)
        lowered = word.lower()
        if symbol is None and is_code_shaped(word):
            symbol, called = word, raw.rstrip("?.!,;:`'\"").endswith("()")
            continue
        if symbol is not None and word != symbol and is_code_shaped(word):
            return None  # two identifiers ("Populate SCRIPT_NAME in WSGIMiddleware"): a sentence about code
        if word and lowered not in STOPWORDS:
            others += 1
            if others > MAX_WORDS_BESIDE_IDENTIFIER:
                return None
    if symbol is None:
        return None
    points = 2 if others == 0 else 1 if others == 1 else 0
    parts = len(split_identifier(symbol))
    if parts >= 2:
        points += 1
    if parts >= 3 or "." in symbol or "::" in symbol or called:
        points += 1
    return RuleMatch(symbol, strength=min(points, 4) / 4)


def _match_understand(text: str) -> RuleMatch | None:
    return RuleMatch(_loose_target(text, text)) if _UNDERSTAND_RE.search(text) else None


def _match_anything(text: str) -> RuleMatch:
    return RuleMatch(_loose_target(text, text))


_match_definition_phrase = _phrase_matcher(_DEF_GATE, _DEF_PHRASE_RES, _DEF_SUFFIX_RE, None)
_match_references_phrase = _phrase_matcher(_REF_GATE, _REF_PHRASE_RES, _REF_SUFFIX_RE, _REF_KEYWORD_RE)
_match_impact_phrase = _phrase_matcher(_IMPACT_GATE, _IMPACT_PHRASE_RES, _IMPACT_SUFFIX_RE, _IMPACT_KEYWORD_RE)

_FIND_DEF, _FIND_REFS, _IMPACT = Intent.FIND_DEFINITION, Intent.FIND_REFERENCES, Intent.IMPACT_ANALYSIS
_EXACT, _UNDERSTAND, _SIMILAR = Intent.EXACT_MATCH, Intent.UNDERSTAND_CODE, Intent.FIND_SIMILAR

# SPEC §3, in order; first match wins. Pasted code is tested where its punctuation would otherwise be misread: several
# lines before anything (a snippet may start with `def`), one line after the phrase rules (`who calls parse()`).
# A pasted stack trace (several lines too, but an error to look up) is an exact-match error token, tested next.
RULES: tuple[Rule, ...] = (
    Rule("pasted_error", _EXACT, 0.80, 0.90, _match_pasted_error),
    Rule("pasted_code_lines", _SIMILAR, 0.90, 0.90, _match_pasted_lines),
    Rule("stack_trace", _EXACT, 0.90, 0.90, _match_stack_trace),
    Rule("definition_keyword", _FIND_DEF, 0.95, 0.95, _match_definition_keyword),
    Rule("change_description", _UNDERSTAND, 0.75, 0.75, _match_change_description),
    Rule("definition_phrase", _FIND_DEF, 0.90, 0.90, _match_definition_phrase),
    Rule("references_phrase", _FIND_REFS, 0.90, 0.90, _match_references_phrase),
    Rule("impact_phrase", _IMPACT, 0.90, 0.90, _match_impact_phrase),
    Rule("pasted_code_line", _SIMILAR, 0.80, 0.80, _match_one_code_line),
    Rule("literal_phrase", _EXACT, 0.90, 0.90, _match_literal_phrase),
    Rule("quoted_literal", _EXACT, 0.80, 0.90, _match_quoted),
    Rule("error_code", _EXACT, 0.80, 0.90, _match_error_code),
    Rule("error_name", _EXACT, 0.80, 0.85, _match_error_name),
    Rule("error_word", _EXACT, 0.80, 0.85, _match_error_word),
    Rule("identifier", _FIND_DEF, 0.60, 0.80, _match_identifier),
    Rule("understand_keyword", _UNDERSTAND, 0.75, 0.75, _match_understand),
)
FALLBACK_RULE = Rule("fallback", _UNDERSTAND, 0.40, 0.40, _match_anything)
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in (*RULES, FALLBACK_RULE)}


def normalize_query(query: str) -> str:
    """The query as classified and retrieved: stripped, and cut to MAX_QUERY_CHARS."""
    text = query.strip()
    return text[:MAX_QUERY_CHARS].rstrip() if len(text) > MAX_QUERY_CHARS else text


def classify(query: str) -> Classification:
    """Sort a query into an intent with a confidence and a target: the first rule of RULES that matches wins."""
    text = normalize_query(query)
    for rule in RULES:
        found = rule.match(text)
        if found is not None:
            return Classification(
                text, rule.intent, rule.confidence(found.strength), rule.name, found.target, found.literal, found.pasted
            )
    fallback = _match_anything(text)
    return Classification(text, FALLBACK_RULE.intent, FALLBACK_RULE.confidence_low, FALLBACK_RULE.name, fallback.target)


# A pattern the user explicitly asked to treat as a regular expression (`--regex`, `"regex": true`) is not a guess.
EXPLICIT_PATTERN_CONFIDENCE = 1.0
EXPLICIT_PATTERN_RULE = "explicit_regex"


def classify_pattern(query: str) -> Classification:
    """The classification of a query the user marked as a regular expression: an exact match of the whole pattern."""
    text = query.strip()[:MAX_QUERY_CHARS]
    return Classification(text, Intent.EXACT_MATCH, EXPLICIT_PATTERN_CONFIDENCE, EXPLICIT_PATTERN_RULE, text, True)


def has_specific_target(classification: Classification) -> bool:
    """True when the target is something a single retriever can look up: a literal, or one symbol."""
    target = classification.target
    return bool(target) and (classification.literal or SYMBOL_RE.fullmatch(target) is not None)

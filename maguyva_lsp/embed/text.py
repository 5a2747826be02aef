"""What text of a chunk (or a query) is embedded: the code-aware input of the semantic retriever.

Two styles. `words` suits a static model (a mean of token vectors, where every token dilutes the others): the path,
parent and symbol split into words, the prose of docstrings, comments and strings, and the distinct identifiers of
the code split into words, without keywords or punctuation. `code` suits a contextual model (Voyage): the raw chunk
under a one-line header naming its path and symbol. Measured choices are in benchmarks/bench_semantic.py's report.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain

from maguyva_lsp.embed.base import TextStyle
from maguyva_lsp.model import Chunk
from maguyva_lsp.tokens import IDENTIFIER_RE, STOPWORDS, subword_tokens, subwords

# The version of what document_text() returns: bump it with every change to it. Stored vectors record it, and a
# chain of another version is re-planned file by file (only texts that really changed are embedded again).
EMBED_TEXT_VERSION = 1
# The header words (path, parent, symbol) are written this many times: in a mean of token vectors, repetition is
# weight. On the stdlib question set (bench_semantic.py, 66k chunks), MRR@10 was 0.80 / 0.86 / 0.87 for 1 / 2 / 3;
# we stop at 2 because most of those questions name their module, which flatters path words more than real
# workspaces would. Raw chunk text instead of these words: MRR@10 0.45.
HEADER_REPEAT = 2
# The raw-code style is cut here: about 4,000 tokens, far below Voyage's 32K context, and chunks are capped at a few
# dozen lines anyway; the cut bounds what one minified line can cost.
MAX_CODE_STYLE_CHARS = 16_000
# Path segments that say nothing about the content.
PATH_NOISE: frozenset[str] = frozenset({"init", "index", "mod", "main", "src", "lib"})
# Keywords and ubiquitous names of common languages: frequent in every chunk, so they only blur a mean vector.
CODE_NOISE: frozenset[str] = frozenset(
    "def return if else elif for while in not and or is none null nil true false self cls this import from class "
    "pass break continue lambda yield async await try except finally raise throw throws catch with as del global "
    "nonlocal assert func fn function let var const new public private protected static void final package use "
    "mod pub impl extends implements super defer select case switch default match typeof instanceof delete do end "
    "then begin local fi esac args kwargs".split()
)

# Identifiers recur across a codebase: their split into sub-words is cached (the split dominates the cost otherwise).
# The standard library holds ~160k distinct identifiers in its code and ~60k in its prose: a cache emptied at a
# smaller size starts over before the identifiers come back (an LRU of 64k missed as often as none); each entry is
# ~200 bytes.
SPLIT_CACHE_SIZE = 1 << 18

_HASH_COMMENT_LANGUAGES = frozenset({"python", "ruby", "bash", "perl", "r", "yaml", "toml", "elixir", "julia", "make"})
_DASH_COMMENT_LANGUAGES = frozenset({"lua", "sql", "haskell", "elm", "ada"})
# One-line string literals (escapes allowed); block and triple-quoted forms are per language below.
_STRINGS = r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\''
_PROSE_PATTERNS: dict[str, re.Pattern[str]] = {
    "hash": re.compile(r'"""(.*?)"""|\'\'\'(.*?)\'\'\'|#([^\n]*)|' + _STRINGS, re.S),
    "dash": re.compile(r"--\[\[(.*?)\]\]|--([^\n]*)|" + _STRINGS, re.S),
    "slash": re.compile(r"/\*(.*?)\*/|//([^\n]*)|" + _STRINGS, re.S),
}


def prose_and_code(text: str, language: str | None) -> tuple[str, str]:
    """Split a source text into its prose (docstrings, comments, string literals) and the code around them."""
    if language in _HASH_COMMENT_LANGUAGES:
        pattern = _PROSE_PATTERNS["hash"]
    elif language in _DASH_COMMENT_LANGUAGES:
        pattern = _PROSE_PATTERNS["dash"]
    else:
        pattern = _PROSE_PATTERNS["slash"]
    # One scan in C: `split` gives the code between the matches, each followed by the match's groups (one takes
    # part, the others are None or ""). The code is those pieces joined by spaces (as if each match became a space),
    # the prose the groups' texts joined by spaces. Half the cost of a findall and a sub over the same text.
    pieces = pattern.split(text)
    step = pattern.groups + 1
    code = " ".join(pieces[::step])
    del pieces[::step]
    return " ".join(filter(None, pieces)), code


def path_words(path: str) -> list[str]:
    """`asyncio/base_events.py` → asyncio, base, events."""
    return list(_path_words(path))


@lru_cache(maxsize=SPLIT_CACHE_SIZE)
def _path_words(path: str) -> tuple[str, ...]:
    """path_words, once per path (every chunk of a file asks again)."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return tuple(w for w in subword_tokens(stem.replace("/", " ")) if w not in PATH_NOISE)


@lru_cache(maxsize=SPLIT_CACHE_SIZE)
def _name_words(name: str) -> tuple[str, ...]:
    """A parent's or a symbol's words (a dot separates them like any non-identifier character), once per name:
    names recur (the methods of one class, `__init__`)."""
    return tuple(subword_tokens(name))


def header_words(chunk: Chunk) -> list[str]:
    """The words that say where a chunk is and what it is called: path, parent, symbol."""
    words = list(_path_words(chunk.path))
    if chunk.parent:
        words += _name_words(chunk.parent)
    if chunk.symbol:
        words += _name_words(chunk.symbol)
    return words


class _Parts(dict[str, tuple[str, ...]]):
    """An identifier's sub-words (single letters dropped) without the words of `drop`, made at the first ask: a
    plain dict, so that a hit is one lookup in C (`map(parts.__getitem__, ...)`; an LRU's bookkeeping made a hit
    cost twice as much). Emptied when it passes SPLIT_CACHE_SIZE (`bounded`): a server meeting many workspaces."""

    def __init__(self, drop: frozenset[str]) -> None:
        super().__init__()
        self._drop = drop

    def __missing__(self, identifier: str) -> tuple[str, ...]:
        parts = self[identifier] = tuple(p for p in subwords(identifier) if len(p) > 1 and p not in self._drop)
        return parts

    def bounded(self) -> _Parts:
        if len(self) > SPLIT_CACHE_SIZE:
            self.clear()
        return self


_PROSE_PARTS = _Parts(STOPWORDS)  # a prose identifier's words, without stopwords
_CODE_PARTS = _Parts(CODE_NOISE)  # a code identifier's words, without keywords


def body_words(text: str, language: str | None) -> list[str]:
    """Prose words without stopwords, then each distinct code identifier split into words, keywords dropped."""
    prose, code = prose_and_code(text, language)
    # map/chain over cached splits: the per-word work stays in C (this runs for every chunk of a cold build).
    prose_parts, code_parts = _PROSE_PARTS.bounded().__getitem__, _CODE_PARTS.bounded().__getitem__
    words = list(chain.from_iterable(map(prose_parts, IDENTIFIER_RE.findall(prose))))
    words += dict.fromkeys(chain.from_iterable(map(code_parts, dict.fromkeys(IDENTIFIER_RE.findall(code)))))
    return words


def document_text(chunk: Chunk, style: TextStyle) -> str:
    """The text embedded for a chunk."""
    if style == "code":
        name = f"{chunk.parent}.{chunk.symbol}" if chunk.parent and chunk.symbol else chunk.symbol
        header = f"{chunk.path}: {name}" if name else chunk.path
        return f"{header}\n{chunk.text}"[:MAX_CODE_STYLE_CHARS]
    return " ".join(header_words(chunk) * HEADER_REPEAT + body_words(chunk.text, chunk.language))


def query_text(query: str, style: TextStyle) -> str:
    """The text embedded for a natural-language query: identifiers split, stopwords dropped (for static models)."""
    query = query[:MAX_CODE_STYLE_CHARS]  # a pasted file is not a query: its head says enough
    if style == "code":
        return query
    words = subword_tokens(query, drop_stopwords=True) or subword_tokens(query)
    return " ".join(words) if words else query.strip().lower()


def snippet_text(snippet: str, style: TextStyle, language: str | None = None) -> str:
    """The text embedded for a code snippet (find_similar): like a chunk's body, without a header."""
    snippet = snippet[:MAX_CODE_STYLE_CHARS]
    if style == "code":
        return snippet
    words = body_words(snippet, language)
    return " ".join(words) if words else query_text(snippet, style)

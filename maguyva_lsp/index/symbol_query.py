"""Parse what a user types for a symbol (`parse`, `Config.parse`, `Foo::bar`, `pkg/mod.py:func`) and decide
whether a definition fits its qualifier; plus the Unicode-aware sub-word splitting the symbol table indexes."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from maguyva_lsp.model import Definition
from maguyva_lsp.tokens import subwords

# Scope separators of other languages, read as a dot: Rust/C++ `a::b`, PHP/C `a->b`, Ruby/Javadoc `A#b`.
_SCOPE_SEPARATORS: tuple[str, ...] = ("::", "->", "#")
_CALL_SUFFIX_RE = re.compile(r"\s*\([^()]*\)\s*$")  # `parse()` or `parse(text)` typed after a name
_DOTTED_RE = re.compile(r"[^\W\d][\w$]*(?:\.[^\W\d][\w$]*)*|\$[\w$]*(?:\.[^\W\d][\w$]*)*")
_WORD_RE = re.compile(r"[\w$]+")
# File stems that stand for their folder as a module: Python packages, JS/TS folders, Rust modules.
PACKAGE_FILE_STEMS: frozenset[str] = frozenset({"__init__", "index", "mod"})
WORD_CACHE_SIZE = 8192  # words recur across signatures (`self`, `name`, `value`): split the frequent ones once
PATH_CACHE_SIZE = 8192  # module names of recently seen paths: qualified queries test many candidates per path


def word_parts(word: str) -> tuple[str, ...]:
    """The lower-case sub-words of one word (`parseConfig` → parse, config); a non-ASCII word stays whole."""
    return tuple(subwords(word)) if word.isascii() else (word.lower(),)


@lru_cache(maxsize=WORD_CACHE_SIZE)
def _word_parts(word: str) -> tuple[str, ...]:
    return tuple(sys.intern(p) for p in word_parts(word))


def words_of(text: str) -> list[str]:
    """The words of a text that `subwords_of` splits."""
    return _WORD_RE.findall(text)


def subwords_of(text: str, *, min_length: int = 1) -> list[str]:
    """Lower-case sub-words of every word of a text (`parseConfig` → parse, config); a non-ASCII word stays whole.
    Interned: an index holds each distinct sub-word once, however many definitions share it."""
    out: list[str] = []
    for word in _WORD_RE.findall(text):
        out.extend(p for p in _word_parts(word) if len(p) >= min_length)
    return out


@lru_cache(maxsize=PATH_CACHE_SIZE)
def module_of(path: str) -> str:
    """The dotted module a file stands for: `pkg/mod.py` → `pkg.mod`, `pkg/__init__.py` → `pkg`."""
    pure = PurePosixPath(path)
    parts = [*pure.parent.parts, pure.stem] if pure.stem not in PACKAGE_FILE_STEMS else list(pure.parent.parts)
    return ".".join(p for p in parts if p not in ("", "."))


@lru_cache(maxsize=PATH_CACHE_SIZE)
def package_of(path: str) -> str:
    """The dotted folder of a file (a Go package, a Java package's tail)."""
    return ".".join(p for p in PurePosixPath(path).parent.parts if p not in ("", "."))


@dataclass(frozen=True, slots=True)
class SymbolQuery:
    """A symbol query split into its last name, the dotted qualifier before it, and a path before a colon."""

    name: str
    qualifier: str = ""
    path: str = ""

    @property
    def qualified(self) -> bool:
        return bool(self.qualifier or self.path)

    @property
    def is_identifier(self) -> bool:
        """True when the name is one identifier (not words with spaces or punctuation)."""
        return _DOTTED_RE.fullmatch(self.name) is not None

    def qualifier_fits(self, d: Definition, *, case_sensitive: bool) -> bool:
        """True when the definition lies in the scope the query names (see `scope_fits`)."""
        return self.scope_fits(d.path, d.qualified_name, case_sensitive=case_sensitive)

    def scope_fits(self, path: str, qualified_name: str, *, case_sensitive: bool) -> bool:
        """True when a definition of this path and qualified name lies in the scope the query names: its qualified
        name ends with the query's dotted tail, or the tail ends with its qualified name and what is left ends its
        module or package."""
        fold = (lambda s: s) if case_sensitive else str.lower
        tail = fold(f"{self.qualifier}.{self.name}" if self.qualifier else self.name)
        if self.path and not _path_fits(fold(path), fold(self.path)):
            return False
        qualified = fold(qualified_name)
        if _ends_dotted(qualified, tail):
            return True
        if self.path or not tail.endswith("." + qualified):
            return False  # a path pins the file: the rest must end the qualified name itself
        rest = tail[: -len(qualified) - 1]
        return any(_ends_dotted(fold(scope), rest) for scope in (module_of(path), package_of(path)))


def _ends_dotted(scope: str, tail: str) -> bool:
    return scope == tail or scope.endswith("." + tail)


def _path_fits(path: str, wanted: str) -> bool:
    """The file path equals or ends with the wanted path, with or without its suffix."""
    wanted = wanted.strip("/")
    stem_path = str(PurePosixPath(path).with_suffix(""))
    return any(p == wanted or p.endswith("/" + wanted) for p in (path, stem_path))


def parse_symbol_query(text: str) -> SymbolQuery | None:
    """Split a typed symbol into name, qualifier and path; None for a blank query. Text that is not a (dotted)
    identifier is kept whole as the name, so that sub-word and fuzzy matching can still use it."""
    t = _CALL_SUFFIX_RE.sub("", text.strip())
    if not t:
        return None
    for separator in _SCOPE_SEPARATORS:
        t = t.replace(separator, ".")
    path = ""
    if ":" in t:
        path, _, rest = t.rpartition(":")
        if rest and _DOTTED_RE.fullmatch(rest) and path.strip():
            t = rest
        else:
            path, t = "", text.strip()
    if not _DOTTED_RE.fullmatch(t):
        return SymbolQuery(name=t)
    qualifier, _, name = t.rpartition(".")
    return SymbolQuery(name=name, qualifier=qualifier, path=path.strip())

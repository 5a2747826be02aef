"""The code-aware input of the embedder: which words of a chunk and of a query are embedded."""

from __future__ import annotations

from maguyva_lsp.embed.text import (
    HEADER_REPEAT,
    MAX_CODE_STYLE_CHARS,
    body_words,
    document_text,
    path_words,
    prose_and_code,
    query_text,
    snippet_text,
)
from maguyva_lsp.model import Chunk

PY_CHUNK = Chunk(
    path="app/auth/tokenStore.py",
    language="python",
    start_line=10,
    end_line=16,
    text=(
        "def parseConfig(self, raw_path):\n"
        '    """Read the settings file and validate the token lifetime."""\n'
        "    # fall back to defaults when the file is missing\n"
        "    data = loadYaml(raw_path)\n"
        "    if data is None:\n"
        "        return DEFAULT_CONFIG\n"
        "    return data\n"
    ),
    symbol="parseConfig",
    kind="method",
    parent="TokenStore",
    signature="def parseConfig(self, raw_path):",
)


def test_words_style_splits_identifiers_and_keeps_path_parent_symbol_prose() -> None:
    words = document_text(PY_CHUNK, "words").split()
    assert words.count("parse") >= HEADER_REPEAT and words.count("config") >= HEADER_REPEAT
    for expected in ("app", "auth", "token", "store", "settings", "lifetime", "defaults", "load", "yaml", "raw"):
        assert expected in words, expected
    # Keywords, `self` and punctuation are gone; stopwords of the prose too.
    for absent in ("def", "self", "return", "if", "none", "the", "(", '"""'):
        assert absent not in words, absent


def test_code_identifiers_count_once_prose_keeps_its_words() -> None:
    words = body_words("x = fooBar(fooBar)  # retry retry\nfooBar()", "python")
    assert words.count("foo") == 1
    assert words.count("retry") == 2


def test_prose_extraction_follows_the_language_comment_syntax() -> None:
    prose, code = prose_and_code('int f() { /* block note */ return g("message text"); } // tail', "c")
    assert "block note" in prose and "message text" in prose and "tail" in prose
    assert "return g" in code
    prose, code = prose_and_code("local x = 1 -- lua comment", "lua")
    assert "lua comment" in prose and "local x" in code
    prose, _ = prose_and_code("x = 1  # hash comment\n'''doc'''", "python")
    assert "hash comment" in prose and "doc" in prose


def test_path_words_drop_extension_and_noise() -> None:
    assert path_words("src/asyncio/base_events.py") == ["asyncio", "base", "events"]
    assert path_words("pkg/__init__.py") == ["pkg"]
    assert path_words("Makefile") == ["makefile"]


def test_query_text_splits_identifiers_and_drops_stopwords() -> None:
    assert query_text("how does parseConfig work", "words") == "parse config"
    assert query_text("what is the HTTPServer timeout", "words") == "http server timeout"
    # A query made only of stopwords still embeds something.
    assert query_text("how does it work", "words") == "how does it work"
    assert query_text("???", "words") == "???"


def test_code_style_keeps_raw_text_under_a_header_and_caps_it() -> None:
    text = document_text(PY_CHUNK, "code")
    assert text.startswith("app/auth/tokenStore.py: TokenStore.parseConfig\ndef parseConfig(self, raw_path):")
    huge = Chunk("a.js", "javascript", 0, 0, "x" * (MAX_CODE_STYLE_CHARS * 2))
    assert len(document_text(huge, "code")) == MAX_CODE_STYLE_CHARS
    assert query_text("how does auth work", "code") == "how does auth work"


def test_snippet_text_is_the_body_without_a_header() -> None:
    assert snippet_text("for item in items:\n    total += item.priceCents", "words") == "item items total price cents"
    assert snippet_text("if x:", "words") == "if"  # keywords only: falls back to the query words
    assert snippet_text("a = b", "code") == "a = b"

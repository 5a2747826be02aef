"""Definitions read at the roots the references' one pass captured for the tag patterns (`tags.tag_roots`) equal
those of the tag query's own walk of the tree, on every grammar with a tag query; the file's analysis (definitions
and references) is the one the two walks gave."""

from __future__ import annotations

import pytest
from tree_sitter import Query, QueryCursor, Tree

from maguyva_lsp.parse import analyze, ref_single, tags
from maguyva_lsp.parse.analyze import parse_source
from maguyva_lsp.parse.languages import grammar, language_for_path
from maguyva_lsp.parse.positions import LineIndex
from maguyva_lsp.parse.references import extract_references, reference_languages
from tests.unit.parse.test_ref_single import _sources

SOURCES = [(path, data) for path, data in _sources() if language_for_path(path) in tags.SUPPORTED_TAG_LANGUAGES]


def test_every_grammar_with_a_tag_query_has_roots_and_shares_the_references_pass() -> None:
    """Each tag pattern of every grammar is one node: none falls back to walking the tree for its tags; and every
    grammar with a references query too reads both in one captures pass."""
    assert {lang for lang in tags.SUPPORTED_TAG_LANGUAGES if tags.tag_roots(lang) is None} == set()
    assert len({language_for_path(path) for path, _ in SOURCES}) >= 15
    assert sum(len(tags.extract_definitions(*_parsed(p, d), p)) for p, d in SOURCES) > 100
    both = sorted(tags.SUPPORTED_TAG_LANGUAGES & set(reference_languages()))
    assert len(both) >= 10
    for language in both:
        plan = tags.tag_roots(language)
        assert plan is not None
        tree, _, _ = _parsed("x", b"", language)
        shared = ref_single.shared_captures(language, tree.root_node, plan.patterns)
        assert shared is not None, language


def _parsed(path: str, data: bytes, language: str | None = None) -> tuple[Tree, bytes, str]:
    parsed = parse_source(language or language_for_path(path) or "", data)
    assert parsed.tree is not None
    return parsed.tree, data, parsed.language


@pytest.mark.parametrize(("path", "data"), SOURCES, ids=[p.rsplit("/", 1)[-1] for p, _ in SOURCES])
def test_definitions_at_the_roots_equal_the_walks(path: str, data: bytes) -> None:
    language = language_for_path(path)
    assert language is not None
    parsed = parse_source(language, data)
    assert parsed.tree is not None
    plan = tags.tag_roots(parsed.language)
    assert plan is not None
    lang = grammar(parsed.language)
    assert lang is not None
    roots = QueryCursor(Query(lang, plan.patterns)).captures(parsed.tree.root_node)
    walked = tags.extract_definitions(parsed.tree, data, parsed.language, path)
    assert tags.extract_definitions(parsed.tree, data, parsed.language, path, roots=roots) == walked
    assert tags.extract_definitions(parsed.tree, data, parsed.language, path, roots={}) == []  # nothing captured


@pytest.mark.parametrize(("path", "data"), SOURCES, ids=[p.rsplit("/", 1)[-1] for p, _ in SOURCES])
def test_one_walk_reads_what_the_two_walks_read(path: str, data: bytes) -> None:
    """`_read_tree` (one captures pass for the tags' roots and the references) against the tags' own walk followed by
    the references' own pass."""
    language = language_for_path(path)
    assert language is not None
    parsed = parse_source(language, data)
    assert parsed.tree is not None
    one_definitions, one_references = analyze._read_tree(parsed.tree, data, parsed.language, path)
    lines = LineIndex(data)
    definitions = tags.extract_definitions(parsed.tree, data, parsed.language, path, lines=lines)
    references = extract_references(parsed.tree, data, parsed.language, path, definitions, lines=lines)
    assert one_definitions == definitions
    assert list(one_references) == list(references)

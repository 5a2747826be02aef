"""The text the CLI and the MCP tools print for an exact search's counts."""

from __future__ import annotations

from maguyva_lsp.api.render import render_text_matches


def test_counts_cut_short_say_so_and_name_the_files_not_shown() -> None:
    counts = {"matches": 3218, "files": 1311, "truncated": True, "files_not_shown": 1291, "files_unread": 0}
    assert render_text_matches(counts) == (
        "text: 3,218+ matches in 1,311 files (counting stopped early); 1,291 files hold matches not shown"
    )


def test_complete_counts_are_plain() -> None:
    counts = {"matches": 6, "files": 2, "truncated": False, "files_not_shown": 0, "files_unread": 0}
    assert render_text_matches(counts) == "text: 6 matches in 2 files"


def test_files_never_read_make_the_file_count_a_lower_bound() -> None:
    counts = {"matches": 40, "files": 12, "truncated": True, "files_unread": 300, "files_not_shown": 2}
    assert render_text_matches(counts) == (
        "text: 40+ matches in 12+ files (counting stopped early); 2 files hold matches not shown; 300 files not read"
    )

"""How a cold index cuts its files into segment jobs: growing from FIRST_SEGMENT_FILES to MAX_SEGMENT_FILES, then
shrinking towards the end so that the workers finish within a small job of each other."""

from __future__ import annotations

from maguyva_lsp.indexing import FIRST_SEGMENT_FILES, MAX_SEGMENT_FILES, TAIL_SEGMENT_FILES, segment_groups


def test_groups_grow_then_shrink_and_keep_every_file_in_order() -> None:
    files = list(range(2324))  # the stdlib's file count
    groups = segment_groups(files, workers=2)
    sizes = [len(g) for g in groups]
    assert [f for g in groups for f in g] == files
    assert sizes[:3] == [FIRST_SEGMENT_FILES, 2 * FIRST_SEGMENT_FILES, 4 * FIRST_SEGMENT_FILES]
    assert max(sizes) <= MAX_SEGMENT_FILES
    peak = sizes.index(max(sizes))
    assert sizes[peak:] == sorted(sizes[peak:], reverse=True), "the tail shrinks"
    assert all(s <= TAIL_SEGMENT_FILES for s in sizes[-3:]), "the last jobs are small"


def test_small_folders_and_one_worker_keep_the_doubling() -> None:
    assert [len(g) for g in segment_groups(list(range(230)), workers=2)] == [64, 128, 38]
    sizes = [len(g) for g in segment_groups(list(range(2000)), workers=1)]
    assert sizes[:4] == [64, 128, 256, 512] and sum(sizes) == 2000

"""The cyclic garbage collector around large index builds.

An index holds millions of small long-lived objects (analyses, postings, graph dicts). Each full collection rescans
them all — over a second on the standard library — and while indexing allocates them, collections keep triggering;
the build itself makes no reference cycles worth collecting. So a large build runs with the collector paused, and
what it leaves alive is then frozen (`gc.freeze`: moved to a generation no collection scans), which also spares the
first requests after an index the three collections that would otherwise promote the new objects one generation at
a time. Objects frozen are still freed by reference counting when dropped; only cycles among them would wait, and
the index makes none worth the scans.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """Run the block with the cyclic collector off (restored after); `freeze` then moves every live object to the
    permanent generation. Nested pauses keep it off until the outermost one ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()

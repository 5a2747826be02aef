"""The MCP door's session (`mcp_server.McpSession`) on a real folder, real index and real watcher: a change the
watcher has received is in the very next answer, whether it is still pending in the watcher, being handed over by the
watcher's flusher (taken, not yet queued on the writer) or already queued."""

from __future__ import annotations

import time
from pathlib import Path

from watchdog.events import FileModifiedEvent

from maguyva_lsp.api import DefinitionRequest
from maguyva_lsp.config import Settings
from maguyva_lsp.mcp_server import McpSession
from maguyva_lsp.watch import watcher as watcher_module


def test_a_change_the_watcher_received_is_in_the_next_answer(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("def first():\n    pass\n")
    session = McpSession(root, Settings(index_dir=str(tmp_path / "idx")))
    try:
        session.open([root.resolve()])
        assert session.indexed.wait(120)
        (watcher,) = session.watchers
        # The event as the OS's notification becomes on the watcher's thread (which also gets the real one: the
        # same path twice is one change). Each round asks at another point of the flusher's debounce (0-55 ms after
        # the event), so some ask while the flusher hands its batch over: the answer is right at every point.
        collector = watcher_module._Collector(watcher)
        for i in range(12):
            path = root.resolve() / f"made{i}.py"
            path.write_text(f"def made_{i}():\n    pass\n")
            collector.on_any_event(FileModifiedEvent(str(path)))
            time.sleep(i * 0.005)
            found = session.answer(DefinitionRequest.parse({"symbol": f"made_{i}"}))
            assert [loc.path for loc in found.locations] == [f"made{i}.py"], i
    finally:
        session.close()

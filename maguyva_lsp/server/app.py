"""The pygls language server: owns the workspace engines, the worker threads and the watchers; handlers live apart.

Threading: one thread reads stdin (server/stdio.py); the event loop parses messages, dispatches them and sends
notifications. The contract's requests run on a small thread pool (pygls' `@server.thread()` handlers), which also
sends their replies (one message at a time on stdout); every change to an index (initial index, file events, open
buffers, re-index) runs on one dedicated writer thread, so changes are applied in order while queries keep reading
the retrievers' current state.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from maguyva_lsp import __version__, worker_pool
from maguyva_lsp.api import ColumnCodec, InvalidRequestError, ReindexAnswer, Request, UnavailableError
from maguyva_lsp.api.requests import path_of_uri
from maguyva_lsp.config import Settings, client_settings
from maguyva_lsp.engine import Engine, IndexProgress
from maguyva_lsp.failures import BACKGROUND, Failure, failure_log
from maguyva_lsp.server.convert import plain
from maguyva_lsp.server.early_open import EarlyOpen, EarlyRun
from maguyva_lsp.server.logs import install_client_logging
from maguyva_lsp.server.protocol import REQUEST_FAILED, MaguyvaProtocol
from maguyva_lsp.server.stdio import MessageWriter, StdinMessages, serve_messages
from maguyva_lsp.watch.watcher import FolderWatcher
from maguyva_lsp.workspace import WorkspaceSet

log = logging.getLogger(__name__)

T = TypeVar("T")

QUERY_THREADS = 2
# The same background failure is shown again only after this long (a failing store would fail every file save).
FAILURE_REPEAT_SECONDS = 60.0
PROGRESS_INTERVAL_SECONDS = 0.25
# Settings that change what is indexed or how: a change rebuilds the engines (warm from the store when it can).
REBUILD_SETTINGS: tuple[str, ...] = (
    "embedder", "voyage_model", "voyage_dimension", "voyage_api_key", "exclude", "max_file_size", "index_dir",
    "chunk_lines", "workers",
)  # fmt: skip


class MaguyvaServer(LanguageServer):
    """Maguyva's language server state: settings, engines per workspace folder, workers and watchers."""

    def __init__(self, early: EarlyOpen | None = None) -> None:
        super().__init__("maguyva-lsp", __version__, protocol_cls=MaguyvaProtocol)
        self.early = early  # the first folder, opened while pygls imported (server/early_open.py)
        self.settings = Settings()
        self.workspaces = WorkspaceSet(self.settings)
        self.queries = ThreadPoolExecutor(max_workers=QUERY_THREADS, thread_name_prefix="maguyva-query")
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="maguyva-writer")
        self.watchers: dict[Path, FolderWatcher] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.codec = ColumnCodec("utf-16")
        self.folders_pending = 0  # folders scheduled for opening whose first index has not finished
        self.supports_progress = False
        self._log_handler = install_client_logging(self)
        self._last_shown_failure: tuple[str, float] | None = None
        failure_log().listen(self._tell_failure)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio until the client says exit or closes the stream: pygls' own loop, with messages read whole
        by one thread (server/stdio.py: a request then starts after two thread wake-ups instead of six)."""
        self._stop_event = stop = threading.Event()
        self.protocol.set_writer(MessageWriter(stdout or sys.stdout.buffer))

        async def serve() -> None:
            read = self.early.read if self.early is not None else (None, True)
            messages = StdinMessages(stdin or sys.stdin.buffer, asyncio.get_running_loop(), read)
            await serve_messages(messages, self.protocol, stop, self.report_server_error)

        try:
            asyncio.run(serve())
        except BrokenPipeError:
            log.error("Connection to the client is lost! Shutting down the server.")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]  # pygls: stops its pool and server

    # -- threads

    def on_writer(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue a change to the indexes on the single writer thread."""
        return self.writer.submit(self._logged, fn, *args)

    @staticmethod
    def _logged(fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except Exception:  # recorded as last_error and told to the client (failures.py); the index keeps its state
            log.exception("background task %s failed", getattr(fn, "__name__", fn), extra=BACKGROUND)
            raise

    def _tell_failure(self, failure: Failure) -> None:
        """Show a background failure to the user: once per distinct message a minute, not once per batch."""
        now = time.monotonic()
        last = self._last_shown_failure
        if last is not None and last[0] == failure.message and now - last[1] < FAILURE_REPEAT_SECONDS:
            return
        self._last_shown_failure = (failure.message, now)
        self.show(
            f"{failure.message}. Searches answer from what was indexed before; see maguyva/status (last_error).",
            types.MessageType.Error,
        )

    def tell_earlier_failure(self) -> None:
        """Once the client can be told: a background failure from before (the folder's early index ran before this
        server existed, server/early_open.py) is shown as it would have been when it happened."""
        earlier = failure_log().last
        if earlier is not None:
            self._tell_failure(earlier)

    def from_thread(self, fn: Callable[..., Any], *args: Any) -> None:
        """Call fn on the event loop (the only thread that may write to the client)."""
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    # -- settings

    def apply_settings(self, raw: Any) -> list[str]:
        """Take new settings (nested under "maguyva" or flat); returns problems, rebuilds engines when needed."""
        new, problems = client_settings(raw, self.settings)
        old = self.settings
        self.settings = new
        self._log_handler.set_level(new.log_level)
        if any(getattr(old, name) != getattr(new, name) for name in REBUILD_SETTINGS) and len(self.workspaces):
            roots = [e.root for e in self.workspaces.engines()]
            log.info("settings that shape the index changed: re-opening %d workspace folder(s)", len(roots))
            self.on_writer(self._reopen, roots)
        else:
            self.workspaces.use_settings(new)
        return problems

    def _reopen(self, roots: list[Path]) -> None:
        self.stop_watchers()
        old = self.workspaces
        self.workspaces = WorkspaceSet(self.settings)
        old.close()
        for root in roots:
            self._open_pending(root)

    def show(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        self.from_thread(self.window_show_message, types.ShowMessageParams(type=kind, message=f"Maguyva: {message}"))

    # -- folders and indexing

    def schedule_open(self, root: Path) -> None:
        """Queue a folder for opening; until its first index ends, status says indexing."""
        self.folders_pending += 1
        self.on_writer(self._open_pending, root)

    def _open_pending(self, root: Path) -> None:
        try:
            self.open_folder(root)
        finally:
            self.folders_pending -= 1

    # -- the contract

    @property
    def thread_pool(self) -> ThreadPoolExecutor:
        """pygls runs the handlers marked `@server.thread()` (the contract's requests) here: the query threads."""
        return self.queries

    def answer(self, kind: type[Request], params: Any) -> dict[str, Any]:
        """On a query thread: parse params into the contract's request, answer it, return the answer's JSON (pygls
        sends the reply from this thread, so that the event loop is not woken once more before it leaves). A bad
        request is JSON-RPC -32602 naming the field; one that cannot be answered now, -32803."""
        try:
            request = kind.parse(plain(params))
            answer = self.workspaces.handle(request, self.codec, pending=bool(self.folders_pending))
        except InvalidRequestError as exc:
            raise JsonRpcInvalidParams(str(exc), data={"field": exc.field}) from None
        except UnavailableError as exc:
            raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None
        return answer.to_json()

    def open_folder(self, root: Path) -> None:
        """On the writer thread: open an engine for a folder, index it with progress, then watch it."""
        if not root.is_dir():
            self.show(f"workspace folder {root} does not exist; not indexed")
            return
        early = self.early.take(root, self.settings) if self.early is not None else None
        engine = self.workspaces.add(root, early.engine if early is not None else None)
        if engine is None:
            return
        for message in engine.messages:
            self.show(message, types.MessageType.Info)
        try:
            self._index(engine, f"Indexing {root.name}", early)
        finally:
            worker_pool.discard()  # the workers started ahead of need, if this index did not take them
        if engine.closed:  # the server shut down while it indexed
            return

        def on_batch(paths: list[str]) -> None:
            self.on_writer(self.update_files, engine, paths)

        watcher = FolderWatcher(engine.root, on_batch)
        if watcher.start():
            self.watchers[engine.root] = watcher

    @staticmethod
    def update_files(engine: Engine, paths: list[str]) -> None:
        """On the writer thread: re-index changed paths; embeddings follow on their own thread."""
        engine.update(paths, wait_for_embeddings=False)

    def close_folder(self, root: Path) -> None:
        watcher = self.watchers.pop(root.resolve(), None)
        if watcher is not None:
            watcher.stop()
        self.workspaces.remove(root)

    def reindex_all(self) -> ReindexAnswer:
        """Schedule a re-index of every folder on the writer thread (searches keep answering meanwhile)."""
        engines = self.workspaces.engines()

        def run() -> None:
            for engine in engines:
                self._index(engine, f"Re-indexing {engine.root.name}")

        self.on_writer(run)
        return ReindexAnswer(len(engines))

    def _index(self, engine: Engine, title: str, early: EarlyRun | None = None) -> None:
        """Index a folder with progress; `early`: its index already runs (server/early_open.py), and is followed."""
        token = str(uuid.uuid4())
        progress = _ProgressForwarder(self, token, title) if self.supports_progress else None
        try:
            if early is not None:
                early.follow(progress.report if progress else None)
                early.wait()
            else:
                engine.index(progress.report if progress else None, wait_for_embeddings=False)
        finally:
            if progress is not None:
                progress.end(f"{engine.file_count} files indexed")
        if engine.closed:  # stopped by a shutdown
            return
        log.info("indexed %s: %s", engine.root, engine.counters)
        warning = engine.skip_warning()  # one message per indexing run, never one per file
        if warning is not None:
            self.show(warning)

    def stop_watchers(self) -> None:
        for watcher in self.watchers.values():
            watcher.stop()
        self.watchers.clear()

    def locate(self, uri: str) -> tuple[Engine, str] | None:
        try:
            return self.workspaces.locate(path_of_uri(uri))
        except ValueError:
            return None

    def shutdown_all(self) -> None:
        if self.early is not None:
            self.early.close()
        worker_pool.discard()
        failure_log().forget(self._tell_failure)
        self.stop_watchers()
        self.writer.shutdown(wait=False, cancel_futures=True)
        self.queries.shutdown(wait=False, cancel_futures=True)
        self.workspaces.close()


class _ProgressForwarder:
    """LSP work-done progress for one index run, driven from the writer thread, sent from the event loop."""

    def __init__(self, server: MaguyvaServer, token: str, title: str) -> None:
        self._server = server
        self._token = token
        self._last = 0.0
        self._created: Future[Any] = Future()
        server.from_thread(self._create, title)

    def _create(self, title: str) -> None:
        def created(_result: Any) -> None:
            self._server.work_done_progress.begin(
                self._token, types.WorkDoneProgressBegin(title=title, cancellable=False, percentage=0)
            )
            self._created.set_result(True)

        try:
            self._server.work_done_progress.create(self._token, callback=created)
        except Exception as exc:  # the client refused progress: index silently
            log.debug("work done progress unavailable: %s", exc)
            self._created.set_result(False)

    def report(self, progress: IndexProgress) -> None:
        now = time.monotonic()
        if now - self._last < PROGRESS_INTERVAL_SECONDS or not self._created.done() or not self._created.result():
            return
        self._last = now
        percentage = int(100 * progress.done / progress.total) if progress.total else 0
        message = progress.describe()
        self._server.from_thread(
            self._server.work_done_progress.report,
            self._token,
            types.WorkDoneProgressReport(message=message, percentage=percentage),
        )

    def end(self, message: str) -> None:
        try:
            created = self._created.result(timeout=5)
        except Exception:
            created = False
        if created:
            self._server.from_thread(
                self._server.work_done_progress.end, self._token, types.WorkDoneProgressEnd(message=message)
            )

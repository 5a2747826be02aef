"""The language server's first folder, opened and indexing while pygls imports.

The server learns which folder to index from the client's `initialize`, which pygls reads only once it has imported
itself and lsprotocol: about a second of one core, while a cold build's workers (started ahead of it:
worker_pool.py) wait for their first job. So the command line reads that first message itself, with the base
protocol's framing (server/framing.py), before the import: `EarlyOpen.read_from` opens an engine for the first folder
the message names, with the settings it carries, and starts its index on a thread; the import follows once the
index is under way (its workers busy, or nothing left for them) or after EARLY_WAIT_SECONDS. pygls then gets the
message as if it had just read it. When the server opens that folder with the same settings, it takes the engine
and follows its index (its progress, its end, its failure) instead of starting another; an engine nobody takes (other
settings, a folder the server does not open, a shutdown first) is closed.

Only the first folder: the server opens its folders one after another, and two cold builds at once would share the
cores. Kept free of pygls and lsprotocol; the engine is imported on the thread."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from maguyva_lsp.server.framing import read_message
from maguyva_lsp.server.stderr_log import log_package_to_stderr

if TYPE_CHECKING:
    from maguyva_lsp.config import Settings
    from maguyva_lsp.engine import Engine
    from maguyva_lsp.indexing import IndexProgress

log = logging.getLogger(__name__)

# The import of pygls waits at most this long for the early index to be under way (a huge folder's scan goes on
# beside the import after that).
EARLY_WAIT_SECONDS = 2.0
# Phases of an index run that leave nothing for the main process to hurry: the workers have their jobs, or the run
# needed none (a warm start).
UNDER_WAY_PHASES = frozenset({"analyzing", "extracting references", "resolving graph", "done"})


class EarlyRun:
    """One folder's engine and its first index, on a thread of its own. The engine is made on that thread too (its
    import and its store's opening are part of what the import of pygls would otherwise delay)."""

    def __init__(self, root: Path, settings: Settings) -> None:
        self.root = root
        self.settings = settings
        self.engine: Engine | None = None
        self.error: BaseException | None = None
        self.opened = threading.Event()  # the engine exists (or could not be made)
        self.under_way = threading.Event()
        self.finished = threading.Event()
        self._lock = threading.Lock()
        self._last: IndexProgress | None = None
        self._follower: Callable[[IndexProgress], None] | None = None
        # Not a daemon: an exit while it runs waits for it, as for the server's writer thread (a daemon thread would be
        # stopped wherever it stands when the interpreter finalizes, a log line or a store commit half done).
        self._thread = threading.Thread(target=self._run, name="maguyva-early-index")

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        try:
            from maguyva_lsp.engine import Engine

            self.engine = Engine(self.root, self.settings)
        except Exception as exc:  # the server opens the folder itself, and says what failed
            log.warning("could not open %s ahead of the server (%s): it is opened as usual", self.root, exc)
            self.opened.set()
            self.under_way.set()
            self.finished.set()
            return
        self.opened.set()
        try:
            self.engine.index(self._report, wait_for_embeddings=False)
        except BaseException as exc:  # raised again to whoever follows the run (the server's writer thread)
            self.error = exc
        finally:
            self.under_way.set()
            self.finished.set()

    def _report(self, progress: IndexProgress) -> None:
        with self._lock:
            self._last = progress
            follower = self._follower
        if progress.phase in UNDER_WAY_PHASES:
            self.under_way.set()
        if follower is not None:
            follower(progress)

    def follow(self, report: Callable[[IndexProgress], None] | None) -> None:
        """Send the run's progress to `report` from now on, starting with where it is."""
        with self._lock:
            self._follower = report
            last = self._last
        if report is not None and last is not None and not self.finished.is_set():
            report(last)

    def wait(self) -> None:
        """Until the index run ends; its exception, if it raised one, is raised here."""
        self.finished.wait()
        if self.error is not None:
            raise self.error

    def close(self, *, wait: bool) -> None:
        """Close the engine: once its index has ended (`wait`), or now (a shutdown: as the server closes an engine
        whose index is running)."""
        (self.finished if wait else self.opened).wait()
        if self.engine is not None:
            self.engine.close()


class EarlyOpen:
    """The client's first message, read before pygls was imported, and the early run of the first folder it names
    (None when it was no `initialize`, named no folder, or the folder is not a directory)."""

    def __init__(self, read: tuple[bytes | None, bool], run: EarlyRun | None) -> None:
        self.read = read  # what StdinMessages hands pygls first: the body, and whether the stream went on
        self._run = run
        self._lock = threading.Lock()

    @classmethod
    def read_from(cls, stream: BinaryIO, wait_seconds: float = EARLY_WAIT_SECONDS) -> EarlyOpen:
        """Read the first message; if it is an initialize naming a folder, start that folder's index and wait (at most
        `wait_seconds`) until it is under way."""
        read = read_message(stream)
        run = _early_run(read[0])
        if run is not None:
            log_package_to_stderr()  # the early thread's records look like the server's own
            run.start()
            run.under_way.wait(wait_seconds)
        return cls(read, run)

    @property
    def root(self) -> Path | None:
        return self._run.root if self._run is not None else None

    def take(self, root: Path, settings: Settings) -> EarlyRun | None:
        """The early run of this folder, if it was opened with these settings and its engine could be made (once);
        a run of this folder with other settings is closed once its index ends."""
        with self._lock:
            run = self._run
            if run is None or run.root != root.resolve():
                return None
            self._run = None
        run.opened.wait()
        if run.settings == settings and run.engine is not None:
            return run
        log.info("the settings changed after initialize: %s is opened again", root)
        _close_later(run)
        return None

    def keep_only(self, roots: Sequence[Path]) -> None:
        """The folders the server opens: an early run of another one is closed (once its index ends)."""
        resolved = {r.resolve() for r in roots}
        with self._lock:
            run = self._run
            if run is None or run.root in resolved:
                return
            self._run = None
        _close_later(run)

    def close(self) -> None:
        """The server shuts down: an early run nobody took is closed now."""
        with self._lock:
            run, self._run = self._run, None
        if run is not None:
            run.close(wait=False)


def _early_run(body: bytes | None) -> EarlyRun | None:
    """The run for the first folder an initialize message names, as pygls' workspace and the server's `initialized`
    handler read it: the first workspace folder, else the root URI, else the root path. None for anything else."""
    try:
        message = json.loads(body) if body is not None else None
    except ValueError:
        return None  # pygls answers it with a parse error
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    try:
        root = _first_root(params)
    except ValueError:  # a URI of no file of this machine: the server says so
        return None
    if root is None or not root.is_dir():
        return None
    from maguyva_lsp.config import Settings, client_settings

    settings, _problems = client_settings(params.get("initializationOptions"), Settings())  # shown by the server
    return EarlyRun(root.resolve(), settings)


def _first_root(params: dict[str, Any]) -> Path | None:
    from maguyva_lsp.api.requests import path_of_uri  # as the `initialized` handler reads them

    folders = params.get("workspaceFolders")
    if isinstance(folders, list) and folders:
        uri = folders[0].get("uri") if isinstance(folders[0], dict) else None
        return Path(path_of_uri(uri)) if isinstance(uri, str) else None
    uri = params.get("rootUri")
    if isinstance(uri, str):
        return Path(path_of_uri(uri))
    path = params.get("rootPath")
    return Path(path) if isinstance(path, str) and path else None


def _close_later(run: EarlyRun) -> None:
    threading.Thread(target=run.close, kwargs={"wait": True}, name="maguyva-early-close", daemon=True).start()

"""jedi as an independent source of references (ground truth), with its answers cached on disk per corpus fingerprint.

jedi needs seconds to minutes per symbol on the stdlib, so answers are kept in benchmarks/data/jedi_truth.json
(committed) under the corpus fingerprint; a run asks jedi only for positions it has no answer for, within a budget.
"""

from __future__ import annotations

import json
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

CACHE_FORMAT = 1
DEFAULT_CACHE = Path(__file__).resolve().parent / "data" / "jedi_truth.json"
# A symbol jedi cannot answer within this much CPU time (not wall time: the answer must not depend on how loaded the
# machine is) is recorded as a timeout and skipped.
JEDI_CPU_SECONDS = 90.0
NO_LIMIT = 1_000_000_000  # jedi caps a project search at 30 parsed files; lifted so that its answer is complete
# A failure other than a timeout (jedi's own errors) is asked again in a later run, up to this many attempts in all.
MAX_ATTEMPTS = 2

Position = tuple[str, int, int]  # (root-relative path, 0-based line, 0-based column) of a name


@dataclass(frozen=True, slots=True)
class JediAnswer:
    """jedi's project-local references to one name: where they are, and the definition enclosing each."""

    refs: tuple[Position, ...]
    scopes: tuple[Position, ...]  # per ref, the enclosing definition's name; (path, -1, -1) at module level
    error: str | None
    seconds: float


def position_key(position: Position) -> str:
    return f"{position[0]}:{position[1]}:{position[2]}"


class _JediTimeoutError(BaseException):  # jedi catches Exception in places: a timeout must get through
    pass


def _on_alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _JediTimeoutError


def _set_cpu_alarm(seconds: float) -> None:
    """SIGPROF after `seconds` of this process's CPU time (0 cancels)."""
    signal.setitimer(signal.ITIMER_PROF, seconds)


class JediTruth:
    """Cached jedi answers for one corpus (by fingerprint); `ask` fills the gaps."""

    def __init__(self, cache_path: Path, fingerprint: str, description: str) -> None:
        self.cache_path = cache_path
        self.fingerprint = fingerprint
        self._data: dict[str, Any] = {"format": CACHE_FORMAT, "corpora": {}}
        if cache_path.exists():
            loaded = json.loads(cache_path.read_text(encoding="utf-8"))
            if loaded.get("format") == CACHE_FORMAT:
                self._data = loaded
        corpora: dict[str, Any] = self._data["corpora"]
        self._entry: dict[str, Any] = corpora.setdefault(fingerprint, {"description": description, "answers": {}})
        self.asked = 0
        self.ask_seconds = 0.0

    def get(self, position: Position) -> JediAnswer | None:
        raw = self._entry["answers"].get(position_key(position))
        if raw is None:
            return None
        return JediAnswer(
            refs=tuple((str(p), int(a), int(b)) for p, a, b in raw.get("refs", [])),
            scopes=tuple((str(p), int(a), int(b)) for p, a, b in raw.get("scopes", [])),
            error=raw.get("error"),
            seconds=float(raw.get("seconds", 0.0)),
        )

    def missing(self, positions: Iterable[Position]) -> list[Position]:
        """Positions without an answer, or whose failure (not a timeout) may be retried."""
        out = []
        for position in positions:
            raw = self._entry["answers"].get(position_key(position))
            if raw is None:
                out.append(position)
                continue
            error = raw.get("error")
            if error and not error.startswith("timeout") and raw.get("attempts", 1) < MAX_ATTEMPTS:
                out.append(position)
        return out

    def ask(
        self,
        root: Path,
        files: Iterable[str],
        positions: Iterable[Position],
        budget_s: float,
        log: Callable[[str], None] = print,
    ) -> int:
        """Ask jedi for every position without an answer, until `budget_s` is spent. The project is `root` (the
        corpus copy, which holds only the corpus files): jedi walks every Python file under its project folder, and
        puts the project first on its sys.path, so imports resolve to the same copy."""
        todo = self.missing(positions)
        if not todo or budget_s <= 0:
            return 0
        import jedi
        import jedi.inference.references as jedi_references
        import parso.cache

        jedi_references._PARSED_FILE_LIMIT = NO_LIMIT
        jedi_references._OPENED_FILE_LIMIT = NO_LIMIT
        # parso evicts parsed files past 600 while jedi still holds their nodes (KeyError deep in jedi): keep them.
        parso.cache._CACHED_SIZE_TRIGGER = NO_LIMIT
        # A private parso cache: an answer cut short by its timeout can leave a truncated pickle behind, and a shared
        # cache (~/.cache/parso) then fails later parses with EOFError.
        parso_cache = tempfile.TemporaryDirectory(prefix="jedi-truth-")
        jedi.settings.cache_directory = parso_cache.name
        project = jedi.Project(str(root))
        started = time.perf_counter()
        _preparse(project, root, files, Path(parso_cache.name))
        log(f"jedi: parsed the corpus in {time.perf_counter() - started:.0f} s")
        use_alarm = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGPROF, _on_alarm) if use_alarm else None
        asked = 0
        try:
            for position in todo:
                if time.perf_counter() - started > budget_s:
                    log(f"jedi: time budget of {budget_s:.0f} s spent; {len(todo) - asked} positions left unasked")
                    break
                answer = _references(jedi, project, root, position, use_alarm)
                earlier = self._entry["answers"].get(position_key(position))
                answer["attempts"] = (earlier or {}).get("attempts", 1 if earlier else 0) + 1
                self._entry["answers"][position_key(position)] = answer
                asked += 1
                log(
                    f"  jedi {position_key(position)}: {len(answer.get('refs', []))} refs in {answer['seconds']} s"
                    f" {answer.get('error', '')}"
                )
                self.save()
        finally:
            if use_alarm:
                _set_cpu_alarm(0)
                signal.signal(signal.SIGPROF, previous)
            parso_cache.cleanup()
        self.asked += asked
        self.ask_seconds += time.perf_counter() - started
        return asked

    def save(self) -> None:
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self._data, indent=0, sort_keys=True, separators=(",", ":"))
        tmp = self.cache_path.with_suffix(".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(self.cache_path)


def _preparse(project: Any, root: Path, files: Iterable[str], cache_dir: Path) -> None:
    """Parse every corpus file once with jedi's grammar into parso's memory cache, where jedi finds them: the CPU
    limit per answer then measures inference, not how many files happened to be parsed already."""
    grammar = project.get_environment().get_grammar()
    for rel in files:
        try:
            grammar.parse(path=str(root / rel), cache=True, cache_path=cache_dir)
        except (OSError, LookupError, ValueError):  # unreadable, unknown coding cookie, undecodable: jedi skips too
            continue


def _references(jedi: Any, project: Any, source: Path, position: Position, use_alarm: bool) -> dict[str, Any]:
    """One jedi get_references call, reduced to positions inside `source` (the definition itself left out)."""
    path, line, column = position
    started = time.perf_counter()
    answer: dict[str, Any]
    if use_alarm:
        _set_cpu_alarm(JEDI_CPU_SECONDS)
    try:
        script = jedi.Script(path=str(source / path), project=project)
        names = script.get_references(line + 1, column, scope="project", include_builtins=False)
        refs: list[list[Any]] = []
        scopes: list[list[Any]] = []
        for name in names:
            if name.module_path is None or not Path(name.module_path).is_relative_to(source):
                continue
            rel = Path(name.module_path).relative_to(source).as_posix()
            if (rel, name.line - 1, name.column) == position:
                continue
            parent = name.parent()
            if parent is None or parent.type == "module":
                scopes.append([rel, -1, -1])
            else:
                scopes.append([rel, parent.line - 1, parent.column])
            refs.append([rel, name.line - 1, name.column])
        answer = {"refs": refs, "scopes": scopes}
    except _JediTimeoutError:
        answer = {"error": f"timeout after {JEDI_CPU_SECONDS:g} CPU s"}
    except Exception as exc:  # jedi's own failures (recursion, cache misses): recorded, the position is skipped
        answer = {"error": f"{type(exc).__name__}: {exc}"[:200]}
    finally:
        if use_alarm:
            _set_cpu_alarm(0)
    answer["seconds"] = round(time.perf_counter() - started, 1)
    return answer

"""One typed settings object for the engine, the CLI and the server; bad values fall back to defaults with a message."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from maguyva_lsp.parse.chunker import DEFAULT_WINDOW_LINES

log = logging.getLogger(__name__)

Preset = Literal["quick", "standard", "thorough"]
PRESETS: tuple[Preset, ...] = ("quick", "standard", "thorough")
EmbedderName = Literal["local", "voyage"]
VOYAGE_DIMENSIONS: tuple[int, ...] = (256, 512, 1024, 2048)

DEFAULT_MAX_FILE_SIZE = 1024 * 1024  # 1 MiB: larger files are generated data far more often than code
# Results per search unless asked otherwise, and the most one search returns.
DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
# Queries longer than this are cut before classification and retrieval: a pasted file is still a snippet.
MAX_QUERY_CHARS = 4096


class SecretStr:
    """A string that never shows itself in repr, str or logs (the Voyage API key)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def get(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "SecretStr('********')" if self._value else "SecretStr('')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretStr) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)


@dataclass(frozen=True, slots=True)
class Settings:
    """Every user-facing knob in one place. Field names are the server's `initializationOptions` keys."""

    preset: Preset = "standard"
    limit: int = DEFAULT_LIMIT
    embedder: EmbedderName = "local"
    voyage_model: str = "voyage-code-3"
    voyage_dimension: int = 1024
    voyage_api_key: SecretStr = field(default_factory=lambda: SecretStr(""))
    exclude: tuple[str, ...] = ()  # extra gitignore-style patterns
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    index_dir: str | None = None  # where the persistent store lives; None: the user's cache folder
    log_level: str = "info"
    chunk_lines: int = DEFAULT_WINDOW_LINES  # window size for code outside any definition
    workers: int = 0  # 0: one per CPU core, at most 4

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


_CAMEL_ALIASES = {
    "voyageModel": "voyage_model",
    "voyageDimension": "voyage_dimension",
    "voyageApiKey": "voyage_api_key",
    "maxFileSize": "max_file_size",
    "indexDir": "index_dir",
    "logLevel": "log_level",
    "chunkLines": "chunk_lines",
}
_LOG_LEVELS = ("error", "warning", "info", "debug")


def settings_from_mapping(raw: Mapping[str, Any] | None, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Build Settings from user input (camelCase or snake_case keys); returns the settings and one message per
    rejected value, each of which kept its default (or the `base` value)."""
    settings = base or Settings()
    problems: list[str] = []
    if raw is None:
        return settings, problems
    if not isinstance(raw, Mapping):
        return settings, [f"settings must be an object, got {type(raw).__name__}"]
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        name = _CAMEL_ALIASES.get(key, key)
        try:
            checked = _check(name, value)
        except (TypeError, ValueError) as exc:
            problems.append(f"setting {key!r}: {exc}; keeping {_shown(name, getattr(settings, name, None))}")
            continue
        if checked is _UNKNOWN:
            problems.append(f"unknown setting {key!r} ignored")
            continue
        changes[name] = checked
    return settings.replace(**changes), problems


def client_settings(raw: Any, base: Settings) -> tuple[Settings, list[str]]:
    """Settings as a client sends them (initializationOptions, didChangeConfiguration): nested under "maguyva" or
    flat, over `base`; one message per rejected value."""
    if isinstance(raw, dict) and isinstance(raw.get("maguyva"), dict):
        raw = raw["maguyva"]
    settings, problems = settings_from_mapping(raw if isinstance(raw, dict) else None, base=base)
    if raw is not None and not isinstance(raw, dict):
        problems.append(f"settings must be an object, got {type(raw).__name__}")
    return settings, problems


_UNKNOWN = object()


def _shown(name: str, value: object) -> str:
    return "the stored key" if name == "voyage_api_key" else repr(value)


def _check(name: str, value: Any) -> Any:
    """Validate one setting; raise ValueError/TypeError with a human message."""
    if name == "preset":
        if value not in PRESETS:
            raise ValueError(f"unknown preset {value!r} (choose one of {', '.join(PRESETS)})")
        return value
    if name == "limit":
        return _int_in(value, 1, MAX_LIMIT)
    if name == "embedder":
        if value not in ("local", "voyage"):
            raise ValueError(f"unknown embedder {value!r} (choose 'local' or 'voyage')")
        return value
    if name == "voyage_model":
        if not isinstance(value, str) or not value.strip():
            raise ValueError("must be a model name")
        return value.strip()
    if name == "voyage_dimension":
        dim = _int_in(value, 1, 4096)
        if dim not in VOYAGE_DIMENSIONS:
            raise ValueError(f"must be one of {VOYAGE_DIMENSIONS}")
        return dim
    if name == "voyage_api_key":
        if value is None:
            return SecretStr("")
        if not isinstance(value, str):
            raise TypeError("must be a string")
        return SecretStr(value.strip())
    if name == "exclude":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
            raise TypeError("must be a list of glob patterns")
        return tuple(v for v in value if v.strip())
    if name == "max_file_size":
        return _int_in(value, 1, 1024 * 1024 * 1024)
    if name == "index_dir":
        if value in (None, ""):
            return None
        if not isinstance(value, str):
            raise TypeError("must be a folder path")
        return value
    if name == "log_level":
        if not isinstance(value, str) or value.lower() not in _LOG_LEVELS:
            raise ValueError(f"must be one of {', '.join(_LOG_LEVELS)}")
        return value.lower()
    if name == "chunk_lines":
        return _int_in(value, 5, 500)
    if name == "workers":
        return _int_in(value, 0, 64)
    return _UNKNOWN


def _int_in(value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise TypeError(f"must be a whole number, got {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"must be between {low} and {high}, got {value!r}")
    return int(value)

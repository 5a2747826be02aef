"""A tiny Python project for the benchmark smoke test: definitions, calls across files, string literals, functions
with locals to rename, and two hand-labelled questions about it."""

from __future__ import annotations

import json
from pathlib import Path

CONFIG_PY = '''"""Configuration loading and validation."""
import json


class ConfigError(Exception):
    """Raised when a configuration document is invalid."""


def parse_config(text):
    """Parse a JSON configuration document into a dictionary."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ConfigError("configuration file is not valid JSON") from exc
    if "section" not in document:
        raise ConfigError("configuration file is missing a section")
    return document


def load_config(path):
    with open(path) as handle:
        return parse_config(handle.read())


def merge_settings(defaults, overrides):
    merged = dict(defaults)
    changed = []
    for key, value in overrides.items():
        if merged.get(key) != value:
            changed.append(key)
        merged[key] = value
    summary = ", ".join(sorted(changed))
    return merged, summary
'''

CACHE_PY = '''"""A least-recently-used cache that evicts the oldest entries when full."""
from collections import OrderedDict


class LruCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.entries = OrderedDict()

    def get(self, key):
        if key not in self.entries:
            return None
        self.entries.move_to_end(key)
        return self.entries[key]

    def put(self, key, value):
        self.entries[key] = value
        self.entries.move_to_end(key)
        self.evict_oldest()

    def evict_oldest(self):
        while len(self.entries) > self.capacity:
            self.entries.popitem(last=False)


def cache_statistics(cache, requests):
    hits = 0
    misses = 0
    for request in requests:
        found = cache.get(request)
        if found is None:
            misses += 1
        else:
            hits += 1
    ratio = hits / max(hits + misses, 1)
    return {"hits": hits, "misses": misses, "ratio": ratio}
'''

SERVER_PY = '''"""The request server: loads its configuration, caches responses."""
from app.cache import LruCache, cache_statistics
from app.config import load_config, merge_settings


class Server:
    def __init__(self, path):
        self.config = load_config(path)
        self.cache = LruCache(self.config.get("cache_size", 128))

    def start(self):
        settings, summary = merge_settings({"port": 8080}, self.config)
        print("server starting with", summary)
        return self.listen(settings["port"])

    def listen(self, port):
        return port

    def report(self, requests):
        return cache_statistics(self.cache, requests)


def run_server(path):
    server = Server(path)
    return server.start()
'''

CLI_PY = '''"""Command line entry point."""
from app.server import run_server


def main(argv):
    if len(argv) < 2:
        print("usage: app CONFIG_PATH")
        return 2
    return run_server(argv[1])
'''

QUESTIONS = [
    {"q": "how does the cache evict old entries", "files": ["app/cache.py"]},
    {"q": "how is the configuration document parsed and validated", "files": ["app/config.py"]},
]


def write_project(root: Path) -> tuple[Path, Path]:
    """The project under root/proj, and a questions file beside it."""
    project = root / "proj"
    (project / "app").mkdir(parents=True)
    (project / "app" / "__init__.py").write_text("")
    for name, text in (("config.py", CONFIG_PY), ("cache.py", CACHE_PY), ("server.py", SERVER_PY), ("cli.py", CLI_PY)):
        (project / "app" / name).write_text(text)
    questions = root / "questions.json"
    questions.write_text(json.dumps({"questions": QUESTIONS}))
    return project, questions

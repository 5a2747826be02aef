"""The server's log on stderr, set up without pygls: by the early open (server/early_open.py) before pygls is
imported, and again by the server with the client's log beside it (server/logs.py)."""

from __future__ import annotations

import logging
import sys

from maguyva_lsp.failures import failure_log

STDERR_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_package_to_stderr() -> logging.Logger:
    """Route the `maguyva_lsp` loggers to stderr, at INFO, in the server's form, and keep the failure log on them (it
    records the background failures that status reports and the server tells); returns the package's logger."""
    package = logging.getLogger("maguyva_lsp")
    package.setLevel(logging.INFO)
    package.propagate = False
    for handler in list(package.handlers):
        package.removeHandler(handler)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter(STDERR_FORMAT))
    package.addHandler(stderr)
    failure_log()  # attached again
    return package

"""`python -m maguyva_lsp [--stdio | --tcp --port N]`: the language server (the flags editors append are accepted)."""

from __future__ import annotations

import sys

from maguyva_lsp import worker_pool

if __name__ == "__main__" and not {"-h", "--help", "--version"} & set(sys.argv[1:]):
    # The cold build's workers start before anything heavy is imported (worker_pool.py says why): `main` would
    # start them too, but only after the command line's own imports (numpy among them, ~0.13 s of one core while
    # the other idles). Not in a spawned worker, which imports this module under another name.
    worker_pool.in_background()  # the server's workers index in the background (worker_pool.py)
    worker_pool.prestart(worker_pool.worker_count(0))

from maguyva_lsp.cli import main  # after the workers' start, on purpose

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))

"""`python -m maguyva_lsp [--stdio | --tcp --port N]`: the language server (the flags editors append are accepted)."""

from __future__ import annotations

import sys

from maguyva_lsp.cli import main

if __name__ == "__main__":
    sys.exit(main(["serve", *sys.argv[1:]]))

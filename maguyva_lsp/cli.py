"""The command line: `maguyva index|search|batch|impact|definition|references|status|serve|mcp`.

Each command maps its flags onto the contract's request (`api/`), has the workspace answer it and prints the answer
(`--json`: the same object as the language server's). The checks are the contract's: a bad value is its message on
stderr and exit code 2; a request that finds nothing exits 1.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from maguyva_lsp import __version__
from maguyva_lsp.config import PRESETS, Settings, settings_from_mapping
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH

if TYPE_CHECKING:
    from maguyva_lsp.api import Answer, Request
    from maguyva_lsp.workspace import WorkspaceSet

log = logging.getLogger("maguyva_lsp")

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_ERROR = 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="maguyva", description="Intent-routed code search: ask in plain words, get ranked locations."
    )
    parser.add_argument("--version", action="version", version=f"maguyva {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr (-vv: debug)")
    sub = parser.add_subparsers(dest="command", required=True)

    def with_index_options(p: argparse.ArgumentParser) -> None:
        # -v is accepted after the subcommand too; SUPPRESS keeps the top-level count when it is not given here.
        p.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS, help="more logging on stderr")
        p.add_argument("path", type=Path, help="the folder to index")
        p.add_argument("--index-dir", help="where the index is stored (default: the user's cache folder)")
        p.add_argument("--no-store", action="store_true", help="keep the index in memory only")
        p.add_argument("--embedder", choices=("local", "voyage"), help="semantic model (default: local, offline)")
        p.add_argument("--exclude", action="append", default=[], help="extra gitignore-style pattern (repeatable)")
        p.add_argument("--max-file-size", type=int, help="skip files larger than this many bytes (default 1 MiB)")

    presets = "|".join(PRESETS)

    def with_position(p: argparse.ArgumentParser, what: str) -> None:
        p.add_argument("symbol", nargs="?", help=f"the symbol whose {what} to find, e.g. parse_config or Config.parse")
        p.add_argument("--at", metavar="FILE:LINE[:COLUMN]", help="the symbol at a place instead (1-based, as shown)")

    p_index = sub.add_parser("index", help="index a folder (incrementally, reusing the stored index)")
    with_index_options(p_index)

    p_search = sub.add_parser("search", help="index a folder if needed, then answer a query")
    with_index_options(p_search)
    p_search.add_argument("query", help='e.g. "where is parse_config defined", "who calls load", \'"ECONNREFUSED"\'')
    p_search.add_argument("--preset", metavar=presets, help="quick | standard (default) | thorough")
    p_search.add_argument("--limit", type=int, default=None, help="number of results (default 20)")
    p_search.add_argument("--json", action="store_true", help="print the maguyva/search response object")
    p_search.add_argument("--explain", action="store_true", help="show each result's per-modality rank/contribution")
    p_search.add_argument(
        "--regex", action="store_true", help="treat the query as a regular expression (Python syntax)"
    )
    p_search.add_argument("--case-sensitive", action="store_true", help="literal and regex matching respect case")

    p_batch = sub.add_parser(
        "batch",
        help="load the index once, then answer requests from stdin, one JSON line each (for agents and scripts)",
        description="Each stdin line is a query, or a JSON request: "
        '{"query": ..., "preset", "limit", "explain", "regex", "caseSensitive", "id"}, '
        '{"method": "impact", "symbol": ..., "maxDepth"}, {"method": "definition" | "references", "symbol" | "file" '
        '+ "line"}, {"method": "status"}. Each answer is one line of JSON (the language server\'s answer object, or '
        '{"error": ..., "field": ...}); the folder is re-checked before each request.',
    )
    with_index_options(p_batch)
    p_batch.add_argument("--preset", metavar=presets, help="default preset for searches that name none")
    p_batch.add_argument("--limit", type=int, default=None, help="default number of results (default 20)")
    p_batch.add_argument("--explain", action="store_true", help="explain every search by default")

    p_impact = sub.add_parser("impact", help="what depends on a symbol, transitively")
    with_index_options(p_impact)
    with_position(p_impact, "dependents")
    p_impact.add_argument("--depth", type=int, default=None, help=f"maximum depth (default {DEFAULT_IMPACT_DEPTH})")
    p_impact.add_argument("--json", action="store_true", help="print the maguyva/impact response object")

    for name, what in (("definition", "definitions"), ("references", "references")):
        p_nav = sub.add_parser(name, help=f"the {what} of a symbol, named or at FILE:LINE")
        with_index_options(p_nav)
        with_position(p_nav, what)
        if name == "references":
            p_nav.add_argument("--include-declaration", action="store_true", help="list the definition too")
        p_nav.add_argument("--json", action="store_true", help="print the answer object")

    p_status = sub.add_parser("status", help="index a folder if needed, then print the index status as JSON")
    with_index_options(p_status)

    p_mcp = sub.add_parser("mcp", help="serve the Model Context Protocol over stdio (tools for agents)")
    p_mcp.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS, help="more logging on stderr")
    p_mcp.add_argument("path", type=Path, nargs="?", help="the folder to serve (default: the client's roots, else .)")
    p_mcp.add_argument("--index-dir", help="where the index is stored (default: the user's cache folder)")
    p_mcp.add_argument("--embedder", choices=("local", "voyage"), help="semantic model (default: local, offline)")
    p_mcp.add_argument("--exclude", action="append", default=[], help="extra gitignore-style pattern (repeatable)")
    p_mcp.add_argument("--max-file-size", type=int, help="skip files larger than this many bytes (default 1 MiB)")

    p_serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    p_serve.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    p_serve.add_argument("--tcp", action="store_true", help="listen on TCP instead")
    p_serve.add_argument("--host", default="127.0.0.1")
    p_serve.add_argument("--port", type=int, default=2087)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    # Warnings are the user's notices (fallbacks, a rebuilt store): said plainly unless more detail was asked for.
    form = "maguyva: %(message)s" if not args.verbose else "%(levelname)s %(name)s: %(message)s"
    logging.basicConfig(level=level, stream=sys.stderr, format=form)
    if args.command in ("serve", "mcp"):
        from maguyva_lsp import worker_pool

        # The cold build's workers start while the LSP or MCP libraries import (worker_pool.py says why); the
        # settings are not known yet, so as many as the default wants: a folder that wants another count starts its
        # own.
        worker_pool.in_background()  # a server's workers index in the background (worker_pool.py)
        worker_pool.prestart(worker_pool.worker_count(0))
    if args.command == "serve":
        early = stdin = None
        if not args.tcp:
            from maguyva_lsp.server.early_open import EarlyOpen
            from maguyva_lsp.server.framing import own_stdin

            # The client's initialize is read now and its folder's index started, before pygls imports.
            stdin = own_stdin()
            early = EarlyOpen.read_from(stdin)
        from maguyva_lsp.server.main import run_server

        run_server(tcp=args.tcp, host=args.host, port=args.port, early=early, stdin=stdin)
        return EXIT_OK
    if args.command == "mcp":
        from maguyva_lsp.mcp_server import run_mcp

        settings, problems = _settings(args)
        for problem in problems:
            print(f"maguyva: {problem}", file=sys.stderr)
        return run_mcp(args.path, settings)
    settings, problems = _settings(args)
    for problem in problems:
        print(f"maguyva: {problem}", file=sys.stderr)
    if not args.path.is_dir():
        print(f"maguyva: {args.path} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    from maguyva_lsp.api import InvalidRequestError, SearchRequest, parse_request
    from maguyva_lsp.workspace import WorkspaceSet

    workspaces = WorkspaceSet(settings, persist=not args.no_store)
    try:
        if args.command == "batch":
            defaults = _batch_defaults(args)
            try:
                SearchRequest.parse({"query": "defaults", **defaults})
            except InvalidRequestError as exc:
                print(f"maguyva: {exc}", file=sys.stderr)
                return EXIT_USAGE
        else:
            method, params = _request_params(args)
            try:
                request = parse_request(method, params) if method else None
            except InvalidRequestError as exc:
                print(f"maguyva: {exc}", file=sys.stderr)
                return EXIT_USAGE
        engine = workspaces.add(args.path)
        assert engine is not None
        # The engine's notices (engine.messages) were logged as it opened. `index` leaves everything complete; the
        # other commands answer one request from what is ready (embeddings waited for only when few are missing);
        # `batch` keeps the index open and checks it as the server does.
        _index_with_progress(
            engine, one_shot=args.command not in ("index", "batch"), questions_follow=args.command != "index"
        )
        if args.command == "index":
            engine.wait_for_merges()  # `index` leaves the index in its final form: one merged segment
            _print_index_summary(engine)
            return EXIT_OK
        if args.command == "batch":
            from maguyva_lsp.batch import run_batch

            failed = run_batch(workspaces, sys.stdin, sys.stdout, defaults=defaults)
            return EXIT_OK if not failed else EXIT_ERROR
        assert request is not None
        return _answer(workspaces, request, args)
    finally:
        workspaces.close()


def _request_params(args: argparse.Namespace) -> tuple[str | None, dict[str, Any]]:
    """The contract method and params a command's flags stand for (only the flags given: defaults are the
    contract's)."""
    given = {k: v for k, v in vars(args).items() if v is not None and v is not False}
    if args.command == "search":
        names = {"query": "query", "preset": "preset", "limit": "limit", "explain": "explain", "regex": "regex"}
        params = {wire: given[flag] for flag, wire in names.items() if flag in given}
        if "case_sensitive" in given:
            params["caseSensitive"] = True
        return "search", params
    if args.command in ("impact", "definition", "references"):
        params = {"symbol": given["symbol"]} if "symbol" in given else {}
        if "at" in given:
            params.update(_place_params(given["at"]))
        if "depth" in given:
            params["maxDepth"] = given["depth"]
        if "include_declaration" in given:
            params["includeDeclaration"] = True
        return args.command, params
    if args.command == "status":
        return "status", {}
    return None, {}


def _place_params(text: str) -> dict[str, Any]:
    """`FILE:LINE[:COLUMN]` as the contract's path-form fields (numbers as numbers; anything else left for the
    contract to refuse by name)."""
    parts = text.rsplit(":", 2)
    if len(parts) >= 3 and not (parts[-1].isdigit() and parts[-2].isdigit()):
        parts = [":".join(parts[:-1]), parts[-1]]
    fields: dict[str, Any] = {"file": parts[0]}
    for name, value in zip(("line", "column"), parts[1:], strict=False):
        fields[name] = int(value) if value.isdigit() else value
    return fields


def _batch_defaults(args: argparse.Namespace) -> dict[str, Any]:
    defaults: dict[str, Any] = {}
    for name in ("preset", "limit"):
        if getattr(args, name, None) is not None:
            defaults[name] = getattr(args, name)
    if args.explain:
        defaults["explain"] = True
    return defaults


def _answer(workspaces: WorkspaceSet, request: Request, args: argparse.Namespace) -> int:
    """Answer one request and print it: JSON with --json (status always), else text; exit 1 when nothing was found."""
    from maguyva_lsp.api import ImpactAnswer, InvalidRequestError, LocationsAnswer, StatusAnswer, UnavailableError
    from maguyva_lsp.api.render import render

    try:
        answer: Answer = workspaces.handle(request)
    except (InvalidRequestError, UnavailableError) as exc:
        print(f"maguyva: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if getattr(args, "json", False) or isinstance(answer, StatusAnswer):
        print(json.dumps(answer.to_json(), indent=2))
    else:
        print(render(answer, [e.root for e in workspaces.engines()], explain=getattr(args, "explain", False)))
    empty = (isinstance(answer, ImpactAnswer) and answer.symbol is None) or (
        isinstance(answer, LocationsAnswer) and not answer.locations
    )
    return EXIT_ERROR if empty else EXIT_OK


def _settings(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    raw: dict[str, Any] = {}
    if os.environ.get("VOYAGE_API_KEY"):
        raw["voyage_api_key"] = os.environ["VOYAGE_API_KEY"]
    for name in ("index_dir", "embedder", "max_file_size"):
        value = getattr(args, name, None)
        if value is not None:
            raw[name] = value
    if getattr(args, "exclude", None):
        raw["exclude"] = list(args.exclude)
    return settings_from_mapping(raw)


def _index_with_progress(engine: Any, *, one_shot: bool, questions_follow: bool = True) -> None:
    stream: TextIO = sys.stderr
    show = stream.isatty()
    last = [0.0]

    def progress(p: Any) -> None:
        if not show or time.monotonic() - last[0] < 0.1:
            return
        last[0] = time.monotonic()
        if p.total:
            width = 30
            filled = int(width * p.done / p.total)
            bar = "#" * filled + "-" * (width - filled)
            stream.write(f"\r{p.phase:>9} [{bar}] {p.done}/{p.total} files")
        else:
            stream.write(f"\r{p.phase:>9} ...")
        stream.flush()

    engine.index(progress, one_shot=one_shot, questions_follow=questions_follow)
    if show:
        stream.write("\r" + " " * 70 + "\r")
        stream.flush()
    if one_shot and engine.embeddings_pending:
        print(
            f"maguyva: the semantic index of {engine.root.name} is still being built: answers are partial until it is"
            f" complete (`maguyva index {engine.root}` completes it)",
            file=stream,
        )
    warning = engine.skip_warning()  # the same one line the server shows once per indexing run
    if warning is not None:
        print(f"maguyva: {warning}", file=stream)


def _print_index_summary(engine: Any) -> None:
    status = engine.status()
    counters = status["counters"]
    print(
        f"indexed {status['root']}: {status['files']} files, {status['chunks']} chunks, {status['symbols']} symbols, "
        f"{status['edges']} graph edges in {counters['last_index_seconds']:.1f}s "
        f"({counters['analyzed']} analysed, {counters['reused']} reused from the store, {status['skipped']} skipped)"
    )
    print(f"embedder: {status['embedder']}; store: {status['store']['dir'] or 'memory only'}")


if __name__ == "__main__":
    sys.exit(main())

"""The command line: `maguyva index|search|batch|impact|status|serve`, a thin layer over the engine facade."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from maguyva_lsp import __version__
from maguyva_lsp.config import PRESETS, Settings, settings_from_mapping
from maguyva_lsp.graph.model import DEFAULT_IMPACT_DEPTH

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

    p_index = sub.add_parser("index", help="index a folder (incrementally, reusing the stored index)")
    with_index_options(p_index)

    p_search = sub.add_parser("search", help="index a folder if needed, then answer a query")
    with_index_options(p_search)
    p_search.add_argument("query", help='e.g. "where is parse_config defined", "who calls load", \'"ECONNREFUSED"\'')
    p_search.add_argument("--preset", choices=PRESETS, help="quick | standard (default) | thorough")
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
        '{"query": ..., "preset", "limit", "explain", "regex", "case_sensitive", "id"}, {"impact": SYMBOL, "depth"}, '
        '{"status": true}. Each answer is one line of JSON (the maguyva/search, maguyva/impact or maguyva/status '
        'object, or {"error": ...}); the folder is re-checked before each request.',
    )
    with_index_options(p_batch)
    p_batch.add_argument("--preset", choices=PRESETS, help="default preset for requests that name none")
    p_batch.add_argument("--limit", type=int, default=None, help="default number of results (default 20)")
    p_batch.add_argument("--explain", action="store_true", help="explain every search by default")

    p_impact = sub.add_parser("impact", help="what depends on a symbol, transitively")
    with_index_options(p_impact)
    p_impact.add_argument("symbol", help="a name such as parse_config or Config.parse")
    p_impact.add_argument(
        "--depth", type=int, default=DEFAULT_IMPACT_DEPTH, help=f"maximum depth (default {DEFAULT_IMPACT_DEPTH})"
    )
    p_impact.add_argument("--json", action="store_true", help="print the maguyva/impact response object")

    p_status = sub.add_parser("status", help="index a folder if needed, then print the index status as JSON")
    with_index_options(p_status)

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
    if args.command == "serve":
        from maguyva_lsp.server.main import run_server

        run_server(tcp=args.tcp, host=args.host, port=args.port)
        return EXIT_OK
    settings, problems = _settings(args)
    for problem in problems:
        print(f"maguyva: {problem}", file=sys.stderr)
    if not args.path.is_dir():
        print(f"maguyva: {args.path} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    from maguyva_lsp.engine import Engine

    engine = Engine(args.path, settings, persist=not args.no_store)
    try:
        _index_with_progress(engine)  # the engine's notices (engine.messages) were logged as it opened
        if args.command == "index":
            _print_index_summary(engine)
            return EXIT_OK
        if args.command == "status":
            print(json.dumps(engine.status(), indent=2))
            return EXIT_OK
        if args.command == "impact":
            return _impact(engine, args)
        if args.command == "batch":
            from maguyva_lsp.batch import run_batch

            failed = run_batch(engine, sys.stdin, sys.stdout, explain=args.explain)
            return EXIT_OK if not failed else EXIT_ERROR
        return _search(engine, args)
    finally:
        engine.close()


def _settings(args: argparse.Namespace) -> tuple[Settings, list[str]]:
    raw: dict[str, Any] = {}
    if os.environ.get("VOYAGE_API_KEY"):
        raw["voyage_api_key"] = os.environ["VOYAGE_API_KEY"]
    for name in ("index_dir", "embedder", "max_file_size", "preset", "limit"):
        value = getattr(args, name, None)
        if value is not None:
            raw[name] = value
    if getattr(args, "exclude", None):
        raw["exclude"] = list(args.exclude)
    return settings_from_mapping(raw)


def _index_with_progress(engine: Any) -> None:
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

    engine.index(progress)
    if show:
        stream.write("\r" + " " * 70 + "\r")
        stream.flush()
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


def _search(engine: Any, args: argparse.Namespace) -> int:
    try:
        response = engine.search(
            args.query,
            preset=args.preset,
            limit=args.limit,
            explain=args.explain,
            regex=args.regex,
            case_sensitive=args.case_sensitive,
        )
    except ValueError as exc:
        print(f"maguyva: {exc}", file=sys.stderr)
        return EXIT_USAGE
    payload = response.to_json()
    if args.json:
        print(json.dumps(payload, indent=2))
        return EXIT_OK
    _print_search(payload, engine.root, explain=args.explain)
    return EXIT_OK


def _print_search(payload: dict[str, Any], root: Path, *, explain: bool) -> None:
    header = (
        f"{payload['intent']} ({payload['confidence']:.2f}) target={payload['target']!r} "
        f"strategy={payload['fusion_strategy']} modalities={','.join(payload['modalities'])} "
        f"{payload['elapsed_ms']:.1f} ms"
    )
    print(header)
    for skipped in payload.get("modalities_skipped", []):
        print(f"  (skipped {skipped['modality']}: {skipped['reason']})")
    if payload.get("partial"):
        print("  (partial: indexing is still running)")
    if not payload["results"]:
        print("no results")
    for i, result in enumerate(payload["results"], 1):
        path = _display_path(result["uri"], root)
        line = result["range"]["start"]["line"] + 1
        symbol = f" {result['symbol']}" if result.get("symbol") else ""
        kind = f" [{result['kind']}]" if result.get("kind") else ""
        print(f"{i:>3}. {path}:{line}{symbol}{kind}  score={result['score']:.4f}")
        snippet = (result.get("snippet") or "").strip().splitlines()
        if snippet:
            print(f"       {snippet[0][:150]}")
        if explain:
            for modality, part in sorted(result.get("modalities", {}).items()):
                print(f"       {modality}: rank {part['rank']} contribution {part['contribution']:.5f}")


def _display_path(uri: str, root: Path) -> str:
    from maguyva_lsp.uris import path_from_uri

    path = Path(path_from_uri(uri))
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _impact(engine: Any, args: argparse.Namespace) -> int:
    result = engine.impact(symbol=args.symbol, max_depth=args.depth)
    if result is None:
        print(f"maguyva: no symbol named {args.symbol!r} in the index", file=sys.stderr)
        return EXIT_ERROR
    payload = result.to_json(engine.uri)
    if args.json:
        print(json.dumps(payload, indent=2))
        return EXIT_OK
    print(f"impact of {payload['symbol']}: {len(payload['impacted'])} dependents")
    if result.note:
        print(f"  note: {result.note}")
    for item in payload["impacted"]:
        path = _display_path(item["uri"], engine.root)
        print(f"  depth {item['depth']}: {item['symbol']}  {path}:{item['range']['start']['line'] + 1}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

"""Minified bundles, source maps, compiled output and generated files rank below a normal file that holds the same
token, for every kind of question (SPEC §6), on real files indexed by the real engine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from maguyva_lsp.config import Settings
from maguyva_lsp.engine import Engine
from maguyva_lsp.model import PathClass
from tests.unit.scan.test_generated import MINIFIED_BODY

SOURCE = """'use strict';

const MAX_RETRIES = 3;

function retryRequest(request, attempts) {
  if (attempts > MAX_RETRIES) {
    throw new Error('ECONNRESET: too many retries');
  }
  return request();
}

module.exports = { retryRequest };
"""
MINIFIED = (
    MINIFIED_BODY + ';function retryRequest(r,a){if(a>3)throw new Error("ECONNRESET: too many retries");return r()}'
)
FILES = {
    "src/retry.js": SOURCE,
    # a bundle named like a source file, behind a license banner, with its map
    "public/app.js": f"/*! app v1.0.0 | (c) 2024 Example | MIT */\n{MINIFIED}\n//# sourceMappingURL=app.js.map\n",
    "public/app.js.map": '{"version":3,"sources":["../src/retry.js"],"names":["retryRequest"],"mappings":"AAAA"}\n',
    "static/vendor.min.js": MINIFIED + "\n",
    # compiled output beside its source, and a generated client
    "lib/retry.js": SOURCE.replace("'use strict';", '"use strict";') + "//# sourceMappingURL=retry.js.map\n",
    "src/client_pb.js": (
        "// GENERATED CODE -- DO NOT EDIT!\n\nfunction retryRequest() { return 'ECONNRESET: too many retries'; }\n"
    ),
}
NOISE = ("public/app.js", "public/app.js.map", "static/vendor.min.js", "lib/retry.js", "src/client_pb.js")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    root = tmp_path_factory.mktemp("demotion")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    engine = Engine(root, Settings(index_dir=str(root.parent / f"{root.name}-index")), persist=False)
    engine.index()
    yield engine
    engine.close()


def test_generated_files_are_classified_as_build_output(engine: Engine) -> None:
    assert engine.path_class("src/retry.js") is PathClass.SOURCE
    assert {path: engine.path_class(path) for path in NOISE} == dict.fromkeys(NOISE, PathClass.BUILD)


@pytest.mark.parametrize(
    "query",
    [
        "retryRequest",
        "where is retryRequest defined",
        "function retryRequest",
        '"too many retries"',
        "Error: ECONNRESET: too many retries",
        "how are requests retried after a connection reset",
    ],
)
def test_the_normal_file_comes_first(engine: Engine, query: str) -> None:
    results = engine.search(query, limit=20).results
    assert results, query
    assert results[0].path == "src/retry.js", [(r.path, r.span.start_line) for r in results]
    found = [r.path for r in results]
    for path in NOISE:  # still found (demoted, not dropped), after the source
        if path in found:
            assert found.index(path) > found.index("src/retry.js")


def test_workspace_symbols_put_the_normal_definition_first(engine: Engine) -> None:
    paths = [d.path for _score, d in engine.workspace_symbols("retryRequest", 10)]
    assert paths[0] == "src/retry.js"
    assert set(paths) >= {"src/retry.js", "public/app.js", "static/vendor.min.js"}

"""The cached and the columnar resolvers against the plain one, reference by reference, on real files (this
package's graph code and a stdlib package, parsed for real): the same uses in the same order, the same weights and
the same dependency keys, file after file of one pass (the memo shared as a build shares it)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import numpy as np
from graph_project import analyze_path

import maguyva_lsp
from maguyva_lsp.graph.batch import resolve_rows
from maguyva_lsp.graph.build import ResolutionIndex, empty_snapshot
from maguyva_lsp.graph.inputs import GraphInput, ReferenceRows
from maguyva_lsp.graph.model import EDGE_KIND_OF, EDGE_KINDS, RESOLUTIONS
from maguyva_lsp.graph.modules import is_init_file, module_keys
from maguyva_lsp.graph.records import DepKey, FileRecord, build_record
from maguyva_lsp.graph.resolve import _Resolver, resolve_references
from maguyva_lsp.graph.segment import SegmentBuilder, decode_dep
from maguyva_lsp.graph.strings import StringTable
from maguyva_lsp.model import FileAnalysis, Reference, ReferenceKind

Use = tuple[str, str, str, tuple[int, int, int, int], str, float]
KINDS: tuple[ReferenceKind, ...] = ("call", "import", "inherit", "reference")


def _analyses() -> list[FileAnalysis]:
    """Real files with classes, bases, self calls, imports and re-exports: ours and the stdlib's `json`/`email`."""
    ours = Path(maguyva_lsp.__file__).parent
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    out = [analyze_path(ours.parent, p.relative_to(ours.parent).as_posix()) for p in sorted(ours.glob("graph/*.py"))]
    for package in ("json", "email"):
        files = sorted((stdlib / package).glob("*.py"))
        out.extend(analyze_path(stdlib, p.relative_to(stdlib).as_posix()) for p in files)
    return [a for a in out if a.references]


def _index(records: dict[str, FileRecord]) -> ResolutionIndex:
    """A pass over these files as a rebuild makes it (a fresh index: the memo starts empty)."""
    packages = {p.rpartition("/")[0] for p, r in records.items() if is_init_file(p, r.system)} - {""}
    keys = {p: module_keys(p, r.system, packages.__contains__) for p, r in records.items()}
    return ResolutionIndex(empty_snapshot(StringTable.empty()), dict(records), keys)


def _plain(index: ResolutionIndex, record: FileRecord) -> tuple[list[Use], set[DepKey]]:
    """Every reference resolved on its own, nothing cached: the resolver as it was."""
    deps: set[DepKey] = set()
    resolver = _Resolver(index, record, deps)
    uses: list[Use] = []
    for ref in record.references:
        source = resolver.source_of(ref)
        for t in resolver.reference(ref):
            if t.node_id in index.nodes:
                span = (ref.span.start_line, ref.span.start_col, ref.span.end_line, ref.span.end_col)
                uses.append((source, t.node_id, EDGE_KIND_OF[ref.kind], span, t.resolution, t.weight))
    return uses, deps


def _cached(index: ResolutionIndex, record: FileRecord) -> tuple[list[Use], set[DepKey]]:
    resolved = resolve_references(index, record, record.references)
    uses: list[Use] = []
    for s, t, site in resolved.edges:
        if t in index.nodes:
            span = (site.span.start_line, site.span.start_col, site.span.end_line, site.span.end_col)
            uses.append((s, t, site.kind, span, site.resolution, site.weight))
    return uses, resolved.deps


def _rows(references: tuple[Reference, ...]) -> ReferenceRows:
    """The references as a segment's columns hold them: ids into a pool that ends with None."""
    pool: list[str | None] = []
    ids: dict[str, int] = {}

    def sid(text: str | None) -> int:
        if text is None:
            return -1
        if text not in ids:
            ids[text] = len(pool)
            pool.append(text)
        return ids[text]

    def column(values: list[int]) -> np.ndarray:
        return np.array(values, dtype=np.int32)

    return ReferenceRows(
        names=column([sid(r.name) for r in references]),
        kinds=np.array([KINDS.index(r.kind) for r in references], dtype=np.uint8),
        enclosing=column([sid(r.enclosing) for r in references]),
        receivers=column([sid(r.receiver) for r in references]),
        modules=column([sid(r.module) for r in references]),
        aliases=column([sid(r.alias) for r in references]),
        spans=np.array([[r.span.start_line, r.span.start_col, r.span.end_line, r.span.end_col] for r in references])
        .reshape(-1, 4)
        .astype(np.uint16),
        pool=[*pool, None],
        kind_names=KINDS,
    )


def _columnar(index: ResolutionIndex, record: FileRecord, builder: SegmentBuilder) -> tuple[list[Use], set[DepKey]]:
    table = builder.strings.table
    c = resolve_rows(index, record, _rows(record.references), 3, builder)
    assert set(c["sites.file"].tolist()) <= {3} and set(c["deps.file"].tolist()) <= {3}
    assert c["deps.key"].tolist() == sorted(c["deps.key"].tolist())
    text = table.text
    uses = [
        (text(s), text(t), EDGE_KINDS[k], (a, b, e, f), RESOLUTIONS[r], w)
        for s, t, k, (a, b, e, f), r, w in zip(
            c["sites.source"].tolist(),
            c["sites.target"].tolist(),
            c["sites.kind"].tolist(),
            c["sites.span"].tolist(),
            c["sites.resolution"].tolist(),
            c["sites.weight"].tolist(),
            strict=True,
        )
    ]
    return uses, {decode_dep(table, key) for key in c["deps.key"].tolist()}


def test_cached_and_columnar_resolution_equal_the_plain_resolver_on_real_files() -> None:
    analyses = _analyses()
    records = {a.path: build_record(GraphInput.of(a)) for a in analyses}
    plain, cached, columnar = _index(records), _index(records), _index(records)
    builder = SegmentBuilder(StringTable.empty())  # one for all files, as a worker's share (its caches span files)
    repeated = total = 0
    for path in sorted(records):
        record = records[path]
        expected = _plain(plain, record)
        assert _cached(cached, record) == expected, path
        assert _columnar(columnar, record, builder) == expected, path
        total += len(record.references)
        repeated += len(record.references) - len({(r.kind, r.name, r.receiver, r.enclosing) for r in record.references})
    # The files exercise what the caches skip: references equal in all but their span, many of them.
    assert total > 5000 and repeated > total / 5


def test_a_file_without_references_gives_empty_columns() -> None:
    analyses = _analyses()
    records = {a.path: build_record(GraphInput.of(a)) for a in analyses}
    index = _index(records)
    record = records[sorted(records)[0]]
    columns = resolve_rows(index, record, _rows(()), 0, SegmentBuilder(StringTable.empty()))
    assert all(len(column) == 0 for column in columns.values())
    assert columns["sites.span"].shape == (0, 4)

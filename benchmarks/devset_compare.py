"""Two dev-set runs side by side: per family and per query form (lMRR, lR@20, fMRR, fR@10, intent), workspace/symbol
per language, and the questions whose answer changed. For the before/after tables of a ranking or parsing change.

    .venv/bin/python benchmarks/devset_compare.py BEFORE.json AFTER.json [--system "maguyva standard"] [--changed N]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.devset_report import WORKSPACE_SYMBOL, headline
from benchmarks.devset_scoring import FAMILIES, FILE_ONLY_FAMILIES

METRICS = ("lMRR", "lR@20", "fMRR", "fR@10")


def _pair(before: float | None, after: float | None) -> str:
    if before is None and after is None:
        return "—"
    if before is None or after is None:
        return f"{before if before is not None else '—'} → {after if after is not None else '—'}"
    mark = "" if abs(after - before) < 5e-4 else (" ▲" if after > before else " ▼")
    return f"{before:.3f} → {after:.3f}{mark}"


def _rows(before: dict[str, Any], after: dict[str, Any], system: str) -> list[list[str]]:
    rows = []
    intents_b = before["intents"].get(system, {})
    intents_a = after["intents"].get(system, {})
    for family in FAMILIES:
        b = before["families"].get(system, {}).get(family)
        a = after["families"].get(system, {}).get(family)
        if not (a or b):
            continue
        cells = [_pair((b or {}).get(m), (a or {}).get(m)) for m in METRICS]
        intent = _pair(intents_b.get("by_family", {}).get(family), intents_a.get("by_family", {}).get(family))
        rows.append([family, *cells, intent])
        forms = sorted(set(before["forms"].get(system, {}).get(family, {})) | set(after["forms"].get(system, {}).get(
            family, {})))  # fmt: skip
        for form in forms if len(forms) > 1 else []:
            fb = before["forms"].get(system, {}).get(family, {}).get(form, {})
            fa = after["forms"].get(system, {}).get(family, {}).get(form, {})
            ib = intents_b.get("by_form", {}).get(family, {}).get(form)
            ia = intents_a.get("by_form", {}).get(family, {}).get(form)
            rows.append([f"  / {form}", *[_pair(fb.get(m), fa.get(m)) for m in METRICS], _pair(ib, ia)])
    return rows


def _languages(before: dict[str, Any], after: dict[str, Any], system: str) -> list[list[str]]:
    rows = []
    for name in (system, WORKSPACE_SYMBOL):
        langs = sorted(set(before["languages"].get(name, {})) | set(after["languages"].get(name, {})))
        for lang in langs:
            b = before["languages"].get(name, {}).get(lang, {}).get("find_definition", {})
            a = after["languages"].get(name, {}).get(lang, {}).get("find_definition", {})
            if a or b:
                rows.append([f"{name} / {lang}", _pair(b.get("lMRR"), a.get("lMRR")), _pair(b.get("lR@20"),
                             a.get("lR@20"))])  # fmt: skip
    return rows


def _changed(before: dict[str, Any], after: dict[str, Any], system: str, limit: int) -> list[str]:
    old = {r["id"]: r for r in before["queries"]}
    out = []
    for row in after["queries"]:
        was = old.get(row["id"], {}).get("systems", {}).get(system)
        now = row["systems"].get(system)
        if not was or not now:
            continue
        key = "frr" if row["family"] in FILE_ONLY_FAMILIES else "lrr"
        if abs((now[key] or 0) - (was[key] or 0)) > 1e-9:
            query = row["query"].replace("\n", "⏎")[:70]
            out.append(f"  {row['id']} {query!r}: {was[key]:.3f} → {now[key]:.3f} [{was.get('intent')} → "
                       f"{now.get('intent')}] top now {', '.join(now['top'][:2])}")  # fmt: skip
    return out[:limit]


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)) for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render(before: dict[str, Any], after: dict[str, Any], system: str, changed: int) -> str:
    parts = [
        f"{system}: before → after (▲▼: a change of at least 0.0005; headline: lMRR, understand_code "
        f"{headline('understand_code')})",
        _table(["family / form", *METRICS, "intent"], _rows(before, after, system)),
        _table(["find_definition by language", "lMRR", "lR@20"], _languages(before, after, system)),
    ]
    lines = _changed(before, after, system, changed)
    parts.append(f"questions whose headline score changed ({len(lines)} shown):\n" + "\n".join(lines))
    return "\n\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--system", default="maguyva standard")
    parser.add_argument("--changed", type=int, default=40, help="list at most this many changed questions")
    args = parser.parse_args(argv)
    before = json.loads(args.before.read_text(encoding="utf-8"))
    after = json.loads(args.after.read_text(encoding="utf-8"))
    print(render(before, after, args.system, args.changed))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``link --update`` adding a snapshot to a synthetic family, against linking that derivation alone.

A synthetic family of ``--items`` items (:mod:`croissant_lineage.testing.synthetic`) is
linked and written without a snapshot of its largest child (``syn-pro``); the same spec
plus the snapshot (``syn-pro@2``: the same descriptor, ``snapshot`` by id) is then written
with ``update=True``. Baselines of the same run, each a fresh interpreter:

* **derivation alone**: ``write_lineage`` of a spec holding only the snapshot and its
  parent (load both, link the one derivation, write the folder);
* **full link**: ``write_lineage`` of the whole spec with the snapshot.

The family without the snapshot is linked once into ``WORK/base`` (kept: a later run
with the same ``--work`` reuses it) and copied to the folder each update rewrites.
The update's folder is checked to hold the full link's tables (content), and the ratios
are printed::

    python3 benchmarks/bench_update.py [--items 200000] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from common import REPO, python_subprocess

sys.path.insert(0, REPO)  # (this tree's package, run as a script)

SNAPSHOT, PARENT = "syn-pro@2", "syn-pro"

_RUN = (
    "import time as _t, resource as _r, json as _json\n"
    "_w, _c = _t.perf_counter(), _t.process_time()\n"
    "from croissant_lineage.workflows import write_lineage\n"
    "res = write_lineage({spec!r}, {out!r}, update={update!r}, force=True)\n"
    "print(_json.dumps({{'wall': _t.perf_counter() - _w, 'cpu': _t.process_time() - _c,"
    " 'rss_mb': _r.getrusage(_r.RUSAGE_SELF).ru_maxrss / 1024, 'update': res.update}}))\n"
)


def _specs(work: Path, items: int) -> dict[str, Path]:
    """The family's spec without the snapshot, with it, and the snapshot with its parent alone."""
    fam = work / f"synthetic-{items}"
    if not (fam / "family.json").exists():
        python_subprocess(
            "from croissant_lineage.testing.synthetic import generate_family\n"
            f"generate_family({str(fam)!r}, items={items}, seed=0, force=True)\nprint('{{}}')\n", timeout=7200)
    doc = json.loads((fam / "family.json").read_text())
    parent = next(d for d in doc["datasets"] if d["name"] == PARENT)
    snap = {**parent, "name": SNAPSHOT, "iri": parent["iri"] + "@2", "date": "2026-01-01"}
    deriv = {"child": SNAPSHOT, "parent": PARENT, "activity": "snapshot", "link": {"by": "id"}}
    out = {
        "without": {**doc, "name": doc["name"]},
        "with": {**doc, "datasets": [*doc["datasets"], snap], "derivations": [*doc["derivations"], deriv]},
        "alone": {**doc, "datasets": [parent, snap], "derivations": [deriv]},
    }
    paths = {}
    for name, spec in out.items():
        paths[name] = fam / f"bench-update-{name}.json"
        paths[name].write_text(json.dumps(spec, indent=1))
    return paths


def _windows(path: Path, rows: int) -> Iterator[pa.Table]:
    """The rows of a Parquet file ``rows`` at a time, whatever its row groups."""
    held: list[pa.RecordBatch] = []
    for batch in pq.ParquetFile(path).iter_batches(batch_size=rows):
        held.append(batch)
        table = pa.Table.from_batches(held)
        while table.num_rows >= rows:
            yield table.slice(0, rows)
            table = table.slice(rows)
        held = table.to_batches()
    if held:
        yield pa.Table.from_batches(held)


def same_content(a: Path, b: Path, rows: int = 1 << 16) -> bool:
    """Two lineage folders hold the same tables (the same rows in the same order, compared a
    window of ``rows`` at a time: a ten-million-item lineage is never held whole, nor over the
    decompression limit a whole read is held to) and the same summary."""
    for name in ("items.parquet", "edges.parquet", "duplicates.parquet", "unmatched.parquet"):
        fa, fb = pq.ParquetFile(a / name), pq.ParquetFile(b / name)
        if fa.metadata.num_rows != fb.metadata.num_rows or not fa.schema_arrow.equals(fb.schema_arrow):
            return False
        if not all(x.equals(y) for x, y in zip(_windows(a / name, rows), _windows(b / name, rows), strict=True)):
            return False
    summaries = [{k: v for k, v in json.loads((p / "summary.json").read_text()).items() if k != "generator"}
                 for p in (a, b)]
    return summaries[0] == summaries[1]


def run(work: Path, items: int, *, base_only: bool = False) -> dict[str, Any]:
    specs = _specs(work, items)
    base, upd, full, alone = work / "base", work / "updated", work / "full", work / "alone"

    def go(spec: Path, out: Path, update: bool = False) -> dict[str, Any]:
        return python_subprocess(_RUN.format(spec=str(specs[spec] if isinstance(spec, str) else spec), out=str(out),
                                             update=update), timeout=7200)

    if not (base / "inputs.json").exists():  # (the lineage to update, linked once and kept; not timed)
        go("without", base)
    shutil.rmtree(upd, ignore_errors=True)
    shutil.copytree(base, upd)
    if base_only:
        return {}
    got = {"update": go("with", upd, update=True), "alone": go("alone", alone), "full": go("with", full)}
    got["same_as_full"] = same_content(upd, full)
    got["items"] = items
    return got


def report(r: dict[str, Any]) -> str:
    base = r["alone"]
    lines = [f"synthetic family of {r['items']:,} items, adding {SNAPSHOT} (a copy of {PARENT}, snapshot by id); "
             f"update content == full link: {r['same_as_full']}",
             "| run | wall | CPU | peak RSS | wall / derivation alone | CPU / derivation alone |",
             "|---|---|---|---|---|---|"]
    for name in ("update", "alone", "full"):
        m = r[name]
        lines.append(f"| {name} | {m['wall']:.2f} s | {m['cpu']:.2f} s | {m['rss_mb']:.0f} MB | "
                     f"{m['wall'] / base['wall']:.2f} | {m['cpu'] / base['cpu']:.2f} |")
    lines.append(f"update said: {r['update']['update']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--items", type=int, default=200_000)
    p.add_argument("--work", type=Path, help="folder for the family and lineages (kept; reused by a later run)")
    p.add_argument("--json", type=Path, help="write the raw figures here")
    p.add_argument("--base-only", action="store_true",
                   help="only link the family without the snapshot into WORK/base (what later runs update a copy of)")
    args = p.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-update-"))
    work.mkdir(parents=True, exist_ok=True)
    r = run(work, args.items, base_only=args.base_only)
    if not r:
        return 0
    print(report(r))
    if args.json:
        args.json.write_text(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One item's query, cold and warm, on the MMLU lineage and a synthetic 1M-item lineage.

For each lineage folder (MMLU linked from ``../shared/data``; a synthetic family of
``--sizes`` items from :mod:`croissant_lineage.testing.synthetic`, generated and linked in
``--work``), and each of ``--items`` items drawn at random (seeded):

* **cold relatives / cold route**: a fresh interpreter reads the item's family
  (:func:`croissant_lineage.lineage.query.family_lineage`, the read ``croissant-lineage
  relatives`` and ``route`` make) and answers one query (``relatives_of`` / ``route``);
  wall and CPU time from before the first import, and the process's peak RSS.
* **cold library route**: the library's entry point given the folder,
  ``route(folder, finding)`` of an ad-hoc finding on the item (target ``item``), as a
  script or a notebook calls it.
* **cold, whole lineage**: the same relatives query the way it was read before the
  reference index (``Lineage.read`` + ``LineageGraph``), for reference.
* **cold resolve**: ``resolve(ref, folder)`` of the lineage enriched (``enrich --family``
  into ``<lineage>-enriched``): the item's family read from the enriched descriptors and
  the files beside them (through their reference indexes), what ``croissant-lineage
  resolve`` runs; **cold resolve whole**: ``Resolver.load`` of every file + its query, for
  reference.
* **baseline**: a fresh interpreter doing ``import croissant_lineage`` and reading the
  item's own rows with pyarrow (``pq.read_table`` of ``items.parquet`` and
  ``edges.parquet`` with ``filters=`` on the item's dataset and id).
* **warm**: in one process, a family read + ``relatives_of`` per item (ms per query); and
  ``resolve`` per item after a first (its readers of the files kept).

Ratios are printed against the baseline of the same run, and the 1M figures against
MMLU's (cost independent of the family's size: target ≤ 1.5x)::

    python3 benchmarks/bench_query.py [--runs 3] [--items 5] [--sizes 1m] [--work DIR] [--measures M,...]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import REPO, python_subprocess

sys.path.insert(0, REPO)  # (this tree's package, run as a script)
DATA = Path(REPO).parent / "shared" / "data"

# Peak RSS of this process's own memory: VmHWM (ru_maxrss keeps, across the exec, the peak of
# the memory the process was forked with: the benchmark's own, which holds a 1M-item sample).
_PEAK = (
    "import resource as _r\n"
    "_hwm = [int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM:')]\n"
    "extra = {'rss_mb': (_hwm[0] if _hwm else _r.getrusage(_r.RUSAGE_SELF).ru_maxrss) / 1024}\n"
)
_CLOCK = "import time as _t; _w, _c = _t.perf_counter(), _t.process_time()\nimport json as _json\n"
_REPORT = "\nprint(_json.dumps({'wall': _t.perf_counter() - _w, 'cpu': _t.process_time() - _c, **extra}))\n"

CODES = {
    "relatives": (
        "from croissant_lineage.lineage.query import family_lineage\n"
        "from croissant_lineage.lineage.graph import LineageGraph, relatives_of\n"
        "r = relatives_of(LineageGraph(family_lineage({folder!r}, {ref!r}, texts=[{ref!r}])), {ref!r}); r.to_dict()\n"
    ),
    "route": (
        "from croissant_lineage.findings.query import route_graph\n"
        "from croissant_lineage.findings.routing import route_item\n"
        "q = route_item(route_graph({folder!r}, [{ref!r}]), {ref!r}); q.to_dict()\n"
    ),
    "library route": (
        "from croissant_lineage.findings.model import Finding, Source\n"
        "from croissant_lineage.findings.routing import route\n"
        "f = Finding(item={ref!r}, target='item', kind='other', source=Source('benchmark', kind='person'))\n"
        "q = route({folder!r}, f); q.to_dict()\n"
    ),
    "whole": (
        "from croissant_lineage.lineage.model import Lineage\n"
        "from croissant_lineage.lineage.graph import LineageGraph, relatives_of\n"
        "r = relatives_of(LineageGraph(Lineage.read({folder!r})), {ref!r}); r.to_dict()\n"
    ),
    "resolve": (
        "from croissant_lineage import resolve\n"
        "r = resolve({ref!r}, {enriched!r}); r.to_dict()\n"
    ),
    "resolve whole": (
        "from croissant_lineage.resolve import Resolver\n"
        "r = Resolver.load({enriched!r}).family({ref!r}); r.to_dict()\n"
    ),
    "baseline": (
        "import croissant_lineage\n"
        "import pyarrow.parquet as pq\n"
        "d, i = {ds!r}, {item!r}\n"
        "a = pq.read_table({folder!r} + '/items.parquet', columns=['dataset', 'item', 'subject', 'stem', 'options', 'key'],"
        " filters=[('dataset', '=', d), ('item', '=', i)])\n"
        "b = pq.read_table({folder!r} + '/edges.parquet', filters=[('child_dataset', '=', d), ('child_item', '=', i)])\n"
        "c = pq.read_table({folder!r} + '/edges.parquet', filters=[('parent_dataset', '=', d), ('parent_item', '=', i)])\n"
    ),
}


def _sample(folder: Path, n: int, seed: int = 0) -> list[str]:
    import pyarrow.parquet as pq

    t = pq.read_table(folder / "items.parquet", columns=["dataset", "item"])
    rng = random.Random(seed)
    rows = [rng.randrange(t.num_rows) for _ in range(n)]
    return [f"{t.column('dataset')[r].as_py()}:{t.column('item')[r].as_py()}" for r in rows]


def _cold(folder: Path, refs: list[str], runs: int, measures: list[str],
          enriched: Path | None = None) -> dict[str, dict[str, float]]:
    """Median wall, CPU and peak RSS per measure over ``runs`` x the items, interleaved."""
    got: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": [], "rss_mb": []} for k in measures}
    for _ in range(runs):
        for ref in refs:
            ds, item = ref.split(":", 1)
            for name in measures:
                code = CODES[name]
                out = python_subprocess(_CLOCK + code.format(folder=str(folder), ref=ref, ds=ds, item=item, enriched=str(enriched))
                                        + _PEAK + _REPORT)
                for k in got[name]:
                    got[name][k].append(out[k])
    return {name: {k: statistics.median(v) for k, v in m.items()} for name, m in got.items()}


def _warm(folder: Path, refs: list[str]) -> tuple[float, float]:
    """Milliseconds per query, wall and CPU: a family read + ``relatives_of`` (the read
    ``croissant-lineage relatives`` makes: the texts of the item asked about only), in one
    process."""
    from croissant_lineage.lineage.graph import LineageGraph, relatives_of
    from croissant_lineage.lineage.query import family_lineage

    relatives_of(LineageGraph(family_lineage(folder, refs[0], texts=[refs[0]])), refs[0])  # (imports, first open)
    start, cpu = time.perf_counter(), time.process_time()
    for ref in refs:
        relatives_of(LineageGraph(family_lineage(folder, ref, texts=[ref])), ref)
    return (time.perf_counter() - start) * 1000 / len(refs), (time.process_time() - cpu) * 1000 / len(refs)


def _warm_resolve(enriched: Path, refs: list[str]) -> tuple[float, float]:
    """Milliseconds per ``resolve`` in one process after a first query, wall and CPU."""
    from croissant_lineage import resolve

    resolve(refs[0], enriched)  # (imports, the readers of the files)
    start, cpu = time.perf_counter(), time.process_time()
    for ref in refs:
        resolve(ref, enriched)
    return (time.perf_counter() - start) * 1000 / len(refs), (time.process_time() - cpu) * 1000 / len(refs)


def _enriched(folder: Path, spec: str) -> Path:
    """The lineage folder enriched (``enrich --family``) beside it, made once."""
    out = folder.parent / f"{folder.name}-enriched"
    if not out.is_dir():
        python_subprocess(
            "from croissant_lineage.enrich import enrich_family\n"
            "from croissant_lineage.lineage.model import Lineage\n"
            f"enrich_family(Lineage.read({str(folder)!r}, records=False), {spec!r}, {str(out)!r})\nprint('{{}}')\n",
            timeout=7200,
        )
    return out


def _mmlu(work: Path) -> Path:
    out = work / "mmlu-lineage"
    if not (out / "summary.json").exists():
        from croissant_lineage.workflows import link

        link("mmlu", data_dir=DATA).write(out)
    return out


def _synthetic(work: Path, items: int) -> Path:
    out = work / f"synthetic-{items}-lineage"
    if not (out / "summary.json").exists():
        python_subprocess(
            "from croissant_lineage.testing.synthetic import generate_family\n"
            "from croissant_lineage.workflows import link\n"
            f"fam = generate_family({str(work / f'synthetic-{items}')!r}, items={items}, seed=0, force=True)\n"
            f"link(fam.spec).write({str(out)!r})\nprint('{{}}')\n",
            timeout=7200,
        )
    return out


def _size(text: str) -> int:
    """``1m``, ``100k``, ``2000``: a number of items."""
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1].lower(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def run(work: Path, sizes: list[str], runs: int, n_items: int, *, mmlu: bool = True,
        measures: list[str] | None = None) -> dict[str, Any]:
    folders = {**({"MMLU": _mmlu(work)} if mmlu else {}), **{s: _synthetic(work, _size(s)) for s in sizes}}
    specs = {label: "mmlu" if label == "MMLU" else str(work / f"synthetic-{_size(label)}" / "family.json")
             for label in folders}
    chosen = [m for m in CODES if measures is None or m in measures or m == "baseline"]  # (in CODES' order)
    results: dict[str, Any] = {}
    for label, folder in folders.items():
        enriched = _enriched(folder, specs[label]) if any(m.startswith("resolve") for m in chosen) else None
        refs = _sample(folder, n_items)
        cold = _cold(folder, refs, runs, chosen, enriched)
        warm_refs = _sample(folder, 200, seed=1)  # (a thousand items' lineage has as many)
        wall, cpu = _warm(folder, warm_refs)
        results[label] = {"cold": cold, "warm_ms": wall, "warm_cpu_ms": cpu, "items_sampled": refs}
        if enriched is not None:
            results[label]["warm_resolve_ms"], results[label]["warm_resolve_cpu_ms"] = _warm_resolve(enriched, warm_refs)
    return results


def report(results: dict[str, Any]) -> str:
    lines = ["| lineage | measure | wall | CPU | peak RSS | ratio to baseline (wall / RSS) |", "|---|---|---|---|---|---|"]
    for label, r in results.items():
        base = r["cold"]["baseline"]
        for name in CODES:
            if name not in r["cold"]:
                continue
            m = r["cold"][name]
            lines.append(f"| {label} | cold {name} | {m['wall']:.2f} s | {m['cpu']:.2f} s | {m['rss_mb']:.0f} MB | "
                         f"{m['wall'] / base['wall']:.2f} / {m['rss_mb'] / base['rss_mb']:.2f} |")
        lines.append(f"| {label} | warm relatives | {r['warm_ms']:.2f} ms per query | {r['warm_cpu_ms']:.2f} ms | | |")
        if "warm_resolve_ms" in r:
            lines.append(f"| {label} | warm resolve | {r['warm_resolve_ms']:.2f} ms per query | "
                         f"{r['warm_resolve_cpu_ms']:.2f} ms | | |")
    mmlu = results.get("MMLU")
    for label, r in results.items():
        if label == "MMLU" or mmlu is None:
            continue
        for name in ("relatives", "route", "library route", "resolve"):
            if name not in r["cold"] or name not in mmlu["cold"]:
                continue
            a, b = r["cold"][name], mmlu["cold"][name]
            lines.append(f"| {label} / MMLU | cold {name} | {a['wall'] / b['wall']:.2f}x | {a['cpu'] / b['cpu']:.2f}x | "
                         f"{a['rss_mb'] / b['rss_mb']:.2f}x | |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--items", type=int, default=5, help="items queried cold per lineage")
    p.add_argument("--sizes", default="1m", help="synthetic sizes, comma-separated (10k, 100k, 1m, 10m); '' for none")
    p.add_argument("--work", type=Path, help="folder for the lineages (kept; reused by a later run)")
    p.add_argument("--json", type=Path, help="write the raw figures here")
    p.add_argument("--measures", default=",".join(CODES),
                   help=f"cold measures, comma-separated, of: {', '.join(CODES)} (the baseline is always measured)")
    p.add_argument("--no-mmlu", action="store_true", help="leave out the MMLU lineage (no real data needed)")
    args = p.parse_args(argv)
    measures = [m for m in args.measures.split(",") if m]
    unknown = sorted(set(measures) - set(CODES))
    if unknown:
        p.error(f"unknown measure(s): {', '.join(unknown)}")
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-query-"))
    work.mkdir(parents=True, exist_ok=True)
    sizes = [s for s in args.sizes.split(",") if s]
    results = run(work, sizes, args.runs, args.items, mmlu=not args.no_mmlu, measures=measures)
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

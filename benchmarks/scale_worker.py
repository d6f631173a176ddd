"""One scale measurement in its own process: link + enrich + a resolve batch.

Usage: ``python benchmarks/scale_worker.py FAMILY_FOLDER WORK_FOLDER [--queries N] [--link-only]``

Prints one JSON object: seconds (wall and CPU) per phase, the item count, and the
process's peak resident memory (``VmHWM``, else ``ru_maxrss``) after each phase. Phases:

* ``link``: :func:`~croissant_lineage.workflows.link` on the family spec, and the
  lineage folder written;
* ``enrich``: :func:`~croissant_lineage.enrich.family.enrich_family` (skipped when absent);
* ``resolve``: :meth:`Resolver.load` of the enriched descriptors and ``N`` queries for
  random items (from the lineage folder when enrich is absent).

With ``--link-only`` only the first phase runs (what the 10M-item measure times).

Imports are done (and timed) before the first phase.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import time
from pathlib import Path
from typing import Any


def _rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB.

    Linux's ``ru_maxrss`` survives ``exec``: a worker started by a big parent reports the
    parent's size. ``VmHWM`` (the high-water mark of this process's own memory) does not.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def query_refs(items: Any, queries: int, seed: int = 0) -> list[str]:
    """``queries`` refs of random rows of the items table (drawn with ``random.Random(seed)``),
    joined for those rows only: no Python list of every ref (0.1 GB at a million items, which
    the process would keep as pages through the phases measured after)."""
    rng = random.Random(seed)
    rows = [rng.randrange(items.num_rows) for _ in range(queries)]
    picked = items.select(["dataset", "item"]).take(rows)
    return [f"{d}:{i}" for d, i in zip(
        picked.column("dataset").to_pylist(), picked.column("item").to_pylist(), strict=True)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("family", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--link-only", action="store_true",
                    help="link + lineage written only (the 10M-item measure: no enrich, no resolve)")
    args = ap.parse_args(argv)
    out: dict[str, Any] = {"phases": {}}
    w0, c0 = time.perf_counter(), time.process_time()
    import pyarrow.parquet  # noqa: F401  (what the first parquet read would import)

    from croissant_lineage.lineage.graph import LineageGraph, relatives_of
    from croissant_lineage.lineage.model import items_without_records
    from croissant_lineage.workflows import link

    try:
        from croissant_lineage.enrich import enrich_family
        from croissant_lineage.resolve import Resolver
    except ImportError:  # pragma: no cover - when run on an older checkout
        enrich_family = None  # type: ignore[assignment]
    out["phases"]["import"] = {"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0, "rss_mb": _rss_mb()}

    def phase(name: str, fn: Any) -> Any:
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        out["phases"][name] = {"wall": time.perf_counter() - w, "cpu": time.process_time() - c, "rss_mb": _rss_mb()}
        return result

    spec = args.family / "family.json"
    lineage_dir = args.work / "lineage"

    def do_link() -> Any:
        lin = link(spec)
        lin.write(lineage_dir, force=True)
        return lin

    lineage = phase("link", do_link)
    out["items"] = items_without_records(lineage).num_rows
    out["edges"] = lineage.edges.num_rows
    if args.link_only:
        out["queries"], out["resolve_from"] = 0, "not run (link only)"
        out["peak_rss_mb"] = _rss_mb()
        print(json.dumps(out))
        return 0
    refs = query_refs(items_without_records(lineage), args.queries)  # without building the raw records
    if enrich_family is not None:
        enriched = args.work / "enriched"
        phase("enrich", lambda: enrich_family(lineage, spec, enriched))
        del lineage

        def do_resolve() -> None:
            r = Resolver.load(enriched)
            for ref in refs:
                r.family(ref)

        phase("resolve", do_resolve)
        out["resolve_from"] = "enriched descriptors"
    else:
        del lineage

        def do_graph() -> None:
            from croissant_lineage.lineage.model import Lineage

            g = LineageGraph(Lineage.read(lineage_dir))
            for ref in refs:
                relatives_of(g, ref)

        phase("resolve", do_graph)
        out["resolve_from"] = "lineage folder (enrich absent)"
    out["queries"] = len(refs)
    out["peak_rss_mb"] = _rss_mb()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""3. Resolve: cold start from enriched descriptors, and warm queries per second.

* **cold start**: a fresh interpreter imports :mod:`croissant_lineage.resolve`, loads the
  enriched descriptors and their files (:meth:`Resolver.load`) and answers one query;
  timed from before the first import to the answer. Baseline: a fresh interpreter
  doing ``import mlcroissant`` and nothing else. (Interpreter start-up itself is left
  out of both.)
* **warm**: :meth:`Resolver.family` for random items (seeded) of a loaded resolver;
  also :func:`croissant_lineage.lineage.graph.relatives_of` on its graph (the same answer without
  the findings lookup).

When enrich is not available, the cold start is measured from the lineage folder
(:meth:`Lineage.read` + :class:`LineageGraph`) instead, and the report says so.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from common import Report, Stat, Target, subprocess_interleaved

from croissant_lineage.lineage.graph import LineageGraph, relatives_of
from croissant_lineage.lineage.model import Lineage


def _refs(lineage: Lineage, n: int, seed: int = 0) -> list[str]:
    ds = lineage.items.column("dataset").to_pylist()
    it = lineage.items.column("item").to_pylist()
    refs = [f"{d}:{i}" for d, i in zip(ds, it, strict=True)]
    rng = random.Random(seed)
    return [refs[rng.randrange(len(refs))] for _ in range(n)]


def _rate(fn: Any, refs: list[str]) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    for r in refs:
        fn(r)
    return len(refs) / (time.perf_counter() - w), len(refs) / max(time.process_time() - c, 1e-9)


def run(
    report: Report, enriched: Path | None, lineage_dir: Path, runs: int, queries: int
) -> None:
    key = "resolve"
    report.section(key, "3. Resolve: cold start and warm queries")
    lineage = Lineage.read(lineage_dir)
    refs = _refs(lineage, queries)
    first = refs[0]
    codes = {"mlcroissant": "import mlcroissant"}
    if enriched is not None:
        codes["resolve"] = (
            "from croissant_lineage.resolve import Resolver\n"
            f"r = Resolver.load({str(enriched)!r})\nr.family({first!r})"
        )
    else:
        report.line("  enrich is not available: cold start measured from the lineage folder instead")
    codes["graph"] = (
        "from croissant_lineage.lineage.graph import LineageGraph, relatives_of\n"
        "from croissant_lineage.lineage.model import Lineage\n"
        f"relatives_of(LineageGraph(Lineage.read({str(lineage_dir)!r})), {first!r})"
    )
    stats = subprocess_interleaved(codes, runs)
    labels = {
        "resolve": "cold: import + Resolver.load(enriched) + 1 query",
        "graph": "cold: import + LineageGraph(Lineage.read(folder)) + 1 query",
        "mlcroissant": "import mlcroissant (fresh interpreter)",
    }
    report.header()
    for name in ("resolve", "graph", "mlcroissant"):
        if name in stats:
            report.time_row(labels[name], stats[name])
    cold = stats["resolve"] if "resolve" in stats else stats["graph"]
    r = (cold.median_wall / stats["mlcroissant"].median_wall, cold.median_cpu / stats["mlcroissant"].median_cpu)
    report.line("  ratios (wall, cpu):")
    report.ratio_row(f"cold start ({cold.name}) / import mlcroissant", *r,
                     target=Target(f"3 resolve cold start ({cold.name}) / import mlcroissant", r[0], "<=", 2.0))
    if "resolve" in stats:
        g = stats["graph"]
        report.ratio_row("cold start (lineage folder) / import mlcroissant",
                         g.median_wall / stats["mlcroissant"].median_wall,
                         g.median_cpu / stats["mlcroissant"].median_cpu)

    if enriched is not None:
        from croissant_lineage.resolve import Resolver

        resolver = Resolver.load(enriched)
        query, graph = resolver.family, resolver.graph
        label = "Resolver.family"
    else:
        graph = LineageGraph(lineage)
        query, label = (lambda ref: relatives_of(graph, ref)), "relatives_of"
    query(first)
    rates: dict[str, Stat] = {label: Stat(label), "relatives_of": Stat("relatives_of")}
    for _ in range(runs):
        for name, fn in ((label, query), ("relatives_of", lambda ref: relatives_of(graph, ref))):
            w, c = _rate(fn, refs)
            rates[name].wall.append(w)
            rates[name].cpu.append(c)
    report.line(f"  warm queries per second, {len(refs):,} random items ({'wall':>6}, {'cpu':>6}):")
    for name, st in rates.items():
        report.line(f"    {name:<56} {st.median_wall:>10,.0f} {st.median_cpu:>10,.0f}")
    report.targets.append(Target(f"3 warm queries/s ({label})", rates[label].median_wall, ">=", 20000.0))
    report.put(key, "cold", {k: s.to_dict() for k, s in stats.items()})
    report.put(key, "cold_ratio", r)
    report.put(key, "warm_qps", {k: {"median_wall": s.median_wall, "median_cpu": s.median_cpu} for k, s in rates.items()})
    report.put(key, "from", "enriched descriptors" if enriched is not None else "lineage folder")

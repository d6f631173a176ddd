"""Where a scale run's memory goes: peak resident memory per phase of link + enrich + resolve.

Usage: ``python benchmarks/scale_memory.py FAMILY_FOLDER WORK_FOLDER [--queries N] [--link-only]
[--records rules]``

Runs what ``scale_worker.py`` runs (link + lineage written, enrich from the lineage folder
or from the in-memory lineage, a resolve batch) while a thread samples this process's
resident memory (``/proc/self/statm``) and pyarrow's allocated bytes every 10 ms. The
linker's steps are wrapped (not changed) to name sub-phases: reading (``load_items``),
sides and normalising (``Side`` lists, normalised stems and options), matching
(``match_text`` / ``id_matches`` and the index-join checks), edge building (``_edges_table``),
duplicates, and the final tables. Prints one JSON object: per phase (and sub-phase,
inclusive of what it calls) the resident memory at its start and end, its peak, and
pyarrow's peak allocation; phases are listed in the order they first ran.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * _PAGE


class Sampler:
    """Samples resident memory and pyarrow's allocation; attributes peaks to open phases."""

    def __init__(self, interval: float = 0.01):
        import pyarrow as pa

        self._pa = pa
        self.interval = interval
        self.stack: list[str] = []
        self.stats: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        rss, arrow = _rss(), self._pa.total_allocated_bytes()
        with self._lock:
            for name in self.stack:
                s = self.stats[name]
                s["peak_rss"] = max(s["peak_rss"], rss)
                s["peak_arrow"] = max(s["peak_arrow"], arrow)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def enter(self, name: str) -> None:
        rss, arrow = _rss(), self._pa.total_allocated_bytes()
        with self._lock:
            s = self.stats.setdefault(name, {"calls": 0, "start_rss": rss, "peak_rss": rss, "start_arrow": arrow,
                                             "peak_arrow": arrow, "seconds": 0.0})
            s["calls"] += 1
            s["_depth"] = s.get("_depth", 0) + 1
            if s["_depth"] == 1:  # (nested or concurrent calls, from the link's threads: timed once)
                s["_t"] = time.perf_counter()
                self.stack.append(name)

    def leave(self, name: str) -> None:
        self._sample()
        with self._lock:
            s = self.stats[name]
            s["_depth"] -= 1
            if s["_depth"]:
                return
            self.stack.remove(name)
            s["end_rss"] = _rss()
            s["end_arrow"] = self._pa.total_allocated_bytes()
            s["seconds"] += time.perf_counter() - s.pop("_t")

    def wrap(self, module: Any, attr: str, name: str) -> None:
        fn = getattr(module, attr)

        def wrapped(*a: Any, **kw: Any) -> Any:
            self.enter(name)
            try:
                return fn(*a, **kw)
            finally:
                self.leave(name)

        setattr(module, attr, wrapped)

    def phase(self, name: str, fn: Callable[[], Any]) -> Any:
        self.enter(name)
        try:
            return fn()
        finally:
            self.leave(name)

    def report(self) -> dict[str, Any]:
        mb = 1 / (1024 * 1024)
        return {
            name: {
                "calls": s["calls"], "seconds": round(s["seconds"], 2),
                "start_mb": round(s["start_rss"] * mb), "peak_mb": round(s["peak_rss"] * mb),
                "end_mb": round(s.get("end_rss", 0) * mb),
                "arrow_start_mb": round(s["start_arrow"] * mb), "arrow_peak_mb": round(s["peak_arrow"] * mb),
                "arrow_end_mb": round(s.get("end_arrow", 0) * mb),
            }
            for name, s in self.stats.items()
        }  # ("_depth" is 0 once every call has returned)


def _instrument(sampler: Sampler) -> None:
    """Name the linker's steps (wrappers around the functions it calls; nothing else changes)."""
    from croissant_lineage import workflows
    from croissant_lineage.lineage import items, model
    from croissant_lineage.linking import linker, sides

    sampler.wrap(workflows, "load_items_packed", "link/read (load_items_packed)")
    sampler.wrap(items, "records_json", "link/read/records (records_json)")
    sampler.wrap(linker, "match_text", "link/match (match_text)")
    sampler.wrap(linker, "id_matches", "link/match (id_matches)")
    sampler.wrap(linker, "check_index_matches", "link/match (index checks)")
    sampler.wrap(linker, "_edges_table", "link/edges (_edges_table)")
    sampler.wrap(linker, "side_duplicates", "link/duplicates (side_duplicates)")
    sampler.wrap(linker, "duplicates_table", "link/duplicates (table)")
    sampler.wrap(linker, "_link_derivations", "link/derivations (all)")
    sampler.wrap(model, "atomic_write_parquet_groups", "write/tables and index (atomic_write_parquet_groups)")
    resolve = importlib.import_module("croissant_lineage.resolve")  # the module, not the function
    sampler.wrap(resolve, "read_tables", "resolve/read (read_tables)")
    sampler.wrap(resolve, "_lineage", "resolve/lineage (_lineage)")
    sampler.wrap(resolve, "LineageGraph", "resolve/graph (LineageGraph)")
    sampler.wrap(resolve, "_touched", "resolve/components (_touched)")
    family = importlib.import_module("croissant_lineage.enrich.family")
    sampler.wrap(family, "items_table", "enrich/items (items_table)")
    sampler.wrap(family, "lineage_table", "enrich/lineage (lineage_table)")
    sampler.wrap(family, "_write_tables", "enrich/write (_write_tables)")
    for prop in ("norm_stems", "norm_options"):
        getter = getattr(sides.Side, prop).fget

        def timed(self: Any, getter: Any = getter, prop: str = prop) -> Any:
            if getattr(self, "_norm" if prop == "norm_stems" else "_norm_opts") is not None:
                return getter(self)
            return sampler.phase(f"link/normalise ({prop})", lambda: getter(self))

        setattr(sides.Side, prop, property(timed))


def _rule_fields(spec_path: Path) -> list[str]:
    """The record fields the family's link rules name (select, blocks, child field)."""
    import re

    from croissant_lineage.family.spec import load_family

    names: dict[str, None] = {}

    def add(expr: Any) -> None:
        if isinstance(expr, list):
            names.update(dict.fromkeys(expr))
        elif isinstance(expr, dict):
            names[expr["field"]] = None
        elif isinstance(expr, str):
            names.update(dict.fromkeys(re.findall(r"\{([^{}]+)\}", expr) or [expr]))

    for d in load_family(spec_path).item_derivations():
        rule = d.link
        if rule is not None:
            for expr in (rule.select, rule.child_block, rule.parent_block, rule.child_field):
                if expr is not None:
                    add(expr)
    return list(names)


def _slim_records(fields: list[str]) -> None:
    """Measure a read that keeps, of each record, only the fields the link rules name:
    what deferring the rest of the raw record (reading it when written) would save.
    Outputs then differ (the items' ``record`` column is cut): for measuring only."""
    from croissant_lineage.lineage import items

    full = items.records_json

    def slim(table: Any) -> Any:
        return full(table.select([c for c in table.column_names if c in fields or c.startswith("_")]))

    items.records_json = slim  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("family", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--link-only", action="store_true", help="stop after link + write")
    ap.add_argument("--enrich-from-folder", action="store_true",
                    help="free the in-memory lineage and enrich from the folder written")
    ap.add_argument("--records", choices=("keep", "rules"), default="keep",
                    help="rules: keep only the record fields the link rules name (measures deferring the rest)")
    args = ap.parse_args(argv)
    import pyarrow.parquet  # noqa: F401

    from croissant_lineage.enrich import enrich_family
    from croissant_lineage.lineage.model import items_without_records
    from croissant_lineage.resolve import Resolver
    from croissant_lineage.workflows import link

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scale_worker import query_refs

    spec = args.family / "family.json"
    if args.records == "rules":
        _slim_records(_rule_fields(spec))
    sampler = Sampler()
    _instrument(sampler)
    sampler.start()
    lineage_dir, enriched = args.work / "lineage", args.work / "enriched"
    lineage = sampler.phase("link", lambda: link(spec))
    sampler.phase("write", lambda: lineage.write(lineage_dir, force=True))
    items = items_without_records(lineage)  # without building the raw records held packed
    packed = lineage.__dict__.get("_packed") or ()
    out: dict[str, Any] = {"items": items.num_rows, "edges": lineage.edges.num_rows, "records": args.records,
                           "record_mb": round(items.column("record").nbytes / (1024 * 1024)),
                           "record_packed_mb": round(sum(p.nbytes for p in packed) / (1024 * 1024)),
                           "record_packed_in_memory_mb": round(sum(p.memory for p in packed) / (1024 * 1024)),
                           "items_mb": round(items.nbytes / (1024 * 1024))}
    if not args.link_only:
        refs = query_refs(items, args.queries)
        del items
        source: Any = lineage
        if args.enrich_from_folder:
            del lineage
            source = lineage_dir
        sampler.phase("enrich", lambda: enrich_family(source, spec, enriched, force=True))
        del source
        lineage = None

        def do_resolve() -> None:
            r = Resolver.load(enriched)
            for ref in refs:
                r.family(ref)

        sampler.phase("resolve", do_resolve)
    sampler.stop()
    out["phases"] = sampler.report()
    with open("/proc/self/status", encoding="ascii") as fh:
        out["VmHWM_mb"] = next(round(int(x.split()[1]) / 1024) for x in fh if x.startswith("VmHWM:"))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

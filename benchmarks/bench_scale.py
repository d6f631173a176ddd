"""5. Scale: a synthetic family at several sizes; time per item and peak memory.

Each size's family is generated once (:func:`croissant_lineage.testing.synthetic.generate_family`,
in its own process, not timed here), then measured in a fresh process per run
(``scale_worker.py``: link + lineage written, enrich, a resolve batch). Time per item
is the sum of the three phases divided by the item count; peak memory is the worker's
``VmHWM`` (its own high-water mark; ``ru_maxrss`` would include its parent's size).

Sizes of :data:`LINK_ONLY_FROM` items and more (``--sizes 10m``) are linked only (link +
lineage written, what the 10M-item target measures): their link time per item is
compared with the link time per item of the largest fully measured size, and their peak
with :data:`PEAK_LINK_ONLY_MB`. Targets: at 1M items, peak <= 1.2 GB and time per
item <= 1.1x that at 10k; at 10M, link time per item <= 1.2x that at 1M and peak <= 8 GB.
"""

from __future__ import annotations

import itertools
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import REPO, Report, Target, fmt_s, python_subprocess

from croissant_lineage._io import atomic_write_json

PHASES = ("link", "enrich", "resolve")
#: Sizes from this many items on are linked only (no enrich, no resolve batch).
LINK_ONLY_FROM = 5_000_000
#: Peak memory targets (MiB): link + enrich + resolve at 1M items (1.2 GB); link alone at 10M (8 GB).
PEAK_1M_MB = 1.2 * 1024
PEAK_LINK_ONLY_MB = 8 * 1024


def generate(folder: Path, items: int, seed: int = 0) -> dict[str, Any]:
    """Generate (or reuse) the synthetic family of ``items`` items in ``folder``."""
    manifest = folder / "synthetic.json"
    if manifest.is_file():
        done = json.loads(manifest.read_text(encoding="utf-8"))
        if done.get("seed") == seed and done.get("requested") == items:
            return dict(done)
    code = (
        "import json, time\nfrom croissant_lineage.testing.synthetic import generate_family\n"
        f"w = time.perf_counter()\nr = generate_family({str(folder)!r}, {items}, seed={seed}, force=True)\n"
        "print(json.dumps({**r.to_dict(), 'seconds': time.perf_counter() - w}))"
    )
    out = python_subprocess(code, timeout=6 * 3600)
    # Remember what was asked for, so a later run can reuse the folder.
    done = {**json.loads(manifest.read_text(encoding="utf-8")), "requested": items}
    atomic_write_json(manifest, done)
    return {**done, "seconds": out["seconds"]}


def measure(family: Path, work: Path, queries: int, *, link_only: bool = False) -> dict[str, Any]:
    """One worker run; returns its JSON."""
    proc = subprocess.run(
        [sys.executable, str(Path(REPO) / "benchmarks" / "scale_worker.py"), str(family), str(work),
         "--queries", str(queries), *(["--link-only"] if link_only else [])],
        capture_output=True, text=True, timeout=6 * 3600, cwd=REPO,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"scale worker failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def run(report: Report, sizes: list[int], runs_for: Any, work: Path, queries: int) -> None:
    key = "scale"
    report.section(key, "5. Scale: synthetic family, link + enrich + resolve batch")
    report.line(f"  {'items':>10} {'runs':>4} {'link':>9} {'enrich':>9} {'resolve':>9} {'total':>9} "
                f"{'per item':>9} {'cpu/item':>9} {'peak RSS':>9}")
    rows = []
    for size in sizes:
        folder = work / f"synthetic-{size}"
        gen = generate(folder, size)
        runs = runs_for(size)
        results = []
        for _ in range(runs):
            t = time.perf_counter()
            results.append(measure(folder, work / f"out-{size}", queries, link_only=size >= LINK_ONLY_FROM))
            results[-1]["worker_wall"] = time.perf_counter() - t
        items = results[0]["items"]

        def med(phase: str, what: str, results: list[dict[str, Any]] = results) -> float:
            vals = [r["phases"][phase][what] for r in results if phase in r["phases"]]
            return statistics.median(vals) if vals else 0.0

        total = statistics.median(sum(r["phases"][p]["wall"] for p in PHASES if p in r["phases"]) for r in results)
        total_cpu = statistics.median(sum(r["phases"][p]["cpu"] for p in PHASES if p in r["phases"]) for r in results)
        peak = max(r["peak_rss_mb"] for r in results)
        row = {
            "size": size, "items": items, "edges": results[0]["edges"], "runs": runs,
            "generated_in_s": gen.get("seconds"),
            "phases_wall": {p: med(p, "wall") for p in PHASES},
            "phases_cpu": {p: med(p, "cpu") for p in PHASES},
            "import_wall": med("import", "wall"),
            "total_wall": total, "total_cpu": total_cpu,
            "per_item_us": total / items * 1e6, "per_item_cpu_us": total_cpu / items * 1e6,
            "peak_rss_mb": peak, "queries": results[0]["queries"], "resolve_from": results[0]["resolve_from"],
            "link_only": size >= LINK_ONLY_FROM,
            "link_per_item_us": med("link", "wall") / items * 1e6,
            "link_per_item_cpu_us": med("link", "cpu") / items * 1e6,
            "raw": results,
        }
        rows.append(row)
        later = ("-", "-") if row["link_only"] else (fmt_s(row["phases_wall"]["enrich"]), fmt_s(row["phases_wall"]["resolve"]))
        report.line(
            f"  {items:>10,} {runs:>4} {fmt_s(row['phases_wall']['link']):>9} {later[0]:>9} {later[1]:>9} "
            f"{fmt_s(total):>9} {row['per_item_us']:>7.1f}us {row['per_item_cpu_us']:>7.1f}us {peak:>7.0f}MB"
        )
    report.line(f"  (resolve batch = load + {rows[0]['queries']:,} random queries, from {rows[0]['resolve_from']}; "
                "imports excluded, timed apart"
                + (f"; from {LINK_ONLY_FROM:,} items on, link + lineage written only)" if any(r["link_only"] for r in rows) else ")"))
    report.put(key, "rows", rows)
    full = [r for r in rows if not r["link_only"]]
    _full_ratios(report, key, full)
    _link_only_ratios(report, key, full, [r for r in rows if r["link_only"]])


def _full_ratios(report: Report, key: str, rows: list[dict[str, Any]]) -> None:
    """Time per item of the biggest fully measured size against the smallest; marginal costs; 1M peak."""
    if len(rows) >= 2:
        small, big = rows[0], rows[-1]
        r = big["per_item_us"] / small["per_item_us"]
        rc = big["per_item_cpu_us"] / small["per_item_cpu_us"]
        report.line("  ratios (wall, cpu):")
        target = Target(f"5 time per item at {big['items']:,} / at {small['items']:,}", r, "<=", 1.1) \
            if big["size"] >= 1_000_000 and small["size"] <= 10_000 else None
        report.ratio_row(f"time per item, {big['items']:,} items / {small['items']:,} items", r, rc, target=target)
        report.put(key, "per_item_ratio", [r, rc])
        # Fixed costs (reading descriptors, first calls) flatter the big size in the ratio
        # above; the marginal cost per item between two sizes does not.
        marginal = []
        for a, b in itertools.pairwise(rows):
            m = (b["total_wall"] - a["total_wall"]) / (b["items"] - a["items"]) * 1e6
            mc = (b["total_cpu"] - a["total_cpu"]) / (b["items"] - a["items"]) * 1e6
            marginal.append({"from": a["items"], "to": b["items"], "us_per_item": m, "cpu_us_per_item": mc})
            report.line(f"  marginal time per item from {a['items']:,} to {b['items']:,} items: "
                        f"{m:.1f} us (cpu {mc:.1f} us)")
        report.put(key, "marginal", marginal)
    for row in rows:
        if row["size"] >= 1_000_000:
            report.targets.append(Target(f"5 peak memory at {row['items']:,} items (MB)", row["peak_rss_mb"], "<=", PEAK_1M_MB))


def _link_only_ratios(report: Report, key: str, full: list[dict[str, Any]], link_only: list[dict[str, Any]]) -> None:
    """Link time per item of each link-only size against the biggest fully measured size; its peak."""
    if not link_only:
        return
    base = full[-1] if full else None
    out = []
    for row in link_only:
        report.targets.append(Target(f"5 peak memory, link only, at {row['items']:,} items (MB)",
                                     row["peak_rss_mb"], "<=", PEAK_LINK_ONLY_MB))
        if base is None:
            continue
        r = row["link_per_item_us"] / base["link_per_item_us"]
        rc = row["link_per_item_cpu_us"] / base["link_per_item_cpu_us"]
        report.ratio_row(f"link time per item, {row['items']:,} items / {base['items']:,} items", r, rc,
                         target=Target(f"5 link time per item at {row['items']:,} / at {base['items']:,}", r, "<=", 1.2))
        out.append({"items": row["items"], "base_items": base["items"], "ratio": [r, rc]})
    report.put(key, "link_only_ratio", out)

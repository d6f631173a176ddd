"""``enrich --family --runner beam`` (Beam's local Python runner) vs the local enrichment.

For each size, a synthetic family (generated once and linked once, not timed) is enriched
into a folder, each run in a fresh process: the local ``enrich_family``, then Beam's
local runner in multi-process mode with 1 and with 2 worker processes. Per run: wall
time (the process's own clock, imports included), CPU time of the whole process tree,
peak summed RSS of the tree and the largest ``VmHWM`` of any Beam worker (sampled from
``/proc`` every 0.1 s, :class:`bench_beam._Sampler`), and the CPU seconds of the launching
process and of each worker. The three output folders are compared byte for byte.

Run by hand from a venv with the ``beam`` extra, e.g.
``PYTHONPATH=$PWD /work/venv-beam/bin/python benchmarks/bench_beam_enrich.py --sizes 100000,1000000``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_beam import _digest, run_python
from bench_scale import generate

TIME = "2025-01-01T00:00:00Z"

#: The runs of each size: name -> ``workflows.enrich_family`` keyword arguments.
RUNS: dict[str, dict[str, Any]] = {
    "local": {},
    "beam-1": {"runner": "beam", "pipeline_options": {"direct_running_mode": "multi_processing", "direct_num_workers": 1}},
    "beam-2": {"runner": "beam", "pipeline_options": {"direct_running_mode": "multi_processing", "direct_num_workers": 2}},
}


def measure(spec: Path, lineage: Path, out: Path, kwargs: dict[str, Any]) -> dict[str, Any]:
    """One enrichment in a fresh process; its times, memory and the folder's digest."""
    code = (
        "from croissant_lineage.workflows import enrich_family\n"
        f"r = enrich_family({str(lineage)!r}, {str(spec)!r}, {str(out)!r}, time={TIME!r}, force=True, **{kwargs!r})\n"
        "extra = {'items': sum(d.items for d in r.descriptors), 'edges': r.edges, 'descriptors': len(r.descriptors)}\n"
    )
    return {**run_python(code), "digest": _digest(out)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000,1000000", help="comma-separated item counts")
    ap.add_argument("--work", default="/tmp/bench-beam-enrich", help="scratch folder")
    args = ap.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {[round(x, 2) for x in os.getloadavg()]}")
    print(f"{'items':>10} {'run':<7} {'wall':>8} {'tree cpu':>9} {'tree peak':>10} {'worker peak':>12} "
          f"{'same':>5}  cpu: main | workers  (load avg)")
    for size in (int(s) for s in args.sizes.split(",")):
        folder = work / f"synthetic-{size}"
        generate(folder, size)
        lineage = work / f"lineage-{size}"
        if not (lineage / "summary.json").is_file():
            run_python(f"from croissant_lineage.workflows import write_lineage\n"
                    f"write_lineage({str(folder / 'family.json')!r}, {str(lineage)!r}, force=True)\n")
        results: dict[str, dict[str, Any]] = {}
        for name, kwargs in RUNS.items():
            r = results[name] = measure(folder / "family.json", lineage, work / f"enriched-{size}-{name}", kwargs)
            same = r["digest"] == results["local"]["digest"]
            print(f"{r['items']:>10,} {name:<7} {r['wall']:>7.1f}s {r['tree_cpu']:>8.1f}s "
                  f"{r['tree_peak_rss_mb']:>8.0f}MB {r['worker_peak_rss_mb']:>10.0f}MB {'yes' if same else 'NO':>5}  "
                  f"{r['main_cpu']:.1f} | {', '.join(f'{c:.1f}' for c in r['worker_cpu']) or '-'}  "
                  f"{[round(x, 2) for x in os.getloadavg()]}", flush=True)
        print(json.dumps({"size": size, "results": results}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

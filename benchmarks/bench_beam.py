"""7. Past one machine: ``link --runner beam`` (Beam's local Python runner) vs the local linker.

For each size, a synthetic family (:func:`croissant_lineage.testing.synthetic.generate_family`,
generated once, not timed) is linked and its lineage folder written, each run in a fresh
process: the local linker, then Beam's local runner in multi-process mode with 1 and with
2 worker processes. Per run: wall time (the process's own clock, imports included), CPU
time of the whole process tree (``RUSAGE_CHILDREN`` of this process around the run), and
memory sampled from ``/proc`` every 0.1 s: the peak of the tree's summed RSS, and the
largest ``VmHWM`` (own high-water mark) of any one Beam worker process. The lineage
folders of the three runs are compared byte for byte. Beside the worker peak, the family's
largest dataset and largest block (rows, and the Arrow size of their items), which bound it
before and after the read step was sharded.

Needs the ``beam`` extra (``pip install '.[beam]'``: pyarrow < 26, so run it from a venv of
its own); without it the section says so and is skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bench_scale import generate
from common import CLOCK, REPO, REPORT, Report, Target, fmt_s, python_subprocess

#: The runs of each size: name -> ``write_lineage`` keyword arguments.
RUNS: dict[str, dict[str, Any]] = {
    "local": {},
    "beam-1": {"runner": "beam", "pipeline_options": {"direct_running_mode": "multi_processing", "direct_num_workers": 1}},
    "beam-2": {"runner": "beam", "pipeline_options": {"direct_running_mode": "multi_processing", "direct_num_workers": 2}},
}


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _proc_tree(root: int) -> dict[int, tuple[str, int, int, float]]:
    """``pid -> (command line, RSS kB, VmHWM kB, CPU s)`` of ``root`` and its descendants."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                parents[int(entry)] = int(fields[1])
                cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / _TICK  # utime + stime
            except (OSError, ValueError, IndexError):
                continue
    tree, frontier = {root}, [root]
    while frontier:
        kids = [p for p, pp in parents.items() if pp in frontier and p not in tree]
        tree.update(kids)
        frontier = kids
    out: dict[int, tuple[str, int, int, float]] = {}
    for pid in tree:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
                fields = dict(line.split(":", 1) for line in fh if ":" in line)
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
            out[pid] = (cmd, int(fields.get("VmRSS", "0 kB").split()[0]), int(fields.get("VmHWM", "0 kB").split()[0]),
                        cpu.get(pid, 0.0))
        except (OSError, ValueError):
            continue
    return out


class _Sampler(threading.Thread):
    """Samples a process tree's memory until stopped."""

    def __init__(self, root: int):
        super().__init__(daemon=True)
        self.root = root
        self.tree_peak_kb = 0
        self.worker_hwm_kb: dict[int, int] = {}
        self.worker_cpu: dict[int, float] = {}
        self.main_cpu = 0.0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            tree = _proc_tree(self.root)
            self.tree_peak_kb = max(self.tree_peak_kb, sum(t[1] for t in tree.values()))
            for pid, (cmd, _rss, hwm, cpu) in tree.items():
                if "sdk_worker_main" in cmd and "python" in cmd.split(" ", 1)[0]:  # not Popen's shell
                    self.worker_hwm_kb[pid] = max(self.worker_hwm_kb.get(pid, 0), hwm)
                    self.worker_cpu[pid] = cpu
                elif pid == self.root:
                    self.main_cpu = cpu
            time.sleep(0.1)


#: What bounds a worker: the family's largest dataset, shard and block (child and parent
#: rows of one derivation's block), as rows and as the Arrow size of their items (the
#: ``record`` column included), from the local run's items.parquet.
_SIZES = """
import json
import pyarrow as pa, pyarrow.compute as pc, pyarrow.parquet as pq
from croissant_lineage.beam.blocks import block_rows
from croissant_lineage.family.spec import load_family
from croissant_lineage.linking.sides import Side
spec = load_family(SPEC)
items = pq.read_table(OUT + '/items.parquet')
names = [d.name for d in spec.datasets.values() if d.has_items]
tables = {n: items.filter(pc.equal(items.column('dataset'), n)) for n in names}
mb = lambda t: t.nbytes / 2**20
big = max(names, key=lambda n: tables[n].num_rows)
best = (0, 0.0, '')
for deriv in spec.item_derivations():
    sides = {r: Side(tables[n]) for r, n in (('child', deriv.child), ('parent', deriv.parent))}
    rows = {r: block_rows(deriv, sides[r], r) for r in sides}
    for key, crows in rows['child'].items():
        prows = rows['parent'].get(key, [])
        size = mb(sides['child'].table.take(pa.array(crows, pa.int64()))) + mb(sides['parent'].table.take(pa.array(prows, pa.int64())))
        if len(crows) + len(prows) > best[0]:
            best = (len(crows) + len(prows), size, f'{deriv.child} <- {deriv.parent}, block {key!r}')
print(json.dumps({'dataset': [big, tables[big].num_rows, mb(tables[big])],
                  'block': list(best)}))
"""


def bounds(spec: Path, out: Path) -> dict[str, Any]:
    """The largest dataset and block of a family (see :data:`_SIZES`)."""
    return python_subprocess(f"SPEC, OUT = {str(spec)!r}, {str(out)!r}\n" + _SIZES, timeout=3600)


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.iterdir()):
        h.update(p.name.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def run_python(code: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter, sampling its process tree: the dict its last
    stdout line reports (see ``REPORT``), the CPU of the whole tree, the peak RSS of the tree
    and of its largest worker, and the CPU seconds of the launching process and of each worker
    (last sample before exit): how the work was shared, whatever else the machine was doing."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([sys.executable, "-c", CLOCK + code + REPORT], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
    sampler = _Sampler(proc.pid)
    sampler.start()
    stdout, stderr = proc.communicate(timeout=6 * 3600)
    sampler.stop.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"run failed ({proc.returncode}):\n{stderr[-3000:]}")
    return {
        **json.loads(stdout.strip().splitlines()[-1]),
        "tree_cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "tree_peak_rss_mb": sampler.tree_peak_kb / 1024,
        "worker_peak_rss_mb": max(sampler.worker_hwm_kb.values(), default=0) / 1024,
        "workers_seen": len(sampler.worker_hwm_kb),
        "main_cpu": sampler.main_cpu,
        "worker_cpu": sorted(sampler.worker_cpu.values(), reverse=True),
    }


def measure(spec: Path, out: Path, kwargs: dict[str, Any]) -> dict[str, Any]:
    """One run in a fresh process; returns its times, memory and the folder's digest."""
    code = (
        "from croissant_lineage.workflows import write_lineage\n"
        f"r = write_lineage({str(spec)!r}, {str(out)!r}, force=True, **{kwargs!r})\n"
        "extra = {'items': sum(r.lineage.summary.items.values()), 'edges': r.lineage.summary.edges}\n"
    )
    return {**run_python(code), "digest": _digest(out)}


def run(report: Report, sizes: list[int], work: Path) -> None:
    key = "beam"
    report.section(key, "7. Past one machine: link --runner beam (Beam's local Python runner) vs the local linker")
    try:
        import apache_beam
    except ImportError:
        report.line("  skipped: apache-beam is not installed (pip install '.[beam]' in a venv of its own)")
        report.put(key, "skipped", "apache-beam not installed")
        return
    report.line(f"  apache-beam {apache_beam.__version__}, FnApiRunner multi_processing; "
                f"load average at start of section: {[round(x, 2) for x in os.getloadavg()]}")
    report.line(f"  {'items':>10} {'run':<7} {'wall':>9} {'per item':>9} {'tree cpu':>9} "
                f"{'tree peak RSS':>14} {'worker peak':>12} {'same bytes':>10}  cpu: main | workers")
    rows = []
    for size in sizes:
        folder = work / f"synthetic-{size}"
        generate(folder, size)
        results: dict[str, dict[str, Any]] = {}
        for name, kwargs in RUNS.items():
            results[name] = measure(folder / "family.json", work / f"beam-out-{size}-{name}", kwargs)
            r = results[name]
            same = r["digest"] == results["local"]["digest"]
            report.line(
                f"  {r['items']:>10,} {name:<7} {fmt_s(r['wall']):>9} {r['wall'] / r['items'] * 1e6:>7.1f}us "
                f"{fmt_s(r['tree_cpu']):>9} {r['tree_peak_rss_mb']:>12.0f}MB "
                f"{r['worker_peak_rss_mb']:>10.0f}MB {'yes' if same else 'NO':>10}  "
                f"{r['main_cpu']:.1f} s | {', '.join(f'{c:.1f}' for c in r['worker_cpu']) or '-'}"
            )
        bound = bounds(folder / "family.json", work / f"beam-out-{size}-local")
        (dname, drows, dmb), (brows, bmb, bname) = bound["dataset"], bound["block"]
        report.line(f"  largest dataset: {dname}, {drows:,} items, {dmb:.0f} MB as Arrow items; largest block: "
                    f"{bname}, {brows:,} rows (child + parent), {bmb:.0f} MB; worker peak "
                    f"{max(results[n]['worker_peak_rss_mb'] for n in ('beam-1', 'beam-2')):.0f} MB")
        ratio = results["beam-2"]["wall"] / results["beam-1"]["wall"]
        rows.append({"size": size, "items": results["local"]["items"], "runs": results, "bounds": bound,
                     "two_over_one": ratio, "load_average": [round(x, 2) for x in os.getloadavg()],
                     "identical": all(r["digest"] == results["local"]["digest"] for r in results.values())})
        target = Target(f"7 beam 2 workers / 1 worker, wall, at {results['local']['items']:,}", ratio, "<=", 0.65) \
            if size >= 1_000_000 else None
        report.ratio_row(f"beam 2 workers / 1 worker (wall), {results['local']['items']:,} items", ratio,
                         results["beam-2"]["tree_cpu"] / results["beam-1"]["tree_cpu"], target=target)
        # On a shared machine wall times measure the other jobs too; the launching process's
        # CPU plus the busiest worker's is the run's length had each had a core of its own.
        path = {n: results[n]["main_cpu"] + max(results[n]["worker_cpu"], default=0.0) for n in ("beam-1", "beam-2")}
        rows[-1]["critical_path_cpu"] = path
        report.ratio_row(f"beam 2 workers / 1 worker (main + busiest worker CPU), {results['local']['items']:,}",
                         path["beam-2"] / path["beam-1"])
        report.ratio_row(f"beam 2 workers / local (wall), {results['local']['items']:,} items",
                         results["beam-2"]["wall"] / results["local"]["wall"],
                         results["beam-2"]["tree_cpu"] / results["local"]["tree_cpu"])
        report.line(f"  (load average after this size: {rows[-1]['load_average']})")
    report.put(key, "rows", rows)

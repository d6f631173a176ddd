"""``croissant-lineage validate`` of one plain Croissant descriptor against ``import mlcroissant``.

What a pre-commit hook runs per commit: a fresh interpreter validates one descriptor
(``python3 -m croissant_lineage validate FILE``, no lineage marks, no ``--data-dir``). Its
baseline is a fresh interpreter running ``import mlcroissant`` and nothing else (the
validation runs mlcroissant, so that import is its floor). Both are whole processes, timed
from the launch to the exit: wall time, and CPU time (user + system) of the child from
``os.wait4``, with its peak RSS. The measures of one round are interleaved (the baseline,
then each descriptor), so a change of machine load hits both sides; figures are medians over
``--runs`` rounds, the ratio of each descriptor's median to the baseline's (target: at most
1.2, for every descriptor). ``python -c pass`` is timed beside them (interpreter start-up,
in both).

On a loaded machine two processes' CPU times differ by several per cent whatever they run, so
each validate process also imports mlcroissant first and times that import and what follows
(the CLI's imports, the checks, the report): the "paired" ratio is the process's CPU time over
its CPU time up to the end of ``import mlcroissant``, both from the same process.

The children read compiled bytecode, as an installed package does (``pip`` compiles it): they
run with ``PYTHONPYCACHEPREFIX`` set to a temporary folder, filled by one warm-up round that
is not counted (the repository is left without ``__pycache__``). ``--no-pycache`` keeps the
environment's own setting instead (with ``PYTHONDONTWRITEBYTECODE=1``, every run compiles
the package's sources, and mlcroissant's bytecode is read from its installation).

``python3 benchmarks/bench_validate.py [--runs N] [--examples FILE...] [--out FILE] [--json RAW]``:
the descriptors default to six official Croissant 1.0 examples of 3 to 29 KB in
``../shared/data/croissant-examples/1.0``; the figures are written to ``--out`` (default
``benchmarks/validate.json``, which ``docs/speed.md`` quotes), every run's times to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import REPO

OUT = Path(__file__).with_name("validate.json")
EXAMPLES = Path(REPO).parent / "shared" / "data" / "croissant-examples" / "1.0"
#: Official examples, smallest to largest (2.7 to 28.9 KB), none with lineage marks.
DEFAULT_EXAMPLES = ("simple-parquet", "json-join", "huggingface-squad", "coco2014-mini", "flores-200",
                    "huggingface-lmms-eval-lite")
TARGET = 1.2

#: A validate process that also times its own ``import mlcroissant`` (done first, as the CLI
#: would do it later) and the rest, and reports both on its last line of standard error.
_VALIDATE = """
import sys, time
c0, w0 = time.process_time(), time.perf_counter()
import mlcroissant
c1, w1 = time.process_time(), time.perf_counter()
from croissant_lineage.cli import main
status = main(["validate", sys.argv[1]])
sys.stdout.flush()
c2, w2 = time.process_time(), time.perf_counter()
import json
print(json.dumps({"status": status, "mlc_cpu": c1 - c0, "rest_cpu": c2 - c1, "mlc_wall": w1 - w0,
                  "rest_wall": w2 - w1}), file=sys.stderr)
sys.exit(status)
"""


def _run(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """One fresh process: wall seconds, CPU seconds and peak RSS (MB) from ``os.wait4``."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode()
        if proc.returncode not in (0, 1):  # validate: 0 valid, 1 issues; 2 could not run
            raise RuntimeError(f"{argv} exited {proc.returncode}:\n{text[-2000:]}")
    out = {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}
    last = text.strip().splitlines()[-1] if text.strip() else ""
    if last.startswith("{"):  # a validate process's own split
        out.update(json.loads(last))
    return out


def _name(path: Path) -> str:
    """A descriptor's name in the report: its folder's for ``metadata.json``/``croissant.json``."""
    return path.parent.name if path.name in ("metadata.json", "croissant.json") else path.stem


def _median(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def measure(examples: list[Path], runs: int, *, pycache: bool) -> dict[str, Any]:
    """Interleaved rounds of the baseline, ``python -c pass`` and each descriptor's validate."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import mlcroissant": [sys.executable, "-c", "import mlcroissant"],
        **{_name(p): [sys.executable, "-c", _VALIDATE, str(p)] for p in examples},
    }
    with tempfile.TemporaryDirectory(prefix="bench-validate-pyc-") as cache:
        if pycache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        for argv in commands.values():  # warm-up: bytecode written, files in the page cache
            _run(argv, env)
        raw: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, argv in commands.items():
                raw[name].append(_run(argv, env))
    return raw


def summarise(raw: dict[str, list[dict[str, float]]], examples: list[Path], load: list[float], *,
              pycache: bool) -> dict[str, Any]:
    """Medians and ratios; ``load`` is the load average before and after the runs."""
    base = raw["import mlcroissant"]
    per = {}
    for p in examples:
        runs = raw[_name(p)]
        per[_name(p)] = {
            "bytes": p.stat().st_size,
            "wall_s": round(_median(runs, "wall"), 3),
            "cpu_s": round(_median(runs, "cpu"), 3),
            "rss_mb": round(_median(runs, "rss_mb"), 1),
            "ratio_wall": round(_median(runs, "wall") / _median(base, "wall"), 2),
            "ratio_cpu": round(_median(runs, "cpu") / _median(base, "cpu"), 2),
            # the same process: everything / everything but what follows its import mlcroissant
            "ratio_cpu_paired": round(statistics.median(r["cpu"] / (r["cpu"] - r["rest_cpu"]) for r in runs), 2),
            "after_import_cpu_s": round(_median(runs, "rest_cpu"), 3),
        }
    ratios_cpu = [v["ratio_cpu"] for v in per.values()]
    ratios_wall = [v["ratio_wall"] for v in per.values()]
    paired = [v["ratio_cpu_paired"] for v in per.values()]
    return {
        "descriptors": len(per),
        "runs": len(base),
        "pycache": pycache,
        "load_average": [round(x, 1) for x in load],
        "mlcroissant_wall_s": round(_median(base, "wall"), 3),
        "mlcroissant_cpu_s": round(_median(base, "cpu"), 3),
        "mlcroissant_rss_mb": round(_median(base, "rss_mb"), 1),
        "python_cpu_s": round(_median(raw["python -c pass"], "cpu"), 3),
        "ratio_cpu_median": round(statistics.median(ratios_cpu), 2),
        "ratio_cpu_max": max(ratios_cpu),
        "ratio_wall_median": round(statistics.median(ratios_wall), 2),
        "ratio_wall_max": max(ratios_wall),
        "ratio_cpu_paired_median": round(statistics.median(paired), 2),
        "ratio_cpu_paired_max": max(paired),
        "target": TARGET,
        "met": max(ratios_cpu) <= TARGET,
        "per_descriptor": per,
    }


def _print(summary: dict[str, Any]) -> None:
    load = " -> ".join(f"{x:.1f}" for x in summary["load_average"])
    print(f"validate of one plain descriptor vs import mlcroissant, fresh interpreters "
          f"({os.cpu_count()} cores, load average {load}; Python {platform.python_version()}; "
          f"{'compiled bytecode' if summary['pycache'] else 'bytecode as the environment has it'}; "
          f"medians of {summary['runs']} runs)")
    print(f"  {'':<44} {'wall':>8} {'cpu':>8} {'rss MB':>8} {'ratio wall':>11} {'ratio cpu':>10} "
          f"{'paired cpu':>11} {'after import':>13}")
    print(f"  {'python -c pass':<44} {'':>8} {summary['python_cpu_s']:>8.3f}")
    print(f"  {'import mlcroissant':<44} {summary['mlcroissant_wall_s']:>8.3f} {summary['mlcroissant_cpu_s']:>8.3f} "
          f"{summary['mlcroissant_rss_mb']:>8.1f} {1:>11.2f} {1:>10.2f}")
    for name, v in summary["per_descriptor"].items():
        label = f"validate {name} ({v['bytes'] / 1024:.1f} KB)"
        print(f"  {label:<44} {v['wall_s']:>8.3f} {v['cpu_s']:>8.3f} {v['rss_mb']:>8.1f} "
              f"{v['ratio_wall']:>11.2f} {v['ratio_cpu']:>10.2f} {v['ratio_cpu_paired']:>11.2f} "
              f"{v['after_import_cpu_s']:>13.3f}")
    verdict = "met" if summary["met"] else "MISSED"
    print(f"  ratio to import mlcroissant, over the descriptors: CPU median {summary['ratio_cpu_median']:.2f}, "
          f"max {summary['ratio_cpu_max']:.2f}; wall median {summary['ratio_wall_median']:.2f}, "
          f"max {summary['ratio_wall_max']:.2f}; paired CPU median {summary['ratio_cpu_paired_median']:.2f}, "
          f"max {summary['ratio_cpu_paired_max']:.2f}")
    print(f"  target <= {TARGET} (CPU against the baseline process, every descriptor): {verdict}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=7, help="rounds (default 7)")
    ap.add_argument("--examples", type=Path, nargs="+",
                    help="descriptors to validate (default: six official Croissant 1.0 examples)")
    ap.add_argument("--out", type=Path, default=OUT, help="the figures, as JSON (default benchmarks/validate.json)")
    ap.add_argument("--json", type=Path, help="also every run's times, as JSON")
    ap.add_argument("--no-pycache", action="store_true",
                    help="keep the environment's bytecode setting (do not give the children a bytecode cache)")
    args = ap.parse_args(argv)
    examples = args.examples or [EXAMPLES / name / "metadata.json" for name in DEFAULT_EXAMPLES]
    missing = [str(p) for p in examples if not p.is_file()]
    if missing:
        print(f"not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    if len({_name(p) for p in examples}) < len(examples):
        print("two descriptors have the same name (their folder's): give files of different folders", file=sys.stderr)
        return 2
    load = os.getloadavg()[0]
    raw = measure(examples, args.runs, pycache=not args.no_pycache)
    summary = summarise(raw, examples, [load, os.getloadavg()[0]], pycache=not args.no_pycache)
    _print(summary)

    from croissant_lineage._io import atomic_write_json

    atomic_write_json(args.out, summary)
    if args.json:
        atomic_write_json(args.json, {"summary": summary, "runs": raw})
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Timing, subprocess measurement and the report the benchmark script prints.

Every figure is a median over runs, of wall-clock time and of the process's CPU time
(the machine may be shared: CPU time is what the work itself costs, wall time what a
user waits). Ratios are computed from medians measured in the same run, with the
measures of one run interleaved so that a change of machine load hits both sides.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass
class Stat:
    """Times of one measure over several runs (seconds)."""

    name: str
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @property
    def median_wall(self) -> float:
        return statistics.median(self.wall) if self.wall else float("nan")

    @property
    def median_cpu(self) -> float:
        return statistics.median(self.cpu) if self.cpu else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"median_wall": self.median_wall, "median_cpu": self.median_cpu, **asdict(self)}


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """Run ``fn`` once after a garbage collection; return (result, wall, cpu)."""
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    result = fn()
    return result, time.perf_counter() - w, time.process_time() - c


def interleaved(measures: dict[str, Callable[[], Any]], runs: int) -> dict[str, Stat]:
    """Time each measure ``runs`` times, one of each per round (see module docstring)."""
    stats = {name: Stat(name) for name in measures}
    for _ in range(runs):
        for name, fn in measures.items():
            _, w, c = timed(fn)
            stats[name].wall.append(w)
            stats[name].cpu.append(c)
    return stats


def python_subprocess(code: str, *, timeout: float = 3600) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter (repository on ``sys.path``); it must print one
    JSON object as its last line of output, which is returned."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO
    )
    if proc.returncode != 0:
        raise RuntimeError(f"subprocess failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


#: Prefix of code run in a subprocess: the clock starts before any library import.
CLOCK = "import time as _t; _w, _c = _t.perf_counter(), _t.process_time()\nimport json as _json\n"
#: Suffix printing the subprocess's elapsed wall and CPU time (plus ``extra`` if set).
REPORT = (
    "\nextra = globals().get('extra', {})\n"
    "print(_json.dumps({'wall': _t.perf_counter() - _w, 'cpu': _t.process_time() - _c, **extra}))\n"
)


def subprocess_interleaved(codes: dict[str, str], runs: int) -> dict[str, Stat]:
    """Like :func:`interleaved`, each measure a fresh interpreter timing itself."""
    stats = {name: Stat(name) for name in codes}
    for _ in range(runs):
        for name, code in codes.items():
            out = python_subprocess(CLOCK + code + REPORT)
            stats[name].wall.append(out["wall"])
            stats[name].cpu.append(out["cpu"])
    return stats


def machine() -> dict[str, Any]:
    """Cores, load and versions, printed at the top of the report."""
    import platform

    import pyarrow
    import rapidfuzz

    try:
        from importlib.metadata import version

        mlc = version("mlcroissant")
    except Exception:  # pragma: no cover - mlcroissant is a dependency
        mlc = "absent"
    return {
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "pyarrow": pyarrow.__version__,
        "rapidfuzz": rapidfuzz.__version__,
        "mlcroissant": mlc,
    }


@dataclass
class Target:
    """One target of the issue and whether this run met it."""

    name: str
    value: float
    op: str  # "<=", ">=", "<", "=="
    limit: float
    note: str = ""

    @property
    def met(self) -> bool:
        return {
            "<=": self.value <= self.limit,
            ">=": self.value >= self.limit,
            "<": self.value < self.limit,
            "==": self.value == self.limit,
        }[self.op]

    def verdict(self) -> str:
        if self.met:
            return "met"
        if self.op in ("<=", "<") and self.limit:
            return f"MISSED ({self.value / self.limit:.2f}x the limit)"
        if self.op == ">=" and self.value:
            return f"MISSED ({self.limit / self.value:.2f}x short)"
        return "MISSED"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "met": self.met, "verdict": self.verdict()}


class Report:
    """Lines printed as the run goes, and everything kept for ``--json``."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {"sections": {}}
        self.targets: list[Target] = []

    def line(self, text: str = "") -> None:
        print(text, flush=True)

    def section(self, key: str, title: str) -> dict[str, Any]:
        self.line()
        self.line(title)
        self.line("-" * len(title))
        self.data["sections"][key] = {"title": title}
        return dict(self.data["sections"][key])

    def put(self, key: str, name: str, value: Any) -> None:
        self.data["sections"][key][name] = value

    def time_row(self, label: str, stat: Stat) -> None:
        self.line(f"  {label:<58} {fmt_s(stat.median_wall):>10} {fmt_s(stat.median_cpu):>10}")

    def ratio_row(self, label: str, value: float, cpu_value: float | None = None, target: Target | None = None) -> None:
        tail = f"   target {target.op} {target.limit:g}: {target.verdict()}" if target else ""
        cpu = f"{cpu_value:>10.2f}" if cpu_value is not None else " " * 10
        self.line(f"  {label:<58} {value:>10.2f}{cpu}{tail}")
        if target:
            self.targets.append(target)

    def header(self) -> None:
        self.line(f"  {'':<58} {'wall':>10} {'cpu':>10}")


def fmt_s(seconds: float) -> str:
    """Seconds, with a unit that fits."""
    if seconds != seconds:  # NaN
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.0f} ms"
    return f"{seconds:.2f} s"

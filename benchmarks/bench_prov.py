"""6. PROV of the whole family (items + findings) against ``link`` of the family, same run.

Each measure is a fresh interpreter running the command line (the clock starts before
any import), reporting its wall and CPU time and its peak resident memory (``VmHWM``):

* **link**: ``croissant-lineage link FAMILY`` (the baseline: what a user runs first);
* **prov nt** / **prov turtle** (and **prov json-ld** and **prov provjson**, W3C PROV-JSON,
  no target): ``croissant-lineage prov`` of that lineage folder with the findings (full mode: the MMLU-Redux findings imported
  from the data; quick mode: no findings file exists for the synthetic family).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import CLOCK, REPO, REPORT, Report, Stat, Target, python_subprocess

from croissant_lineage.family.spec import FamilySpec

#: Read by the measured process at its end: its peak resident set (kB).
_PEAK = (
    "\nextra = {'vmhwm_kb': next(int(l.split()[1]) for l in open('/proc/self/status') "
    "if l.startswith('VmHWM:'))}\n"
)

_TARGETS = {"nt": (1.0, "prov N-Triples / link"), "turtle": (2.0, "prov Turtle / link")}
_RSS_LIMIT_MB = 512

#: The syntaxes measured, in report order.
_SYNTAXES = ("nt", "turtle", "json-ld", "provjson")


def _cli(argv: list[str]) -> str:
    return f"from croissant_lineage.cli import main\nassert main({argv!r}) == 0\n"


def _findings(spec: FamilySpec, data_dir: Path | None, lineage_dir: Path, work: Path) -> Path | None:
    """The MMLU-Redux findings of the family (full mode), imported once; None without data."""
    if data_dir is None or spec.name != "mmlu":
        return None
    out = work / "prov-redux.json"
    subprocess.run(
        [sys.executable, "-m", "croissant_lineage", "findings", "import", "redux", "--lineage", str(lineage_dir),
         "--data-dir", str(data_dir), "--out", str(out), "--force", "-q"],
        check=True, cwd=REPO, capture_output=True,
    )
    return out


def run(report: Report, spec: FamilySpec, data_dir: Path | None, runs: int, work: Path) -> dict[str, Any]:
    """Measure section 6; returns the figures put in the report."""
    key = "prov"
    report.section(key, "6. PROV of the whole family (items + findings) vs link, fresh processes")
    family = str(spec.path) if spec.path is not None and data_dir is None else spec.name
    lineage_dir = work / "prov-lineage"
    link_argv = ["link", family, "--out", str(lineage_dir), "--force", "-q"]
    if data_dir is not None:
        link_argv[2:2] = ["--data-dir", str(data_dir)]
    python_subprocess(CLOCK + _cli(link_argv) + REPORT)  # the lineage folder (and a warm disk cache)
    findings = _findings(spec, data_dir, lineage_dir, work)
    codes = {"link": _cli(link_argv)}
    for fmt in _SYNTAXES:
        argv = ["prov", "--lineage", str(lineage_dir), "--syntax", fmt, "--out", str(work / f"family.{fmt}"), "-q"]
        if findings is not None:
            argv[3:3] = ["--findings", str(findings)]
        codes[fmt] = _cli(argv)
    stats = {name: Stat(name) for name in codes}
    peak: dict[str, list[int]] = {name: [] for name in codes}
    for _ in range(runs):
        for name, code in codes.items():
            out = python_subprocess(CLOCK + code + _PEAK + REPORT)
            stats[name].wall.append(out["wall"])
            stats[name].cpu.append(out["cpu"])
            peak[name].append(out["vmhwm_kb"])
    sizes = {fmt: (work / f"family.{fmt}").stat().st_size for fmt in _SYNTAXES}
    report.line(f"  findings: {findings.name if findings else 'none (synthetic family)'}; files: "
                + ", ".join(f"{fmt} {n / 1e6:.1f} MB" for fmt, n in sizes.items()))
    report.line(f"  {'':<58} {'wall':>10} {'cpu':>10} {'peak RSS':>10}")
    for name, label in (("link", "link (baseline)"), ("nt", "prov --syntax nt"),
                        ("turtle", "prov --syntax turtle"), ("json-ld", "prov --syntax json-ld (no target)"),
                        ("provjson", "prov --syntax provjson (no target)")):
        report.line(f"  {label:<58} {stats[name].median_wall:>9.2f}s {stats[name].median_cpu:>9.2f}s "
                    f"{max(peak[name]) / 1024:>7.0f} MB")
    report.line("  ratios to link (wall, cpu):")
    ratios: dict[str, Any] = {}
    for fmt in _SYNTAXES:
        wall = stats[fmt].median_wall / stats["link"].median_wall
        cpu = stats[fmt].median_cpu / stats["link"].median_cpu
        ratios[fmt] = (wall, cpu)
        limit, name = _TARGETS.get(fmt, (None, f"prov {fmt} / link"))
        target = Target(name, wall, "<=", limit) if limit is not None and data_dir is not None else None
        report.ratio_row(name, wall, cpu, target)
        if fmt in _TARGETS and data_dir is not None:
            report.targets.append(Target(f"{name}: peak RSS (MB)", max(peak[fmt]) / 1024, "<=", _RSS_LIMIT_MB))
    figures = {
        "times": {k: s.to_dict() for k, s in stats.items()},
        "peak_rss_kb": {k: max(v) for k, v in peak.items()},
        "ratios": ratios,
        "bytes": sizes,
        "findings": str(findings) if findings else None,
    }
    for name, value in figures.items():
        report.put(key, name, value)
    report.line("  (json: " + json.dumps({k: round(v[0], 2) for k, v in ratios.items()}) + ")")
    return figures

"""Speed and scale of croissant_lineage, each figure against a baseline of the same run.

Usage::

    python benchmarks/run.py [--full|--quick] [--runs N] [--json OUT]

``--full`` (default): the MMLU family in ``../shared/data`` for sections 1-4, and the
synthetic family at 10k, 100k and 1M items for section 5 (the 1M size takes many
minutes: run it by hand). ``--quick``: a 2,000-item synthetic family for sections 1-4
and 1k / 4k items for section 5, one run, no thresholds (what CI runs).

Sections:
  1. whole-family link vs mlcroissant ``records()`` and a raw pyarrow read;
  2. fuzzy matching (RapidFuzz) vs difflib pair by pair, on the pairs the linker scores;
  3. resolve: cold start vs ``import mlcroissant``; warm queries per second;
  4. enrich vs ``json.dump`` of the same JSON;
  5. scale: time per item and peak memory at several sizes;
  6. prov: N-Triples / Turtle / JSON-LD / PROV-JSON of the family vs link, peak RSS (fresh processes);
  7. link --runner beam with 1 and 2 local workers vs the local linker (only when asked,
     ``--sections 7``, from a venv with the beam extra; ``--beam-sizes``, default 100k,1m).

Each figure is a median of ``--runs`` runs (wall-clock and CPU time), with the core
count and load average printed at the top. Targets are reported as met or missed;
missing one does not change the exit status (0), except in ``--strict`` mode.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

import bench_beam  # noqa: E402
import bench_enrich  # noqa: E402
import bench_fuzzy  # noqa: E402
import bench_link  # noqa: E402
import bench_prov  # noqa: E402
import bench_resolve  # noqa: E402
import bench_scale  # noqa: E402
from common import Report, machine  # noqa: E402

from croissant_lineage._io import atomic_write_json  # noqa: E402
from croissant_lineage.family.spec import FamilySpec, load_family  # noqa: E402

DEFAULT_DATA = HERE.parent.parent / "shared" / "data"


def _sizes(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip().lower().replace("_", "")
        mult = 1_000_000 if part.endswith("m") else 1_000 if part.endswith("k") else 1
        out.append(int(float(part.rstrip("mk")) * mult))
    return sorted(out)


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="benchmarks/run.py",
        description="Speed and scale of croissant_lineage against baselines measured in the same run.",
        epilog="Example:\n  python benchmarks/run.py --quick --runs 1 --json /tmp/bench.json\n"
        "  python benchmarks/run.py --full --runs 5 --sizes 10k,100k --json bench.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--full", action="store_true", help="real data, sizes 10k,100k,1M (default)")
    mode.add_argument("--quick", action="store_true", help="small synthetic family, sizes 1k,4k, one run")
    ap.add_argument("--runs", type=int, help="runs per measure (default: 5 full, 1 quick)")
    ap.add_argument("--json", type=Path, help="write every figure to this JSON file")
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA, help="the shared data folder (full mode)")
    ap.add_argument("--family", default="mmlu", help="family spec for sections 1-4 in full mode")
    ap.add_argument("--sizes", type=_sizes, help="section 5 sizes, e.g. 10k,100k,1m")
    ap.add_argument("--scale-runs", type=int,
                    help="runs per size in section 5 (default: --runs, but 1 for 1M and more)")
    ap.add_argument("--queries", type=int, help="random items per warm/resolve batch (default 20000; 2000 quick)")
    ap.add_argument("--sections", default="1,2,3,4,5,6", help="which sections to run, e.g. 1,3 (7: beam, by hand)")
    ap.add_argument("--beam-sizes", type=_sizes, help="section 7 sizes (default 100k,1m; 2k,8k quick)")
    ap.add_argument("--work", type=Path, help="work folder (default: a temporary folder, removed)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    quick = bool(args.quick)
    runs = args.runs or (1 if quick else 5)
    sizes = args.sizes or ([1_000, 4_000] if quick else [10_000, 100_000, 1_000_000])
    queries = args.queries or (2_000 if quick else 20_000)
    sections = {s.strip() for s in args.sections.split(",")}
    work = args.work or Path(tempfile.mkdtemp(prefix="cl-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    report = Report()
    started = time.perf_counter()
    info = machine()
    report.data.update({"mode": "quick" if quick else "full", "runs": runs, "machine": info})
    report.line("croissant_lineage benchmarks")
    report.line(f"  mode {report.data['mode']}, {runs} run(s) per measure (medians), "
                f"cores: {info['cores']} ({info['cores_usable']} usable), load average at start: {info['load_average']}")
    report.line(f"  python {info['python']}, pyarrow {info['pyarrow']}, rapidfuzz {info['rapidfuzz']}, "
                f"mlcroissant {info['mlcroissant']}; {info['platform']}")
    try:
        spec: FamilySpec
        data_dir: Path | None
        if quick:
            from croissant_lineage.testing.synthetic import generate_family

            fam = generate_family(work / "quick-family", 2_000, force=True)
            spec, data_dir = load_family(fam.spec), None
            report.line(f"  family for sections 1-4: synthetic, {fam.items:,} items (quick mode)")
        else:
            if not args.data_dir.is_dir():
                report.line(f"real data not found at {args.data_dir} (use --quick, or --data-dir)")
                return 2
            spec, data_dir = load_family(args.family), args.data_dir
            report.line(f"  family for sections 1-4: {spec.name}, data in {args.data_dir}")
        report.data["family"] = spec.name
        lineage_dir = None
        enriched = None
        if sections & {"1", "3", "4"}:
            lineage_dir = bench_link.run(report, spec, data_dir, runs, work)["lineage_dir"]
        if "2" in sections:
            bench_fuzzy.run(report, spec, data_dir, runs)
        if lineage_dir is not None and sections & {"3", "4"}:
            enriched = bench_enrich.run(report, spec, lineage_dir, runs, work)
        if lineage_dir is not None and "3" in sections:
            bench_resolve.run(report, enriched, lineage_dir, runs, queries)
        if "5" in sections:
            scale_runs = args.scale_runs

            def runs_for(size: int) -> int:
                return scale_runs or (1 if size >= 1_000_000 else runs)

            bench_scale.run(report, sizes, runs_for, work, queries=min(queries, 10_000))
        if "6" in sections:
            bench_prov.run(report, spec, data_dir, runs, work)
        if "7" in sections:
            bench_beam.run(report, args.beam_sizes or ([2_000, 8_000] if quick else [100_000, 1_000_000]), work)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    report.line()
    report.line("Targets")
    report.line("-------")
    for t in report.targets:
        report.line(f"  {t.name:<62} {t.value:>12,.2f} {t.op} {t.limit:<8g} {t.verdict()}")
    import os

    report.data["targets"] = [t.to_dict() for t in report.targets]
    report.data["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    report.data["seconds"] = time.perf_counter() - started
    report.line(f"  (load average at end: {report.data['load_average_end']}; "
                f"{report.data['seconds']:.0f} s in all)")
    if args.json:
        atomic_write_json(args.json, report.data)
    missed = [t for t in report.targets if not t.met]
    return 1 if (args.strict and missed) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Peak memory of the commands on hostile-size inputs, against the same run on good input.

Each hostile case is generated in a temporary folder, then each command runs in a child
process of a fresh measuring process, which reports the child's peak resident set from
``resource.getrusage(RUSAGE_CHILDREN)`` (one measuring process per run, so no peak
carries over from one run to the next). A case passes when the command exits as expected
(2 with ``CL-E008`` for an input over a limit, 0 for describe, which reads no column of a
Parquet file) and its peak stays within the bound: the baseline (the same command on the
good fixture) plus the allowance of the case. The bounds are in ``docs/safety.md``.

Cases (``--size`` MiB, 1024 by default; the hostile sizes of the report that found them):

* ``link`` of a family whose Parquet data holds one stem of ``--size`` MiB (a few KB on disk);
* ``describe`` of a folder whose Parquet file holds an unused column of ``--size`` MiB;
* ``relatives --svg`` and ``relatives --json`` of a lineage folder whose ``items.parquet``
  holds one stem of ``--size`` / 5 MiB (200 MiB by default);
* ``link`` of a family whose CSV holds one line of ``--size`` * 0.3 MiB (300 MiB by default);
* ``findings list`` of a JSON findings file just over the 64 MiB document limit.

Run: ``PYTHONPATH=$PWD python3 benchmarks/bench_hostile.py [--size MiB]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[1]
GOOD = REPO / "tests" / "badinput" / "_good"
TOY = REPO / "examples" / "toy"
MIB = 1024 * 1024

#: What each case may take above its baseline, in MiB: the data a limit lets be read
#: before the refusal (a 64 MiB line and the chunk being scanned; a Parquet value the
#: metadata cannot tell from a smaller one, up to 64 MiB per value, as its page and its
#: Arrow array), with room for allocator noise. A lineage stem among other rows, written
#: without statistics (pyarrow writes none for a value over 4 KiB), cannot be told from its
#: metadata: ``relatives`` reads the column and refuses it after, at about five times the
#: stem's size, which its allowance adds.
ALLOWANCE_MB = {"parquet stem": 192, "describe unused column": 64, "relatives stem": 64,
                "csv line": 160, "findings json": 64}


def _measure(argv: list[str]) -> dict[str, Any]:
    """Run the CLI with ``argv`` in a child of a fresh process; its exit status, first
    line of stderr and peak RSS (MiB)."""
    code = (
        "import json, resource, subprocess, sys\n"
        f"p = subprocess.run([sys.executable, '-m', 'croissant_lineage', *{argv!r}], capture_output=True, text=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(json.dumps({'rc': p.returncode, 'err': (p.stderr.splitlines() or [''])[0][:160], 'peak_mb': peak}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    return dict(json.loads(out.stdout))


def _retype(dst: Path, data: str, encoding: str) -> None:
    desc = json.loads((dst / "croissant.json").read_text())
    desc["distribution"][0].update(contentUrl=data, encodingFormat=encoding)
    (dst / "croissant.json").write_text(json.dumps(desc, indent=2))


def _rows(stem: str) -> list[dict[str, str]]:
    base = {"subject": "glorbs", "A": "3", "B": "4", "C": "5", "D": "6", "answer": "C"}
    return [{"id": "1", "question": "Short?", **base}, {"id": "2", "question": stem, **base}]


def _parquet_family(work: Path, name: str, stem_bytes: int) -> Path:
    dst = work / name
    shutil.copytree(GOOD, dst)
    (dst / "data.csv").unlink()
    _retype(dst, "data.parquet", "application/x-parquet")
    pq.write_table(pa.Table.from_pylist(_rows("x" * stem_bytes)), dst / "data.parquet", compression="zstd")
    return dst / "family.json"


def _csv_family(work: Path, name: str, line_bytes: int) -> Path:
    dst = work / name
    shutil.copytree(GOOD, dst)
    with (dst / "data.csv").open("a", encoding="utf-8") as fh:
        for _ in range(line_bytes // MIB):
            fh.write("y" * MIB)
        fh.write(",glorbs,Long?,1,2,3,4,A\n")
    return dst / "family.json"


def _describe_folder(work: Path, name: str, unused_bytes: int) -> Path:
    dst = work / name
    dst.mkdir()
    cols: dict[str, list[str]] = {"q": ["a?", "b?"], "answer": ["A", "B"]}
    if unused_bytes:
        cols["blob"] = ["z" * unused_bytes, "z"]
    pq.write_table(pa.table(cols), dst / "test.parquet", compression="zstd")
    return dst


def _lineage(work: Path, stem_bytes: int) -> tuple[Path, Path, str]:
    """The toy family's lineage folder, and a copy whose first item's stem is ``stem_bytes`` long."""
    good = work / "lineage-good"
    subprocess.run([sys.executable, "-m", "croissant_lineage", "link", str(TOY / "family.json"), "--data-dir",
                    str(TOY), "--out", str(good), "-q"], check=True, cwd=REPO)
    items = pq.read_table(good / "items.parquet")
    ref = f"{items.column('dataset')[0]}:{items.column('item')[0]}"
    stems = items.column("stem").to_pylist()
    stems[0] = "s" * stem_bytes
    bad = work / "lineage-bad"
    shutil.copytree(good, bad)
    table = items.set_column(items.schema.get_field_index("stem"), "stem", pa.array(stems, pa.string()))
    del stems
    pq.write_table(table, bad / "items.parquet", compression="zstd")
    return good, bad, ref


def _findings(work: Path, total_bytes: int) -> Path:
    path = work / "findings.json"
    one = {"item": "toy:1", "target": "key", "kind": "wrong_key", "proposed": "B",
           "source": {"name": "bench", "kind": "manual"}, "evidence": ["e" * 1000], "status": "proposed"}
    text = json.dumps(one)
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"findings": [')
        for i in range(total_bytes // len(text) + 1):
            fh.write(("," if i else "") + json.dumps({**one, "id": f"F-{i}"}))
        fh.write("]}\n")
    return path


def _cases(work: Path, size: int) -> list[tuple[str, list[str], list[str], int]]:
    """(case, hostile argv, baseline argv, expected exit) per run."""
    out = work / "out"
    good_family = GOOD / "family.json"
    cases: list[tuple[str, list[str], list[str], int]] = []
    fam = _parquet_family(work, "parquet-stem", size * MIB)
    cases.append(("parquet stem", ["link", str(fam), "--out", str(out / "a"), "-q"],
                  ["link", str(good_family), "--out", str(out / "b"), "-q"], 2))
    folder = _describe_folder(work, "describe-unused", size * MIB)
    plain = _describe_folder(work, "describe-plain", 0)
    cases.append(("describe unused column", ["describe", str(folder)], ["describe", str(plain)], 0))
    good, bad, ref = _lineage(work, size * MIB // 5)
    for flag, target in (("--svg", "e.svg"), ("--json", None)):
        extra = [flag, str(out / target)] if target else [flag]
        cases.append((f"relatives stem {flag}".replace(" --", " "), ["relatives", ref, "--lineage", str(bad), *extra],
                      ["relatives", ref, "--lineage", str(good), *extra], 2))
    fam = _csv_family(work, "csv-line", int(size * 0.3) * MIB)
    cases.append(("csv line", ["link", str(fam), "--out", str(out / "f"), "-q"],
                  ["link", str(good_family), "--out", str(out / "g"), "-q"], 2))
    findings = _findings(work, 65 * MIB)
    cases.append(("findings json", ["findings", "list", str(findings)],
                  ["findings", "list", str(REPO / "examples" / "toy" / "findings.yaml")], 2))
    return cases


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1024, help="hostile size in MiB (default 1024)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        work = Path(tmp)
        (work / "out").mkdir()
        for case, hostile, baseline, want in _cases(work, args.size):
            base = _measure(baseline)
            got = _measure(hostile)
            allowance = next(v for k, v in ALLOWANCE_MB.items() if case.startswith(k))
            if case.startswith("relatives"):  # read whole before its cells are checked: see ALLOWANCE_MB
                allowance += 5 * args.size // 5
            bound = base["peak_mb"] + allowance
            ok = got["rc"] == want and got["peak_mb"] <= bound and (want == 0 or "CL-E008" in got["err"])
            rows.append({"case": case, "baseline_mb": round(base["peak_mb"]), "peak_mb": round(got["peak_mb"]),
                         "bound_mb": round(bound), "exit": got["rc"], "error": got["err"], "ok": ok})
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"hostile size {args.size} MiB; peak RSS of the command (getrusage RUSAGE_CHILDREN)")
        print(f"{'case':<26} {'baseline':>9} {'peak':>7} {'bound':>7} exit  ok")
        for r in rows:
            print(f"{r['case']:<26} {r['baseline_mb']:>6} MB {r['peak_mb']:>4} MB {r['bound_mb']:>4} MB "
                  f"{r['exit']:>4}  {'yes' if r['ok'] else 'NO'}   {r['error'][:70]}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Golden outputs: the sha256 of every file the main jobs write, kept across refactors.

Two sets, each run through the installed ``croissant-lineage`` command in a fresh folder:

* ``toy``: the embedded main job, ``examples/toy/run.sh`` (files and its printed output);
* ``mmlu``: the real-family commands on ``../shared/data``: link, findings import (redux,
  errata), route --json, report --json, enrich --family, prov (N-Triples) and
  publish --dry-run of enriched MMLU-Pro.

``python3 -m tests.golden.outputs [toy|mmlu ...]`` rewrites ``output_hashes.json``; a
deliberate output change regenerates it in a commit that says why.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
HASHES = HERE / "output_hashes.json"
EPOCH = "1700000000"


def _env() -> dict[str, str]:
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH, COLUMNS="100", NO_COLOR="1")
    env.pop("HF_TOKEN", None)
    return env


def _run(args: list[str], cwd: Path, log: list[str]) -> None:
    proc = subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    log.append(f"$ {' '.join(args[1:])}\n{proc.stdout}")


def _hash_tree(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        out[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def toy_hashes() -> dict[str, str]:
    """Hashes of everything the toy main job writes, plus its printed output."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        proc = subprocess.run(
            ["bash", str(REPO / "examples/toy/run.sh"), "out"],
            cwd=work, env=_env(), capture_output=True, text=True,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"toy main job failed:\n{proc.stderr}")
        (work / "out" / "stdout.txt").write_text(proc.stdout.replace(str(REPO), "REPO"))
        return _hash_tree(work / "out")


def mmlu_hashes(data_dir: Path) -> dict[str, str]:
    """Hashes of what the real-family commands write (link ... publish --dry-run)."""
    cl = "croissant-lineage"
    data = str(data_dir)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        log: list[str] = []
        steps = [
            [cl, "link", "mmlu", "--data-dir", data, "--out", "lineage", "--quiet"],
            [cl, "findings", "import", "redux", "--lineage", "lineage", "--data-dir", data,
             "--out", "redux.json"],
            [cl, "findings", "import", "errata", "--lineage", "lineage", "--data-dir", data,
             "--out", "errata.json"],
            [cl, "route", "mmlu-pro:3542", "--lineage", "lineage", "--findings", "redux.json",
             "--json"],
            [cl, "report", "--lineage", "lineage", "--findings", "redux.json", "errata.json",
             "--json"],
            [cl, "enrich", "--family", "mmlu", "--lineage", "lineage", "--findings",
             "errata.json", "--out", "enriched", "--quiet"],
            [cl, "prov", "--lineage", "lineage", "--findings", "errata.json", "--format", "nt",
             "--out", "mmlu.nt", "--quiet"],
            [cl, "publish", "enriched/mmlu-pro.json", "--lineage", "lineage", "--out", "hub",
             "--repo-id", "TIGER-Lab/MMLU-Pro", "--findings", "errata.json", "--dry-run"],
        ]
        for step in steps:
            _run(step, work, log)
        (work / "stdout.txt").write_text("\n".join(log).replace(data, "DATA"))
        return _hash_tree(work)


def main(argv: list[str]) -> int:
    which = argv or ["toy", "mmlu"]
    current = json.loads(HASHES.read_text()) if HASHES.exists() else {}
    data_dir = Path(os.environ.get("CROISSANT_LINEAGE_DATA", REPO.parent / "shared" / "data"))
    for name in which:
        current[name] = toy_hashes() if name == "toy" else mmlu_hashes(data_dir)
        print(f"{name}: {len(current[name])} files")
    HASHES.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

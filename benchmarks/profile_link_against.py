"""Per-step CPU of link + write in two source trees, interleaved, and their ratio.

Usage::

    python benchmarks/profile_link_against.py OLD_TREE [FAMILY] [--data-dir DIR] [--datasets A,B,...] [--runs N]

``OLD_TREE`` is another checkout of the library (``git worktree add /tmp/old COMMIT``). Each
run is a fresh process of ``profile_link.py --steps`` (this tree's script) with
``PYTHONPATH`` set to the old tree, then to this one, alternating, ``N`` times each, on one
thread (``CROISSANT_LINEAGE_THREADS=1``, so that each step's CPU clock is its own). Prints the
median CPU seconds of each step and of link, write and link + write in both trees, and the
ratio new / old: one run, both sides under the same machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _one(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    cmd = [sys.executable, str(HERE / "profile_link.py"), args.family, "--steps"]
    cmd += ["--data-dir", args.data_dir] if args.data_dir else []
    cmd += ["--datasets", args.datasets] if args.datasets else []
    env = {**os.environ, "PYTHONPATH": str(tree), "CROISSANT_LINEAGE_THREADS": "1"}
    out = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, check=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    return {**got["steps"], "link": got["link"], "write": got["write"], "link + write": got["link"] + got["write"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("family", nargs="?", default="mmlu")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--datasets", default=None)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for _ in range(args.runs):
        runs["old"].append(_one(args.old.resolve(), args))
        runs["new"].append(_one(REPO, args))
    names = list(runs["new"][0])
    print(f"{'CPU s, median of ' + str(args.runs):<26} {'old':>7} {'new':>7} {'new/old':>8}")
    for name in names:
        old = statistics.median(r.get(name, 0.0) for r in runs["old"])
        new = statistics.median(r.get(name, 0.0) for r in runs["new"])
        print(f"{name:<26} {old:7.2f} {new:7.2f} {new / old if old else float('nan'):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

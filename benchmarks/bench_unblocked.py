"""Fuzzy linking without blocks: 10k x 10k long stems, unblocked against subject blocks.

The same items are matched twice by :func:`croissant_lineage.linking.match.match_text`:
once with subject blocks (50 subjects: each child is scored against the 200 parents of its
subject, the full product of each block) and once with no blocking field (one block of
10k x 10k: the word-pair index of :mod:`croissant_lineage.linking.block_index`). Parents are
invented texts of 40-60 words (about 350 characters); each child copies a parent of its
subject with 0-5 words replaced (a copy matches exactly; an edited one fuzzily). One run
each (CPU and wall seconds); the ratio unblocked / blocked is printed (target: at most 3x),
with the matches that differ between the two runs.

``python3 benchmarks/bench_unblocked.py [--items N] [--out FILE]`` (default 10,000; the JSON
of the figures is written to ``FILE``, by default ``benchmarks/unblocked.json``, which
``docs/speed.md`` quotes).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from croissant_lineage._io import atomic_write_json
from croissant_lineage.family.spec import LinkRule
from croissant_lineage.lineage.schema import ITEMS_SCHEMA
from croissant_lineage.linking.match import match_text
from croissant_lineage.linking.sides import Side
from croissant_lineage.testing.words import Words

SUBJECTS = 50
TARGET = 3.0
OUT = Path(__file__).with_name("unblocked.json")


def _table(dataset: str, stems: list[str], subjects: list[str]) -> pa.Table:
    n = len(stems)
    cols: dict[str, list[Any]] = {
        "dataset": [dataset] * n, "item": [str(k) for k in range(n)], "subject": subjects, "stem": stems,
        "options": [None] * n, "key": [None] * n, "source_file": ["f"] * n, "source_row": list(range(n)),
        "record": ["{}"] * n,
    }
    for f in ITEMS_SCHEMA:
        cols.setdefault(f.name, [None] * n)
    return pa.Table.from_pydict({f.name: cols[f.name] for f in ITEMS_SCHEMA}, schema=ITEMS_SCHEMA)


def family(n: int, seed: int = 0) -> tuple[pa.Table, pa.Table]:
    """Parents and children (item tables) of ``n`` items each."""
    rng = np.random.default_rng(seed)
    words = Words(rng)
    parents = words.texts(n, 40, 60)
    p_subject = [f"s{k % SUBJECTS}" for k in range(n)]
    children, c_subject = [], []
    for _ in range(n):
        j = int(rng.integers(n))
        w = parents[j].split()
        for _ in range(int(rng.integers(0, 6))):
            w[int(rng.integers(len(w)))] = words.words[int(rng.integers(len(words.words)))]
        children.append(" ".join(w))
        c_subject.append(p_subject[j])
    return _table("child", children, c_subject), _table("parent", parents, p_subject)


def _run(child: pa.Table, parent: pa.Table, blocked: bool) -> tuple[dict[int, tuple[int, float]], float, float]:
    block = "subject" if blocked else None
    rule = LinkRule(by="text", threshold=85.0, child_block=block, parent_block=block)
    c, p = Side(child), Side(parent)
    w, t = time.perf_counter(), time.process_time()
    matches, _ = match_text(c, p, rule, list(range(len(c))))
    cpu, wall = time.process_time() - t, time.perf_counter() - w
    return {m.child: (m.parent, m.score) for m in matches}, cpu, wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    child, parent = family(args.items)
    blocked, b_cpu, b_wall = _run(child, parent, True)
    unblocked, u_cpu, u_wall = _run(child, parent, False)
    differ = sum(1 for k in blocked.keys() | unblocked.keys() if blocked.get(k) != unblocked.get(k))
    ratio = u_cpu / b_cpu
    print(f"{args.items:,} x {args.items:,} long stems, threshold 85, one run each")
    print(f"  subject blocks ({SUBJECTS}):  cpu {b_cpu:.2f} s  wall {b_wall:.2f} s  matches {len(blocked):,}")
    print(f"  no blocks (word-pair index): cpu {u_cpu:.2f} s  wall {u_wall:.2f} s  matches {len(unblocked):,}")
    print(f"  ratio unblocked / blocked (cpu): {ratio:.2f}x (target <= {TARGET:.0f}x); wall {u_wall / b_wall:.2f}x; "
          f"matches differing: {differ}")
    atomic_write_json(args.out, {
        "items": args.items, "subjects": SUBJECTS, "blocked_cpu_s": round(b_cpu, 2), "unblocked_cpu_s": round(u_cpu, 2),
        "blocked_wall_s": round(b_wall, 2), "unblocked_wall_s": round(u_wall, 2), "ratio_cpu": round(ratio, 2),
        "matches": len(unblocked), "matches_differing": differ,
    })
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())

"""Discovery's candidate index: word 3-gram blocking (ours) against MinHash LSH (datasketch).

Run from the repository root (datasketch is not a dependency of the library; install it for
this measurement: ``python3 -m pip install datasketch``)::

    CROISSANT_LINEAGE_DATA=/path/to/shared/data python3 benchmarks/bench_index.py [--perm 128] [--lsh 0.5]

Corpus: the MMLU family's datasets without the MMLU-Pro line (as ``bench_discover.py``).
Queries: MMLU-Pro's items. Truth: ``link``'s edges of ``mmlu-pro <- mmlu`` with the declared
spec. For each index: build time, query time for all MMLU-Pro stems, and the recall of the
true parent among the candidates scoring >= 85 (RapidFuzz ``ratio``, the linker's scorer,
applied to both indexes' candidates alike), and the candidates scored per query (the cost of
the scoring step). Both run in this process, one after the other.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_discover import declared_edges, stripped_spec

from croissant_lineage.discovery.index import build_index, shingles
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.normalize import normalize_stem

THRESHOLD = 85.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perm", type=int, default=128, help="MinHash permutations (default 128)")
    ap.add_argument("--lsh", type=float, default=0.5, help="MinHash LSH Jaccard threshold (default 0.5)")
    args = ap.parse_args()
    data_dir = os.environ.get("CROISSANT_LINEAGE_DATA")
    if not data_dir:
        print("set CROISSANT_LINEAGE_DATA to the shared data folder", file=sys.stderr)
        return 2
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError:
        print("datasketch is not installed: python3 -m pip install datasketch", file=sys.stderr)
        return 2
    import tempfile

    spec = load_family(stripped_spec(Path(tempfile.mkdtemp(prefix="bench-index-"))))
    datasets, items, stems = [], [], []
    for ds in spec.datasets.values():
        if ds.has_items:
            t = load_items(ds, data_dir=data_dir)
            datasets += [ds.name] * t.num_rows
            items += t.column("item").to_pylist()
            stems += [normalize_stem(s) for s in t.column("stem").to_pylist()]
    pro = load_items(load_family("mmlu").dataset("mmlu-pro"), data_dir=data_dir)
    qids = pro.column("item").to_pylist()
    qstems = [normalize_stem(s) for s in pro.column("stem").to_pylist()]
    declared, _ = declared_edges(data_dir)
    truth = dict(declared)
    rows = {(d, i): j for j, (d, i) in enumerate(zip(datasets, items, strict=True))}
    print(f"corpus {len(stems):,} stems; queries {len(qstems):,}; true parents {len(truth):,} (mmlu-pro <- mmlu)")

    def recall(found: dict[str, set[int]]) -> str:
        hit = sum(1 for c, p in truth.items() if rows.get(("mmlu", p)) in found.get(c, set()))
        return f"{100 * hit / len(truth):.2f} % ({hit:,} of {len(truth):,})"

    # ours: word 3-gram blocking + RapidFuzz
    t = time.perf_counter()
    index = build_index(datasets, items, stems)
    build_ours = time.perf_counter() - t
    t = time.perf_counter()
    ours: dict[str, set[int]] = {}
    for q, s in zip(qids, qstems, strict=True):
        if s:
            ours[q] = {c.row for c in index.candidates(s, threshold=THRESHOLD)}
    query_ours = time.perf_counter() - t

    # MinHash LSH over the same shingles, candidates scored by the same RapidFuzz ratio
    def minhash(s: str) -> MinHash:
        m = MinHash(num_perm=args.perm, seed=1)
        for h in shingles(s):
            m.update(h.to_bytes(4, "little"))
        return m

    t = time.perf_counter()
    lsh = MinHashLSH(threshold=args.lsh, num_perm=args.perm)
    for j, s in enumerate(stems):
        if s:
            lsh.insert(j, minhash(s), check_duplication=False)
    build_mh = time.perf_counter() - t
    t = time.perf_counter()
    mh: dict[str, set[int]] = {}
    scored = 0
    for q, s in zip(qids, qstems, strict=True):
        if not s:
            continue
        cands = lsh.query(minhash(s))
        scored += len(cands)
        mh[q] = {j for j in cands if fuzz.ratio(s, stems[j]) >= THRESHOLD}
    query_mh = time.perf_counter() - t
    print("| index | build | query (all MMLU-Pro stems) | recall of the true parent (score >= 85) | candidates scored per query |")
    print("|---|---|---|---|---|")
    print(f"| word 3-gram blocking (ours, top {10}) | {build_ours:.1f} s | {query_ours:.1f} s | {recall(ours)} | <= 10 |")
    print(f"| MinHash LSH ({args.perm} perm, Jaccard >= {args.lsh}) | {build_mh:.1f} s | {query_mh:.1f} s | {recall(mh)} | "
          f"{scored / max(1, len(mh)):.1f} |")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

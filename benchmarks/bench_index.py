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

Scale (a 10M-item synthetic corpus on one machine; no data, no datasketch)::

    python3 benchmarks/bench_index.py --sizes 1000000,10000000 [--queries 10000]

Each size runs in a child process of its own (so that its peak RSS is its own): a corpus of
invented stems (8-24 words of a 20,000-word vocabulary, generated and normalised 100,000 at a
time straight into an Arrow array, the generator of ``bench_discover.py --sizes``), the index
built, then ``--queries`` near-copies (one word replaced) looked up: generation, build and
query time (wall and CPU, CPU per corpus item), postings, recall of the copied row among the
candidates, peak RSS and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_discover import declared_edges, stripped_spec

from croissant_lineage.discovery.index import build_index, shingles
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.normalize import normalize_stem

THRESHOLD = 85.0


def invented_stems(n: int, seed: int = 18, chunk: int = 100_000) -> Iterator[list[str]]:
    """``n`` invented stems, ``chunk`` at a time: the stems of ``bench_discover._invented_stems(n)``
    (same vocabulary, same random stream) without holding all of them as Python strings."""
    rng = random.Random(seed)
    syll = [c + v for c in "bcdfghjklmnprstvz" for v in "aeiou"]
    vocab = sorted({"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(25_000)})[:20_000]
    for lo in range(0, n, chunk):
        yield [" ".join(rng.choices(vocab, k=rng.randint(8, 24))) for _ in range(min(chunk, n - lo))]


def scale_one(n: int, queries: int) -> dict[str, object]:
    """Generate, index and query a synthetic corpus of ``n`` stems in this process (see the docstring)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    t, c = time.perf_counter(), time.process_time()
    parts = [pa.array([normalize_stem(x) for x in part], pa.large_string()) for part in invented_stems(n)]
    stems = pa.concat_arrays(parts)
    del parts
    datasets = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array(["synthetic"]))
    items = pc.cast(pa.array(np.arange(n)), pa.large_string())
    gen = (time.perf_counter() - t, time.process_time() - c)
    t, c = time.perf_counter(), time.process_time()
    index = build_index(datasets, items, stems)
    build = (time.perf_counter() - t, time.process_time() - c)
    del datasets, items, stems
    rng = random.Random(1)
    rows = [rng.randrange(n) for _ in range(queries)]
    probes = []
    for j in rows:
        words = index.stems[j].split()
        words[rng.randrange(len(words))] = "zzqx"
        probes.append(" ".join(words))
    t, c = time.perf_counter(), time.process_time()
    found = sum(1 for j, q in zip(rows, probes, strict=True) if any(x.row == j for x in index.candidates(q, threshold=THRESHOLD)))
    query = (time.perf_counter() - t, time.process_time() - c)
    return {"n": n, "gen": gen, "build": build, "postings": int(index.keys.size), "queries": queries, "query": query,
            "found": found, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "load": os.getloadavg()[0]}


def scale(sizes: list[int], queries: int) -> int:
    """One child process per size (its own peak RSS); a Markdown table row per size."""
    print("| corpus stems | generate (wall / CPU) | build (wall / CPU) | build CPU per item | postings | queries | "
          "query (wall / CPU) | copied row found | peak RSS | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        done = subprocess.run([sys.executable, __file__, "--one", str(n), "--queries", str(queries)],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            print(f"| {n:,} | failed (exit {done.returncode}): {done.stderr.strip().splitlines()[-1:]} |", flush=True)
            continue
        r = json.loads(done.stdout)
        print(f"| {n:,} | {r['gen'][0]:.0f} s / {r['gen'][1]:.0f} s | {r['build'][0]:.0f} s / {r['build'][1]:.0f} s | "
              f"{1e6 * r['build'][1] / n:.1f} us | {r['postings']:,} | {queries:,} | {r['query'][0]:.1f} s / {r['query'][1]:.1f} s | "
              f"{100 * r['found'] / queries:.2f} % | {r['rss_mb']:,.0f} MB | {r['load']:.1f} |", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perm", type=int, default=128, help="MinHash permutations (default 128)")
    ap.add_argument("--lsh", type=float, default=0.5, help="MinHash LSH Jaccard threshold (default 0.5)")
    ap.add_argument("--sizes", metavar="N,N", help="only the scale run, on synthetic corpora of these sizes (e.g. 1000000,10000000)")
    ap.add_argument("--queries", type=int, default=10_000, help="near-copy queries per size in the scale run (default 10,000)")
    ap.add_argument("--one", type=int, metavar="N", help=argparse.SUPPRESS)  # a scale run's child: one size, JSON out
    args = ap.parse_args()
    if args.one:
        print(json.dumps(scale_one(args.one, args.queries)))
        return 0
    if args.sizes:
        return scale([int(x) for x in args.sizes.split(",")], args.queries)
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

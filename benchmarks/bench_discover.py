"""Discover MMLU-Pro's parent with the MMLU family's derivations removed, and compare with ``link``.

Run from the repository root::

    CROISSANT_LINEAGE_DATA=/path/to/shared/data python3 benchmarks/bench_discover.py [--out DIR]

1. The shipped MMLU family spec is copied with every derivation removed and without the
   MMLU-Pro line (``mmlu-pro*``, ``mmlu-prox-lite-en``): datasets only, the corpus.
2. :func:`croissant_lineage.discovery.discover` runs on MMLU-Pro's descriptor (roles inferred)
   against that corpus: index build (then reuse), proposals, edges.
3. The declared derivation ``mmlu-pro <- mmlu`` is linked with the declared rule
   (:func:`croissant_lineage.linking.linker.link_derivation`), and the discovered edges are
   compared with its edges: recall, precision, and every disagreement listed in
   ``OUT/disagreements.tsv``; discovered edges of MMLU-Pro items whose ``src`` is not
   ``ori_mmlu-*`` are counted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from croissant_lineage.discovery.propose import discover
from croissant_lineage.family.shipped import builtin_family_path
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.linker import link_derivation

CHILD = "mmlu-pro"
PRO_LINE = ("mmlu-pro", "mmlu-pro@2025-08-03", "mmlu-pro@2025-10-01", "mmlu-prox-lite-en")


def _family_json() -> Path:
    path = builtin_family_path("mmlu")
    assert path is not None
    return path


def stripped_spec(folder: Path) -> Path:
    """The MMLU family spec with no derivations and without the MMLU-Pro line."""
    src = _family_json()
    doc = json.loads(src.read_text(encoding="utf-8"))
    datasets = []
    for d in doc["datasets"]:
        if d["name"] in PRO_LINE or "descriptor" not in d:
            continue
        d = dict(d, descriptor=str((src.parent / d["descriptor"]).resolve()))
        datasets.append(d)
    out = folder / "mmlu-datasets-only.json"
    out.write_text(json.dumps({"name": "mmlu-stripped", "datasets": datasets, "derivations": []}, indent=1), encoding="utf-8")
    return out


def declared_edges(data_dir: str) -> tuple[set[tuple[str, str]], dict[str, str]]:
    """``link``'s edges of ``mmlu-pro <- mmlu`` with the declared rule, and MMLU-Pro's ``src``."""
    spec = load_family("mmlu")
    deriv = next(d for d in spec.derivations if d.child == CHILD and d.parent == "mmlu")
    child = load_items(spec.dataset(CHILD), data_dir=data_dir)
    parent = load_items(spec.dataset("mmlu"), data_dir=data_dir)
    edges, _, _ = link_derivation(deriv, child, parent)
    pairs = set(zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), strict=True))
    src = {i: json.loads(r).get("src", "") for i, r in zip(child.column("item").to_pylist(), child.column("record").to_pylist(), strict=True)}
    return pairs, src


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="folder to write (default: a temporary folder)")
    args = ap.parse_args()
    data_dir = os.environ.get("CROISSANT_LINEAGE_DATA")
    if not data_dir:
        print("set CROISSANT_LINEAGE_DATA to the shared data folder", file=sys.stderr)
        return 2
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-discover-"))
    out.mkdir(parents=True, exist_ok=True)
    spec = stripped_spec(out)
    descriptor = _family_json().parent / "descriptors" / "mmlu-pro.json"
    times = {}
    for run in ("build", "reuse"):
        t = time.perf_counter()
        result = discover([descriptor], [spec], out=out / "discovered", data_dir=data_dir)
        times[run] = time.perf_counter() - t
        print(f"discover ({run} index: reused={result.index['reused']}, {result.index['rows']} corpus items): {times[run]:.1f} s")
    for p in result.proposals:
        print(json.dumps(p.to_dict()))
    print("roles:", json.dumps(result.roles[CHILD].to_dict()))
    edges = result.lineage.edges
    found = {
        (c, p)
        for c, p, pd in zip(edges.column("child_item").to_pylist(), edges.column("parent_item").to_pylist(), edges.column("parent_dataset").to_pylist(), strict=True)
        if pd == "mmlu"
    }
    found_other = edges.num_rows - len(found)
    declared, src = declared_edges(data_dir)
    agree = found & declared
    recall = len(agree) / len(declared) if declared else 0.0
    precision = len(agree) / len(found) if found else 0.0
    not_ori = sorted(c for c, _ in found if not src.get(c, "").startswith("ori_mmlu-"))
    print(f"declared edges (link, mmlu-pro <- mmlu): {len(declared)}")
    print(f"discovered edges to mmlu: {len(found)} (to other parents: {found_other})")
    print(f"recall {100 * recall:.2f} %  precision {100 * precision:.2f} %")
    print(f"discovered edges of items whose src is not ori_mmlu-*: {len(not_ori)}")
    dec_by_child = dict(declared)
    found_by_child = dict(found)
    rows = ["child_item\tsrc\tdeclared_parent\tdiscovered_parent"]
    for c in sorted(set(dec_by_child) | set(found_by_child)):
        if dec_by_child.get(c) != found_by_child.get(c):
            rows.append(f"{c}\t{src.get(c, '')}\t{dec_by_child.get(c, '')}\t{found_by_child.get(c, '')}")
    (out / "disagreements.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"disagreements: {len(rows) - 1} (listed in {out / 'disagreements.tsv'})")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())

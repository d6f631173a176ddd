"""The figures of family-wide discovery on the real MMLU family, pinned exactly.

``python3 -m tests.discovery.family_figures`` runs
:func:`~croissant_lineage.discovery.family.discover_family` on the MMLU family spec with every
derivation removed (datasets only), links the declared family (as the ``mmlu_lineage`` session
fixture does), computes :func:`compute` and rewrites ``tests/discovery/family_figures.json``;
``tests/discovery/test_family_realdata.py`` recomputes them and asserts equality. A deliberate
change to discovery or linking regenerates the file in a commit that says why (~5-10 minutes).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from croissant_lineage.discovery.family import FamilyDiscovery, discover_family
from croissant_lineage.family.shipped import builtin_family_path
from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.model import Lineage

HERE = Path(__file__).resolve().parent
FIGURES = HERE / "family_figures.json"


def load() -> dict[str, Any]:
    """The pinned figures."""
    return json.loads(FIGURES.read_text(encoding="utf-8"))


def stripped(folder: Path) -> Path:
    """The shipped MMLU family spec with every derivation removed (datasets only)."""
    src = builtin_family_path("mmlu")
    assert src is not None
    doc = json.loads(src.read_text(encoding="utf-8"))
    datasets = [dict(d, descriptor=str((src.parent / d["descriptor"]).resolve())) for d in doc["datasets"] if "descriptor" in d]
    path = folder / "mmlu-datasets-only.json"
    path.write_text(json.dumps({"name": "mmlu-stripped", "datasets": datasets, "derivations": []}), encoding="utf-8")
    return path


def _pairs(edges: Any, child: str, parent: str) -> dict[str, str]:
    cols = (edges.column(k).to_pylist() for k in ("child_dataset", "parent_dataset", "child_item", "parent_item"))
    return {c: p for cd, pd, c, p in zip(*cols, strict=True) if (cd, pd) == (child, parent)}


def compute(result: FamilyDiscovery, linked: Lineage) -> dict[str, Any]:
    """Per declared derivation with item data: parent found, activity guessed, link's edges,
    discovered edges and how many agree; the proposals, the undecided pairs, and the MMLU-Pro
    items whose ``src`` is not ``ori_mmlu-*`` linked to MMLU."""
    spec = load_family("mmlu")
    found = {p.child: p for p in result.proposals}
    per: dict[str, Any] = {}
    for d in spec.derivations:
        if d.coverage == "documented":
            continue
        want = _pairs(linked.edges, d.child, d.parent)
        p = found.get(d.child)
        got = _pairs(result.lineage.edges, d.child, d.parent) if p is not None else {}
        per[f"{d.child}<-{d.parent}"] = {
            "declared_activity": d.activity,
            "discovered_parent": p.parent if p is not None else None,
            "guessed_activity": p.activity if p is not None else None,
            "link_edges": len(want),
            "discovered_edges": len(got),
            "agree": sum(1 for k, v in got.items() if want.get(k) == v),
        }
    items = linked.items
    src = {
        i: json.loads(r).get("src", "")
        for d, i, r in zip(*(items.column(k).to_pylist() for k in ("dataset", "item", "record")), strict=True)
        if d == "mmlu-pro"
    }
    stray = [c for c in _pairs(result.lineage.edges, "mmlu-pro", "mmlu") if not src.get(c, "").startswith("ori_mmlu-")]
    return {
        "derivations": per,
        "proposals": {p.child: [p.parent, p.activity, p.linked] for p in result.proposals},
        "undecided": sorted([r.a, r.b] for r in result.undecided),
        "relations": len(result.relations),
        "mmlu_pro_not_ori_mmlu_linked_to_mmlu": len(stray),
    }


def main() -> int:
    from croissant_lineage.workflows import link

    data = Path(os.environ.get("CROISSANT_LINEAGE_DATA", HERE.parents[2] / "shared" / "data"))
    if not data.is_dir():
        print(f"real data not found at {data} (set CROISSANT_LINEAGE_DATA)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        result = discover_family(stripped(Path(tmp)), data_dir=data)
        link("mmlu", data_dir=data).write(Path(tmp) / "lineage")
        linked = Lineage.read(Path(tmp) / "lineage")
        FIGURES.write_text(json.dumps(compute(result, linked), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIGURES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Real figures pinned exactly: the MMLU family's link summary, report and witnesses.

``python3 -m tests.golden.figures`` links the MMLU family from ``../shared/data`` (as the
``mmlu_lineage`` session fixture does: linked, written, read back), computes

* ``link``: per derivation (``child<-parent``) the link summary (selected, linked, by
  method, unmatched, ambiguous, with alternatives, key inherited / changed, options
  added), and per dataset the duplicate groups and the items in them;
* ``report``: every figure of the family report on the MMLU-Redux findings (value,
  per dataset, per kind);
* ``translations``: per translated (or copied) dataset the join statuses of
  ``verify_translations`` (joined, verified, consistent, evidence conflict, options and key
  differ, misaligned), and each subject found shifted (its items, the agreements unshifted
  and at the best shift);
* ``witnesses``: the headline figures (``WitnessReport.summary()``) of the 29 MMLU-Pro
  prediction archives on the Redux wrong keys routed to MMLU-Pro,

and rewrites ``tests/real_figures.json``; ``tests/test_real_figures.py`` recomputes them from
the session fixtures and asserts equality. A deliberate change to linking, the report or
the witnesses regenerates the file in a commit that says why (one command, ~3 minutes).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

HERE = Path(__file__).resolve().parent
FIGURES = HERE.parent / "real_figures.json"


def load() -> dict[str, Any]:
    """The pinned figures."""
    return json.loads(FIGURES.read_text())


def plain(doc: Any) -> Any:
    """``doc`` as it reads back from JSON (tuples to lists, keys to strings)."""
    return json.loads(json.dumps(doc, sort_keys=True))


def link_figures(lineage: Any) -> dict[str, Any]:
    """Link summary per derivation, duplicate groups and their items per dataset."""
    derivations = {f"{s['child']}<-{s['parent']}": dict(s) for s in lineage.summary.to_dict()["derivations"]}
    dups: dict[str, dict[str, int]] = {}
    d = lineage.duplicates
    for ds in sorted(set(d.column("dataset").to_pylist())):
        rows = d.filter(pc.equal(d.column("dataset"), ds))
        dups[ds] = {
            "groups": rows.group_by(["group"]).aggregate([]).num_rows,
            "items": rows.num_rows,
        }
    totals = {k: v for k, v in lineage.summary.to_dict().items() if isinstance(v, int)}
    return plain({"derivations": derivations, "duplicates": dups, "totals": totals})


def report_figures(graph: Any, data_dir: Path) -> dict[str, Any]:
    """Every family-report figure on the MMLU-Redux findings."""
    from croissant_lineage.findings.importers import import_redux
    from croissant_lineage.findings.report import family_report

    redux = import_redux(data_dir=data_dir, lineage=graph).findings
    r = family_report(graph, redux)
    figures = {f.name: {"value": f.value, "by_dataset": f.by_dataset, "by_kind": f.by_kind} for f in r.figures}
    return plain({"findings": r.findings, "figures": figures})


#: The columns of a translation report's totals that are pinned.
TRANSLATION_COUNTS = ("joined", "verified", "consistent", "evidence_conflict", "options_differ", "key_differs", "misaligned")


def translation_figures(lineage: Any) -> dict[str, Any]:
    """Join statuses per translated dataset, and the subjects found shifted."""
    from croissant_lineage.audits.translations import verify_translations

    report = verify_translations(lineage)
    totals = {r["dataset"]: {k: r[k] for k in TRANSLATION_COUNTS} for r in report.totals.to_pylist() if r["subject"] is None}
    shifted: dict[str, dict[str, Any]] = {}
    for r in report.shifts.to_pylist():
        if r["best_shift"]:
            shifted.setdefault(r["dataset"], {})[r["subject"]] = {
                k: r[k] for k in ("items", "comparable", "agree_at_zero", "best_shift", "agree_at_best")
            }
    return plain({"totals": totals, "shifted": shifted})


def mmlu_pro_snapshot(lineage: Any) -> pa.Table:
    """The MMLU-Pro items of the lineage (the snapshot the archives are graded on)."""
    return lineage.items.filter(pc.equal(lineage.items.column("dataset"), "mmlu-pro"))


def admission_of(data_dir: Path, snapshot: pa.Table) -> Any:
    """The 29 MMLU-Pro prediction archives admitted against ``snapshot``."""
    from croissant_lineage.audits.witnesses import admit
    from croissant_lineage.audits.witnesses.archives import list_archives

    return admit(snapshot, list_archives(data_dir / "mmlu_pro" / "eval_results"))


def witness_figures(lineage: Any, data_dir: Path, admission: Any) -> dict[str, Any]:
    """Headline witness figures: the Redux wrong keys routed to MMLU-Pro, tallied."""
    from croissant_lineage.audits.witnesses import tally
    from croissant_lineage.audits.witnesses.contested import claims_from_findings, contested_items
    from croissant_lineage.findings.importers.redux import import_redux

    findings = import_redux(lineage=lineage, data_dir=data_dir).findings
    routing = claims_from_findings(findings, dataset="mmlu-pro", items=lineage.items, edges=lineage.edges)
    report = tally(admission, contested_items(mmlu_pro_snapshot(lineage), routing.claims))
    return plain(report.summary())


def compute(data_dir: Path) -> dict[str, Any]:
    """All pinned figures, computed from scratch."""
    from croissant_lineage.lineage.graph import LineageGraph
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.workflows import link

    with tempfile.TemporaryDirectory() as tmp:
        link("mmlu", data_dir=data_dir).write(Path(tmp) / "lineage")
        lineage = Lineage.read(Path(tmp) / "lineage")
    graph = LineageGraph(lineage)
    admission = admission_of(data_dir, mmlu_pro_snapshot(lineage))
    return {
        "link": link_figures(lineage),
        "report": report_figures(graph, data_dir),
        "translations": translation_figures(lineage),
        "witnesses": witness_figures(lineage, data_dir, admission),
    }


def main() -> int:
    data = Path(os.environ.get("CROISSANT_LINEAGE_DATA", HERE.parents[2] / "shared" / "data"))
    if not data.is_dir():
        print(f"real data not found at {data} (set CROISSANT_LINEAGE_DATA)", file=sys.stderr)
        return 2
    FIGURES.write_text(json.dumps(compute(data), indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"wrote {FIGURES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

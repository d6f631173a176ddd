"""``croissant-lineage apply``: a corrected copy of a dataset's keys, from confirmed findings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from croissant_lineage.cli._common import example_epilog, print_json
from croissant_lineage.findings.corrections import apply_corrections
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.importers import dataset_items
from croissant_lineage.lineage.graph import LineageGraph
from croissant_lineage.lineage.model import Lineage

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    findings = load_findings(args.findings)
    inputs: list[str | Path] = list(args.findings)
    if args.lineage:
        lineage = Lineage.read(args.lineage)
        inputs.append(Path(args.lineage) / "items.parquet")
        result = apply_corrections(
            lineage, findings, dataset=args.dataset, lineage=LineageGraph(lineage)
        )
    else:
        _, items = dataset_items(args.family, args.dataset, args.data_dir)
        result = apply_corrections(items, findings, dataset=args.dataset)
    out = result.write(args.out, inputs=inputs, overwrite=args.force)
    if args.json:
        print_json(result.to_dict())
    else:
        print(result)
        print(f"wrote {out}", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "apply",
        help="write a corrected copy of a dataset's keys from confirmed findings only",
        description="Change a key only for a finding whose status is confirmed_fixed or "
        "confirmed_documented, that questions the key, and whose proposed answer is one of the "
        "item's options; with --lineage, confirmed findings on ancestors also correct the items "
        "that certainly inherited the key. Every change names its finding; every other finding is "
        "reported with its reason. The output is a NEW file (.parquet, .csv, .jsonl, .json), never "
        "an input.",
        epilog=example_epilog(
            "croissant-lineage apply --lineage lineage/ --dataset mmlu-pro --findings redux.json "
            "review.yaml --out mmlu-pro-keys.csv",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset", required=True, help="the dataset whose keys to correct")
    p.add_argument(
        "--findings", required=True, nargs="+", metavar="FILE", help="findings files, in order"
    )
    p.add_argument("--out", required=True, help="new file for the corrected keys")
    p.add_argument(
        "--lineage", metavar="DIR", help="lineage folder (items, and routing of parent findings)"
    )
    p.add_argument("--family", default="mmlu", help="family (without --lineage; default: mmlu)")
    p.add_argument(
        "--data-dir",
        help="data folder the family's files resolve against (without --lineage; needed by the "
        "shipped mmlu family)",
    )
    p.add_argument(
        "--force", action="store_true", help="replace an existing --out (never an input)"
    )
    p.add_argument("--json", action="store_true", help="print changes and reasons as JSON")
    p.set_defaults(func=_run)

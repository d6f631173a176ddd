"""``croissant-lineage apply``: a corrected copy of a dataset's keys, from confirmed findings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.findings.corrections import apply_corrections
from croissant_lineage.findings.files import load_findings
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.workflows import load_datasets

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    findings = load_findings(args.findings)
    inputs: list[str | Path] = list(args.findings)
    if args.lineage:
        lineage: Lineage | str = args.lineage
        inputs.append(Path(args.lineage) / "items.parquet")
    else:
        lineage = load_datasets(options.family_of(args), [args.dataset], data_dir=args.data_dir,
                                allow_outside=args.allow_outside)
    result = apply_corrections(lineage, findings, dataset=args.dataset)
    out = result.write(args.out, inputs=inputs, force=args.force)
    print_result(args, result)
    if not args.json and not args.quiet:
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
    options.dataset(p, "the dataset whose keys to correct", required=True)
    options.findings(p, required=True)
    options.out(p, "new file for the corrected keys", metavar="FILE")
    options.lineage(p)
    options.family(p)
    options.data_dir(p)
    options.allow_outside(p)
    options.force(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

"""``croissant-lineage history``: how a benchmark's items changed between dated snapshots."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.workflows import snapshot_history

__all__ = ["register"]

def _run(args: argparse.Namespace) -> int:
    report = snapshot_history(
        options.family_of(args),
        data_dir=args.data_dir,
        dataset=args.dataset,
        item=args.item,
        lineage=args.lineage,
        allow_outside=args.allow_outside,
    )
    print_result(args, report)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "history",
        help="compare a benchmark's dated snapshots item by item, and trace an item's versions",
        description="Join each consecutive pair of snapshots of DATASET's chain (the family's snapshot "
        "and re-release derivations) item by item, classify every change (key changed or only "
        "re-pointed, options reordered, option text edited or only white space, option added or "
        "removed, stem edited or only white space, item replaced, added or removed), and with --item "
        "show that item's version in each snapshot ('key unchanged since 2024-10-16').",
        epilog=example_epilog(
            "croissant-lineage history --family mmlu --data-dir ../shared/data --item 3011",
            "croissant-lineage history --family mmlu --data-dir ../shared/data --dataset mmlu --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.family(p, from_lineage=True)
    options.data_dir(p)
    options.dataset(p, "any snapshot of the chain to compare (default: the family's longest chain)")
    options.item(p, "an item id (or ref dataset:item) whose versions to show")
    options.lineage(p)
    options.allow_outside(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

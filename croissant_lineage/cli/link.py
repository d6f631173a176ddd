"""``croissant-lineage link``: reconstruct item-level lineage for a family."""

from __future__ import annotations

import argparse
import sys

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result, show_progress
from croissant_lineage.workflows import write_lineage

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    result = write_lineage(
        options.family_of(args),
        args.out,
        data_dir=args.data_dir,
        allow_outside=args.allow_outside,
        force=args.force,
        progress=show_progress(args),
        runner=args.runner,
        pipeline_options=options.beam_options(args),
        update=args.update,
    )
    if result.update is not None and not args.quiet:
        print(f"croissant-lineage: {'notice ' if result.update.startswith('CL-') else ''}{result.update}", file=sys.stderr)
    print_result(args, result)
    if not args.json and not args.quiet:
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "link",
        help="reconstruct item-level lineage of a family (items, edges, duplicates)",
        description="Load every dataset of FAMILY through its Croissant descriptor, link each child "
        "item to its parent item (by id, or by exact then fuzzy stem match with option evidence), and "
        "write OUT/items.parquet, edges.parquet, duplicates.parquet, unmatched.parquet, family.json "
        "and summary.json.",
        epilog=example_epilog(
            "croissant-lineage link mmlu --data-dir ../shared/data --out lineage/",
            "croissant-lineage link examples/toy/family.json --out toy-lineage/",
            "croissant-lineage link mmlu --data-dir ../shared/data --out lineage/ --runner beam "
            "--beam-option direct_num_workers=2",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.family_positional(p)
    options.data_dir(p)
    options.out(p, "lineage folder to write", metavar="DIR")
    options.allow_outside(p)
    options.runner(p, "link")
    options.force(p)
    p.add_argument(
        "--update", action="store_true",
        help="--out holds a lineage of this family: re-link only the derivations the spec adds "
        "(the whole family, with notice CL-W003, when anything else changed)",
    )
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

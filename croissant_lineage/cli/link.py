"""``croissant-lineage link``: reconstruct item-level lineage for a family."""

from __future__ import annotations

import argparse
import sys

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result, show_progress
from croissant_lineage.workflows import RUNNERS, write_lineage

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    result = write_lineage(
        args.family,
        args.out,
        data_dir=args.data_dir,
        allow_outside=args.allow_outside,
        force=args.force,
        progress=show_progress(args),
        runner=args.runner,
        pipeline_options=[f"--{option}" for option in args.beam_option],
    )
    print_result(args, result)
    if not args.json and not args.quiet:
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _beam_option(text: str) -> str:
    if "=" not in text or text.startswith("="):
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return text.removeprefix("--")


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
    options.out(p, "lineage folder to write")
    options.allow_outside(p)
    p.add_argument(
        "--runner", choices=RUNNERS, default="local",
        help="where to link: here (local, the default) or as an Apache Beam pipeline (beam: needs "
        "pip install 'croissant-lineage[beam]'; Beam's local Python runner unless --beam-option names another)",
    )
    p.add_argument(
        "--beam-option", action="append", default=[], type=_beam_option, metavar="KEY=VALUE",
        help="a Beam pipeline option for --runner beam, repeatable (runner=DataflowRunner, "
        "direct_num_workers=2, direct_running_mode=in_memory ...)",
    )
    options.force(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

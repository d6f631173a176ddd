"""``croissant-lineage resolve``: an item's family from enriched descriptors alone."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.resolve import resolve

__all__ = ["register"]

_DESCRIPTION = """\
Resolve ITEM (dataset:item) from enriched Croissant descriptors and the files beside
them (the output of 'croissant-lineage enrich --family'): no lineage folder and no
benchmark data needed. Prints the item, its ancestors and descendants with the edge
evidence, duplicates, documented-only derivations, and the findings on its relatives:
what 'croissant-lineage family' prints from the lineage folder."""


def _run(args: argparse.Namespace) -> int:
    fam = resolve(args.item, args.descriptors)
    print_result(args, fam)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "resolve",
        help="an item's family from enriched descriptors alone",
        description=_DESCRIPTION,
        epilog=example_epilog(
            "croissant-lineage resolve mmlu-pro:3542 enriched/",
            "croissant-lineage resolve mmlu:college_chemistry/test/86 enriched/mmlu.json enriched/mmlu-pro.json --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("item", metavar="ITEM", help="item ref, dataset:item (e.g. mmlu-pro:3542)")
    p.add_argument("descriptors", nargs="+", metavar="DESCRIPTOR", help="enriched descriptors, or folders of them")
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

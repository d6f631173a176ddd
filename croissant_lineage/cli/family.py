"""``croissant-lineage family``: an item's ancestors, descendants and duplicates."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.lineage.graph import LineageGraph, relatives_of
from croissant_lineage.lineage.model import Lineage

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    graph = LineageGraph(Lineage.read(args.lineage))
    fam = relatives_of(graph, args.item)
    if args.svg:
        from croissant_lineage.render.picture import family_picture

        family_picture(graph, args.item).save(args.svg, overwrite=args.force)
    print_result(args, fam)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "family",
        help="show an item's ancestors, descendants and duplicates with the edge evidence",
        description="Look ITEM (dataset:item) up in a lineage folder written by 'link'.",
        epilog=example_epilog(
            "croissant-lineage family mmlu-pro:3542 --lineage lineage/",
            "croissant-lineage family mmlu:college_chemistry/test/86 --lineage lineage/ --json",
            "croissant-lineage family mmlu-pro:3542 --lineage lineage/ --svg 3542.svg",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("item", metavar="ITEM", help="item ref, dataset:item (e.g. mmlu-pro:3542)")
    options.lineage(p, required=True)
    options.json_output(p)
    p.add_argument("--svg", metavar="OUT", help="also draw the family to OUT (SVG; PNG if OUT ends in .png)")
    options.force(p)
    p.set_defaults(func=_run)

"""``croissant-lineage relatives``: an item's ancestors, descendants and duplicates.

``family`` is the version 1 name of the command: it still works, with a note on stderr
(the word "family" now means only a benchmark family: ``--family``, the family spec).
"""

from __future__ import annotations

import argparse
import sys

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.findings.files import load_findings
from croissant_lineage.lineage.graph import as_graph, relatives_of

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    if args.command == "family":
        print("croissant-lineage: note: 'family' is now 'relatives' (the old name goes in the next release)",
              file=sys.stderr)
    if not args.svg:  # (the item's family rows, its own texts alone)
        print_result(args, relatives_of(args.lineage, args.item))
        return 0
    # a picture draws duplicates' relatives too, and shows every member's stem
    graph = as_graph(args.lineage, refs=[args.item])
    rel = relatives_of(graph, args.item)
    from croissant_lineage.render.picture import family_picture

    found = load_findings(args.findings) if args.findings else None
    family_picture(graph, args.item, findings=found).save(args.svg, force=args.force)
    print_result(args, rel)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "relatives",
        aliases=["family"],
        help="show an item's ancestors, descendants and duplicates with the edge evidence",
        description="Look ITEM (dataset:item) up in a lineage folder written by 'link'.",
        epilog=example_epilog(
            "croissant-lineage relatives mmlu-pro:3542 --lineage lineage/",
            "croissant-lineage relatives mmlu:college_chemistry/test/86 --lineage lineage/ --json",
            "croissant-lineage relatives mmlu-pro:3542 --lineage lineage/ --svg 3542.svg --findings redux.json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("item", metavar="ITEM", help="item ref, dataset:item (e.g. mmlu-pro:3542)")
    options.lineage(p, required=True)
    options.json_output(p)
    p.add_argument("--svg", metavar="OUT", help="also draw the item and its relatives to OUT (SVG; PNG if OUT ends in .png)")
    options.findings(p)
    options.force(p)
    options.quiet(p)
    p.set_defaults(func=_run)

"""``croissant-lineage link``: reconstruct item-level lineage for a family."""

from __future__ import annotations

import argparse
import sys

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_json, show_progress
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.linking.linker import link

__all__ = ["register", "render_summary"]


def render_summary(summary: dict) -> str:
    """Readable text of a link summary."""
    lines = [f"family {summary.get('family')}: {summary.get('edges', 0)} edges"]
    for s in summary.get("derivations", []):
        methods = ", ".join(f"{m} {n}" for m, n in s["by_method"].items()) or "none"
        lines.append(
            f"  {s['child']} <- {s['parent']} ({s['activity']}): {s['linked']}/{s['selected']} linked "
            f"[{methods}]; unmatched {s['unmatched']}, ambiguous {s['ambiguous']}, "
            f"key inherited {s['key_inherited']}, key changed {s['key_changed']}"
        )
    dups = summary.get("duplicate_groups", {})
    if dups:
        lines.append("  duplicate groups: " + ", ".join(f"{d} {n}" for d, n in dups.items()))
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    lineage: Lineage = link(
        args.family, data_dir=args.data_dir, progress=show_progress(args), allow_outside=args.allow_outside
    )
    lineage.write(args.out, overwrite=args.force)
    if args.json:
        print_json(lineage.summary)
    elif not args.quiet:
        print(render_summary(lineage.summary))
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
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.family_positional(p)
    options.data_dir(p)
    options.out(p, "lineage folder to write")
    options.allow_outside(p)
    options.force(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

"""``croissant-lineage family``: an item's ancestors, descendants and duplicates."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_json
from croissant_lineage.lineage.graph import Edge, Family, LineageGraph, family_of
from croissant_lineage.lineage.model import Lineage

__all__ = ["register", "render_family"]


def _evidence(e: Edge) -> str:
    parts = [e.activity, f"{e.method} {e.score:g}"]
    if e.options_copied is not None:
        parts.append(f"options copied {e.options_copied}, added {e.options_added}, dropped {e.options_dropped}")
    if e.key_inherited is not None:
        parts.append("key inherited" if e.key_inherited else "key changed")
    if e.ambiguous:
        parts.append("ambiguous: " + ", ".join(e.alternatives))
    elif e.alternatives:
        parts.append("same stem also: " + ", ".join(e.alternatives))
    return "; ".join(parts)


def render_family(fam: Family) -> str:
    """Readable text of a :class:`Family`."""
    out = [fam.ref]
    if fam.item is not None:
        stem = (fam.item.stem or "").replace("\n", " ")
        out.append(f"  {stem[:100]}{'...' if len(stem) > 100 else ''}")
        out.append(f"  key {fam.item.key}: {fam.item.key_text!r}; {len(fam.item.options)} options")
    out.append("ancestors:" if fam.ancestors else "ancestors: none")
    for r in fam.ancestors:
        out.append(f"  {'  ' * (r.depth - 1)}{r.ref}  [{_evidence(r.path[-1])}]")
    out.append("descendants:" if fam.descendants else "descendants: none")
    for r in fam.descendants:
        out.append(f"  {'  ' * (r.depth - 1)}{r.ref}  [{_evidence(r.path[-1])}]")
    out.append("duplicates: " + (", ".join(fam.duplicates) or "none"))
    for d in fam.documented:
        out.append(f"documented only: {d['child']} <- {d['parent']} ({d['activity']}, {d.get('languages')} languages)")
    return "\n".join(out)


def _run(args: argparse.Namespace) -> int:
    graph = LineageGraph(Lineage.read(args.lineage))
    fam = family_of(graph, args.item)
    if args.svg:
        from croissant_lineage.render.picture import family_picture

        family_picture(graph, args.item).save(args.svg, overwrite=args.force)
    if args.json:
        print_json(fam.to_dict())
    else:
        print(render_family(fam))
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

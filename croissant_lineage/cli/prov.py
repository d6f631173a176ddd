"""``croissant-lineage prov``: the family's PROV-O graph as Turtle, JSON-LD or N-Triples."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from croissant_lineage.cli._common import add_quiet, example_epilog, print_json
from croissant_lineage.prov.serialize import FORMATS, ProvResult, write_prov

__all__ = ["register", "render"]

_DESCRIPTION = """\
Write the provenance graph of a lineage folder with rdflib: datasets (prov:Entity,
prov:Collection) and their dataset-level derivations and activities, exactly as the
enriched descriptors state them; every item (prov:Entity, prov:hadMember of its
dataset); every item-level derivation as prov:wasDerivedFrom plus a qualified
derivation (prov:Revision / prov:Quotation / prov:Derivation) with its activity,
method, score, option map and key inheritance; the linking activity, associated with
this library as prov:SoftwareAgent; and, with --findings, each finding (cl:Finding)
with its status and source (prov:wasAttributedTo). Same inputs, same bytes.

The file starts with a mark (Turtle, N-Triples: the comment line "# PROV-O written by
croissant-lineage"; JSON-LD: the member "generatedBy": "croissant-lineage", which JSON-LD
drops), so a re-run replaces it; any other existing --out is left alone (error CL-E007)
unless --force."""


def render(result: ProvResult) -> str:
    """Readable text of a :class:`ProvResult`."""
    return (
        f"wrote {result.path} ({result.format}): {result.triples:,} triples, "
        f"{result.edges:,} item derivations, {result.findings:,} findings"
    )


def _run(args: argparse.Namespace) -> int:
    result = write_prov(
        args.lineage,
        args.out,
        findings=args.findings,
        fmt=args.format,
        items=not args.no_items,
        time=args.time,
        force=args.force,
    )
    if args.json:
        print_json(asdict(result))
    elif not args.quiet:
        print(render(result))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "prov",
        help="write the family's PROV-O graph (Turtle, JSON-LD or N-Triples)",
        description=_DESCRIPTION,
        epilog=example_epilog(
            "croissant-lineage prov --lineage lineage/ --format turtle --out mmlu.ttl",
            "croissant-lineage prov --lineage lineage/ --findings findings.json --format nt --out mmlu.nt",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--lineage", required=True, metavar="DIR", help="lineage folder written by 'croissant-lineage link'")
    p.add_argument("--findings", metavar="FILE", help="findings file to include")
    p.add_argument("--format", default="turtle", choices=list(FORMATS), help="output format (default: turtle)")
    p.add_argument("--out", required=True, help="output file")
    p.add_argument("--no-items", action="store_true", help="leave out items that have no derivation triples")
    p.add_argument("--time", help="time of the linking activity, ISO 8601 (default: SOURCE_DATE_EPOCH, else none)")
    p.add_argument("--force", action="store_true", help="replace --out even if this library did not write it")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_quiet(p)
    p.set_defaults(func=_run)

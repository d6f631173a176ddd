"""``croissant-lineage prov``: the family's PROV-O graph as Turtle, JSON-LD or N-Triples, or its records as PROV-JSON."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.prov.serialize import SYNTAXES, write_prov

__all__ = ["register"]

_DESCRIPTION = """\
Write the W3C PROV-O graph of a lineage folder: datasets (prov:Entity,
prov:Collection) and their dataset-level derivations and activities, exactly as the
enriched descriptors state them; every item (prov:Entity, prov:hadMember of its
dataset); every item-level derivation as prov:wasDerivedFrom plus a qualified
derivation (prov:Revision / prov:Quotation / prov:Derivation) with its activity,
method, score, option map and key inheritance; the linking activity, associated with
this library as prov:SoftwareAgent; and, with --findings, each finding (cl:Finding)
with its status and source (prov:wasAttributedTo). Every activity, derivation and
agent is named by an IRI minted under the family's IRI (no blank node); a dataset made
from several parents has one generating activity. Same inputs, same bytes. The prov
library reads the three RDF syntaxes and writes PROV-N from them (docs/prov.md).

--syntax provjson writes W3C PROV-JSON directly (ProvStore, ProvToolbox): the records
the prov library reads out of the RDF export (entities, activities, agents, qualified
derivations by their IRIs, usages, generations, associations, attributions,
memberships), the IRIs as qualified names under declared prefixes, streamed.

The file starts with a mark (Turtle, N-Triples: the comment line "# PROV-O written by
croissant-lineage"; JSON-LD: the member "generatedBy": "croissant-lineage", which JSON-LD
drops; PROV-JSON: the first prefix, "croissant-lineage"), so a re-run replaces it; any other existing --out is left alone (error CL-E007)
unless --force."""


def _run(args: argparse.Namespace) -> int:
    result = write_prov(
        args.lineage,
        args.out,
        findings=args.findings,
        fmt=args.syntax,
        items=not args.no_items,
        time=args.time,
        force=args.force,
    )
    print_result(args, result)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "prov",
        help="write the family's PROV-O graph (Turtle, JSON-LD, N-Triples or PROV-JSON)",
        description=_DESCRIPTION,
        epilog=example_epilog(
            "croissant-lineage prov --lineage lineage/ --syntax turtle --out mmlu.ttl",
            "croissant-lineage prov --lineage lineage/ --findings findings.json --syntax nt --out mmlu.nt",
            "croissant-lineage prov --lineage lineage/ --syntax provjson --out mmlu.provjson",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.lineage(p, required=True)
    options.findings(p)
    p.add_argument("--syntax", default="turtle", choices=list(SYNTAXES),
                   help="syntax of the file written: turtle, json-ld, nt (RDF) or provjson (W3C PROV-JSON) "
                        "(default: turtle)")
    options.renamed(p, "--format", "--syntax", "syntax", choices=list(SYNTAXES))
    options.out(p, "output file", metavar="FILE")
    p.add_argument("--no-items", action="store_true", help="leave out items that have no derivation triples")
    options.time(p)
    options.force(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

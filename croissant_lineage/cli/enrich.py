"""``croissant-lineage enrich``: write PROV-O into Croissant descriptors."""

from __future__ import annotations

import argparse
import sys

from croissant_lineage._results import inert
from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result, show_progress
from croissant_lineage.enrich import EnrichResult, FamilyEnrichResult, enrich_file
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.schema import ACTIVITIES
from croissant_lineage.workflows import enrich_family

__all__ = ["register"]

_DESCRIPTION = """\
Two modes.

DESCRIPTOR --derived-from PARENT: add dataset-level provenance to any Croissant
descriptor: prov:wasDerivedFrom each PARENT (a URL, or the path of the parent's own
descriptor), a qualified derivation with the activity (--activity), and the enrichment
activity (this library and its version as prov:SoftwareAgent).

--family NAME --lineage DIR: enrich every descriptor of a family with its item-level
lineage: dataset, RecordSet and Field derivations, a value-level annotation
(equivalentProperty prov:wasDerivedFrom), and the RecordSets lineage_items, item_texts,
lineage and findings over Parquet files written beside each descriptor in --out
(mlcroissant's records("lineage") yields every edge whose child is in that descriptor).
With --runner beam, each descriptor file is enriched by a step of an Apache Beam
pipeline (the same files, byte for byte; the descriptors must be readable by every
worker) and --out is written at the end, whole.

Where the benchmark's own data loads from: a copy in --out keeps the original's relative
contentUrl / includes (the same bytes on every machine), so the benchmark's RecordSets
load only if their files resolve from --out; when they do not, enrich warns (CL-W001,
one line per descriptor, naming the RecordSets). Two ways out: --in-place NAME writes
each enriched descriptor and its lineage files beside its data, under NAME ({stem}: the
dataset's name; the folder is the original's, or --data-dir for a shipped family), never
over the original; --rebase-urls rewrites the benchmark's relative paths to resolve from
--out and records the originals, which stripping the enrichment puts back. mlcroissant
reads a FileSet's includes only under the descriptor's folder, so only --in-place makes
FileSet data load.

Nothing in the input is changed or reordered: enrichment only adds, and every node it
adds is marked ("@index": "croissant-lineage"), so enriching an enriched descriptor
replaces the earlier additions. The same inputs give the same bytes: no clock is read
(the time recorded is --time, else SOURCE_DATE_EPOCH, else none). Files are written
atomically.

--out may be a new file or a file this library wrote (a descriptor with its marks, a
lineage Parquet file with its columns); any other existing file is left alone (error
CL-E007) unless --force. An input of the command (DESCRIPTOR, a parent, the family spec,
its descriptors, the lineage or findings files) is never written, even with --force."""


def _run(args: argparse.Namespace) -> int:
    result: EnrichResult | FamilyEnrichResult
    if args.family:
        if args.descriptor or args.derived_from:
            raise InputError("--family takes no DESCRIPTOR or --derived-from")
        if not args.lineage:
            raise InputError("--family needs --lineage DIR (the output of 'croissant-lineage link')")
        if (args.in_place is None) == (args.out is None):
            raise InputError("--family needs --out DIR or --in-place NAME (one of them)")
        result = enrich_family(
            args.lineage,
            args.family,
            args.out,
            args.findings,
            time=args.time,
            force=args.force,
            progress=show_progress(args),
            runner=args.runner,
            pipeline_options=options.beam_options(args),
            in_place=args.in_place,
            rebase=args.rebase_urls,
            data_dir=args.data_dir,
        )
        if args.json or args.quiet:  # the text view lists them; else they still reach the user
            for w in result.warnings:
                print(inert(str(w)), file=sys.stderr)
    else:
        if args.in_place is not None or args.rebase_urls or args.data_dir:
            raise InputError("--in-place, --rebase-urls and --data-dir apply to --family only")
        if not args.out:
            raise InputError("give --out PATH")
        if args.runner != "local" or args.beam_option:
            raise InputError("--runner and --beam-option apply to --family only")
        if not args.descriptor or not args.derived_from:
            raise InputError(
                "give DESCRIPTOR and at least one --derived-from PARENT (or --family NAME)"
            )
        result = enrich_file(
            args.descriptor,
            args.out,
            derived_from=args.derived_from,
            activity=args.activity,
            note=args.note or "",
            time=args.time,
            validate=args.validate,
            force=args.force,
        )
    print_result(args, result)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "enrich",
        help="write PROV-O provenance into Croissant descriptors (dataset level, or a whole family)",
        description=_DESCRIPTION,
        epilog=example_epilog(
            "croissant-lineage enrich my-bench.json --derived-from https://huggingface.co/datasets/cais/mmlu "
            "--activity filter --out my-bench.enriched.json",
            "croissant-lineage enrich child.json --derived-from parent/croissant.json --out child.enriched.json",
            "croissant-lineage enrich --family mmlu --lineage lineage/ --findings findings.json --out enriched/",
            "croissant-lineage enrich --family toy.json --lineage lineage/ --in-place croissant.enriched.json",
            "croissant-lineage enrich --family mmlu --lineage lineage/ --data-dir data/ --in-place '{stem}.enriched.json'",
            "croissant-lineage enrich --family mmlu --lineage lineage/ --out enriched/ --runner beam "
            "--beam-option direct_num_workers=2",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("descriptor", nargs="?", metavar="DESCRIPTOR", help="a Croissant descriptor (dataset-level mode)")
    p.add_argument(
        "--derived-from",
        action="append",
        metavar="PARENT",
        help="parent dataset: a URL or the path of its descriptor (repeatable)",
    )
    p.add_argument("--activity", default="copy", choices=ACTIVITIES, help="what made the dataset from its parents")
    p.add_argument("--note", help="what the derivation did, in words")
    options.family(p)
    options.lineage(p)
    options.findings(p)
    options.out(p, "output file (dataset level) or folder (--family)", required=False)
    p.add_argument(
        "--in-place",
        metavar="NAME",
        help="--family: write each enriched descriptor beside its data as NAME ({stem}: its dataset's name), "
        "so that every RecordSet loads",
    )
    p.add_argument(
        "--rebase-urls",
        action="store_true",
        help="--family --out: rewrite the benchmark's relative contentUrl/includes to resolve from --out "
        "(recorded; stripping the enrichment restores them)",
    )
    options.data_dir(p)
    options.time(p)
    p.add_argument(
        "--validate",
        action="store_true",
        help="check with mlcroissant that the output has no more issues than the input",
    )
    options.runner(p, "enrich a --family")
    options.force(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

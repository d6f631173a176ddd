"""``croissant-lineage discover``: propose the undeclared parents of datasets of unknown origin."""

from __future__ import annotations

import argparse
import json

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.discovery.family import discover_family
from croissant_lineage.discovery.propose import discover
from croissant_lineage.errors import InputError

__all__ = ["register"]


def _roles(text: str | None) -> dict[str, object] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"--roles is not JSON: {exc.msg}", hint='e.g. --roles \'{"stem": "question"}\'') from None
    if not isinstance(value, dict):
        raise InputError("--roles must be a JSON object (role -> expression)")
    return value


def _run(args: argparse.Namespace) -> int:
    if args.family is not None:
        if args.descriptors or args.against or args.roles or args.key_format:
            raise InputError("--family compares the spec's own datasets: give no DESCRIPTOR, --against, --roles or --key-format with it")
        print_result(args, discover_family(args.family, data_dir=args.data_dir, out=args.out, threshold=args.threshold,
                                          index_dir=args.index, force=args.force))
        return 0
    if not args.descriptors or not args.against:
        raise InputError("give DESCRIPTOR... --against SOURCE... (or --family NAME)")
    result = discover(
        args.descriptors,
        args.against,
        out=args.out,
        data_dir=args.data_dir,
        roles=_roles(args.roles),
        key_format=args.key_format,
        threshold=args.threshold,
        index_dir=args.index,
        force=args.force,
    )
    print_result(args, result)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "discover",
        help="propose the parents, activity and item edges of datasets nobody declared",
        description="Infer the item roles of each DESCRIPTOR (override with --roles), look its stems "
        "up in an index of the SOURCES corpus (family names or spec files, descriptors, lineage folders), "
        "choose parent datasets, link items with the linker's own matching, and guess the activity. "
        "Writes OUT/family-fragment.json (to review and add to a spec), OUT/lineage/ (edges with "
        "method 'discovered'), OUT/discover.json and OUT/index/ (reused by later runs). "
        "With --family NAME instead: every dataset of the family against every other (its declared "
        "derivations are not read): "
        "the derivation forest, each direction decided by evidence (options added, dates, subsets, "
        "languages) or reported as undecided.",
        epilog=example_epilog(
            "croissant-lineage discover new/metadata.json --against mmlu --data-dir ../shared/data --out found/",
            "croissant-lineage discover --family datasets-only.json --data-dir ../shared/data --out forest/",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("descriptors", nargs="*", metavar="DESCRIPTOR", help="Croissant descriptor of a dataset of unknown origin")
    p.add_argument("--against", nargs="+", metavar="SOURCE", help="reference corpus: family, spec, descriptor or lineage folder")
    options.family(p)
    options.data_dir(p)
    options.out(p, "folder to write (fragment, lineage, report, index)", metavar="DIR")
    p.add_argument("--roles", metavar="JSON", help="role overrides in the family spec's syntax, as JSON")
    p.add_argument("--key-format", choices=("letter", "index", "text"), help="key format when --roles sets the key")
    p.add_argument("--threshold", type=float, default=85.0, help="minimum stem score 0-100 of a candidate (default 85)")
    p.add_argument("--index", metavar="DIR", help="where the corpus index is saved and reused (default OUT/index)")
    options.force(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

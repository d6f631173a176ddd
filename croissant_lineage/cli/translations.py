"""``croissant-lineage translations``: verify translated items joined to their sources."""

from __future__ import annotations

import argparse

from croissant_lineage._results import inert
from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.render.text import translations_text
from croissant_lineage.workflows import verify_family_translations

__all__ = ["register"]

def _run(args: argparse.Namespace) -> int:
    report = verify_family_translations(
        options.family_of(args), data_dir=args.data_dir, lineage=args.lineage, allow_outside=args.allow_outside
    )
    if args.subjects and not args.json and not args.quiet:
        print(inert(translations_text(report, subjects=True)))
    else:
        print_result(args, report)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "translations",
        help="verify translations and copies joined to their source items by id or row index",
        description="For every translation, copy or filter derivation linked by id or row index, check "
        "each joined item: same answer letter, same number of options, and language-independent "
        "evidence (numbers, formulas, Latin-script names; stem similarity for same-language copies). "
        "Reports counts per dataset, language and subject, subjects whose row index is shifted (found "
        "by trying shifts -5..+5), and single items whose key differs from the source's.",
        epilog=example_epilog(
            "croissant-lineage translations --family mmlu --data-dir ../shared/data",
            "croissant-lineage translations --family mmlu --lineage lineage/ --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.family(p, from_lineage=True)
    options.data_dir(p)
    options.lineage(p)
    p.add_argument("--subjects", action="store_true", help="also print the per-subject table")
    options.allow_outside(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

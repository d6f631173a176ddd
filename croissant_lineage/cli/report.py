"""``croissant-lineage report``: family-level figures, each with its definition."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.report import family_report
from croissant_lineage.lineage.model import Lineage

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    findings = load_findings(args.findings)
    report = family_report(Lineage.read(args.lineage), findings)
    print_result(args, report)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="family-level figures (flagged keys and where they survive), with definitions",
        description="How many parent items carry a wrong-key or no-correct-answer finding; how many "
        "of those keys survive unchanged in each descendant dataset, and in how many the proposed "
        "answer is among the descendant's options; how many descendant items are graded against a "
        "key flagged wrong; how many parents have identical copies. Every figure states its "
        "definition.",
        epilog=example_epilog(
            "croissant-lineage report --lineage lineage/ --findings redux.json",
            "croissant-lineage report --lineage lineage/ --findings redux.json errata.json --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    options.lineage(p, required=True)
    options.findings(p, required=True)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

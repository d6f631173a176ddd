"""``croissant-lineage witnesses``: model prediction archives as witnesses for contested keys."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result, show_progress
from croissant_lineage.workflows import witness_family

__all__ = ["register"]

def _run(args: argparse.Namespace) -> int:
    report = witness_family(
        options.family_of(args),
        archives_dir=args.archives,
        data_dir=args.data_dir,
        dataset=args.dataset,
        findings=args.findings,
        lineage=args.lineage,
        progress=show_progress(args),
        allow_outside=args.allow_outside,
    )
    print_result(args, report)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "witnesses",
        help="use model prediction archives as secondary witnesses for contested keys",
        description="Read prediction archives (zips in MMLU-Pro's format: one JSON list of records "
        "with question_id, options, answer, pred), admit only the records matching the snapshot "
        "DATASET (same id, options and key), and, for the wrong-key findings of FINDINGS whose "
        "proposed answer is one of the item's options (routed through lineage when made on a "
        "parent dataset), count how often each model picked the proposed answer vs the key. "
        "Archives that are not single-file zips, expand beyond limits (zip bombs) or hold unsafe "
        "member names are refused (exit 2); records of the wrong shape are counted and skipped.",
        epilog=example_epilog(
            "croissant-lineage witnesses --archives ../shared/data/mmlu_pro/eval_results "
            "--family mmlu --data-dir ../shared/data --dataset mmlu-pro",
            "croissant-lineage witnesses --archives eval_results/ --family mmlu --data-dir data/ "
            "--dataset mmlu-pro --findings findings.yaml --lineage lineage/ --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    arg = p.add_argument
    arg("--archives", required=True, metavar="DIR", help="folder of *.zip prediction archives")
    options.family(p, from_lineage=True)
    options.data_dir(p, required=True)
    options.dataset(p, "the snapshot to judge", required=True)
    options.findings(p)
    options.lineage(p)
    options.allow_outside(p)
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

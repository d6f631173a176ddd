"""``croissant-lineage publish``: a Hugging Face dataset repository update (dry run by default)."""

from __future__ import annotations

import argparse
import os
import sys

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.hub.publish import publish

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get("HF_TOKEN") or None
    plan = publish(
        args.descriptor,
        args.lineage,
        args.out,
        repo_id=args.repo_id,
        token=token,
        dry_run=args.dry_run or not token,
        dataset=args.dataset,
        findings=args.findings or None,
        base_card=args.base_card,
        overwrite=args.force,
    )
    print_result(args, plan)
    if not args.json and not plan.uploaded:
        print(f"files written to {plan.out_dir}; nothing uploaded (no token, or --dry-run)", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish",
        help="write (and with a token, commit) a Hugging Face dataset repo update with the lineage",
        description="Write the files of a Hugging Face dataset repository update for one dataset of a linked "
        "family: the enriched descriptor (croissant.json), the lineage and findings as Parquet with a "
        "configs entry each in the card's YAML (so the Hub's own Croissant and viewer include them), "
        "source_datasets naming the parents, the license, and a readable lineage section in README.md. "
        "Without a token (--token or $HF_TOKEN), or with --dry-run, nothing is uploaded; with one, the "
        "files are committed in one commit (an existing README.md is merged, not replaced).",
        epilog=example_epilog(
            "croissant-lineage publish enriched/mmlu-pro.json --lineage lineage/ --out hub-mmlu-pro/ "
            "--repo-id TIGER-Lab/MMLU-Pro --dry-run",
            "croissant-lineage publish enriched/mmlu-pro.json --lineage lineage/ --out hub-mmlu-pro/ "
            "--repo-id me/mmlu-pro-lineage --findings findings.yaml --token $HF_TOKEN",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("descriptor", metavar="DESCRIPTOR", help="the dataset's (enriched) Croissant descriptor")
    options.lineage(p, required=True)
    options.out(p, "folder that receives exactly the committed files")
    p.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="the Hugging Face dataset repository")
    p.add_argument("--dataset", help="which dataset of the lineage the descriptor is (default: its name)")
    options.findings(p)
    p.add_argument("--base-card", metavar="README", help="an existing dataset card to merge into")
    p.add_argument("--token", help="Hub token (default: $HF_TOKEN); without one nothing is uploaded")
    p.add_argument("--dry-run", action="store_true", help="write the files and print the operations only")
    options.force(p)
    options.json_output(p)
    p.set_defaults(func=_run)

"""``croissant-lineage publish``: a Hugging Face dataset repository update (dry run unless ``--upload``)."""

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
        upload=args.upload,
        dataset=args.dataset,
        findings=args.findings or None,
        base_card=args.base_card,
        read_hub_card=args.from_hub,
        texts=args.texts,
        force=args.force,
    )
    print_result(args, plan)
    if not args.json and not plan.uploaded and not args.quiet:
        print(f"files written to {plan.out_dir}; nothing uploaded (dry run: --upload commits them)", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "publish",
        help="write (and with --upload, commit) a Hugging Face dataset repo update with the lineage",
        description="Write the files of an update of one dataset's Hugging Face dataset repository: the "
        "lineage and findings as Parquet with a configs entry each in the card's YAML (so the Hub's own "
        "Croissant and viewer include them), croissant.json with every file URL one of the repository, "
        "and README.md: the repository's card with its own configs and metadata kept, source_datasets "
        "naming the parents and a readable lineage section. The repository's card comes from --base-card, "
        "or from the Hub with --from-hub or --upload; without either, publish stops (CL-E009). Findings: "
        "--findings, else those the enriched descriptor holds. The items' stems and options are "
        "published only with --texts. Nothing is uploaded without --upload, which needs a token "
        "(--token or $HF_TOKEN) and commits the folder in one commit.",
        epilog=example_epilog(
            "croissant-lineage publish enriched/mmlu-pro.json --lineage lineage/ --out hub-mmlu-pro/ "
            "--repo-id TIGER-Lab/MMLU-Pro --base-card README.md",
            "croissant-lineage publish enriched/mmlu-pro.json --lineage lineage/ --out hub-mmlu-pro/ "
            "--repo-id TIGER-Lab/MMLU-Pro --findings errata.json --upload --token $HF_TOKEN",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("descriptor", metavar="DESCRIPTOR", help="the dataset's (enriched) Croissant descriptor")
    options.lineage(p, required=True)
    options.out(p, "folder that receives exactly the committed files", metavar="DIR")
    p.add_argument("--repo-id", required=True, metavar="ORG/NAME", help="the Hugging Face dataset repository")
    options.dataset(p, "which dataset of the lineage the descriptor is (default: its name)")
    options.findings(p)
    p.add_argument("--base-card", metavar="README",
                   help="the repository's current dataset card (README.md): its configs are kept, offline")
    p.add_argument("--from-hub", action="store_true",
                   help="read the repository's current card from the Hub (without --base-card; no upload)")
    p.add_argument("--texts", action="store_true",
                   help="publish the items' stems and options in lineage_items (default: those columns are null)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--upload", action="store_true",
                      help="commit the files to the repository (needs a token); without it nothing is uploaded")
    mode.add_argument("--dry-run", action="store_true",
                      help="write the files and print the operations only (the default)")
    p.add_argument("--token", help="Hub token for --upload and --from-hub (default: $HF_TOKEN)")
    options.force(p)
    options.quiet(p)
    options.json_output(p)
    p.set_defaults(func=_run)

"""``croissant-lineage route``: the ranked re-review queue of an item or a finding."""

from __future__ import annotations

import argparse

from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_result
from croissant_lineage.findings.files import load_findings
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import finding_by_id, route, route_item

__all__ = ["register"]


def _run(args: argparse.Namespace) -> int:
    findings = load_findings(args.findings) if args.findings else []
    finding = finding_by_id(findings, args.query)
    if args.target:
        finding = Finding(
            item=args.query,
            target=args.target,
            option_index=args.option,
            kind=args.kind,
            proposed=args.proposed,
            source=Source("command line", kind="person"),
        )
    if finding is not None:
        queue = route(args.lineage, finding, findings)  # (the finding's family rows alone)
    else:
        queue = route_item(args.lineage, args.query, findings)
    if args.expand:
        queue = queue.expand()
    print_result(args, queue)
    return 0


def _option_index(text: str) -> int:
    """An option letter (``A``, ``b``...) as a 0-based index; anything else is a usage error."""
    letter = text.strip().upper()
    if len(letter) != 1 or not "A" <= letter <= "Z":
        raise argparse.ArgumentTypeError(f"{text!r} is not one option letter (A, B, C...)")
    return ord(letter) - ord("A")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "route",
        help="the ranked re-review queue of an item or a finding",
        description="Follow the questioned content (a key, an option, the stem or the whole item) "
        "through every known relative: inherited, added, unaffected or unverified, with the "
        "transformation on the path, a rank (0 source annotation to amend, 1 certain, 2 probable, "
        "3 unverified, 4 unaffected) and a one-line note. Existing findings on the same content "
        "that the routed one contradicts, refines or duplicates are rank 0, with what they should "
        "become. An item's versions (snapshots, re-releases) show as one line with their story, "
        "per-language and documented rows one line per dataset family (--expand: every row). "
        "ITEM_OR_FINDING is an item ref (every "
        "finding of its relatives is routed) or a finding id from --findings; --target routes an "
        "ad-hoc finding on the item.",
        epilog=example_epilog(
            "croissant-lineage route mmlu-pro:3542 --lineage lineage/ --findings redux.json",
            "croissant-lineage route mmlu-pro:3542 --lineage lineage/ --findings redux.json "
            "--target key --kind no_correct_answer",
            "croissant-lineage route mmlu-pro:6268 --lineage lineage/ --target option --option B --expand",
            "croissant-lineage route F-3f2a9c1b7d20 --lineage lineage/ --findings redux.json review.yaml --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "query", metavar="ITEM_OR_FINDING", help="item ref (mmlu-pro:3542) or finding id"
    )
    options.lineage(p, required=True)
    options.findings(p)
    p.add_argument(
        "--target",
        choices=("key", "option", "stem", "item", "solution", "tests"),
        help="route an ad-hoc finding on the item questioning this",
    )
    p.add_argument(
        "--option", metavar="LETTER", type=_option_index, help="the questioned option (with --target option)"
    )
    options.kind(p, "kind of the ad-hoc finding (default: other)", default="other")
    p.add_argument(
        "--proposed",
        help="proposed answer text of the ad-hoc finding (the published key's text: a finding that keeps the key)",
    )
    p.add_argument(
        "--expand",
        action="store_true",
        help="one line per row: every version of an item, every translation (--json always has every row)",
    )
    options.json_output(p)
    options.quiet(p)
    p.set_defaults(func=_run)

"""``croissant-lineage validate``: coded issues for CI (exit 0 valid, 1 errors, 2 could not run)."""

from __future__ import annotations

import argparse
import sys

from croissant_lineage._results import inert
from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_json
from croissant_lineage.errors import InputError
from croissant_lineage.validate import codes_table, validate
from croissant_lineage.validate.github import github_annotations, github_summary

__all__ = ["register"]


def _split(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [c for v in values for c in v.split(",") if c.strip()]


def _report_format(text: str) -> str:
    """``--format``: text or github; ``json`` is ``--json`` now (accepted, with a note)."""
    if text == "json":
        print("croissant-lineage: note: --format json is now --json (the old spelling goes in the next "
              "release)", file=sys.stderr)
    elif text not in ("text", "github"):
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from text, github)")
    return text


def _run(args: argparse.Namespace) -> int:
    if args.list_codes:
        print(codes_table())
        return 0
    if not args.paths:
        raise InputError("nothing to validate", hint="give at least one PATH, or --list-codes")
    report = validate(
        args.paths,
        select=_split(args.select),
        ignore=_split(args.ignore),
        strict=args.strict,
        max_per_code=None if args.all else 50,
        metadata_only=args.metadata_only,
        data_dir=args.data_dir,
        family=args.family,
    )
    if args.summary:
        with open(args.summary, "a", encoding="utf-8") as fh:  # appended, as GitHub expects
            fh.write(github_summary(report))
    if args.json or args.format == "json":
        print_json(report.to_dict())
    elif args.format == "github":
        print("\n".join(github_annotations(report)))
    elif not args.quiet:
        print(inert(str(report)))
    return 0 if report.valid else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "validate",
        help="check descriptors, lineage, family specs, findings and dataset cards (for CI)",
        description="Validate Croissant descriptors (plain or enriched), lineage folders and tables, family "
        "specs, findings files and dataset cards, offline, and report coded issues (CLV...). Folders are "
        "searched. A descriptor's local data files must be present (CLV701; --metadata-only skips "
        "that); they resolve against its folder, or where --family says (--data-dir for a shipped "
        "family). Exit status: 0 valid, 1 errors, 2 could not run. Codes: --list-codes.",
        epilog=example_epilog(
            "croissant-lineage validate croissant.json lineage/ findings.yaml",
            "croissant-lineage validate hub-repo/ --ignore CLV103,CLV106",
            "croissant-lineage validate lineage/ findings.yaml --select CLV4 --json",
            "croissant-lineage validate enriched/ --family mmlu --data-dir ../shared/data",
            "croissant-lineage validate croissant.json --metadata-only",
            "croissant-lineage validate . --format github --summary \"$GITHUB_STEP_SUMMARY\"",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to validate")
    p.add_argument("--select", action="append", metavar="CODES",
                   help="report only these codes or prefixes (comma-separated, repeatable), e.g. CLV2,CLV301")
    p.add_argument("--ignore", action="append", metavar="CODES",
                   help="do not report these codes or prefixes (comma-separated, repeatable)")
    p.add_argument("--strict", action="store_true", help="count warnings as errors")
    p.add_argument("--all", action="store_true", help="list every issue (default: at most 50 per code and file)")
    p.add_argument("--metadata-only", action="store_true",
                   help="do not check that local FileObjects and FileSets match files (CLV701): "
                   "for a descriptor checked without its data")
    options.family(p)
    options.data_dir(p)
    options.json_output(p)
    p.add_argument("--format", type=_report_format, default="text", metavar="{text,github}",
                   help="text (default) or github: one ::error/::warning annotation per issue, with "
                   "file and line, for GitHub Actions (JSON: --json)")
    options.quiet(p)
    p.add_argument("--summary", metavar="FILE",
                   help="also append the report as Markdown to FILE (e.g. $GITHUB_STEP_SUMMARY)")
    p.add_argument("--list-codes", action="store_true", help="print the table of codes and exit")
    p.set_defaults(func=_run)

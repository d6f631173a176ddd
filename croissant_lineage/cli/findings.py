"""``croissant-lineage findings``: import published annotations as findings; list findings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from croissant_lineage.cli.options import example_epilog, print_json
from croissant_lineage.errors import OutputExistsError
from croissant_lineage.findings.importers import ImportResult, import_mmlu_pro_errata, import_redux
from croissant_lineage.findings.model import (
    KINDS,
    STATUSES,
    Finding,
    findings_to_document,
    load_findings,
    save_findings,
)
from croissant_lineage.lineage.model import Lineage

__all__ = ["register"]


def _check_out(args: argparse.Namespace) -> Path:
    out = Path(args.out)
    if out.exists() and not args.force:
        raise OutputExistsError("exists", path=out, hint="choose a new file, or pass --force")
    return out


def _report(args: argparse.Namespace, result: ImportResult, out: Path) -> int:
    if args.json:
        print_json(result.to_dict())
    elif not args.quiet:
        print(result)
        print(f"wrote {out}", file=sys.stderr)
    return 0


def _import_redux(args: argparse.Namespace) -> int:
    out = _check_out(args)
    lineage = Lineage.read(args.lineage) if args.lineage else None
    result = import_redux(
        family=args.family, dataset=args.dataset, data_dir=args.data_dir, lineage=lineage
    )
    save_findings(out, result.findings)
    return _report(args, result, out)


def _import_errata(args: argparse.Namespace) -> int:
    out = _check_out(args)
    items = Lineage.read(args.lineage).items if args.lineage else None
    result = import_mmlu_pro_errata(
        args.folder, items=items, family=args.family, data_dir=args.data_dir
    )
    save_findings(out, result.findings)
    return _report(args, result, out)


def _line(f: Finding) -> str:
    what = f.target if f.option_index is None else f"option {chr(65 + f.option_index)}"
    proposed = f" -> {f.proposed!r}" if f.proposed else ""
    date = f" {f.status_date}" if f.status_date else ""
    return f"{f.id}  {f.item}  {f.kind} ({what}){proposed}  [{f.status}{date}]  {f.source.name}"


def _list(args: argparse.Namespace) -> int:
    findings = load_findings(args.files)
    chosen = [
        f
        for f in findings
        if (not args.status or f.status in args.status)
        and (not args.kind or f.kind in args.kind)
        and (not args.item or f.item == args.item or f.source.item == args.item)
    ]
    if args.json:
        print_json(findings_to_document(chosen))
    else:
        for f in chosen:
            print(_line(f))
        print(f"{len(chosen)} of {len(findings)} findings", file=sys.stderr)
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--family", default="mmlu", help="family spec name or file (default: mmlu)")
    p.add_argument(
        "--data-dir", default="../shared/data", help="data folder (default: ../shared/data)"
    )
    p.add_argument("--lineage", metavar="DIR", help="lineage folder (from 'link')")
    p.add_argument("--out", required=True, help="findings file to write (.json, .yaml)")
    p.add_argument("--force", action="store_true", help="replace an existing --out")
    p.add_argument("--json", action="store_true", help="print the import summary as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "findings",
        help="import published annotations as findings, or list findings files",
        description="Findings are audit findings attached to items, with their source, evidence and "
        "review status (schemas/finding.schema.json). 'import' turns MMLU-Redux annotations or the "
        "MMLU-Pro errata lists into a findings file; 'list' shows findings files (status updates "
        "appended by hand are applied in file order).",
        epilog=example_epilog(
            "croissant-lineage findings import redux --lineage lineage/ --out redux.json",
            "croissant-lineage findings import errata --lineage lineage/ --out errata.yaml",
            "croissant-lineage findings list redux.json review.yaml --status rejected",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fsub = p.add_subparsers(dest="findings_command", metavar="ACTION", required=True)
    imp = fsub.add_parser(
        "import",
        help="import findings from a published source",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=example_epilog(
            "croissant-lineage findings import redux --lineage lineage/ --out redux.json"
        ),
    )
    isub = imp.add_subparsers(dest="source", metavar="SOURCE", required=True)
    red = isub.add_parser(
        "redux",
        help="MMLU-Redux annotations, attached to the MMLU items they annotate",
        description="Normalise MMLU-Redux's error_type labels, resolve correct_answer to option texts, "
        "and attach each non-ok row to its MMLU item through the lineage (status: proposed).",
        epilog=example_epilog(
            "croissant-lineage findings import redux --lineage lineage/ --out redux.json",
            "croissant-lineage findings import redux --dataset mmlu-redux-2.0 --lineage lineage/ --out r2.json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    red.add_argument(
        "--dataset", default="mmlu-redux", help="mmlu-redux (raw files) or mmlu-redux-2.0"
    )
    _common(red)
    red.set_defaults(func=_import_redux)
    err = isub.add_parser(
        "errata",
        help="MMLU-Pro errata lists (problem_ids.json + hf_discussion_post.md)",
        description="Each listed MMLU-Pro question_id becomes a finding (status: submitted); ids that "
        "are not test items are reported as unattached.",
        epilog=example_epilog(
            "croissant-lineage findings import errata --lineage lineage/ --out errata.json"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    err.add_argument("--folder", help="errata folder (default: DATA_DIR/mmlu_pro_errata)")
    _common(err)
    err.set_defaults(func=_import_errata)
    lst = fsub.add_parser(
        "list",
        help="list findings from findings files",
        epilog=example_epilog("croissant-lineage findings list redux.json --kind wrong_key --json"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lst.add_argument("files", nargs="+", metavar="FILE", help="findings files, read in order")
    lst.add_argument("--status", nargs="+", choices=STATUSES, help="only these statuses")
    lst.add_argument("--kind", nargs="+", choices=KINDS, help="only these kinds")
    lst.add_argument("--item", help="only findings on (or raised by) this item ref")
    lst.add_argument("--json", action="store_true", help="print the findings document as JSON")
    lst.set_defaults(func=_list)

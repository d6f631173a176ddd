"""``croissant-lineage findings``: import published annotations as findings; list findings.

The ``findings import SOURCE`` subcommands are generated from the importer registry
(:func:`croissant_lineage.findings.importers.importers`): one per registered importer,
with the common flags declared once here and each importer's own arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from croissant_lineage._io import replaceable
from croissant_lineage._results import inert_value
from croissant_lineage.cli import options
from croissant_lineage.cli.options import example_epilog, print_json
from croissant_lineage.findings.files import (
    findings_to_document,
    is_findings_output,
    load_findings,
    save_findings,
)
from croissant_lineage.findings.importers import Importer, ImportResult, importers
from croissant_lineage.findings.model import STATUSES, Finding, select_findings
from croissant_lineage.lineage.model import Lineage

__all__ = ["register"]


def _check_out(args: argparse.Namespace) -> Path:
    """After the import ran, so that an input it read is refused as one (never "pass --force")."""
    out = Path(args.out)
    replaceable(out, force=args.force, ours=is_findings_output)  # its own earlier output is replaced
    return out


def _report(args: argparse.Namespace, result: ImportResult, out: Path) -> int:
    if args.json:
        print_json(result.to_dict())
    elif not args.quiet:
        print(result)
        print(f"wrote {out}", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace) -> int:
    importer: Importer = args.importer
    lineage = Lineage.read(args.lineage) if args.lineage else None
    values = {a.name: getattr(args, a.name) for a in importer.arguments}
    named = args.family or args.lineage  # else the importer's own family (the one its source annotates)
    family = options.family_of(args) if named else None
    result = importer.run(family=family, data_dir=args.data_dir, lineage=lineage, **values)
    out = _check_out(args)
    save_findings(result.findings, out)
    return _report(args, result, out)


def _line(f: Finding) -> str:
    what = f.target if f.option_index is None else f"option {chr(65 + f.option_index)}"
    proposed = f" -> {f.proposed!r}" if f.proposed else ""
    date = f" {f.status_date}" if f.status_date else ""
    return f"{f.id}  {f.item}  {f.kind} ({what}){proposed}  [{f.status}{date}]  {f.source.name}"


def _list(args: argparse.Namespace) -> int:
    findings = load_findings(args.files)
    chosen = select_findings(findings, statuses=args.status, kinds=args.kind, item=args.item or None)
    if args.json:
        print_json(findings_to_document(chosen))
    else:
        for f in chosen:
            print(inert_value(_line(f)))
        if not args.quiet:
            print(f"{len(chosen)} of {len(findings)} findings", file=sys.stderr)
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    options.family(p, from_lineage=True)
    options.data_dir(p)
    options.lineage(p)
    options.out(p, "findings file to write (.json, .yaml)", metavar="FILE")
    options.force(p)
    options.json_output(p)
    options.quiet(p)


def _add_importer(isub: argparse._SubParsersAction, importer: Importer) -> None:
    """The ``findings import NAME`` subcommand of one registered importer."""
    p = isub.add_parser(
        importer.name,
        help=importer.help,
        description=importer.description or importer.help,
        epilog=example_epilog(*importer.examples) if importer.examples else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for arg in importer.arguments:
        if arg.flag == "--dataset":  # a shared flag: declared (and so meant) as everywhere
            options.dataset(p, arg.help, required=arg.required, default=arg.default)
            continue
        p.add_argument(
            arg.flag,
            dest=arg.name,
            type=arg.type,
            required=arg.required,
            default=arg.default,
            help=arg.help,
        )
    _common(p)
    p.set_defaults(func=_import, importer=importer)


def register(sub: argparse._SubParsersAction) -> None:
    sources = importers()
    examples = [imp.examples[0] for imp in sources.values() if imp.examples]
    p = sub.add_parser(
        "findings",
        help="import published annotations as findings, or list findings files",
        description="Findings are audit findings attached to items, with their source, evidence and "
        "review status (schemas/finding.schema.json). 'import SOURCE' turns a published source ("
        + ", ".join(sources)
        + ") into a findings file; 'list' shows findings files (status updates appended by hand "
        "are applied in file order).",
        epilog=example_epilog(
            *examples,
            "croissant-lineage findings list redux.json review.yaml --status rejected",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    fsub = p.add_subparsers(dest="findings_command", metavar="ACTION", required=True)
    imp = fsub.add_parser(
        "import",
        help="import findings from a published source",
        description="Import findings from a published source; each SOURCE has its own --help.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=example_epilog(*examples),
    )
    isub = imp.add_subparsers(dest="source", metavar="SOURCE", required=True)
    for importer in sources.values():
        _add_importer(isub, importer)
    lst = fsub.add_parser(
        "list",
        help="list findings from findings files",
        epilog=example_epilog("croissant-lineage findings list redux.json --kind wrong_key --json"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lst.add_argument("files", nargs="+", metavar="FILE", help="findings files, read in order")
    lst.add_argument("--status", action="append", metavar="STATUS", choices=STATUSES,
                     help="only findings with this status (repeatable)")
    options.kind(lst, "only findings of this kind (repeatable)", repeatable=True)
    options.item(lst, "only findings on (or raised by) this item ref")
    options.json_output(lst)
    options.quiet(lst)
    lst.set_defaults(func=_list)

"""``croissant-lineage translations``: verify translated items joined to their sources."""

from __future__ import annotations

import argparse

from croissant_lineage.audits.translations import TranslationReport
from croissant_lineage.cli._common import example_epilog, print_json
from croissant_lineage.workflows import family_translations

__all__ = ["register", "render_translations"]

_COLUMNS = ("joined", "verified", "consistent", "evidence_conflict", "options_differ", "key_differs", "misaligned")


def _table(rows: list[dict], first: tuple[str, ...]) -> list[str]:
    head = [*first, *_COLUMNS]
    cells = [[str(r.get(c) if r.get(c) is not None else "-") for c in head] for r in rows]
    widths = [max(len(h), *(len(row[i]) for row in cells)) if cells else len(h) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" if i < len(first) else f"{{:>{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*head), *(fmt.format(*row) for row in cells)]


def render_translations(report: TranslationReport, *, subjects: bool = False) -> str:
    """Readable text of a :class:`TranslationReport` (per-subject rows with ``subjects``)."""
    lines = ["joins verified per dataset and language:"]
    lines += ["  " + x for x in _table(report.totals.to_pylist(), ("dataset", "language"))]
    if subjects:
        lines.append("per subject:")
        lines += ["  " + x for x in _table(report.groups.to_pylist(), ("dataset", "language", "subject"))]
    bad = report.misaligned_subjects()
    lines.append(f"misaligned subjects: {len(bad)}")
    for s in bad:
        lines.append(
            f"  {s.dataset} {s.subject}: shift {s.best_shift:+d} ({s.agree_at_best}/{s.items} items agree "
            f"shifted, {s.agree_at_zero} unshifted)"
        )
    for v in report.by_status("misaligned"):
        lines.append(f"    {v.child_ref} -> {v.realigned_parent} (joined to {v.parent_ref})")
    diffs = report.key_differences()
    lines.append(f"keys that differ from the source's: {len(diffs)}")
    for v in diffs:
        lines.append(f"  {v.child_ref}: {v.child_key} (source {v.parent_ref}: {v.parent_key})")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    report = family_translations(
        args.family, data_dir=args.data_dir, lineage=args.lineage, allow_outside=args.allow_outside
    )
    if args.json:
        print_json(report.to_dict())
    else:
        print(render_translations(report, subjects=args.subjects))
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
    p.add_argument("--family", required=True, help="a built-in family name (mmlu) or a family spec file")
    p.add_argument("--data-dir", help="folder the descriptors' file URLs resolve against (shipped families)")
    p.add_argument("--lineage", help="a lineage folder (from 'link') to use instead of linking the joins here")
    p.add_argument("--subjects", action="store_true", help="also print the per-subject table")
    p.add_argument("--allow-outside", action="store_true", help="allow file URLs outside the base folder")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_run)

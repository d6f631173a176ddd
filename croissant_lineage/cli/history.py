"""``croissant-lineage history``: how a benchmark's items changed between dated snapshots."""

from __future__ import annotations

import argparse

from croissant_lineage.audits.history import HistoryReport, SnapshotDiff
from croissant_lineage.cli._common import example_epilog, print_json
from croissant_lineage.workflows import snapshot_history

__all__ = ["register", "render_history"]

#: Item ids listed per change pattern in the text output.
_SHOW_IDS = 12


def _label(name: str, date: str | None) -> str:
    return f"{name} ({date})" if date else name


def _render_diff(d: SnapshotDiff) -> list[str]:
    c = d.counts
    lines = [
        f"{_label(d.old_dataset, d.old_date)} -> {_label(d.new_dataset, d.new_date)}: "
        f"{c['joined']} joined ({c['renumbered']} renumbered), {c['unchanged']} unchanged, "
        f"{c['changed']} changed, {c['added']} added, {c['removed']} removed"
    ]
    by_pattern: dict[str, list[str]] = {}
    for ch in d.changes():
        by_pattern.setdefault(ch.pattern, []).append(str(ch.new_item or ch.old_item))
    for pattern, n in d.pattern_counts().items():
        ids = by_pattern.get(pattern, [])
        shown = ", ".join(ids[:_SHOW_IDS]) + (", ..." if len(ids) > _SHOW_IDS else "")
        lines.append(f"  {n:>6}  {pattern}: {shown}")
    if d.kind_counts():
        lines.append("  by kind: " + ", ".join(f"{k} {n}" for k, n in d.kind_counts().items()))
    return lines


def render_history(report: HistoryReport) -> str:
    """Readable text of a :class:`HistoryReport`."""
    lines = [f"family {report.family}: snapshots " + " -> ".join(
        _label(n, d) for n, d in zip(report.datasets, report.dates, strict=True)
    )]
    for d in report.diffs:
        lines.extend(_render_diff(d))
    if report.item is not None:
        lines.append(f"item {report.item}:")
        for v in report.versions:
            where = v.ref or f"{v.dataset}: (absent)"
            key = f"key {v.key}" if v.key else "no key"
            kinds = f" [{', '.join(v.kinds)}]" if v.kinds else ""
            lines.append(f"  {v.date or '-':<10}  {where}  {key}  {v.note}{kinds}")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    report = snapshot_history(
        args.family,
        data_dir=args.data_dir,
        dataset=args.dataset,
        item=args.item,
        lineage=args.lineage,
        allow_outside=args.allow_outside,
    )
    if args.json:
        print_json(report.to_dict())
    else:
        print(render_history(report))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "history",
        help="compare a benchmark's dated snapshots item by item, and trace an item's versions",
        description="Join each consecutive pair of snapshots of DATASET's chain (the family's snapshot "
        "and re-release derivations) item by item, classify every change (key changed or only "
        "re-pointed, options reordered, option text edited or only white space, option added or "
        "removed, stem edited or only white space, item replaced, added or removed), and with --item "
        "show that item's version in each snapshot ('key unchanged since 2024-10-16').",
        epilog=example_epilog(
            "croissant-lineage history --family mmlu --data-dir ../shared/data --item 3011",
            "croissant-lineage history --family mmlu --data-dir ../shared/data --dataset mmlu --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--family", required=True, help="a built-in family name (mmlu) or a family spec file")
    p.add_argument("--data-dir", help="folder the descriptors' file URLs resolve against (shipped families)")
    p.add_argument(
        "--dataset",
        help="any snapshot of the chain to compare (default: the family's longest chain, mmlu-pro for mmlu)",
    )
    p.add_argument("--item", help="an item id (or ref dataset:item) whose versions to show")
    p.add_argument(
        "--lineage",
        help="a lineage folder (from 'link') whose edges join snapshots linked by text; "
        "without it they are linked on the fly",
    )
    p.add_argument("--allow-outside", action="store_true", help="allow file URLs outside the base folder")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_run)

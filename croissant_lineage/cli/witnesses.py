"""``croissant-lineage witnesses``: model prediction archives as witnesses for contested keys."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from croissant_lineage.audits.witnesses import DEFINITIONS, WitnessReport
from croissant_lineage.cli._common import add_quiet, example_epilog, print_json, show_progress
from croissant_lineage.workflows import witness_family

__all__ = ["register", "render_report"]

_ADMISSION_COLUMNS = (
    ("model", "model"),
    ("records", "records"),
    ("admitted", "admitted"),
    ("malformed", "malformed"),
    ("duplicate", "dup"),
    ("not_in_snapshot", "not_in_snap"),
    ("options_differ", "opts_differ"),
    ("key_differs", "key_differs"),
    ("null_pred", "null_pred"),
    ("pred_out_of_range", "pred_out_of_range"),
    ("stem_differs", "stem_differs*"),
)


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    cells = [[str(h) for h in header]] + [["-" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for r in cells:
        pairs = enumerate(zip(r, widths, strict=True))
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs]
        lines.append("  " + "  ".join(padded))
    return lines


def _fmt(x: float | None, digits: int = 2, sign: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _preference(proposed: int, key: int) -> str:
    return "proposed" if proposed > key else ("key" if key > proposed else "tie")


def render_report(report: WitnessReport) -> str:
    """Readable text of a witness report: admission table, contested items, summary."""
    s = report.summary()
    out = [
        f"snapshot {s['snapshot']} ({s['snapshot_items']:,} items): "
        f"{s['archives_admitted']} of {s['archives']} archives with admitted records; "
        f"{s['admitted']:,} of {s['records']:,} records admitted",
        "",
        "admission per archive:",
        *_table(
            [h for _, h in _ADMISSION_COLUMNS],
            [[getattr(r, k) for k, _ in _ADMISSION_COLUMNS] for r in report.admission.rows],
        ),
        "  * admitted all the same (id, options and key match; the question text differs)",
        "",
    ]
    skipped = ", ".join(f"{k} {v}" for k, v in s["claims_skipped"].items()) or "none"
    unrouted = ", ".join(f"{k} {v}" for k, v in s["findings_unrouted"].items()) or "none"
    out.append(
        f"contested items: {s['contested_items']} (claims skipped: {skipped}; "
        f"findings giving no claim: {unrouted}; "
        f"items with conflicting proposals: {s['conflicting_items']})"
    )
    p = report.pooled
    if report.contested.rows:
        out += [
            "",
            "per model (contested items answered):",
            *_table(
                ["model", "items", "proposed", "key", "other", "prefers", "accuracy", "if replaced",
                 "change"],
                [
                    [
                        m.model, m.contested, m.proposed_picks, m.key_picks, m.other_picks,
                        _preference(m.proposed_picks, m.key_picks),
                        _fmt(m.accuracy),
                        _fmt(m.accuracy_replaced),
                        _fmt(m.accuracy_change, 3, True),
                    ]
                    for m in report.models.rows
                ],
            ),
            "",
            "per item:",
            *_table(
                ["item", "key", "proposed", "models", "proposed", "key", "other", "beats key"],
                [
                    [
                        i.item, i.key, i.proposed_letter, i.models, i.proposed_picks, i.key_picks,
                        i.other_picks, "yes" if i.proposed_beats_key else "no",
                    ]
                    for i in report.items.rows
                ],
            ),
        ]
    out += [
        "",
        "summary:",
        f"  models preferring the proposed answer: {p.models_preferring_proposed} of {p.models} "
        f"(preferring the key: {p.models_preferring_key})",
        f"  items where the proposed answer beats the key: {p.items_proposed_beats_key} "
        f"of {p.items}",
        f"  pooled ratio: the proposed answer is picked {_fmt(p.ratio)} times as often as an "
        f"average other option ({p.proposed_picks} proposed, {p.key_picks} key, "
        f"{p.other_picks} other picks in {p.predictions} predictions)",
        "",
        "definitions:",
        *(f"  {k}: {v}" for k, v in DEFINITIONS.items()),
    ]
    return "\n".join(out)


def _run(args: argparse.Namespace) -> int:
    report = witness_family(
        args.family,
        archives_dir=args.archives,
        data_dir=args.data_dir,
        dataset=args.dataset,
        findings=args.findings,
        lineage=args.lineage,
        progress=show_progress(args),
    )
    if args.json:
        print_json(report.to_dict())
    else:
        print(render_report(report))
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
            "--family mmlu --data-dir ../shared/data",
            "croissant-lineage witnesses --archives eval_results/ --family mmlu --data-dir data/ "
            "--findings findings.yaml --lineage lineage/ --json",
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    arg = p.add_argument
    arg("--archives", required=True, metavar="DIR", help="folder of *.zip prediction archives")
    arg("--family", default="mmlu", help="a built-in family name (mmlu) or a family spec file")
    arg("--data-dir", required=True, metavar="DIR", help="folder the descriptors resolve against")
    arg("--dataset", default="mmlu-pro", help="the snapshot to judge (default: mmlu-pro)")
    arg("--findings", metavar="FILE", nargs="+", help="findings file(s) (JSON or YAML)")
    arg("--lineage", metavar="DIR", help="lineage folder (from 'link') to route parent findings")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_quiet(p)
    p.set_defaults(func=_run)

"""Text views of the result types: what the CLI prints (``str(result)``).

Each renderer is registered for its type with
:func:`croissant_lineage._results.register_text`, so ``str(result)`` in a script prints
what the command prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from croissant_lineage._results import inert_value, register_text

if TYPE_CHECKING:
    from croissant_lineage.audits.history import HistoryReport, SnapshotDiff
    from croissant_lineage.audits.translations import TranslationReport
    from croissant_lineage.audits.witnesses import WitnessReport
    from croissant_lineage.croissant.describe import DescribeResult
    from croissant_lineage.enrich import EnrichResult, FamilyEnrichResult
    from croissant_lineage.findings.corrections import Corrections
    from croissant_lineage.findings.importers import ImportResult
    from croissant_lineage.findings.report import FamilyReport
    from croissant_lineage.findings.routing import Queue
    from croissant_lineage.hub.publish import PublishPlan
    from croissant_lineage.lineage.graph import Edge, ItemRecord, Relatives
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.prov.serialize import ProvResult
    from croissant_lineage.validate.report import Issue, ValidationReport
    from croissant_lineage.workflows import LinkResult


__all__ = [
    "corrections_text",
    "describe_text",
    "enrich_text",
    "family_enrich_text",
    "family_report_text",
    "family_text",
    "history_text",
    "import_text",
    "issue_line",
    "link_text",
    "prov_text",
    "publish_text",
    "queue_text",
    "translations_text",
    "validation_text",
    "witnesses_text",
]


# --- describe, enrich, prov, publish: one line (or a few) about what was written ---


@register_text("croissant_lineage.croissant.describe:DescribeResult")
def describe_text(result: DescribeResult) -> str:
    """``wrote PATH: N data file(s); rows per RecordSet: ...``, and a line per config
    grouped by columns."""
    rows = ", ".join(f"{rs} {n:,}" for rs, n in result.rows.items())
    verb = "replaced" if result.replaced else "wrote"
    text = f"{verb} {result.path}: {result.files} data file(s); rows per RecordSet: {rows}"
    for config, configs in result.grouped.items():
        text += (f"\nconfig {config!r}: files with different columns, grouped into configs "
                 f"{', '.join(configs)} (--include describes some of them only)")
    return text


@register_text("croissant_lineage.enrich.descriptor:EnrichResult")
def enrich_text(result: EnrichResult) -> str:
    """``enriched PATH: derived from ...`` (with mlcroissant's issue counts when validated)."""
    verb = "re-enriched" if result.replaced else "enriched"
    text = f"{verb} {result.path}: derived from {', '.join(result.parents)}"
    if result.issues is not None:
        text += f" (mlcroissant: {result.issues['before']} before, {result.issues['after']} after)"
    return text


@register_text("croissant_lineage.enrich.family:FamilyEnrichResult")
def family_enrich_text(result: FamilyEnrichResult) -> str:
    """One line per enriched descriptor, the edges written, then one line per warning."""
    where = f"to {result.out_dir}" if result.out_dir is not None else "beside their data"
    lines = [f"wrote {len(result.descriptors)} enriched descriptors {where}:"]
    for d in result.descriptors:
        lines.append(
            f"  {d.path}: {', '.join(d.datasets)}; {d.items:,} items, {d.edges:,} edges, "
            f"{d.findings:,} findings"
        )
    lines.append(f"edges in lineage files: {result.edges:,}")
    lines.extend(f"warning {w}" for w in result.warnings)
    return "\n".join(lines)


@register_text("croissant_lineage.prov.serialize:ProvResult")
def prov_text(result: ProvResult) -> str:
    """``wrote PATH (FORMAT): N triples, ...``."""
    return (
        f"wrote {result.path} ({result.format}): {result.triples:,} triples, "
        f"{result.edges:,} item derivations, {result.findings:,} findings"
    )


@register_text("croissant_lineage.hub.publish:PublishPlan")
def publish_text(plan: PublishPlan) -> str:
    """The commit (or dry run): its message, one line per operation, the commit URL."""
    verb = "committed to" if plan.uploaded else "dry run for"
    lines = [f"{verb} {plan.repo_id} ({plan.dataset}): {plan.commit_message}"]
    lines += [f"  {op}" for op in plan.operations()]
    if plan.commit_url:
        lines.append(plan.commit_url)
    return "\n".join(lines)


# --- link ---


@register_text("croissant_lineage.workflows:LinkResult")
def link_text(result: LinkResult) -> str:
    """Edges per derivation, by method, with unmatched, ambiguous and key counts."""
    from croissant_lineage.lineage.info import DerivationCounts

    summary = result.lineage.summary
    lines = [f"family {summary.family or None}: {summary.edges} edges"]
    for s in summary.derivations:
        if not isinstance(s, DerivationCounts):  # a discovery's proposal: not a link's counts
            continue
        methods = ", ".join(f"{m} {n}" for m, n in s.by_method.items()) or "none"
        lines.append(
            f"  {s.child} <- {s.parent} ({s.activity}): {s.linked}/{s.selected} linked "
            f"[{methods}]; unmatched {s.unmatched}, ambiguous {s.ambiguous}, "
            f"key inherited {s.key_inherited}, key changed {s.key_changed}"
        )
    dups = summary.duplicate_groups or {}
    if dups:
        lines.append("  duplicate groups: " + ", ".join(f"{d} {n}" for d, n in dups.items()))
    lines += _keys_lines(result.lineage)
    return "\n".join(lines)


def _keys_lines(lineage: Lineage) -> list[str]:
    """How many items' keys were read, of those whose spec names a key (by kind), and one
    coded warning (``CL-W002``) per dataset with keys that could not be read."""
    items = lineage.items
    if "key_kind" not in items.column_names or items.num_rows == 0:
        return []
    kinds = Counter(k for k in items.column("key_kind").to_pylist() if k is not None)
    named = sum(kinds.values())
    if not named:
        return []
    unread = lineage.summary.keys_unread
    by_kind = ", ".join(f"{k} {n:,}" for k, n in sorted(kinds.items()))
    lines = [f"  keys read: {named - sum(unread.values()):,} of {named:,} items whose spec names a key ({by_kind})"]
    lines += [f"warning {w['code']} {w['dataset']}: {w['message']}" for w in lineage.summary.warnings]
    return lines


# --- an item's relatives (family, resolve) ---


def _evidence(e: Edge) -> str:
    parts = [e.activity, f"{e.method} {e.score:g}"]
    if e.options_copied is not None and e.options_status != "absent":  # (options named only where items have them)
        parts.append(f"options copied {e.options_copied}, added {e.options_added}, dropped {e.options_dropped}")
    if e.key_status == "recomputed":
        parts.append("key recomputed")
    elif e.key_inherited is not None:
        parts.append("key inherited" if e.key_inherited else "key changed")
    changed = [f"{c} {s}" for c, s in (("stem", e.stem_status), ("solution", e.solution_status),
                                       ("tests", e.tests_status)) if s not in (None, "copied", "absent")]
    if changed:
        parts.append(", ".join(changed))
    if e.ambiguous:
        parts.append("ambiguous: " + ", ".join(e.alternatives))
    elif e.alternatives:
        parts.append("same stem also: " + ", ".join(e.alternatives))
    return "; ".join(parts)


def _key_line(item: ItemRecord) -> str:
    if item.options:
        return f"  key {item.key}: {item.key_text!r}; {len(item.options)} options"
    if item.key_kind == "tests":
        return "  key (tests): a reference solution, graded by its tests"
    kind = item.key_kind or "none"
    return f"  key ({kind}): {item.key_text!r}" if item.key_text is not None else f"  key ({kind}): none"


def _finding_line(f: dict[str, Any]) -> str:
    where = f" option {f['option_index']}" if "option_index" in f else ""
    return inert_value(f"finding {f['id']} on {f['item']}{where}: {f['kind']} ({f['status']}; {f['source']['name']})")


@register_text("croissant_lineage.lineage.graph:Relatives")
def family_text(fam: Relatives) -> str:
    """The item, its ancestors and descendants with the edge evidence, duplicates, findings."""
    out = [inert_value(fam.ref)]
    if fam.item is not None:
        stem = (fam.item.stem or "").replace("\n", " ")
        out.append(f"  {stem[:100]}{'...' if len(stem) > 100 else ''}")
        out.append(_key_line(fam.item))
    out.append("ancestors:" if fam.ancestors else "ancestors: none")
    for r in fam.ancestors:
        out.append(f"  {'  ' * (r.depth - 1)}{inert_value(r.ref)}  [{inert_value(_evidence(r.path[-1]))}]")
    out.append("descendants:" if fam.descendants else "descendants: none")
    for r in fam.descendants:
        out.append(f"  {'  ' * (r.depth - 1)}{inert_value(r.ref)}  [{inert_value(_evidence(r.path[-1]))}]")
    out.append("duplicates: " + inert_value(", ".join(fam.duplicates) or "none"))
    for d in fam.documented:
        out.append(f"documented only: {d['child']} <- {d['parent']} ({d['activity']}, {d.get('languages')} languages)")
    out.extend(_finding_line(f) for f in fam.findings)
    return "\n".join(out)


# --- tables shared by the audit reports ---


def _aligned(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """Rows under a header, first column left-aligned, the others right-aligned."""
    cells = [[str(h) for h in header]] + [["-" if v is None else inert_value(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for r in cells:
        pairs = enumerate(zip(r, widths, strict=True))
        padded = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in pairs]
        lines.append("  " + "  ".join(padded))
    return lines


# --- witnesses ---

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


def _fmt(x: float | None, digits: int = 2, sign: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def _preference(proposed: int, key: int) -> str:
    return "proposed" if proposed > key else ("key" if key > proposed else "tie")


def _witness_head(report: WitnessReport, s: dict[str, Any]) -> list[str]:
    """The admission summary and table, and the contested-items line."""
    skipped = ", ".join(f"{k} {v}" for k, v in s["claims_skipped"].items()) or "none"
    unrouted = ", ".join(f"{k} {v}" for k, v in s["findings_unrouted"].items()) or "none"
    return [
        f"snapshot {s['snapshot']} ({s['snapshot_items']:,} items): "
        f"{s['archives_admitted']} of {s['archives']} archives with admitted records; "
        f"{s['admitted']:,} of {s['records']:,} records admitted",
        "",
        "admission per archive:",
        *_aligned(
            [h for _, h in _ADMISSION_COLUMNS],
            [[getattr(r, k) for k, _ in _ADMISSION_COLUMNS] for r in report.admission.rows],
        ),
        "  * admitted all the same (id, options and key match; the question text differs)",
        "",
        f"contested items: {s['contested_items']} (claims skipped: {skipped}; "
        f"findings giving no claim: {unrouted}; "
        f"items with conflicting proposals: {s['conflicting_items']})",
    ]


def _witness_tables(report: WitnessReport) -> list[str]:
    """Per model and per item tallies over the contested items (none when there are none)."""
    if not report.contested.rows:
        return []
    models = [
        [
            m.model, m.contested, m.proposed_picks, m.key_picks, m.other_picks,
            _preference(m.proposed_picks, m.key_picks),
            _fmt(m.accuracy), _fmt(m.accuracy_replaced), _fmt(m.accuracy_change, 3, True),
        ]
        for m in report.models.rows
    ]
    items = [
        [
            i.item, i.key, i.proposed_letter, i.models, i.proposed_picks, i.key_picks,
            i.other_picks, "yes" if i.proposed_beats_key else "no",
        ]
        for i in report.items.rows
    ]
    return [
        "",
        "per model (contested items answered):",
        *_aligned(
            ["model", "items", "proposed", "key", "other", "prefers", "accuracy", "if replaced", "change"],
            models,
        ),
        "",
        "per item:",
        *_aligned(["item", "key", "proposed", "models", "proposed", "key", "other", "beats key"], items),
    ]


@register_text("croissant_lineage.audits.witnesses.report:WitnessReport")
def witnesses_text(report: WitnessReport) -> str:
    """Admission table, contested items, per-model and per-item tallies, summary, definitions."""
    from croissant_lineage.audits.witnesses import DEFINITIONS  # loaded with the type
    p = report.pooled
    out = _witness_head(report, report.summary()) + _witness_tables(report)
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


# --- history ---

#: Item ids listed per change pattern in the text output.
_SHOW_IDS = 12


def _label(name: str, date: str | None) -> str:
    return f"{name} ({date})" if date else name


def _diff_lines(d: SnapshotDiff) -> list[str]:
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


@register_text("croissant_lineage.audits.history.report:HistoryReport")
def history_text(report: HistoryReport) -> str:
    """The snapshot chain, each consecutive diff by change pattern, and the item's versions."""
    lines = [f"family {report.family}: snapshots " + " -> ".join(
        _label(n, d) for n, d in zip(report.datasets, report.dates, strict=True)
    )]
    for d in report.diffs:
        lines.extend(_diff_lines(d))
    if report.item is not None:
        lines.append(f"item {report.item}:")
        for v in report.versions:
            where = v.ref or f"{v.dataset}: (absent)"
            key = f"key {v.key}" if v.key else "no key"
            kinds = f" [{', '.join(v.kinds)}]" if v.kinds else ""
            lines.append(f"  {v.date or '-':<10}  {where}  {key}  {v.note}{kinds}")
    return "\n".join(lines)


# --- translations ---

_TRANSLATION_COLUMNS = (
    "joined", "verified", "consistent", "evidence_conflict", "options_differ", "key_differs", "misaligned",
)


def _counts_table(rows: list[dict], first: tuple[str, ...]) -> list[str]:
    head = [*first, *_TRANSLATION_COLUMNS]
    cells = [[str(r.get(c) if r.get(c) is not None else "-") for c in head] for r in rows]
    widths = [max(len(h), *(len(row[i]) for row in cells)) if cells else len(h) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" if i < len(first) else f"{{:>{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*head), *(fmt.format(*row) for row in cells)]


def translations_text(report: TranslationReport, *, subjects: bool = False) -> str:
    """Joins verified per dataset and language (and per subject with ``subjects``),
    misaligned subjects, and the keys that differ from the source's.

    ``str(report)`` is this without the per-subject table.
    """
    lines = ["joins verified per dataset and language:"]
    lines += ["  " + x for x in _counts_table(report.totals.to_pylist(), ("dataset", "language"))]
    if subjects:
        lines.append("per subject:")
        lines += ["  " + x for x in _counts_table(report.groups.to_pylist(), ("dataset", "language", "subject"))]
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


register_text("croissant_lineage.audits.translations.report:TranslationReport")(translations_text)


# --- findings: import, route, report, apply ---

#: Unattached rows listed in an import's text output (the rest are counted).
_SHOW_UNATTACHED = 20


@register_text("croissant_lineage.findings.importers._common:ImportResult")
def import_text(result: ImportResult) -> str:
    """Findings, rows per label, findings per kind, the unattached rows and the notes."""
    lines = [f"{inert_value(result.source)}: {len(result.findings)} findings"]
    lines += [f"  label {k}: {v}" for k, v in result.counts.items()]
    lines += [f"  kind {k}: {v}" for k, v in result.kinds.items()]
    if result.unattached:
        lines.append(f"  unattached: {len(result.unattached)}")
        lines += [inert_value(f"    {u.ref}: {u.reason}") for u in result.unattached[:_SHOW_UNATTACHED]]
        if len(result.unattached) > _SHOW_UNATTACHED:
            lines.append(f"    ... and {len(result.unattached) - _SHOW_UNATTACHED} more")
    lines += [inert_value(f"  note: {n}") for n in result.notes]
    return "\n".join(lines)


def _queue_head(queue: Queue) -> str:
    head = f"Re-review queue for {inert_value(queue.query)}"
    if queue.findings:
        head += f" ({len(queue.findings)} finding{'s' if len(queue.findings) != 1 else ''})"
    return head


@register_text("croissant_lineage.findings.routing:Queue")
def queue_text(queue: Queue) -> str:
    """The ranked lines, two each (rank, item, status...; then why), split by finding when
    several findings were routed. An item's versions are one line and per-language or
    documented rows one line per dataset family, unless the queue is expanded."""
    head = _queue_head(queue)
    if not queue.rows:
        return head + "\n  (no relatives)"
    view = queue.lines()
    items = [line.label for line in view]
    width = min(48, max(len(i) for i in items))
    lines = [head, f"  rank  {'item':<{width}}  {'status':<10}  {'certainty':<9}  relation"]
    current = None
    for line, item in zip(view, items, strict=True):
        if len(queue.findings) > 1 and line.finding != current:
            current = line.finding
            lines.append(f"  -- finding {inert_value(current)}")
        letter = f" [{line.letter}]" if line.letter else ""
        lines.append(inert_value(
            f"  {line.rank:<4}  {item:<{width}}  {line.status:<10}  {line.certainty:<9}  {line.relation}{letter}"
        ))
        detail = f"{line.transformation}: {line.note}" if line.transformation else line.note
        lines.append(f"        {inert_value(detail)}")
    if len(view) < len(queue.rows):
        lines.append(f"  ({len(queue.rows)} rows in {len(view)} lines; --expand shows every row)")
    return "\n".join(lines)


@register_text("croissant_lineage.findings.report:FamilyReport")
def family_report_text(report: FamilyReport) -> str:
    """The findings' counts, then each figure with its definition, per dataset and per kind."""
    lines = [f"Family report: {report.family}"]
    for name, counts in report.findings.items():
        lines.append(f"  findings by {name}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for f in report.figures:
        lines.append(f"\n{f.name}: {f.value}")
        lines.append(f"  {f.definition}")
        for d, v in f.by_dataset.items():
            lines.append(f"    {d}: {v}")
        if f.by_kind:
            lines.append("    by kind: " + ", ".join(f"{k} {v}" for k, v in f.by_kind.items()))
    return "\n".join(lines)


@register_text("croissant_lineage.findings.corrections:Corrections")
def corrections_text(corrections: Corrections) -> str:
    """Keys changed (one line each, with the finding) and the findings not applied, by reason."""
    from croissant_lineage.findings.corrections import NOT_APPLIED  # loaded with the type
    d = corrections.to_dict()
    lines = [f"{corrections.dataset}: {d['changed']} of {d['items']} keys changed from confirmed findings"]
    for c in corrections.changes:
        via = f" via {c.via}" if c.via else ""
        lines.append(f"  {c.item}: {c.original_key} -> {c.key} ({c.finding}{via})")
    for reason, n in d["not_applied_by_reason"].items():
        lines.append(f"  not applied, {reason}: {n} ({NOT_APPLIED[reason]})")
    return "\n".join(lines)


# --- validate ---


@register_text("croissant_lineage.validate.report:Issue")
def issue_line(issue: Issue) -> str:
    """``WHERE: CODE [SEVERITY] MESSAGE``: one issue on one line."""
    return inert_value(f"{issue.where}: {issue.code} [{issue.severity}] {issue.message}")


@register_text("croissant_lineage.validate.report:ValidationReport")
def validation_text(report: ValidationReport) -> str:
    """What was checked, one line per issue, and the verdict with the issues per code."""
    lines = [f"checked {c.path} ({c.kind})" for c in report.checked]
    lines += [issue_line(i) for i in report.issues]
    by_code: dict[str, int] = {}
    for issue in report.issues:
        by_code[issue.code] = by_code.get(issue.code, 0) + 1
    verdict = "valid" if report.valid else "INVALID"
    summary = f"{verdict}: {len(report.errors)} error(s), {len(report.warnings)} warning(s)"
    if by_code:
        summary += " (" + ", ".join(f"{c} x{n}" for c, n in sorted(by_code.items())) + ")"
    lines.append(summary)
    return "\n".join(lines)

"""Rich display in Jupyter: compact HTML for the objects users hold.

Each result type's HTML renderer is registered here for its TYPE with
:func:`croissant_lineage._results.register_html`, so the ``_repr_html_`` that every
:class:`~croissant_lineage._results.Result` inherits finds it and a notebook shows the
object by naming it: a :class:`~croissant_lineage.lineage.graph.Relatives`, a
:class:`~croissant_lineage.lineage.model.Lineage`, a re-review
:class:`~croissant_lineage.findings.routing.Queue`, a
:class:`~croissant_lineage.findings.model.Finding` or an importer's
:class:`~croissant_lineage.findings.importers.ImportResult`, a validation
:class:`~croissant_lineage.validate.report.ValidationReport`, a
:class:`~croissant_lineage.audits.witnesses.WitnessReport`, a
:class:`~croissant_lineage.audits.translations.TranslationReport`, a
:class:`~croissant_lineage.audits.history.SnapshotDiff` or
:class:`~croissant_lineage.audits.history.HistoryReport`, and a
:class:`~croissant_lineage.findings.report.FamilyReport`. :func:`to_html` renders any of
them (and a plain list of findings).

The HTML is a short header (what it is, the headline counts) and a table with the
first rows (:data:`MAX_ROWS`; the rest is counted, and ``.to_pandas()`` has them all).
Routing statuses carry a symbol as well as a colour, so they read in greyscale too.
Every text is escaped.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage._results import Result, html_renderer, link_url, register_html, render_html

if TYPE_CHECKING:
    import pandas as pd

    from croissant_lineage.audits.history import HistoryReport, SnapshotDiff
    from croissant_lineage.audits.translations import TranslationReport
    from croissant_lineage.audits.witnesses import WitnessReport
    from croissant_lineage.findings.importers import ImportResult
    from croissant_lineage.findings.model import Finding
    from croissant_lineage.findings.report import FamilyReport
    from croissant_lineage.findings.routing import Queue
    from croissant_lineage.lineage.graph import Relatives
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.validate.report import ValidationReport

from croissant_lineage.render._evidence import edge_evidence
from croissant_lineage.render._palette import STATUS_PALETTE

__all__ = [
    "FINDING_COLUMNS",
    "MAX_ROWS",
    "family_frame",
    "family_html",
    "family_report_html",
    "family_rows",
    "findings_frame",
    "findings_html",
    "history_html",
    "html_table",
    "lineage_html",
    "queue_html",
    "snapshot_diff_html",
    "status_badge",
    "to_html",
    "translation_html",
    "validation_html",
    "witness_html",
]

#: Rows shown in a table before the rest is only counted.
MAX_ROWS = 30

#: Columns of :func:`findings_frame`.
FINDING_COLUMNS = (
    "id",
    "item",
    "target",
    "option_index",
    "kind",
    "status",
    "status_date",
    "status_reason",
    "proposed",
    "source",
    "source_url",
    "evidence",
)

_TABLE = "border-collapse:collapse;font-size:12px;line-height:1.3;margin:4px 0"
_TH = "text-align:left;padding:2px 8px;border-bottom:1px solid #999;font-weight:600;white-space:nowrap"
_TD = "text-align:left;padding:2px 8px;border-bottom:1px solid #e3e3e3;vertical-align:top"
_HEAD = "font-size:13px;margin:2px 0"
_MUTED = "color:#555"
_OK = ("#009E73", "✓")  # bluish green
_BAD = ("#D55E00", "✗")  # vermillion


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _cut(text: Any, n: int = 120) -> str:
    s = "" if text is None else " ".join(str(text).split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):  # None or NaN
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def status_badge(status: str | None) -> str:
    """A routing status as coloured text with its symbol (``● inherited``)."""
    p = STATUS_PALETTE.get(status, STATUS_PALETTE[None])
    if status is None:
        return ""
    return (
        f'<span style="background:{p.fill};border:1px solid {p.edge};border-radius:3px;'
        f'padding:0 4px;white-space:nowrap">{p.symbol} {_e(status)}</span>'
    )


def _verdict(ok: bool, yes: str, no: str) -> str:
    colour, mark = _OK if ok else _BAD
    return f'<b style="color:{colour}">{mark} {_e(yes if ok else no)}</b>'


def html_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    max_rows: int = MAX_ROWS,
    raw: Iterable[str] = (),
    cut: int = 120,
) -> str:
    """A compact HTML table.

    Args:
        rows: One mapping per row.
        columns: The columns shown, in order.
        max_rows: Rows shown; the rest are counted below the table.
        raw: Columns whose values are HTML already (not escaped, not cut).
        cut: Longest text shown per cell (longer text ends in an ellipsis).

    Returns:
        The ``<table>`` (and a line counting hidden rows), or a muted "(none)".
    """
    if not rows:
        return f'<div style="{_MUTED}">(none)</div>'
    keep_raw = set(raw)
    nowrap = {"ref", "item", "id", "code", "status", "relation", "finding"}
    head = "".join(f'<th style="{_TH}">{_e(c)}</th>' for c in columns)
    body = []
    for r in rows[:max_rows]:
        cells = []
        for c in columns:
            v = r.get(c)
            text = str(v or "") if c in keep_raw else _e(_cut(_cell(v), cut))
            style = _TD + (";white-space:nowrap" if c in nowrap else "")
            cells.append(f'<td style="{style}">{text}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = len(rows) - max_rows
    tail = f'<div style="{_MUTED}">… {more} more rows (use .to_pandas())</div>' if more > 0 else ""
    return f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>{tail}'


def _block(title: str, *parts: str) -> str:
    return f'<div class="croissant-lineage"><div style="{_HEAD}"><b>{title}</b></div>{"".join(parts)}</div>'


def _line(text: str) -> str:
    return f'<div style="{_MUTED};margin:2px 0">{text}</div>'


def _row(obj: Any) -> dict[str, Any]:
    if hasattr(obj, "to_dict"):
        return dict(obj.to_dict())
    if is_dataclass(obj) and not isinstance(obj, type):
        return asdict(obj)
    return dict(obj)


# ---------------------------------------------------------------------------- family


def family_rows(fam: Relatives) -> list[dict[str, Any]]:
    """A family as one dict per relative (keys :data:`~croissant_lineage.lineage.graph.FAMILY_COLUMNS`): ``fam.rows()``."""
    return fam.rows()


def family_frame(fam: Relatives) -> pd.DataFrame:
    """A family as one row per relative (columns :data:`~croissant_lineage.lineage.graph.FAMILY_COLUMNS`): ``fam.to_pandas()``."""
    frame: pd.DataFrame = fam.to_pandas()
    return frame


@register_html("croissant_lineage.lineage.graph:Relatives")
def family_html(fam: Relatives) -> str:
    """HTML of a :class:`~croissant_lineage.lineage.graph.Relatives`: the item, then its relatives."""
    parts = []
    if fam.item is not None:
        parts.append(_line(f"<i>{_e(_cut(fam.item.stem, 240))}</i>"))
        key = f"key {_e(fam.item.key)}: {_e(_cut(fam.item.key_text, 80))}" if fam.item.key else "no key"
        parts.append(_line(f"{_e(fam.item.subject or '')} · {len(fam.item.options)} options · {key}"))
    parts.append(
        _line(
            f"{len(fam.ancestors)} ancestors · {len(fam.descendants)} descendants · "
            f"{len(fam.duplicates)} duplicates · {len(fam.documented)} documented-only datasets"
        )
    )
    rows = family_rows(fam)
    for r in rows:
        r["evidence"] = edge_evidence(r)
    parts.append(html_table(rows, ["relation", "ref", "depth", "activity", "evidence", "via"]))
    if fam.findings:
        parts.append(findings_html(fam.findings, title="findings"))
    return _block(f"Family of {_e(fam.ref)}", *parts)


# ---------------------------------------------------------------------------- lineage

_DERIVATION = ("child_dataset", "parent_dataset", "activity")


def _counts(table: pa.Table, keys: Sequence[str]) -> dict[tuple[Any, ...], int]:
    """Rows of ``table`` per distinct value of ``keys``."""
    if not table.num_rows:
        return {}
    grouped = table.group_by(list(keys), use_threads=False).aggregate([([], "count_all")])
    cols = [grouped.column(k).to_pylist() for k in keys]
    return dict(zip(zip(*cols, strict=True), grouped.column("count_all").to_pylist(), strict=True))


def _derivations(lineage: Lineage, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The (child, parent) pairs in the family's order of derivations, others after, sorted."""
    order = {(d.child, d.parent): i for i, d in enumerate(lineage.family.derivations)}
    return sorted(set(pairs), key=lambda cp: (order.get(cp, len(order)), cp))


def _derivation_rows(lineage: Lineage) -> list[dict[str, Any]]:
    """One row per linked derivation: edges per method, ambiguous, key changed, unmatched."""
    e = lineage.edges
    pair = ("child_dataset", "parent_dataset")
    per_method = _counts(e, (*pair, "activity", "method"))
    ambiguous = _counts(e.filter(pc.fill_null(e.column("ambiguous"), False)), pair)
    changed = _counts(e.filter(pc.invert(pc.fill_null(e.column("key_inherited"), True))), pair)
    unmatched = _counts(lineage.unmatched, pair)
    activity = {(d.child, d.parent): d.activity for d in lineage.family.derivations}
    rows = []
    for cp in _derivations(lineage, [k[:2] for k in per_method] + list(unmatched)):
        methods = {k[3]: n for k, n in sorted(per_method.items()) if k[:2] == cp}
        acts = sorted({k[2] for k in per_method if k[:2] == cp}) or [activity.get(cp)]
        rows.append({
            "child": cp[0], "parent": cp[1], "activity": ", ".join(a for a in acts if a),
            "edges": sum(methods.values()), "by method": ", ".join(f"{m} {n}" for m, n in methods.items()),
            "ambiguous": ambiguous.get(cp, 0), "key changed": changed.get(cp, 0), "unmatched": unmatched.get(cp, 0),
        })
    return rows


@register_html("croissant_lineage.lineage.model:Lineage")
def lineage_html(lineage: Lineage) -> str:
    """HTML of a :class:`~croissant_lineage.lineage.model.Lineage`: its counts, then edges per
    derivation and link method."""
    groups = lineage.duplicates.group_by(["dataset", "group"]).aggregate([]).num_rows
    datasets = len(set(lineage.items.column("dataset").to_pylist())) if lineage.items.num_rows else 0
    rows = _derivation_rows(lineage)
    return _block(
        f"Lineage of {_e(lineage.family.name or '?')}",
        _line(f"{lineage.items.num_rows} items in {datasets} datasets · {lineage.edges.num_rows} edges · "
              f"{groups} duplicate groups · {lineage.unmatched.num_rows} unmatched"),
        html_table(rows, ["child", "parent", "activity", "edges", "by method", "ambiguous", "key changed", "unmatched"]),
    )


# ---------------------------------------------------------------------------- queue


@register_html("croissant_lineage.findings.routing:Queue")
def queue_html(queue: Queue) -> str:
    """HTML of a routing :class:`~croissant_lineage.findings.routing.Queue`, most pressing first:
    an item's versions on one line, per-language and documented rows one line per dataset
    family with its count (every row when the queue is expanded)."""
    rows = []
    for line in queue.lines():
        d = _row(line)
        d["status"] = status_badge(d.get("status"))
        d["ref"] = _e(line.label)
        if line.count > 1:  # the folded or grouped rows, one click away
            d["ref"] = f"<details><summary>{d['ref']}</summary>{'<br>'.join(_e(r) for r in line.refs)}</details>"
        rows.append(d)
    cols = ["rank", "ref", "relation", "status", "certainty", "letter", "transformation", "note"]
    if len(queue.findings) > 1:
        cols.insert(1, "finding")
    counts: dict[str, int] = {}
    for r in queue.rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    summary = " · ".join(f"{status_badge(s)} {n}" for s, n in counts.items())
    what = f"{len(queue.findings)} finding{'s' if len(queue.findings) != 1 else ''}" if queue.findings else "the whole item"
    return _block(
        f"Re-review queue for {_e(queue.query)}",
        _line(f"{len(queue.rows)} rows, routing {what} · {summary}"),
        html_table(rows, cols, raw=("status", "ref"), max_rows=max(MAX_ROWS, 60), cut=220),
    )


# ---------------------------------------------------------------------------- findings


def _finding_row(f: Any) -> dict[str, Any]:
    d = _row(f)
    src = d.get("source") or {}
    if not isinstance(src, Mapping):
        src = _row(src)
    d["source_url"] = src.get("url")
    d["source"] = src.get("name")
    ev = d.get("evidence") or []
    d["evidence"] = len(ev) if isinstance(ev, (list, tuple)) else ev
    return d


def findings_frame(findings: Iterable[Any]) -> pd.DataFrame:
    """Findings (objects or dicts) as a DataFrame with :data:`FINDING_COLUMNS`
    (``evidence`` is the number of evidence lines)."""
    import pandas as pd  # a frame is asked for: a notebook has pandas loaded

    return pd.DataFrame([_finding_row(f) for f in findings], columns=list(FINDING_COLUMNS))


def findings_html(findings: Iterable[Any], *, title: str | None = None) -> str:
    """HTML of a list of findings (or an importer's result, which iterates over them)."""
    rows = [_finding_row(f) for f in findings]
    for r in rows:
        if r.get("target") == "option" and isinstance(r.get("option_index"), int):
            r["target"] = f"option {chr(ord('A') + r['option_index'])}"
        if link_url(r.get("source_url")):  # only http(s): a javascript: URL stays text
            r["source"] = f'<a href="{_e(r["source_url"])}">{_e(r["source"])}</a>'
        else:
            r["source"] = _e(r.get("source"))
    by_status: dict[str, int] = {}
    for r in rows:
        by_status[r["status"]] = by_status.get(r["status"], 0) + 1
    summary = ", ".join(f"{_e(k)} {v}" for k, v in sorted(by_status.items()))
    return _block(
        _e(title or f"{len(rows)} findings"),
        _line(summary) if rows else "",
        html_table(rows, ["id", "item", "target", "kind", "status", "status_date", "source", "proposed", "evidence"],
                   raw=("source",), cut=80),
    )


# ---------------------------------------------------------------------------- reports


@register_html("croissant_lineage.validate.report:ValidationReport")
def validation_html(report: ValidationReport) -> str:
    """HTML of a validation :class:`~croissant_lineage.validate.report.ValidationReport`."""
    issues = [_row(i) for i in report.issues]
    kinds: dict[str, int] = {}
    for c in report.checked:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    checked = f"{len(report.checked)} files: " + ", ".join(f"{n} {_e(k)}" for k, n in sorted(kinds.items()))
    if len(report.checked) <= 3:
        checked = ", ".join(f"{_e(c.path)} ({_e(c.kind)})" for c in report.checked)
    codes: dict[str, int] = {}
    for i in report.issues:
        codes[i.code] = codes.get(i.code, 0) + 1
    by_code = ", ".join(f"{_e(c)} ×{n}" for c, n in sorted(codes.items()))
    return _block(
        "Validation report",
        _line(
            f"{_verdict(report.valid, 'valid', 'INVALID')} · {len(report.errors)} errors · "
            f"{len(report.warnings)} warnings{' · ' + by_code if by_code else ''}"
        ),
        _line(f"checked: {checked}") if checked else "",
        html_table(issues, ["code", "severity", "where", "message"], cut=200) if issues else "",
    )


@register_html("croissant_lineage.audits.witnesses.report:WitnessReport")
def witness_html(report: WitnessReport) -> str:
    """HTML of a :class:`~croissant_lineage.audits.witnesses.WitnessReport`: headline figures,
    per-model picks on the contested items, then per-item picks."""
    s = report.summary()
    p = report.pooled
    ratio = "n/a" if p.ratio is None else f"{p.ratio:.2f}"
    head = (
        f"{s['archives_admitted']} of {s['archives']} archives admitted ({s['admitted']} of {s['records']} records) · "
        f"{len(report.contested.rows)} contested items · {p.predictions} predictions on them · "
        f"proposed picked {p.proposed_picks}×, key {p.key_picks}×, other {p.other_picks}× · "
        f"pooled ratio {ratio} · {p.models_preferring_proposed} of {p.models} models prefer the proposed answer"
    )
    models = [_row(m) for m in report.models.rows]
    items = [_row(i) for i in report.items.rows]
    return _block(
        f"Model witnesses on {_e(report.snapshot)}",
        _line(_e(head)),
        html_table(models, ["model", "contested", "proposed_picks", "key_picks", "other_picks",
                            "prefers_proposed", "accuracy", "accuracy_change"]),
        html_table(items, ["item", "key", "proposed_letter", "models", "proposed_picks", "key_picks",
                           "other_picks", "proposed_beats_key"], max_rows=15),
    )


@register_html("croissant_lineage.audits.translations.report:TranslationReport")
def translation_html(report: TranslationReport) -> str:
    """HTML of a :class:`~croissant_lineage.audits.translations.TranslationReport`: per dataset and
    language, how many joined items were verified, and the misaligned subjects."""
    totals = report.totals.to_pylist()
    cols = [c for c in ("dataset", "language", "activity", "joined", "verified", "consistent",
                        "evidence_conflict", "options_differ", "key_differs", "misaligned", "no_key")
            if c in report.totals.column_names]
    mis = report.misaligned_subjects()
    rows = [{"dataset": m.dataset, "subject": m.subject, "shift": m.best_shift, "items": m.items,
             "agree_at_zero": m.agree_at_zero, "agree_at_shift": m.agree_at_best} for m in mis]
    joined = sum(int(r.get("joined") or 0) for r in totals)
    verified = sum(int(r.get("verified") or 0) for r in totals)
    return _block(
        "Translation joins verified",
        _line(f"{joined} joined items · {verified} verified · {len(mis)} misaligned subjects"),
        html_table(totals, cols),
        html_table(rows, list(rows[0])) if rows else "",
    )


@register_html("croissant_lineage.linking.snapshotdiff:SnapshotDiff")
def snapshot_diff_html(diff: SnapshotDiff) -> str:
    """HTML of a :class:`~croissant_lineage.audits.history.SnapshotDiff`: counts, change kinds, first changes."""
    c = diff.counts
    dates = f" ({_e(diff.old_date)} → {_e(diff.new_date)})" if diff.old_date or diff.new_date else ""
    kinds = [{"change": k, "items": n} for k, n in diff.kind_counts().items()]
    changes = [ch.to_dict() for ch in diff.changes()]
    for ch in changes:
        ch["item"] = ch["new_item"] or ch["old_item"]
        ch["key"] = f"{ch['old_key'] or '–'} → {ch['new_key'] or '–'}"
    return _block(
        f"{_e(diff.old_dataset)} → {_e(diff.new_dataset)}{dates}",
        _line(f"{c['joined']} joined · {c['unchanged']} unchanged · {c['changed']} changed · "
              f"{c['added']} added · {c['removed']} removed"),
        html_table(kinds, ["change", "items"]) if kinds else "",
        html_table(changes, ["item", "subject", "kinds", "key", "stem_score"], max_rows=15) if changes else "",
    )


@register_html("croissant_lineage.audits.history.report:HistoryReport")
def history_html(history: HistoryReport) -> str:
    """HTML of a :class:`~croissant_lineage.audits.history.HistoryReport`: each snapshot step, and
    the versions of the item asked for."""
    steps = []
    for d in history.diffs:
        row: dict[str, Any] = {"from": f"{d.old_dataset} ({d.old_date or '?'})", "to": f"{d.new_dataset} ({d.new_date or '?'})"}
        row.update(d.counts)
        row["kinds"] = ", ".join(f"{k} {n}" for k, n in d.kind_counts().items())
        steps.append(row)
    parts = [html_table(steps, ["from", "to", "joined", "unchanged", "changed", "added", "removed", "kinds"])]
    if history.item is not None:
        versions = [v.to_dict() for v in history.versions]
        parts.append(_line(f"item {_e(history.item)}"))
        parts.append(html_table(versions, ["dataset", "date", "item", "key", "key_text", "kinds", "note"]))
    return _block(f"Snapshot history of {_e(history.family)}: {_e(' → '.join(history.datasets))}", *parts)


@register_html("croissant_lineage.findings.report:FamilyReport")
def family_report_html(report: FamilyReport) -> str:
    """HTML of a :class:`~croissant_lineage.findings.report.FamilyReport`: each figure with its
    definition and its split by dataset."""
    rows = []
    for f in report.figures:
        split = ", ".join(f"{d} {v}" for d, v in f.by_dataset.items())
        rows.append({"figure": f.name, "value": f.value, "by dataset": split, "definition": f.definition})
    found = " · ".join(
        f"by {_e(name)}: " + ", ".join(f"{_e(k)} {v}" for k, v in counts.items())
        for name, counts in report.findings.items()
    )
    return _block(
        f"Family report: {_e(report.family)}",
        _line(found) if found else "",
        html_table(rows, ["figure", "value", "by dataset", "definition"], cut=400),
    )


@register_html("croissant_lineage.findings.model:Finding")
def _finding_html(finding: Finding) -> str:
    return findings_html([finding], title=f"finding {finding.id}")


@register_html("croissant_lineage.findings.importers._common:ImportResult")
def _import_result_html(result: ImportResult) -> str:
    return findings_html(result.findings, title=f"{result.source}: {len(result.findings)} findings")


# ---------------------------------------------------------------------------- dispatch


def _is_findings(obj: Any) -> bool:
    if not isinstance(obj, (list, tuple)):
        return False
    finding = sys.modules.get("croissant_lineage.findings.model")  # no Finding before it loads
    kinds: tuple[type, ...] = (Mapping,) if finding is None else (finding.Finding, Mapping)
    return all(isinstance(f, kinds) for f in obj)


def to_html(obj: Any) -> str:
    """HTML for any of the library's result objects (what their ``_repr_html_`` returns).

    Args:
        obj: A result object (its type's registered renderer draws it; any other
            :class:`~croissant_lineage._results.Result` is shown as its text view), or a
            list of findings (objects or dicts).

    Returns:
        The HTML fragment.

    Raises:
        TypeError: ``obj`` is none of those.
    """
    if _is_findings(obj):
        return findings_html(obj)
    if html_renderer(obj) is None and not isinstance(obj, Result):
        raise TypeError(f"no HTML view for {type(obj).__name__}")
    return render_html(obj)

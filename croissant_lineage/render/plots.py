"""Plots where a picture reads faster than a table (matplotlib; each returns a Figure).

* :func:`witness_picks_plot`: per model, on the contested items, how often it picked
  the proposed answer, the published key, or another option;
* :func:`snapshot_changes_plot`: per change kind, how many items changed between
  consecutive snapshots of a benchmark;
* :func:`join_verification_plot`: per translated (or copied) dataset and language, the
  share of joined items verified, consistent, or in conflict.

Colours are Okabe-Ito and every category also has its own hatch, so the plots read in
greyscale. The figures are plain :class:`matplotlib.figure.Figure` objects (no pyplot
state): show one in a notebook by naming it, save it with ``fig.savefig(path)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from croissant_lineage.render._fonts import picture_rc

__all__ = [
    "JOIN_STATUS_STYLES",
    "join_verification_plot",
    "snapshot_changes_plot",
    "witness_picks_plot",
]

_PROPOSED = ("#D55E00", "///")  # vermillion
_KEY = ("#0072B2", "")  # blue
_OTHER = ("#BBBBBB", "...")  # grey

#: Join status -> (colour, hatch), best first.
JOIN_STATUS_STYLES: dict[str, tuple[str, str]] = {
    "verified": ("#009E73", ""),
    "consistent": ("#56B4E9", "..."),
    "evidence_conflict": ("#E69F00", "///"),
    "options_differ": ("#CC79A7", "xxx"),
    "key_differs": ("#D55E00", "\\\\\\"),
    "misaligned": ("#000000", "---"),
    "no_key": ("#F0E442", "ooo"),
}

_STEP_STYLES = (("#0072B2", ""), ("#E69F00", "///"), ("#009E73", "..."), ("#CC79A7", "xxx"), ("#56B4E9", "\\\\\\"))


def _figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def witness_picks_plot(report: Any, *, max_models: int = 40) -> Figure:
    """Per model, picks of the proposed answer vs the published key on the contested items.

    Args:
        report: A :class:`~croissant_lineage.audits.witnesses.WitnessReport`.
        max_models: Most models shown (those with the most contested answers first).

    Returns:
        A horizontal stacked bar chart, one bar per model with at least one admitted
        prediction on a contested item, sorted by the share of proposed picks; models
        that prefer the proposed answer are marked ``*``. An empty report gives a
        figure that says so.
    """
    rows = [m for m in report.models.rows if m.contested]
    rows = sorted(rows, key=lambda m: (-m.contested, m.model))[:max_models]
    rows.sort(key=lambda m: (m.proposed_picks / m.contested, m.model))
    with picture_rc():
        fig = _figure(8.0, 1.7 + 0.24 * max(len(rows), 1))
        ax = fig.add_subplot()
        p = report.pooled
        ratio = "n/a" if p.ratio is None else f"{p.ratio:.2f}"
        fig.suptitle(
            f"Model witnesses on {report.snapshot}: {len(report.contested.rows)} contested items\n"
            f"{p.models_preferring_proposed} of {p.models} models prefer the proposed answer (marked *);\n"
            f"pooled, the proposed answer is picked {ratio}× as often as an average other option",
            fontsize=8.5, x=0.01, ha="left",
        )
        if not rows:
            ax.text(0.5, 0.5, "no admitted prediction on a contested item", ha="center", va="center",
                    transform=ax.transAxes)
            ax.set_axis_off()
            return fig
        names = [f"{m.model}{' *' if m.prefers_proposed else ''}" for m in rows]
        y = list(range(len(rows)))
        left = [0] * len(rows)
        for label, (colour, hatch), attr in (
            ("proposed answer", _PROPOSED, "proposed_picks"),
            ("published key", _KEY, "key_picks"),
            ("another option", _OTHER, "other_picks"),
        ):
            vals = [getattr(m, attr) for m in rows]
            ax.barh(y, vals, left=left, color=colour, hatch=hatch, edgecolor="white", linewidth=0.5,
                    label=label)
            left = [a + b for a, b in zip(left, vals, strict=True)]
        ax.set_yticks(y, names, fontsize=7)
        ax.set_xlabel("contested items answered (admitted predictions)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.spines[["top", "right"]].set_visible(False)
        fig.legend(fontsize=7, loc="outside lower center", ncol=3, frameon=False)
    return fig


def _diffs(history: Any) -> list[Any]:
    return list(getattr(history, "diffs", history))


def snapshot_changes_plot(history: Any) -> Figure:
    """Items changed per change kind between consecutive snapshots.

    Args:
        history: A :class:`~croissant_lineage.audits.history.HistoryReport`, or a sequence of
            :class:`~croissant_lineage.audits.history.SnapshotDiff` (oldest first).

    Returns:
        A grouped horizontal bar chart (log scale; counts printed on the bars): one group
        per change kind, one bar per snapshot step, labelled with the step's dates.
    """
    diffs: Sequence[Any] = _diffs(history)
    kinds: list[str] = []
    for d in diffs:
        kinds += [k for k in d.kind_counts() if k not in kinds]
    with picture_rc():
        fig = _figure(8.0, 1.6 + 0.22 * max(len(kinds), 1) * max(len(diffs), 1))
        ax = fig.add_subplot()
        if not kinds:
            ax.text(0.5, 0.5, "no item changed", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            return fig
        n = len(diffs)
        height = 0.8 / n
        peak = 1
        for i, d in enumerate(diffs):
            counts = d.kind_counts()
            colour, hatch = _STEP_STYLES[i % len(_STEP_STYLES)]
            label = f"{d.old_dataset} ({d.old_date or '?'}) → {d.new_dataset} ({d.new_date or '?'})"
            ys = [k_i + (i - (n - 1) / 2) * height for k_i in range(len(kinds))]
            vals = [counts.get(k, 0) for k in kinds]
            peak = max(peak, *vals)
            bars = ax.barh(ys, [v or 0 for v in vals], height=height * 0.9, color=colour, hatch=hatch,
                           edgecolor="white", linewidth=0.5, label=label)
            for bar, v in zip(bars, vals, strict=True):
                if v:
                    ax.text(bar.get_width() * 1.08, bar.get_y() + bar.get_height() / 2, str(v),
                            va="center", fontsize=6.5)
        ax.set_xscale("log")
        ax.set_xlim(0.8, peak * 4)
        ax.set_yticks(range(len(kinds)), kinds, fontsize=7.5)
        ax.invert_yaxis()
        ax.set_xlabel("items (log scale)", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.spines[["top", "right"]].set_visible(False)
        names = " → ".join([diffs[0].old_dataset, *(d.new_dataset for d in diffs)])
        fig.suptitle(f"Changes between snapshots: {names}", fontsize=9, x=0.01, ha="left")
        fig.legend(fontsize=7, loc="outside lower center", ncol=1, frameon=False)
    return fig


def join_verification_plot(report: Any) -> Figure:
    """Per dataset and language, the share of joined items in each verification status.

    Args:
        report: A :class:`~croissant_lineage.audits.translations.TranslationReport`.

    Returns:
        A 100 % stacked horizontal bar chart, one bar per dataset (with its language and
        the number of joined items), statuses in :data:`JOIN_STATUS_STYLES` order.
    """
    totals = [r for r in report.totals.to_pylist() if r.get("joined")]
    with picture_rc():
        fig = _figure(9.0, 1.7 + 0.3 * max(len(totals), 1))
        ax = fig.add_subplot()
        fig.suptitle("Translation and copy joins verified, per dataset and language", fontsize=9, x=0.01, ha="left")
        if not totals:
            ax.text(0.5, 0.5, "no join to verify", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            return fig
        y = list(range(len(totals)))
        left = [0.0] * len(totals)
        for status, (colour, hatch) in JOIN_STATUS_STYLES.items():
            vals = [100.0 * (r.get(status) or 0) / r["joined"] for r in totals]
            if not any(vals):
                continue
            ax.barh(y, vals, left=left, color=colour, hatch=hatch, edgecolor="white", linewidth=0.5,
                    label=status.replace("_", " "))
            left = [a + b for a, b in zip(left, vals, strict=True)]
        labels = [f"{r['dataset']} ({r.get('language') or '?'}, {r['joined']})" for r in totals]
        ax.set_yticks(y, labels, fontsize=7.5)
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("% of joined items", fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.spines[["top", "right"]].set_visible(False)
        for i, r in enumerate(totals):
            problems = [f"{r[st]} {st.replace('_', ' ')}" for st in list(JOIN_STATUS_STYLES)[2:] if r.get(st)]
            if problems:
                ax.text(100.8, i, ", ".join(problems), va="center", ha="left", fontsize=6.5)
        fig.legend(fontsize=7, loc="outside lower center", ncol=4, frameon=False)
    return fig

"""Carrying findings forward when a new snapshot of a benchmark arrives.

A finding raised against one snapshot (``mmlu-pro@2025-08-03:3011``, "the key should be
I") is re-targeted at the item's version in the next snapshot and given a carry status
(:data:`CARRY_STATUSES`) from the snapshot diff (:class:`croissant_lineage.audits.history.SnapshotDiff`):

* ``fixed_upstream``: the new snapshot made the proposed correction (a key finding whose
  proposed answer is now the key; an option or stem finding whose proposed text is now
  that option or the stem);
* ``still_applicable``: the item is unchanged, or changed only in presentation (white
  space, option order, the key letter following its answer), which cannot have resolved
  the finding; an option finding follows its option to its new position;
* ``needs_review``: the item changed in a way that may or may not resolve the finding;
* ``item_removed``: the item is not in the new snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import pandas as pd

from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.lineage.schema import join_ref, split_ref
from croissant_lineage.linking.normalize import normalize_option, normalize_stem
from croissant_lineage.linking.snapshotdiff import SnapshotDiff

__all__ = [
    "CARRY_STATUSES",
    "COSMETIC_KINDS",
    "CarriedFinding",
    "FindingLike",
    "carried_to_pandas",
    "carry_forward",
    "carry_through",
]

#: Carry statuses, in the order reports list them.
CARRY_STATUSES = ("still_applicable", "fixed_upstream", "needs_review", "item_removed")

#: Change codes that cannot resolve a finding (presentation only).
COSMETIC_KINDS = frozenset({"key_repointed", "options_reordered", "option_whitespace", "stem_whitespace"})


class FindingLike(Protocol):
    """What :func:`carry_forward` reads from a finding (:class:`croissant_lineage.findings.model.Finding`)."""

    @property
    def id(self) -> str: ...
    @property
    def item(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def option_index(self) -> int | None: ...
    @property
    def proposed(self) -> str | None: ...


@dataclass(frozen=True)
class CarriedFinding:
    """A finding re-targeted at the next snapshot.

    Attributes:
        finding: The original finding.
        old_ref: The item it was raised against.
        new_ref: The item's ref in the new snapshot (None when removed).
        status: One of :data:`CARRY_STATUSES`.
        kinds: The item's change codes between the snapshots.
        option_index: For option findings, the option's index in the new snapshot (None
            when the option is gone or the finding is not about an option).
        reason: A short code for the status: ``unchanged``, ``cosmetic``,
            ``key_now_proposed``, ``option_now_proposed``, ``stem_now_proposed``,
            ``item_replaced``, ``key_changed``, ``target_changed``, ``item_changed``,
            ``option_removed``, ``item_removed``.
    """

    finding: Any
    old_ref: str
    new_ref: str | None
    status: str
    kinds: tuple[str, ...]
    option_index: int | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the finding id, refs, status, kinds, option index and reason."""
        return {
            "finding": getattr(self.finding, "id", None),
            "old_ref": self.old_ref,
            "new_ref": self.new_ref,
            "status": self.status,
            "kinds": list(self.kinds),
            "option_index": self.option_index,
            "reason": self.reason,
        }


def _same(a: str | None, b: str | None, *, stem: bool = False) -> bool:
    if a is None or b is None:
        return False
    norm = normalize_stem if stem else normalize_option
    return norm(a) == norm(b)


def _proposed_text(proposed: str | None, old_options: Sequence[str]) -> str | None:
    """A proposed key given as a letter names an option of the old item; else it is text."""
    if proposed is None:
        return None
    p = proposed.strip()
    if len(p) == 1 and p.upper() in LETTERS and LETTERS.index(p.upper()) < len(old_options):
        return old_options[LETTERS.index(p.upper())]
    return proposed


def carry_forward(
    findings: Iterable[FindingLike],
    diff: SnapshotDiff,
    *,
    old_items: Any = None,
    new_items: Any = None,
) -> list[CarriedFinding]:
    """Carry the findings raised on ``diff``'s old snapshot to its new snapshot.

    Args:
        findings: Findings (any object with ``id``, ``item``, ``target``,
            ``option_index`` and ``proposed``); those whose item is not in the old
            snapshot's dataset are skipped.
        diff: The comparison of the two snapshots.
        old_items: The old snapshot's item table (``ITEMS_SCHEMA``); with ``new_items``,
            needed only to decide option and stem findings against their proposed text
            and a key proposed as a letter; without them such findings that changed are
            ``needs_review``.
        new_items: The new snapshot's item table (``ITEMS_SCHEMA``).

    Returns:
        One :class:`CarriedFinding` per finding on the old snapshot, in input order.
    """
    old_rows = _rows(old_items)
    new_rows = _rows(new_items)
    out: list[CarriedFinding] = []
    for f in findings:
        dataset, item = split_ref(f.item)
        if dataset != diff.old_dataset:
            continue
        change = diff.change_for(item)
        if change is None or change.new_item is None:
            out.append(CarriedFinding(f, f.item, None, "item_removed", ("item_removed",), None, "item_removed"))
            continue
        new_ref = join_ref(diff.new_dataset, change.new_item)
        kinds = change.kinds
        old_row = old_rows.get(item, {})
        new_row = new_rows.get(change.new_item, {})
        option_index = None
        if f.target == "option" and f.option_index is not None:
            mapped = [i for i, m in enumerate(change.option_map) if m == f.option_index]
            option_index = mapped[0] if mapped else (f.option_index if not kinds else None)
        status, reason = _decide(f, change, option_index, old_row, new_row)
        out.append(CarriedFinding(f, f.item, new_ref, status, kinds, option_index, reason))
    return out


def _rows(items: Any) -> dict[str, dict[str, Any]]:
    if items is None:
        return {}
    cols = {c: items.column(c).to_pylist() for c in ("item", "stem", "options")}
    return {
        it: {"stem": cols["stem"][i], "options": list(cols["options"][i] or [])}
        for i, it in enumerate(cols["item"])
    }


def _decide(
    f: FindingLike, change: Any, option_index: int | None, old_row: dict[str, Any], new_row: dict[str, Any]
) -> tuple[str, str]:
    kinds: tuple[str, ...] = change.kinds
    if not kinds:
        return "still_applicable", "unchanged"
    if f.target == "key" and f.proposed is not None:
        wanted = _proposed_text(f.proposed, old_row.get("options", []))
        if "key_changed" in kinds and _same(wanted, change.new_key_text):
            return "fixed_upstream", "key_now_proposed"
    if f.target == "option" and f.proposed is not None and option_index is not None:
        opts = new_row.get("options", [])
        if option_index < len(opts) and _same(f.proposed, opts[option_index]) and "option_edited" in kinds:
            return "fixed_upstream", "option_now_proposed"
    stem_fixed = _same(f.proposed, new_row.get("stem"), stem=True)
    if f.target == "stem" and "stem_edited" in kinds and stem_fixed:
        return "fixed_upstream", "stem_now_proposed"
    if f.target == "option" and option_index is None:
        return "needs_review", "option_removed"
    if set(kinds) <= COSMETIC_KINDS:
        return "still_applicable", "cosmetic"
    if "item_replaced" in kinds:
        return "needs_review", "item_replaced"
    if "key_changed" in kinds:
        return "needs_review", "key_changed"
    target_kinds = {
        "key": {"option_edited", "option_added", "option_removed"},
        "option": {"option_edited", "option_added", "option_removed"},
        "stem": {"stem_edited"},
    }.get(f.target)
    if target_kinds is not None and set(kinds) & target_kinds:
        return "needs_review", "target_changed"
    return "needs_review", "item_changed"


def carry_through(
    findings: Iterable[FindingLike],
    diffs: Sequence[SnapshotDiff],
    *,
    items: Any = None,
) -> list[CarriedFinding]:
    """Carry findings across a chain of snapshots, diff after diff.

    A finding carried as ``still_applicable`` moves on to the next diff (re-targeted at
    its new ref and option index); any other status stops it there.

    Args:
        findings: Findings on any snapshot of the chain.
        diffs: Consecutive diffs, oldest first (e.g. :attr:`HistoryReport.diffs`).
        items: Optional dataset -> item table mapping, passed on as ``old_items`` /
            ``new_items`` (see :func:`carry_forward`).

    Returns:
        The last carry of each finding that reached at least one diff, in input order.
    """
    tables = items or {}
    last: dict[int, CarriedFinding] = {}
    current: list[tuple[int, FindingLike]] = list(enumerate(findings))
    for diff in diffs:
        on_old = [(n, f) for n, f in current if split_ref(f.item)[0] == diff.old_dataset]
        carried = carry_forward(
            [f for _, f in on_old],
            diff,
            old_items=tables.get(diff.old_dataset),
            new_items=tables.get(diff.new_dataset),
        )
        moved = {n for n, _ in on_old}
        nxt = [(n, f) for n, f in current if n not in moved]
        for (n, f), c in zip(on_old, carried, strict=True):
            if isinstance(f, _Retargeted):
                c = replace(c, finding=f.finding)
            last[n] = c
            if c.status == "still_applicable" and c.new_ref is not None:
                nxt.append((n, _Retargeted(c)))
        current = nxt
    return [last[n] for n in sorted(last)]


class _Retargeted:
    """A finding seen at its carried ref (the original kept in ``finding``)."""

    def __init__(self, carried: CarriedFinding):
        original = carried.finding
        self.finding = original
        self.id: str = getattr(original, "id", "")
        self.item: str = str(carried.new_ref)
        self.target: str = original.target
        self.option_index: int | None = carried.option_index
        self.proposed: str | None = original.proposed


def carried_to_pandas(carried: Sequence[CarriedFinding]) -> pd.DataFrame:
    """The carried findings as a DataFrame (columns of :meth:`CarriedFinding.to_dict`)."""
    cols = ["finding", "old_ref", "new_ref", "status", "kinds", "option_index", "reason"]
    return pd.DataFrame([c.to_dict() for c in carried], columns=cols)

"""Counting the models' picks on the contested items."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from croissant_lineage.audits.witnesses.admission import Admission, AdmissionRow
from croissant_lineage.audits.witnesses.contested import Contested, ContestedItem, item_sort_key
from croissant_lineage.audits.witnesses.report import (
    ItemTallies,
    ItemTally,
    ModelTallies,
    ModelTally,
    PooledTally,
    WitnessEvidence,
    WitnessReport,
)
from croissant_lineage.errors import DataError
from croissant_lineage.lineage.schema import split_ref

__all__ = ["tally"]


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass(frozen=True)
class _Picks:
    """Picks of the proposed answer, the key and the other options."""

    proposed: int = 0
    key: int = 0
    other: int = 0

    @property
    def total(self) -> int:
        return self.proposed + self.key + self.other


def _count(picks: Iterable[str | None], c: ContestedItem) -> _Picks:
    """Count the picks (None: no admitted prediction) on one contested item."""
    letters = [p for p in picks if p is not None]
    proposed = sum(1 for p in letters if p == c.proposed_letter)
    key = sum(1 for p in letters if p != c.proposed_letter and p == c.key)
    return _Picks(proposed, key, len(letters) - proposed - key)


def _item_tally(c: ContestedItem, admission: Admission) -> tuple[ItemTally, float | None]:
    """One contested item's tally, and its other-picks per option (unrounded)."""
    item_id = split_ref(c.item)[1]
    n = _count((picks.get(item_id) for picks in admission.picks.values()), c)
    n_other = c.options - 2
    per_option = n.other / n_other if n_other > 0 else None
    row = ItemTally(
        c.item, c.finding_ids, c.key, c.proposed_letter, c.options, n.total, n.proposed, n.key,
        n.other, _round(per_option), n.proposed > n.key,
    )
    return row, per_option


def _evidence(c: ContestedItem, snapshot: str, row: ItemTally) -> list[WitnessEvidence]:
    """One evidence record per finding proposing the answer on the item."""
    via = c.via[0] if len(c.via) == 1 else (", ".join(c.via) or None)
    return [
        WitnessEvidence(
            fid, c.item, snapshot, via, c.key, c.proposed_letter, c.proposed,
            row.models, row.proposed_picks, row.key_picks, row.other_picks, row.proposed_beats_key,
        )
        for fid in c.finding_ids
    ]


def _model_tally(row: AdmissionRow, picks: Mapping[str, str], contested: Contested, conflicting: set[str]) -> ModelTally:
    """One model's picks on the contested items, and its accuracy with their keys replaced
    (items with conflicting proposals left out)."""
    answered = [(c, picks.get(split_ref(c.item)[1])) for c in contested.rows]
    answered = [(c, pick) for c, pick in answered if pick is not None]
    n = _Picks(
        sum(1 for c, pick in answered if pick == c.proposed_letter),
        sum(1 for c, pick in answered if pick == c.key),
        sum(1 for c, pick in answered if pick not in (c.proposed_letter, c.key)),
    )
    kept = [(c, pick) for c, pick in answered if c.item not in conflicting]
    gain = sum(1 for c, pick in kept if pick == c.proposed_letter)
    loss = sum(1 for c, pick in kept if pick == c.key)
    acc = row.accuracy
    replaced = 100.0 * (row.correct + gain - loss) / row.graded if row.graded else None
    change = None if acc is None or replaced is None else replaced - acc
    return ModelTally(
        row.model, n.total, n.proposed, n.key, n.other, n.proposed > n.key, row.graded,
        _round(acc), _round(replaced), _round(change),
    )


def _pooled(items: Sequence[ItemTally], per_option: Sequence[float | None], models: Sequence[ModelTally]) -> PooledTally:
    """Picks pooled over the contested items and models (see :data:`DEFINITIONS`)."""
    with_others = [(r, x) for r, x in zip(items, per_option, strict=True) if x is not None]
    average_other = sum(x for _, x in with_others)
    answering = [m for m in models if m.contested]
    proposed = sum(r.proposed_picks for r in items)
    key = sum(r.key_picks for r in items)
    other = sum(r.other_picks for r in items)
    return PooledTally(
        items=sum(1 for r in items if r.models),
        predictions=proposed + key + other,
        proposed_picks=proposed,
        key_picks=key,
        other_picks=other,
        average_other_picks=_round(average_other) or 0.0,
        ratio=_round(sum(r.proposed_picks for r, _ in with_others) / average_other) if average_other else None,
        models=len(answering),
        models_preferring_proposed=sum(1 for m in answering if m.proposed_picks > m.key_picks),
        models_preferring_key=sum(1 for m in answering if m.key_picks > m.proposed_picks),
        items_proposed_beats_key=sum(1 for r in items if r.proposed_beats_key),
    )


def tally(admission: Admission, contested: Contested) -> WitnessReport:
    """Count the models' picks on the contested items.

    Args:
        admission: The admitted picks (from :func:`admit`).
        contested: The contested items (from :func:`contested_items`) of the same snapshot.

    Returns:
        The :class:`WitnessReport` (definitions in :data:`DEFINITIONS`).

    Raises:
        DataError: the admission and the contested items concern different snapshots.
    """
    if contested.rows and contested.snapshot != admission.snapshot:
        raise DataError(
            f"contested items are of {contested.snapshot!r}, "
            f"the admission of {admission.snapshot!r}"
        )
    tallied = [_item_tally(c, admission) for c in contested.rows]
    item_rows = [row for row, _ in tallied]
    evidence = [e for c, row in zip(contested.rows, item_rows, strict=True) for e in _evidence(c, contested.snapshot, row)]
    evidence.sort(key=lambda e: (e.finding_id, item_sort_key(e.item)))
    conflicting = contested.conflicting()
    model_rows = [
        _model_tally(row, admission.picks.get(row.model, {}), contested, conflicting) for row in admission.rows
    ]
    return WitnessReport(
        snapshot=admission.snapshot,
        admission=admission,
        contested=contested,
        models=ModelTallies(model_rows),
        items=ItemTallies(item_rows),
        pooled=_pooled(item_rows, [x for _, x in tallied], model_rows),
        evidence=evidence,
    )

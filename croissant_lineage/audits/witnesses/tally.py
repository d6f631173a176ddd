"""Counting the models' picks on the contested items."""

from __future__ import annotations

from croissant_lineage.audits.witnesses.admission import Admission
from croissant_lineage.audits.witnesses.contested import Contested, item_sort_key
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
    conflicting = contested.conflicting()
    item_rows: list[ItemTally] = []
    evidence: list[WitnessEvidence] = []
    pooled_p = pooled_k = pooled_o = 0
    pooled_p_with_others = 0
    avg_other = 0.0
    for c in contested.rows:
        item_id = split_ref(c.item)[1]
        p = k = o = 0
        for picks in admission.picks.values():
            pick = picks.get(item_id)
            if pick is None:
                continue
            if pick == c.proposed_letter:
                p += 1
            elif pick == c.key:
                k += 1
            else:
                o += 1
        n_other = c.options - 2
        per_option = o / n_other if n_other > 0 else None
        item_rows.append(
            ItemTally(
                c.item, c.finding_ids, c.key, c.proposed_letter, c.options, p + k + o, p, k, o,
                _round(per_option), p > k,
            )
        )
        pooled_p, pooled_k, pooled_o = pooled_p + p, pooled_k + k, pooled_o + o
        if per_option is not None:
            pooled_p_with_others += p
            avg_other += per_option
        via = c.via[0] if len(c.via) == 1 else (", ".join(c.via) or None)
        evidence.extend(
            WitnessEvidence(
                fid, c.item, contested.snapshot, via, c.key, c.proposed_letter, c.proposed,
                p + k + o, p, k, o, p > k,
            )
            for fid in c.finding_ids
        )
    model_rows: list[ModelTally] = []
    for row in admission.rows:
        picks = admission.picks.get(row.model, {})
        p = k = o = 0
        gain = loss = 0
        for c in contested.rows:
            pick = picks.get(split_ref(c.item)[1])
            if pick is None:
                continue
            hit_p, hit_k = pick == c.proposed_letter, pick == c.key
            p, k, o = p + hit_p, k + hit_k, o + (not hit_p and not hit_k)
            if c.item not in conflicting:
                gain, loss = gain + hit_p, loss + hit_k
        acc = row.accuracy
        replaced = 100.0 * (row.correct + gain - loss) / row.graded if row.graded else None
        change = None if acc is None or replaced is None else replaced - acc
        model_rows.append(
            ModelTally(
                row.model, p + k + o, p, k, o, p > k, row.graded, _round(acc), _round(replaced),
                _round(change),
            )
        )
    answering = [m for m in model_rows if m.contested]
    pooled = PooledTally(
        items=sum(1 for r in item_rows if r.models),
        predictions=pooled_p + pooled_k + pooled_o,
        proposed_picks=pooled_p,
        key_picks=pooled_k,
        other_picks=pooled_o,
        average_other_picks=_round(avg_other) or 0.0,
        ratio=_round(pooled_p_with_others / avg_other) if avg_other else None,
        models=len(answering),
        models_preferring_proposed=sum(1 for m in answering if m.proposed_picks > m.key_picks),
        models_preferring_key=sum(1 for m in answering if m.key_picks > m.proposed_picks),
        items_proposed_beats_key=sum(1 for r in item_rows if r.proposed_beats_key),
    )
    evidence.sort(key=lambda e: (e.finding_id, item_sort_key(e.item)))
    return WitnessReport(
        snapshot=admission.snapshot,
        admission=admission,
        contested=contested,
        models=ModelTallies(model_rows),
        items=ItemTallies(item_rows),
        pooled=pooled,
        evidence=evidence,
    )

"""What witnessing returns: the tallies, the evidence per finding, and :class:`WitnessReport`."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

from croissant_lineage._results import Result, RowTable
from croissant_lineage.audits.witnesses.admission import Admission
from croissant_lineage.audits.witnesses.contested import Contested, UnroutedFinding

__all__ = [
    "DEFINITIONS",
    "ItemTallies",
    "ItemTally",
    "ModelTallies",
    "ModelTally",
    "PooledTally",
    "WitnessEvidence",
    "WitnessReport",
    "with_witness_evidence",
]


DEFINITIONS: dict[str, str] = {
    "admitted": "records whose question_id, options (exact text and order) and key letter "
    "match the snapshot item, with a pred letter naming one of its options",
    "graded": "records matching the snapshot item (id, options, key): admitted + null_pred "
    "+ pred_out_of_range",
    "accuracy": "100 x admitted records with pred == key / graded (null and out-of-range "
    "predictions count as wrong)",
    "accuracy_change": "accuracy with contested keys replaced by the proposed answers minus "
    "accuracy, in percentage points (items with conflicting proposals left out)",
    "contested": "a wrong-key finding whose proposed answer text is one of the snapshot "
    "item's options and is not its key",
    "prefers_proposed": "a model picked the proposed answer more often than the published key "
    "over the contested items it answered (admitted records)",
    "pooled_ratio": "P / O: P = picks of the proposed answer summed over contested items and "
    "models; O = per item, picks of options that are neither key nor proposed divided by "
    "their number, summed; items with no such option left out of both",
    "proposed_beats_key": "on an item, more models picked the proposed answer than the key",
}


@dataclass(frozen=True)
class ModelTally:
    """One model's picks on the contested items and what replacing the keys would do.

    Attributes:
        model: The model.
        contested: Contested items with an admitted prediction of this model.
        proposed_picks: Of those, how often it picked the proposed answer.
        key_picks: How often it picked the published key.
        other_picks: How often another option.
        prefers_proposed: ``proposed_picks > key_picks``.
        graded: Records graded (see :data:`DEFINITIONS`).
        accuracy: Accuracy (0-100) against the published keys; None if nothing graded.
        accuracy_replaced: Accuracy with the contested keys replaced.
        accuracy_change: ``accuracy_replaced - accuracy`` (percentage points).
    """

    model: str
    contested: int
    proposed_picks: int
    key_picks: int
    other_picks: int
    prefers_proposed: bool
    graded: int
    accuracy: float | None
    accuracy_replaced: float | None
    accuracy_change: float | None


@dataclass(frozen=True)
class ItemTally:
    """Picks of every model on one contested item.

    Attributes:
        item: The item ref.
        finding_ids: The findings proposing the answer.
        key: Published key letter.
        proposed_letter: Proposed answer letter.
        options: Option count.
        models: Models with an admitted prediction on the item.
        proposed_picks, key_picks, other_picks: Their picks.
        other_per_option: ``other_picks`` / (options - 2); None for two-option items.
        proposed_beats_key: ``proposed_picks > key_picks``.
    """

    item: str
    finding_ids: tuple[str, ...]
    key: str
    proposed_letter: str
    options: int
    models: int
    proposed_picks: int
    key_picks: int
    other_picks: int
    other_per_option: float | None
    proposed_beats_key: bool


@dataclass
class ModelTallies(RowTable):
    """Per-model tallies (:class:`ModelTally`), in admission order."""

    row_type: ClassVar[type] = ModelTally
    rows: list[ModelTally] = field(default_factory=list)


@dataclass
class ItemTallies(RowTable):
    """Per-item tallies (:class:`ItemTally`), in contested-item order."""

    row_type: ClassVar[type] = ItemTally
    rows: list[ItemTally] = field(default_factory=list)


@dataclass(frozen=True)
class PooledTally:
    """Picks pooled over contested items and models (definitions in :data:`DEFINITIONS`).

    Attributes:
        items: Contested items with at least one admitted prediction.
        predictions: Admitted predictions on them.
        proposed_picks, key_picks, other_picks: Picks pooled.
        average_other_picks: O, the picks of an average other option, summed over items.
        ratio: ``proposed_picks`` (over items with other options) / O; None when O is 0.
        models: Models with at least one admitted prediction on a contested item.
        models_preferring_proposed: Of those, models picking the proposed answer more
            often than the key.
        models_preferring_key: Models picking the key more often.
        items_proposed_beats_key: Items where more models picked the proposed answer.
    """

    items: int
    predictions: int
    proposed_picks: int
    key_picks: int
    other_picks: int
    average_other_picks: float
    ratio: float | None
    models: int
    models_preferring_proposed: int
    models_preferring_key: int
    items_proposed_beats_key: int


@dataclass(frozen=True)
class WitnessEvidence:
    """Model-witness evidence for one finding on one snapshot item.

    Attributes:
        finding_id: The finding it concerns.
        item: The snapshot item ref.
        snapshot: The snapshot's dataset name.
        via: The item the finding was made on, when routed through lineage.
        key, proposed_letter: Published key and proposed letters.
        proposed: The proposed option text.
        models: Models with an admitted prediction on the item.
        proposed_picks, key_picks, other_picks: Their picks.
        proposed_beats_key: ``proposed_picks > key_picks``.
    """

    finding_id: str
    item: str
    snapshot: str
    via: str | None
    key: str
    proposed_letter: str
    proposed: str
    models: int
    proposed_picks: int
    key_picks: int
    other_picks: int
    proposed_beats_key: bool

    @property
    def text(self) -> str:
        """One line for a finding's ``evidence`` list."""
        via = f" (routed from {self.via})" if self.via else ""
        return (
            f"model witnesses on {self.item}{via}: of {self.models} models with an admitted "
            f"prediction, {self.proposed_picks} picked the proposed answer "
            f"({self.proposed_letter}), {self.key_picks} the key ({self.key}), "
            f"{self.other_picks} another option"
        )

    def to_dict(self) -> dict[str, Any]:
        """The fields and ``text`` as a JSON-ready dict."""
        return {**asdict(self), "text": self.text}


@dataclass
class WitnessReport(Result):
    """Everything :func:`witness` found.

    Attributes:
        snapshot: The snapshot's dataset name.
        admission: Records admitted per archive.
        contested: Contested items and skipped claims.
        models: Per-model tallies.
        items: Per-item tallies.
        pooled: Pooled tally.
        evidence: One record per (finding, contested item), sorted.
        unrouted: Findings that gave no claim (when built from findings).
    """

    snapshot: str
    admission: Admission
    contested: Contested
    models: ModelTallies
    items: ItemTallies
    pooled: PooledTally
    evidence: list[WitnessEvidence] = field(default_factory=list)
    unrouted: list[UnroutedFinding] = field(default_factory=list)

    def evidence_by_finding(self) -> dict[str, list[WitnessEvidence]]:
        """Finding id -> its evidence records."""
        out: dict[str, list[WitnessEvidence]] = defaultdict(list)
        for e in self.evidence:
            out[e.finding_id].append(e)
        return dict(out)

    def summary(self) -> dict[str, Any]:
        """The headline figures: admission totals, contested and skipped counts, pooled."""
        skipped: dict[str, int] = {}
        for s in self.contested.skipped:
            skipped[s.reason] = skipped.get(s.reason, 0) + 1
        unrouted: dict[str, int] = {}
        for u in self.unrouted:
            unrouted[u.reason] = unrouted.get(u.reason, 0) + 1
        return {
            "snapshot": self.snapshot,
            "snapshot_items": self.admission.snapshot_items,
            **self.admission.totals(),
            "contested_items": len(self.contested.rows),
            "conflicting_items": len(self.contested.conflicting()),
            "claims_skipped": dict(sorted(skipped.items())),
            "findings_unrouted": dict(sorted(unrouted.items())),
            **{f"pooled_{k}": v for k, v in asdict(self.pooled).items()},
        }

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``croissant-lineage witnesses --json`` prints)."""
        return {
            "snapshot": self.snapshot,
            "summary": self.summary(),
            "definitions": DEFINITIONS,
            "admission": [asdict(r) for r in self.admission.rows],
            "contested": [asdict(r) for r in self.contested.rows],
            "skipped_claims": [asdict(s) for s in self.contested.skipped],
            "unrouted_findings": [asdict(u) for u in self.unrouted],
            "models": [asdict(r) for r in self.models.rows],
            "items": [asdict(r) for r in self.items.rows],
            "evidence": [e.to_dict() for e in self.evidence],
        }


def with_witness_evidence(findings: Iterable[Any], report: WitnessReport) -> list[Any]:
    """Copies of the findings with their witness evidence lines appended.

    Args:
        findings: Findings (frozen dataclasses with ``id`` and ``evidence``, e.g.
            :class:`croissant_lineage.findings.model.Finding`).
        report: A witness report.

    Returns:
        The findings in the same order; a finding with evidence in ``report`` is a copy
        whose ``evidence`` ends with each :attr:`WitnessEvidence.text` it did not hold
        already (so running twice adds nothing), the others are returned as they are.
    """
    by_finding = report.evidence_by_finding()
    out = []
    for f in findings:
        lines = [e.text for e in by_finding.get(f.id, []) if e.text not in f.evidence]
        out.append(replace(f, evidence=[*f.evidence, *lines]) if lines else f)
    return out

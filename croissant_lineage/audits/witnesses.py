"""Model prediction archives as secondary witnesses for contested keys.

Three steps, each usable on its own:

1. :func:`admit` reads prediction archives (see :mod:`croissant_lineage.audits.archives`) and
   admits only the records that match the snapshot being judged: same item id, same
   options (exact text, same order) and same key letter. Every other record is counted
   under exactly one reason, checked in the order of :data:`REJECT_REASONS`.
2. :func:`croissant_lineage.audits.contested.contested_items` turns claims ``(finding id,
   item ref, proposed answer text)`` into the contested items of the snapshot (see
   :mod:`croissant_lineage.audits.contested`, which also routes findings through lineage).
3. :func:`tally` counts, on the contested items, which option each model picked, and
   returns per-model, per-item and pooled tallies and one :class:`WitnessEvidence` per
   (finding, item) for the findings module to store as evidence.

:func:`witness` runs 1-3 on an item table; :func:`witness_lineage` on a snapshot of a
linked family, routing findings through its edges
(:func:`croissant_lineage.workflows.witness_family` starts from a family spec, a data
folder, an archives folder and findings files: what the CLI calls).

Definitions (also in :data:`DEFINITIONS` and in every report):

* *graded* records of a model: records matching the snapshot item (id, options, key),
  whether or not the prediction is usable (admitted + null pred + pred out of range);
* *accuracy*: 100 x (admitted records whose pred equals the key) / graded; null and
  out-of-range predictions count as wrong (no random-guess fallback);
* *accuracy change*: accuracy with each contested item's key replaced by the proposed
  answer, minus accuracy (percentage points); items with conflicting proposals are left
  out;
* a model *prefers the proposed answer* when, over the contested items it answered
  (admitted records), it picked the proposed answer more often than the published key;
* *pooled ratio*: P / O, where P is the number of picks of the proposed answer summed
  over contested items and models, and O the picks an average other option gets,
  summed likewise: per item, picks of the options that are neither key nor proposed,
  divided by the number of such options. Items with no such option are left out of
  both sums. 1 means the proposed answer draws no more picks than a typical distractor.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa
from tqdm.auto import tqdm

from croissant_lineage._results import RowTable
from croissant_lineage.audits._items import dataset_items
from croissant_lineage.audits.archives import (
    ArchiveLimits,
    inspect_archive,
    iter_archive,
    model_name,
    parse_prediction,
)
from croissant_lineage.audits.contested import (
    ClaimRouting,
    Contested,
    ContestedClaim,
    SnapshotItem,
    UnroutedFinding,
    claims_from_findings,
    contested_items,
    item_sort_key,
    snapshot_index,
    snapshot_name,
)
from croissant_lineage.errors import DataError
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import split_ref

__all__ = [
    "DEFINITIONS",
    "REJECT_REASONS",
    "Admission",
    "AdmissionRow",
    "ItemTallies",
    "ItemTally",
    "ModelTallies",
    "ModelTally",
    "PooledTally",
    "WitnessEvidence",
    "WitnessReport",
    "admit",
    "tally",
    "with_witness_evidence",
    "witness",
    "witness_lineage",
]

#: Why a record is not admitted, in the order the checks run (first that applies).
REJECT_REASONS = (
    "malformed",  # not an object with question_id, options (strings), answer (letter), pred
    "duplicate",  # a second record for the same question_id in one archive
    "not_in_snapshot",  # question_id is not an item of the snapshot
    "options_differ",  # options differ from the snapshot's (text or order)
    "key_differs",  # the archive's answer letter differs from the snapshot's key
    "null_pred",  # the model gave no prediction
    "pred_out_of_range",  # pred is not a letter naming one of the item's options
)

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


# --- 1. admission --------------------------------------------------------------------


@dataclass(frozen=True)
class AdmissionRow:
    """How the records of one archive were admitted.

    Attributes:
        archive: The archive's file name.
        model: The model it holds predictions of (unique within an :class:`Admission`).
        member: The JSON file inside the zip.
        records: Elements of the archive's JSON list.
        admitted: Records admitted (see :data:`DEFINITIONS`).
        malformed, duplicate, not_in_snapshot, options_differ, key_differs, null_pred,
            pred_out_of_range: Records rejected, by reason (:data:`REJECT_REASONS`).
        stem_differs: Admitted records whose question text differs from the snapshot's
            (admitted all the same: id, options and key decide).
        graded: Records matching the snapshot item (admitted + null_pred + pred_out_of_range).
        correct: Admitted records whose pred equals the key.
    """

    archive: str
    model: str
    member: str
    records: int
    admitted: int
    malformed: int
    duplicate: int
    not_in_snapshot: int
    options_differ: int
    key_differs: int
    null_pred: int
    pred_out_of_range: int
    stem_differs: int
    graded: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        """100 x correct / graded (None when nothing was graded)."""
        return 100.0 * self.correct / self.graded if self.graded else None


@dataclass
class Admission(RowTable):
    """Admission of every archive against one snapshot.

    Attributes:
        snapshot: The snapshot's dataset name.
        snapshot_items: How many items the snapshot holds.
        rows: One :class:`AdmissionRow` per archive, in archive order.
        picks: Model -> item id -> predicted letter, admitted records only.
    """

    row_type: ClassVar[type] = AdmissionRow
    snapshot: str
    snapshot_items: int
    rows: list[AdmissionRow] = field(default_factory=list)
    picks: dict[str, dict[str, str]] = field(default_factory=dict)

    def totals(self) -> dict[str, int]:
        """Archives and records summed: ``archives``, ``archives_admitted`` (at least one
        record admitted), ``records``, ``admitted``, and one count per reject reason."""
        out = {
            "archives": len(self.rows),
            "archives_admitted": sum(1 for r in self.rows if r.admitted),
            "records": sum(r.records for r in self.rows),
            "admitted": sum(r.admitted for r in self.rows),
        }
        for reason in (*REJECT_REASONS, "stem_differs"):
            out[reason] = sum(getattr(r, reason) for r in self.rows)
        return out


def _admit_one(
    path: Path,
    model: str,
    snap: dict[str, SnapshotItem],
    limits: ArchiveLimits | None,
    picks: dict[str, str],
) -> AdmissionRow:
    """Admit one archive's records into ``picks``; returns its row."""
    member = inspect_archive(path, limits)
    counts = dict.fromkeys((*REJECT_REASONS, "records", "admitted", "stem_differs", "correct"), 0)
    seen: set[str] = set()
    for value in iter_archive(path, limits):
        counts["records"] += 1
        rec = parse_prediction(value)
        if rec is None:
            counts["malformed"] += 1
            continue
        if rec.question_id in seen:
            counts["duplicate"] += 1
            continue
        seen.add(rec.question_id)
        item = snap.get(rec.question_id)
        if item is None:
            counts["not_in_snapshot"] += 1
        elif rec.options != item.options:
            counts["options_differ"] += 1
        elif rec.answer != item.key:
            counts["key_differs"] += 1
        elif rec.pred is None:
            counts["null_pred"] += 1
        elif not (len(rec.pred) == 1 and rec.pred in LETTERS[: len(item.options)]):
            counts["pred_out_of_range"] += 1
        else:
            counts["admitted"] += 1
            picks[rec.question_id] = rec.pred
            counts["correct"] += rec.pred == item.key
            if rec.question is not None and rec.question != item.stem:
                counts["stem_differs"] += 1
    graded = counts["admitted"] + counts["null_pred"] + counts["pred_out_of_range"]
    return AdmissionRow(archive=path.name, model=model, member=member.name, graded=graded, **counts)


def admit(
    items: pa.Table,
    archives: Sequence[str | Path],
    *,
    limits: ArchiveLimits | None = None,
    progress: bool = False,
) -> Admission:
    """Admit the records of prediction archives that match a snapshot.

    Args:
        items: The snapshot's items (one dataset, :data:`ITEMS_SCHEMA`).
        archives: Zip files in MMLU-Pro's format, read in the order given.
        limits: Size limits for reading archives.
        progress: Show a progress bar over the archives (tqdm: terminal or notebook).

    Returns:
        The :class:`Admission`: one row per archive and the admitted picks per model.
        A model name that occurs twice gets the archive's file stem instead.

    Raises:
        DataError: ``items`` is not one dataset's item table.
        InputError, UnsafePathError, SizeLimitError: an archive is refused (see
            :func:`croissant_lineage.audits.archives.iter_archive`); nothing is returned.
    """
    snap = snapshot_index(items)
    adm = Admission(snapshot=snapshot_name(items), snapshot_items=len(snap))
    for a in tqdm(archives, desc="archives", unit="archive", disable=not progress):
        path = Path(a)
        model = model_name(path)
        if model in adm.picks:
            model = path.stem
        picks: dict[str, str] = {}
        adm.rows.append(_admit_one(path, model, snap, limits, picks))
        adm.picks[model] = picks
    return adm


# --- 3. tallies ------------------------------------------------------------------------


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
class WitnessReport:
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

    def _repr_html_(self) -> str:
        """Compact HTML view for Jupyter."""
        from croissant_lineage.render.html import to_html

        return to_html(self)


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


def witness(
    items: pa.Table,
    archives: Sequence[str | Path],
    claims: Iterable[ContestedClaim | Sequence[str]],
    *,
    limits: ArchiveLimits | None = None,
    progress: bool = False,
) -> WitnessReport:
    """Admit archives against a snapshot and tally the picks on the contested items.

    Args:
        items: The snapshot's items (one dataset).
        archives: Prediction archives (zip files).
        claims: ``(finding_id, item_ref, proposed_text)`` claims on the snapshot's items.
        limits: Size limits for reading archives.
        progress: Show a progress bar over the archives.

    Returns:
        The :class:`WitnessReport`.

    Raises:
        DataError: ``items`` is not one dataset's item table.
        InputError, UnsafePathError, SizeLimitError: an archive is refused.
    """
    return tally(admit(items, archives, limits=limits, progress=progress), contested_items(items, claims))


def witness_lineage(
    lineage: Lineage,
    archives: Sequence[str | Path],
    *,
    dataset: str,
    findings: Sequence[Any] | None = None,
    limits: ArchiveLimits | None = None,
    progress: bool = False,
) -> WitnessReport:
    """Witness one snapshot of a linked family with prediction archives and findings.

    Findings on the snapshot's own items are used directly; findings on other datasets
    are routed through the lineage's edges (see :func:`claims_from_findings`).

    Args:
        lineage: The linked family; it must hold the snapshot's items (and, to route
            findings made on other datasets, the items and edges on the way).
        archives: Prediction archives (zip files), read in the order given.
        dataset: The snapshot to judge (an MMLU-Pro snapshot dataset of the family).
        findings: Findings (e.g. :class:`croissant_lineage.findings.model.Finding`);
            without them the report has the admission only.
        limits: Size limits for reading archives.
        progress: Show a progress bar over the archives.

    Returns:
        The :class:`WitnessReport`.

    Raises:
        InputError: the lineage holds no items of ``dataset``; an archive is refused.
        UnsafePathError, SizeLimitError, DataError: refused inputs.
    """
    items = dataset_items(lineage, dataset)
    routing = ClaimRouting()
    if findings is not None:
        off_snapshot = any(f.item.partition(":")[0] != dataset for f in findings)
        routing = claims_from_findings(
            findings,
            dataset=dataset,
            items=lineage.items if off_snapshot else None,
            edges=lineage.edges if off_snapshot else None,
        )
    report = witness(items, archives, routing.claims, limits=limits, progress=progress)
    report.unrouted = routing.unrouted
    return report

"""Admitting the records of prediction archives that match the snapshot being judged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pyarrow as pa
from tqdm.auto import tqdm

from croissant_lineage._results import RowTable
from croissant_lineage.audits.witnesses.archives import (
    ArchiveLimits,
    inspect_archive,
    iter_archive,
    model_name,
    parse_prediction,
)
from croissant_lineage.audits.witnesses.contested import SnapshotItem, snapshot_index, snapshot_name
from croissant_lineage.lineage.items import LETTERS

__all__ = ["REJECT_REASONS", "Admission", "AdmissionRow", "admit"]


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
            :func:`croissant_lineage.audits.witnesses.archives.iter_archive`); nothing is returned.
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

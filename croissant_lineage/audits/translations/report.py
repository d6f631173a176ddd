"""What verifying translations returns: statuses, the tables' schemas, and
:class:`TranslationReport`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd
import pyarrow as pa

from croissant_lineage._results import Result
from croissant_lineage.lineage.schema import (
    GROUPS_SCHEMA,
    SHIFTS_SCHEMA,
    TRANSLATION_STATUSES,
    VERIFICATION_SCHEMA,
    join_ref,
)
from croissant_lineage.linking.alignment import SHIFTS

__all__ = [
    "GROUPS_SCHEMA",
    "SHIFTS",
    "SHIFTS_SCHEMA",
    "STATUSES",
    "VERIFICATION_SCHEMA",
    "ItemVerification",
    "ShiftResult",
    "TranslationReport",
]




#: Per-item statuses, best first (declared with the schemas).
STATUSES = TRANSLATION_STATUSES

@dataclass(frozen=True)
class ItemVerification:
    """The verification of one joined item (a row of :data:`VERIFICATION_SCHEMA`).

    Attributes:
        child_ref / parent_ref: Item refs of the translation and its source.
        status: One of :data:`STATUSES`.
        key_match: Same answer letter (None when a key is missing).
        options_match: Same number of options.
        evidence_score: 0-100, None when there is no comparable evidence.
        best_shift / realigned_parent: For ``misaligned`` items, the row shift and the
            ref of the source item it leads to (None otherwise).
    """

    child_ref: str
    parent_ref: str
    status: str
    activity: str | None
    method: str | None
    language: str | None
    subject: str | None
    child_key: str | None
    parent_key: str | None
    key_match: bool | None
    options_match: bool
    evidence_score: float | None
    evidence_tokens: int = 0
    best_shift: int = 0
    realigned_parent: str | None = None

    @property
    def verified(self) -> bool:
        """True when the status is ``verified``."""
        return self.status == "verified"


@dataclass(frozen=True)
class ShiftResult:
    """Row-index shift test of one subject (a row of :data:`SHIFTS_SCHEMA`)."""

    dataset: str
    parent_dataset: str
    subject: str | None
    items: int
    agree: tuple[int, ...]
    best_shift: int
    misaligned: bool

    @property
    def agree_at_zero(self) -> int:
        """Items whose key and evidence agree without a shift."""
        return self.agree[SHIFTS.index(0)]

    @property
    def agree_at_best(self) -> int:
        """Items whose key and evidence agree at :attr:`best_shift`."""
        return self.agree[SHIFTS.index(self.best_shift)]


@dataclass(frozen=True)
class TranslationReport(Result):
    """What :func:`verify_translations` returns.

    Attributes:
        items: One row per verified join (:data:`VERIFICATION_SCHEMA`).
        groups: Counts per dataset, language and subject (:data:`GROUPS_SCHEMA`).
        totals: The same counts per dataset and language (``subject`` None).
        shifts: The shift test per dataset and subject (:data:`SHIFTS_SCHEMA`).
    """

    items: pa.Table
    groups: pa.Table
    totals: pa.Table
    shifts: pa.Table

    @cached_property
    def _by_child(self) -> dict[str, ItemVerification]:
        out: dict[str, ItemVerification] = {}
        for r in self.items.to_pylist():
            v = _row_to_verification(r)
            out.setdefault(v.child_ref, v)
        return out

    def verification_for(self, child_ref: str) -> ItemVerification | None:
        """The verification of a joined item by its ref (``global-mmlu-ja:professional_law/test/1225``).

        Returns:
            The :class:`ItemVerification` of its first join, or None when the item was
            not joined by a verified derivation (documented coverage only, or linked by text).
        """
        return self._by_child.get(child_ref)

    def by_status(self, status: str) -> list[ItemVerification]:
        """Joined items with one status, in table order."""
        return [v for v in self._by_child.values() if v.status == status]

    def key_differences(self) -> list[ItemVerification]:
        """Items whose answer letter differs from their (correctly joined) source's."""
        return self.by_status("key_differs")

    def misaligned_subjects(self) -> list[ShiftResult]:
        """Subjects whose row-index join is shifted, in table order."""
        return [s for s in _shift_results(self.shifts) if s.misaligned]

    def to_pandas(self) -> pd.DataFrame:
        """The per-item table as a DataFrame (``groups``, ``totals`` and ``shifts`` are
        Arrow tables with their own ``to_pandas()``)."""
        return self.items.to_pandas()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``totals``, ``groups``, ``shifts`` (misaligned subjects only) and
        ``exceptions`` (items neither ``verified`` nor ``consistent``)."""
        keep = pa.compute.invert(pa.compute.is_in(self.items.column("status"), pa.array(["verified", "consistent"])))
        shifts = self.shifts.filter(self.shifts.column("misaligned"))
        return {
            "totals": self.totals.to_pylist(),
            "groups": self.groups.to_pylist(),
            "shifts": shifts.to_pylist(),
            "exceptions": self.items.filter(keep).to_pylist(),
        }


def _row_to_verification(r: Mapping[str, Any]) -> ItemVerification:
    return ItemVerification(
        child_ref=join_ref(r["child_dataset"], r["child_item"]),
        parent_ref=join_ref(r["parent_dataset"], r["parent_item"]),
        status=r["status"],
        activity=r["activity"],
        method=r["method"],
        language=r["language"],
        subject=r["subject"],
        child_key=r["child_key"],
        parent_key=r["parent_key"],
        key_match=r["key_match"],
        options_match=bool(r["options_match"]),
        evidence_score=r["evidence_score"],
        evidence_tokens=r["evidence_tokens"] or 0,
        best_shift=r["best_shift"] or 0,
        realigned_parent=(
            None if r["realigned_parent"] is None else join_ref(r["parent_dataset"], r["realigned_parent"])
        ),
    )


def _shift_results(table: pa.Table) -> list[ShiftResult]:
    return [
        ShiftResult(
            dataset=r["dataset"],
            parent_dataset=r["parent_dataset"],
            subject=r["subject"],
            items=r["items"],
            agree=tuple(r["agree"]),
            best_shift=r["best_shift"],
            misaligned=r["misaligned"],
        )
        for r in table.to_pylist()
    ]

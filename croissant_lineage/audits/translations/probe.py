"""One joined item checked against one (possibly shifted) source item: the probing core
of :mod:`croissant_lineage.linking.alignment` (shared with linking), and the audit's
:class:`Join`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from croissant_lineage.linking.alignment import (
    SHIFTS,
    SUPPORT_SCORE,
    TEXT_SUPPORT_SCORE,
    Checker,
    JoinItem,
    Probe,
    TokenWeights,
)

__all__ = [
    "SUPPORT_SCORE",
    "TEXT_SUPPORT_SCORE",
    "Checker",
    "Join",
    "JoinItem",
    "Probe",
    "TokenWeights",
]


@dataclass
class Join:
    """One declared join under verification: its row, both items and their probes."""

    row: dict[str, Any]
    child: JoinItem
    parent: JoinItem
    language: str | None
    subject: str | None
    mode: str
    ntok: int
    probes: list[Probe | None]  # per shift of SHIFTS; only index 0 until shifts are tried

    @property
    def zero(self) -> Probe:
        p = self.probes[SHIFTS.index(0)]
        assert p is not None
        return p

    @property
    def group(self) -> tuple[str, str, str | None]:
        return (self.row["child_dataset"], self.row["parent_dataset"], self.subject)

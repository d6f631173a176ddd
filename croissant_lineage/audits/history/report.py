"""What ``croissant-lineage history`` shows: a snapshot chain's diffs and one item's versions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from croissant_lineage._results import Result
from croissant_lineage.audits.history.revisions import revision_pairs
from croissant_lineage.audits.history.versions import Version
from croissant_lineage.linking.snapshotdiff import Revision, SnapshotDiff

__all__ = ["HistoryReport"]


@dataclass(frozen=True)
class HistoryReport(Result):
    """What ``croissant-lineage history`` shows: a snapshot chain and one item's versions.

    Attributes:
        family: Family name.
        datasets: The chain's snapshots, oldest first.
        dates: Their dates (None when unknown).
        diffs: One :class:`SnapshotDiff` per consecutive pair.
        item: The item asked for, or None.
        versions: Its versions (empty without ``item``).
    """

    family: str
    datasets: tuple[str, ...]
    dates: tuple[str | None, ...]
    diffs: tuple[SnapshotDiff, ...]
    item: str | None = None
    versions: tuple[Version, ...] = field(default_factory=tuple)

    def revisions(self, *, changed_only: bool = False) -> list[Revision]:
        """``prov:wasRevisionOf`` pairs of the whole chain (see :func:`revision_pairs`)."""
        return revision_pairs(self.diffs, changed_only=changed_only)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: family, datasets, dates, each diff's :meth:`SnapshotDiff.to_dict`,
        item and versions."""
        return {
            "family": self.family,
            "datasets": list(self.datasets),
            "dates": list(self.dates),
            "diffs": [d.to_dict() for d in self.diffs],
            "item": self.item,
            "versions": [v.to_dict() for v in self.versions],
        }

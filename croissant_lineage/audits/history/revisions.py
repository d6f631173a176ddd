"""``prov:wasRevisionOf`` pairs of a snapshot chain."""

from __future__ import annotations

from collections.abc import Sequence

from croissant_lineage.linking.snapshotdiff import Revision, SnapshotDiff

__all__ = ["revision_pairs"]


def revision_pairs(diffs: Sequence[SnapshotDiff], *, changed_only: bool = False) -> list[Revision]:
    """All ``prov:wasRevisionOf`` pairs of consecutive snapshot diffs.

    Args:
        diffs: Diffs of consecutive snapshots (e.g. :attr:`HistoryReport.diffs`).
        changed_only: Only the items whose content changed.

    Returns:
        The :class:`Revision` s of every diff, diff by diff in the order given.
    """
    return [r for d in diffs for r in d.revisions(changed_only=changed_only)]

"""Snapshot history: how a benchmark's items changed between dated releases.

A benchmark is a sequence of dated snapshots (MMLU-Pro: the 2024-10-16 test set and the
Hub copies of 2025-08-03 and 2025-10-01; MMLU: the 2020 release and the Hub release).
Consecutive snapshots are compared item by item with
:func:`~croissant_lineage.linking.snapshotdiff.compare_snapshots` (the change codes are
those of :data:`~croissant_lineage.linking.itemdiff.CHANGE_KINDS`), joined by id or, when
ids do not align, through the lineage edges (:func:`joins_from_edges`).

:func:`item_history` follows one item across a sequence of :class:`Snapshot` s
("key unchanged since 2024-10-16"); :meth:`SnapshotDiff.revisions` gives the
``prov:wasRevisionOf`` pairs the enriched metadata records; :func:`history` does all of
it for a family's snapshot chain in a :class:`~croissant_lineage.lineage.model.Lineage`
(:func:`croissant_lineage.workflows.snapshot_history` links the chain first: what
``croissant-lineage history`` prints).

Modules: ``chain`` (the snapshot chain and its joins), ``versions`` (one item across
snapshots), ``revisions``, ``report`` (:class:`HistoryReport`), ``audit`` (the audit of
a linked family). The item and snapshot diffs live in :mod:`croissant_lineage.linking`
(carrying findings forward reads them too) and are re-exported here.
"""

from __future__ import annotations

from croissant_lineage.audits.history.audit import chain_snapshots, history
from croissant_lineage.audits.history.chain import (
    SNAPSHOT_ACTIVITIES,
    joins_from_edges,
    needs_joins,
    resolve_chain,
    snapshot_chain,
)
from croissant_lineage.audits.history.report import HistoryReport
from croissant_lineage.audits.history.revisions import revision_pairs
from croissant_lineage.audits.history.versions import Snapshot, Version, item_history
from croissant_lineage.linking.itemdiff import (
    CHANGE_KINDS,
    OPTION_FUZZY_THRESHOLD,
    REPLACED_BELOW,
    ItemChange,
    compare_items,
)
from croissant_lineage.linking.snapshotdiff import (
    CHANGES_SCHEMA,
    Revision,
    SnapshotDiff,
    compare_snapshots,
)

__all__ = [
    "CHANGES_SCHEMA",
    "CHANGE_KINDS",
    "OPTION_FUZZY_THRESHOLD",
    "REPLACED_BELOW",
    "SNAPSHOT_ACTIVITIES",
    "HistoryReport",
    "ItemChange",
    "Revision",
    "Snapshot",
    "SnapshotDiff",
    "Version",
    "chain_snapshots",
    "compare_items",
    "compare_snapshots",
    "history",
    "item_history",
    "joins_from_edges",
    "needs_joins",
    "resolve_chain",
    "revision_pairs",
    "snapshot_chain",
]

"""The history audit of a linked family: its snapshots, their diffs and one item's versions."""

from __future__ import annotations

from itertools import pairwise

from croissant_lineage.audits.history.chain import joins_from_edges, needs_joins, resolve_chain
from croissant_lineage.audits.history.report import HistoryReport
from croissant_lineage.audits.history.versions import Snapshot, Version, item_history
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.linking.snapshotdiff import compare_snapshots

__all__ = ["chain_snapshots", "history"]


def chain_snapshots(lineage: Lineage, *, dataset: str | None = None) -> list[Snapshot]:
    """The snapshots of a family's chain, ready for :func:`item_history`.

    Args:
        lineage: The linked family: its items are the snapshots' items, and its edges
            join the snapshots linked by text (MMLU 2020 -> Hub release); its family, the
            snapshot derivations and the dates.
        dataset: Any snapshot of the chain (default: the family's longest chain).

    Returns:
        The :class:`Snapshot` s, oldest first, each with its ``joins`` to the previous one.

    Raises:
        SpecError: unknown dataset, or it has no other snapshot.
        InputError: the lineage holds no items of a snapshot.
    """
    family = lineage.family
    chain = resolve_chain(family, dataset)
    names = [chain[0].parent, *(d.child for d in chain)]
    tables = {n: lineage.items_of(n, required=True) for n in names}
    snaps = [Snapshot(names[0], family.dataset(names[0]).date, tables[names[0]])]
    for d in chain:
        joins = joins_from_edges(lineage.edges, d.child, d.parent, unmatched=lineage.unmatched) if needs_joins(d) else None
        snaps.append(Snapshot(d.child, family.dataset(d.child).date, tables[d.child], joins))
    return snaps


def history(
    lineage: Lineage, *, dataset: str | None = None, item: str | None = None
) -> HistoryReport:
    """Compare every consecutive pair of a family's snapshots and trace one item.

    Args:
        lineage: The linked family (see :func:`chain_snapshots`).
        dataset: Any snapshot of the chain (default: the family's longest chain,
            ``mmlu-pro`` for MMLU).
        item: An item id (or ref) to trace, see :func:`item_history`.

    Returns:
        A :class:`HistoryReport`.

    Raises:
        SpecError: unknown dataset, or it has no other snapshot.
        InputError: the item is in none of the snapshots, or the lineage holds no items
            of a snapshot.
    """
    snaps = chain_snapshots(lineage, dataset=dataset)
    names = [s.dataset for s in snaps]
    diffs = tuple(
        compare_snapshots(a.items, b.items, old_date=a.date, new_date=b.date, joins=b.joins)
        for a, b in pairwise(snaps)
    )
    versions: tuple[Version, ...] = ()
    if item is not None:
        try:
            versions = tuple(item_history(snaps, item))
        except KeyError:
            raise InputError(
                f"item {item!r} is in none of the snapshots {', '.join(names)}",
                hint="give an item id of one of them, or a ref 'dataset:item'",
            ) from None
    return HistoryReport(
        family=lineage.family.name,
        datasets=tuple(names),
        dates=tuple(s.date for s in snaps),
        diffs=diffs,
        item=item,
        versions=versions,
    )

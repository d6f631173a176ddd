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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import Any

import pyarrow as pa

from croissant_lineage.audits._items import dataset_items
from croissant_lineage.errors import InputError, SpecError
from croissant_lineage.family.spec import Derivation, FamilySpec
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import join_ref
from croissant_lineage.linking.itemdiff import (
    CHANGE_KINDS,
    OPTION_FUZZY_THRESHOLD,
    REPLACED_BELOW,
    ItemChange,
    compare_items,
    key_text,
)
from croissant_lineage.linking.snapshotdiff import (
    CHANGES_SCHEMA,
    Revision,
    SnapshotDiff,
    compare_snapshots,
    rows_by_id,
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

#: Derivation activities that make a dataset a later snapshot of its parent.
SNAPSHOT_ACTIVITIES = ("snapshot", "re_release")


def joins_from_edges(
    edges: pa.Table,
    child_dataset: str,
    parent_dataset: str,
    *,
    unmatched: pa.Table | None = None,
    min_score: float = REPLACED_BELOW,
) -> dict[str, str]:
    """A one-to-one ``new id -> old id`` mapping from lineage edges ``child -> parent``.

    Edges may link several children to one parent (identical items within a dataset are
    linked ambiguously, with the tied parents as ``alternatives``); a snapshot join must
    be one-to-one. Children whose own id is among their candidates take it first; the
    rest take their first free candidate, best edge score first. Children the linker
    left unmatched join their best candidate when it is free and scores at least
    ``min_score`` (a re-release's heavily edited item is still the same item).

    Args:
        edges: An edges table (``EDGES_SCHEMA``).
        child_dataset: The newer snapshot (the edges' child).
        parent_dataset: The older snapshot (the edges' parent).
        unmatched: The linker's unmatched table (``UNMATCHED_SCHEMA``), optional.
        min_score: Lowest ``best_score`` of an unmatched child that still joins.

    Returns:
        The mapping; children left without a free candidate are not in it.
    """

    def side(table: pa.Table, child_col: str, parent_col: str) -> pa.Table:
        mask = pa.compute.and_(
            pa.compute.equal(table.column(child_col), child_dataset),
            pa.compute.equal(table.column(parent_col), parent_dataset),
        )
        return table.filter(mask)

    sub = side(edges, "child_dataset", "parent_dataset")
    cands: list[tuple[float, int, str, list[str]]] = []
    for n, r in enumerate(sub.select(["child_item", "parent_item", "score", "alternatives"]).to_pylist()):
        cands.append((-(r["score"] or 0.0), n, r["child_item"], [r["parent_item"], *(r["alternatives"] or [])]))
    if unmatched is not None and unmatched.num_rows:
        extra = side(unmatched, "child_dataset", "parent_dataset").to_pylist()
        for n, r in enumerate(extra, start=len(cands)):
            if r["best_parent_item"] is not None and (r["best_score"] or 0.0) >= min_score:
                cands.append((-(r["best_score"] or 0.0), n, r["child_item"], [r["best_parent_item"]]))
    cands.sort()
    out: dict[str, str] = {}
    taken: set[str] = set()
    for _s, _n, child, options in cands:
        if child not in out and child in options and child not in taken:
            out[child] = child
            taken.add(child)
    for _s, _n, child, options in cands:
        if child in out:
            continue
        free = next((p for p in options if p not in taken), None)
        if free is not None:
            out[child] = free
            taken.add(free)
    return out


@dataclass(frozen=True)
class Snapshot:
    """One dated snapshot of a dataset, for :func:`item_history`.

    Attributes:
        dataset: Dataset name (used in refs).
        date: ISO date, or None.
        items: Its item table (``ITEMS_SCHEMA``).
        joins: This snapshot's item id -> the previous snapshot's item id, when ids do
            not align; None: equal ids join.
    """

    dataset: str
    date: str | None
    items: pa.Table
    joins: Mapping[str, str] | None = None

    @cached_property
    def rows(self) -> dict[str, dict[str, Any]]:
        """Item id -> row (item, subject, stem, options, key)."""
        return rows_by_id(self.items)

    @cached_property
    def _back(self) -> dict[str, str]:
        return {} if self.joins is None else {old: new for new, old in self.joins.items()}

    def previous_id(self, item: str) -> str | None:
        """This snapshot's ``item`` -> the previous snapshot's id (None if not joined)."""
        return item if self.joins is None else self.joins.get(item)

    def next_id_from(self, previous_item: str) -> str | None:
        """The previous snapshot's id -> this snapshot's id (None if not joined)."""
        return previous_item if self.joins is None else self._back.get(previous_item)

    @property
    def label(self) -> str:
        """The date, or the dataset name when there is no date."""
        return self.date or self.dataset


@dataclass(frozen=True)
class Version:
    """An item as it is in one snapshot, with what changed since the previous one.

    Attributes:
        dataset / date: The snapshot.
        item: The item's id there (None when absent).
        ref: ``"{dataset}:{item}"`` (None when absent).
        kinds: Change codes against the previous snapshot (empty: unchanged or first).
        key / key_text: The key letter and the text it points at.
        unchanged_since: Label (date, else dataset) of the earliest snapshot since which
            the content is unchanged (None when absent).
        key_since: Label since which the key's text is unchanged (letter moves ignored).
    """

    dataset: str
    date: str | None
    item: str | None
    ref: str | None
    kinds: tuple[str, ...] = ()
    key: str | None = None
    key_text: str | None = None
    unchanged_since: str | None = None
    key_since: str | None = None

    @property
    def present(self) -> bool:
        """True when the item exists in this snapshot."""
        return self.item is not None

    @property
    def note(self) -> str:
        """One line for queues and metadata: ``"key unchanged since 2024-10-16"``,
        ``"key changed in 2025-10-01"``, ``"removed in ..."``."""
        label = self.date or self.dataset
        if not self.present:
            return f"removed in {label}" if "item_removed" in self.kinds else f"absent in {label}"
        if "key_changed" in self.kinds or "item_replaced" in self.kinds:
            return f"key changed in {label}"
        text = f"key unchanged since {self.key_since}"
        others = [k for k in self.kinds if k not in ("key_repointed",)]
        if others:
            text += f"; {', '.join(others)} in {label}"
        return text

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the fields plus ``note``."""
        return {
            "dataset": self.dataset,
            "date": self.date,
            "item": self.item,
            "ref": self.ref,
            "kinds": list(self.kinds),
            "key": self.key,
            "key_text": self.key_text,
            "unchanged_since": self.unchanged_since,
            "key_since": self.key_since,
            "note": self.note,
        }


def _anchor(snapshots: Sequence[Snapshot], item_id: str) -> tuple[int, str]:
    dataset, sep, rest = item_id.partition(":")
    names = [s.dataset for s in snapshots]
    if sep and dataset in names:
        return names.index(dataset), rest
    for i in range(len(snapshots) - 1, -1, -1):
        if item_id in snapshots[i].rows:
            return i, item_id
    raise KeyError(f"item {item_id!r} is in none of the snapshots {', '.join(names)}")


def item_history(snapshots: Sequence[Snapshot], item_id: str) -> list[Version]:
    """The versions of one item across dated snapshots.

    Args:
        snapshots: Oldest first; each snapshot's ``joins`` maps its ids to the previous one's.
        item_id: An id in the newest snapshot that has it, or a ref ``"{dataset}:{id}"``
            naming the snapshot the id belongs to.

    Returns:
        One :class:`Version` per snapshot, oldest first (absent ones have ``item`` None).

    Raises:
        KeyError: the id is in none of the snapshots.
    """
    if not snapshots:
        return []
    start, sid = _anchor(snapshots, item_id)
    ids: list[str | None] = [None] * len(snapshots)
    ids[start] = sid
    for i in range(start, 0, -1):
        cur = ids[i]
        ids[i - 1] = snapshots[i].previous_id(cur) if cur is not None else None
        if ids[i - 1] is not None and ids[i - 1] not in snapshots[i - 1].rows:
            ids[i - 1] = None
    for i in range(start + 1, len(snapshots)):
        prev = ids[i - 1]
        ids[i] = snapshots[i].next_id_from(prev) if prev is not None else None
        if ids[i] is not None and ids[i] not in snapshots[i].rows:
            ids[i] = None
    versions: list[Version] = []
    since: str | None = None
    key_since: str | None = None
    for i, snap in enumerate(snapshots):
        cur = ids[i]
        row = snap.rows.get(cur) if cur is not None else None
        prev_row = None
        if i > 0 and ids[i - 1] is not None:
            prev_row = snapshots[i - 1].rows.get(str(ids[i - 1]))
        if row is None:
            kinds: tuple[str, ...] = ("item_removed",) if prev_row is not None else ()
            versions.append(Version(snap.dataset, snap.date, None, None, kinds))
            since = key_since = None
            continue
        opts = list(row.get("options") or [])
        if prev_row is None:
            kinds = ("item_added",) if i > 0 else ()
            since = key_since = snap.label
        else:
            change = compare_items(prev_row, row)
            kinds = change.kinds
            if kinds:
                since = snap.label
            if {"key_changed", "item_replaced"} & set(kinds):
                key_since = snap.label
        versions.append(
            Version(
                dataset=snap.dataset,
                date=snap.date,
                item=cur,
                ref=join_ref(snap.dataset, str(cur)),
                kinds=kinds,
                key=row.get("key"),
                key_text=key_text(row.get("key"), opts),
                unchanged_since=since,
                key_since=key_since,
            )
        )
    return versions


def revision_pairs(diffs: Sequence[SnapshotDiff], *, changed_only: bool = False) -> list[Revision]:
    """All ``prov:wasRevisionOf`` pairs of consecutive snapshot diffs.

    Args:
        diffs: Diffs of consecutive snapshots (e.g. :attr:`HistoryReport.diffs`).
        changed_only: Only the items whose content changed.

    Returns:
        The :class:`Revision` s of every diff, diff by diff in the order given.
    """
    return [r for d in diffs for r in d.revisions(changed_only=changed_only)]


def snapshot_chain(spec: FamilySpec, dataset: str) -> list[Derivation]:
    """The snapshot derivations (activity in :data:`SNAPSHOT_ACTIVITIES`) linking
    ``dataset`` to its earlier and later snapshots, oldest first.

    Returns:
        Derivations ``d`` with ``d.parent`` the older snapshot; empty when the dataset
        has no other snapshot.

    Raises:
        SpecError: the dataset is unknown, or a snapshot has several later snapshots.
    """
    spec.dataset(dataset)
    snaps = [d for d in spec.derivations if d.activity in SNAPSHOT_ACTIVITIES and d.link is not None]
    by_child = {d.child: d for d in snaps}
    by_parent: dict[str, list[Derivation]] = {}
    for d in snaps:
        by_parent.setdefault(d.parent, []).append(d)
    first = dataset
    while first in by_child:
        first = by_child[first].parent
    chain: list[Derivation] = []
    cur = first
    while cur in by_parent:
        nxt = by_parent[cur]
        if len(nxt) > 1:
            raise SpecError(
                f"snapshot {cur!r} has several later snapshots ({', '.join(d.child for d in nxt)})",
                path=spec.path,
                hint="a snapshot chain must be linear",
            )
        chain.append(nxt[0])
        cur = nxt[0].child
    return chain


@dataclass(frozen=True)
class HistoryReport:
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

    def _repr_html_(self) -> str:
        """Compact HTML view for Jupyter."""
        from croissant_lineage.render.html import to_html

        return to_html(self)


def _default_dataset(spec: FamilySpec) -> str:
    best: tuple[int, str] | None = None
    for name in spec.datasets:
        n = len(snapshot_chain(spec, name))
        if n and (best is None or n > best[0]):
            best = (n, name)
    if best is None:
        raise SpecError(f"family {spec.name!r} declares no snapshot derivations", path=spec.path)
    return best[1]


def resolve_chain(spec: FamilySpec, dataset: str | None = None) -> list[Derivation]:
    """The snapshot chain of ``dataset`` (default: the family's longest chain).

    Returns:
        The chain's derivations, oldest first (never empty).

    Raises:
        SpecError: unknown dataset, or it has no other snapshot.
    """
    name = dataset or _default_dataset(spec)
    chain = snapshot_chain(spec, name)
    if not chain:
        raise SpecError(
            f"dataset {name!r} has no other snapshot in family {spec.name!r}",
            path=spec.path,
            hint=f"give one of: {', '.join(sorted({d.child for d in spec.derivations if d.activity in SNAPSHOT_ACTIVITIES}))}",
        )
    return chain


def needs_joins(d: Derivation) -> bool:
    """True when a snapshot derivation's items join through lineage edges (ids differ)."""
    assert d.link is not None
    return not (d.link.by in ("id", "index") and d.link.child_field is None)


def chain_snapshots(lineage: Lineage, spec: FamilySpec, *, dataset: str | None = None) -> list[Snapshot]:
    """The snapshots of a family's chain, ready for :func:`item_history`.

    Args:
        lineage: The linked family: its items are the snapshots' items, and its edges
            join the snapshots linked by text (MMLU 2020 -> Hub release).
        spec: The family spec (its snapshot derivations and dates).
        dataset: Any snapshot of the chain (default: the family's longest chain).

    Returns:
        The :class:`Snapshot` s, oldest first, each with its ``joins`` to the previous one.

    Raises:
        SpecError: unknown dataset, or it has no other snapshot.
        InputError: the lineage holds no items of a snapshot.
    """
    chain = resolve_chain(spec, dataset)
    names = [chain[0].parent, *(d.child for d in chain)]
    tables = {n: dataset_items(lineage, n) for n in names}
    snaps = [Snapshot(names[0], spec.dataset(names[0]).date, tables[names[0]])]
    for d in chain:
        joins = joins_from_edges(lineage.edges, d.child, d.parent, unmatched=lineage.unmatched) if needs_joins(d) else None
        snaps.append(Snapshot(d.child, spec.dataset(d.child).date, tables[d.child], joins))
    return snaps


def history(
    lineage: Lineage, spec: FamilySpec, *, dataset: str | None = None, item: str | None = None
) -> HistoryReport:
    """Compare every consecutive pair of a family's snapshots and trace one item.

    Args:
        lineage: The linked family (see :func:`chain_snapshots`).
        spec: The family spec.
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
    snaps = chain_snapshots(lineage, spec, dataset=dataset)
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
        family=spec.name,
        datasets=tuple(names),
        dates=tuple(s.date for s in snaps),
        diffs=diffs,
        item=item,
        versions=versions,
    )

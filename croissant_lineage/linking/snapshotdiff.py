"""Two snapshots of a dataset compared item by item: the snapshot diff.

:func:`compare_snapshots` joins two item tables (by item id, or through a
``new id -> old id`` mapping when ids do not align, e.g. from the lineage edges
``mmlu -> mmlu-2020``) and classifies each item's change with
:func:`~croissant_lineage.linking.itemdiff.compare_items`. The :class:`SnapshotDiff` it
returns counts the changes, looks items up, and gives the ``prov:wasRevisionOf`` pairs
(:class:`Revision`) the enriched metadata records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd
import pyarrow as pa

from croissant_lineage._results import Result
from croissant_lineage.lineage.schema import CHANGES_SCHEMA, join_ref
from croissant_lineage.linking.itemdiff import CHANGE_KINDS, ItemChange, compare_items

__all__ = [
    "CHANGES_SCHEMA",
    "Revision",
    "SnapshotDiff",
    "compare_snapshots",
    "rows_by_id",
]

@dataclass(frozen=True)
class Revision:
    """One ``prov:wasRevisionOf`` statement: a snapshot version of an item revises the
    version in the previous snapshot.

    Attributes:
        new_ref / old_ref: Item refs (``mmlu-pro@2025-10-01:3011`` / ``mmlu-pro@2025-08-03:3011``).
        date: The newer snapshot's date (None when the spec gives none).
        old_date: The older snapshot's date.
        kinds: The change codes (empty: the content is unchanged).
    """

    new_ref: str
    old_ref: str
    date: str | None
    old_date: str | None
    kinds: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the fields."""
        return {
            "new_ref": self.new_ref,
            "old_ref": self.old_ref,
            "date": self.date,
            "old_date": self.old_date,
            "kinds": list(self.kinds),
        }



@dataclass(frozen=True)
class SnapshotDiff(Result):
    """The item-by-item comparison of two snapshots.

    Attributes:
        old_dataset / new_dataset: Dataset names (used in item refs).
        old_date / new_date: Snapshot dates (ISO), None when unknown.
        table: One row per item of either snapshot, :data:`CHANGES_SCHEMA`; ``kinds``
            is empty for unchanged items.
    """

    old_dataset: str
    new_dataset: str
    old_date: str | None
    new_date: str | None
    table: pa.Table

    @cached_property
    def _rows(self) -> list[ItemChange]:
        out = []
        for r in self.table.to_pylist():
            out.append(
                ItemChange(
                    old_item=r["old_item"],
                    new_item=r["new_item"],
                    kinds=tuple(r["kinds"] or ()),
                    old_key=r["old_key"],
                    new_key=r["new_key"],
                    old_key_text=r["old_key_text"],
                    new_key_text=r["new_key_text"],
                    stem_score=r["stem_score"],
                    option_map=tuple(r["option_map"] or ()),
                    old_options=r["old_options"] or 0,
                    new_options=r["new_options"] or 0,
                    subject=r["subject"],
                )
            )
        return out

    @cached_property
    def _by_old(self) -> dict[str, ItemChange]:
        return {c.old_item: c for c in self._rows if c.old_item is not None}

    @cached_property
    def _by_new(self) -> dict[str, ItemChange]:
        return {c.new_item: c for c in self._rows if c.new_item is not None}

    def changes(self) -> list[ItemChange]:
        """Items with at least one change code (including added and removed), in table order."""
        return [c for c in self._rows if c.kinds]

    def change_for(self, old_item: str | None = None, *, new_item: str | None = None) -> ItemChange | None:
        """The row of an item, looked up by its old id (or, with ``new_item``, its new id).

        Returns:
            The :class:`ItemChange` (with empty ``kinds`` when unchanged), or None when the
            id is in neither snapshot.
        """
        if new_item is not None:
            return self._by_new.get(new_item)
        if old_item is None:
            raise ValueError("give old_item or new_item")
        return self._by_old.get(old_item)

    @property
    def counts(self) -> dict[str, int]:
        """``old``, ``new`` (items per snapshot), ``joined``, ``unchanged``, ``changed``
        (joined items with a change), ``added``, ``removed``, and ``renumbered`` (joined
        items whose id differs between the snapshots)."""
        joined = [c for c in self._rows if c.old_item is not None and c.new_item is not None]
        return {
            "old": sum(1 for c in self._rows if c.old_item is not None),
            "new": sum(1 for c in self._rows if c.new_item is not None),
            "joined": len(joined),
            "unchanged": sum(1 for c in joined if not c.kinds),
            "changed": sum(1 for c in joined if c.kinds),
            "added": sum(1 for c in self._rows if c.old_item is None),
            "removed": sum(1 for c in self._rows if c.new_item is None),
            "renumbered": sum(1 for c in joined if c.old_item != c.new_item),
        }

    def kind_counts(self) -> dict[str, int]:
        """Items per change code (an item with several codes counts under each), in
        :data:`CHANGE_KINDS` order; codes with no item are left out."""
        c = Counter(k for r in self._rows for k in r.kinds)
        return {k: c[k] for k in CHANGE_KINDS if c[k]}

    def pattern_counts(self) -> dict[str, int]:
        """Changed items per combination of codes (``"key_repointed+options_reordered+
        stem_whitespace"``), most frequent first, then by name."""
        c = Counter(r.pattern for r in self._rows if r.kinds)
        return dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))

    def items_with(self, kind: str) -> list[str]:
        """Ids (new id, else old id) of the items carrying change code ``kind``, in table order."""
        return [str(c.new_item or c.old_item) for c in self._rows if kind in c.kinds]

    def revisions(self, *, changed_only: bool = False) -> list[Revision]:
        """``prov:wasRevisionOf`` pairs: every joined item's new version revises its old one.

        Args:
            changed_only: Only items whose content changed.

        Returns:
            One :class:`Revision` per joined item, in table order.
        """
        out = []
        for c in self._rows:
            if c.old_item is None or c.new_item is None or (changed_only and not c.kinds):
                continue
            out.append(
                Revision(
                    new_ref=join_ref(self.new_dataset, c.new_item),
                    old_ref=join_ref(self.old_dataset, c.old_item),
                    date=self.new_date,
                    old_date=self.old_date,
                    kinds=c.kinds,
                )
            )
        return out

    def summary(self) -> dict[str, Any]:
        """Datasets, dates, :attr:`counts`, :meth:`kind_counts` and :meth:`pattern_counts`."""
        return {
            "old_dataset": self.old_dataset,
            "new_dataset": self.new_dataset,
            "old_date": self.old_date,
            "new_date": self.new_date,
            "counts": self.counts,
            "kinds": self.kind_counts(),
            "patterns": self.pattern_counts(),
        }

    def to_dict(self) -> dict[str, Any]:
        """:meth:`summary` plus ``changes``: the changed rows as dicts (unchanged rows left out)."""
        return {**self.summary(), "changes": [c.to_dict() for c in self.changes()]}

    def to_pandas(self) -> pd.DataFrame:
        """The changed rows (:data:`CHANGES_SCHEMA` columns) as a DataFrame."""
        mask = pa.compute.greater(pa.compute.list_value_length(self.table.column("kinds")), 0)
        return self.table.filter(mask).to_pandas()



def rows_by_id(items: pa.Table) -> dict[str, dict[str, Any]]:
    """Item id -> row (item, subject, stem, options, key) of an item table."""
    cols = ("item", "subject", "stem", "options", "key")
    data = {c: items.column(c).to_pylist() for c in cols}
    return {data["item"][i]: {c: data[c][i] for c in cols} for i in range(items.num_rows)}


def _changes_table(changes: Sequence[ItemChange]) -> pa.Table:
    cols: dict[str, list[Any]] = {f.name: [] for f in CHANGES_SCHEMA}
    for c in changes:
        for k, v in c.to_dict().items():
            cols[k].append(v)
    return pa.table(cols, schema=CHANGES_SCHEMA)


def compare_snapshots(
    old_items: pa.Table,
    new_items: pa.Table,
    *,
    old_date: str | None,
    new_date: str | None,
    joins: Mapping[str, str] | None = None,
) -> SnapshotDiff:
    """Compare two snapshots of a dataset item by item.

    Args:
        old_items: Item table (``ITEMS_SCHEMA``) of the older snapshot; it holds one dataset.
        new_items: Item table of the newer snapshot; it holds one dataset.
        old_date: The older snapshot's date (ISO), or None.
        new_date: The newer snapshot's date (ISO), or None.
        joins: New item id -> old item id, when ids do not align (e.g. from the lineage
            edges of a re-release, see :func:`joins_from_edges`). Without it, items join
            on equal ids.

    Returns:
        A :class:`SnapshotDiff` with one row per new item (in new-table order: joined
        or added), then the removed old items (in old-table order).

    Raises:
        ValueError: a table holds several datasets.
    """
    names = []
    for t in (old_items, new_items):
        ds = set(t.column("dataset").to_pylist())
        if len(ds) > 1:
            raise ValueError(f"a snapshot table must hold one dataset, got {sorted(ds)}")
        names.append(ds.pop() if ds else "")
    old = rows_by_id(old_items)
    new = rows_by_id(new_items)
    rows: list[ItemChange] = []
    matched: set[str] = set()
    for nid, nrow in new.items():
        oid = joins.get(nid) if joins is not None else nid
        orow = old.get(oid) if oid is not None and oid not in matched else None
        if orow is not None:
            matched.add(str(oid))
        rows.append(compare_items(orow, nrow))
    rows.extend(compare_items(orow, None) for oid, orow in old.items() if oid not in matched)
    return SnapshotDiff(names[0], names[1], old_date, new_date, _changes_table(rows))


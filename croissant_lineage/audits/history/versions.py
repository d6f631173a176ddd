"""One item's versions across dated snapshots: "key unchanged since 2024-10-16"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pyarrow as pa

from croissant_lineage.lineage.schema import join_ref
from croissant_lineage.linking.itemdiff import compare_items, key_text
from croissant_lineage.linking.snapshotdiff import rows_by_id

__all__ = ["Snapshot", "Version", "item_history"]


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

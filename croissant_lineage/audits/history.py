"""Snapshot history: how a benchmark's items changed between dated releases.

A benchmark is a sequence of dated snapshots (MMLU-Pro: the 2024-10-16 test set and the
Hub copies of 2025-08-03 and 2025-10-01; MMLU: the 2020 release and the Hub release).
:func:`compare_snapshots` joins two snapshots item by item (by item id, or through a
``new id -> old id`` mapping when ids do not align, e.g. from the lineage edges
``mmlu -> mmlu-2020``) and classifies every change with the codes of
:data:`CHANGE_KINDS`:

* ``key_changed``: the key now points at a different answer text;
  ``key_repointed``: only the letter moved (options reordered, same answer text);
* ``options_reordered``: the options that survive appear in another order;
* ``option_edited`` / ``option_whitespace``: an option's text changed (beyond
  white space / in white space only); ``option_added`` / ``option_removed``;
* ``stem_edited`` / ``stem_whitespace``: the question text changed (beyond white
  space / in white space only);
* ``item_replaced``: the id now holds a different question (stem similarity below
  :data:`REPLACED_BELOW`; no finer kinds are given then);
* ``item_added`` / ``item_removed``.

:func:`item_history` follows one item across a sequence of :class:`Snapshot` s
("key unchanged since 2024-10-16"); :meth:`SnapshotDiff.revisions` gives the
``prov:wasRevisionOf`` pairs the enriched metadata records; :func:`history` does all of
it for a family's snapshot chain in a :class:`~croissant_lineage.lineage.model.Lineage`
(:func:`croissant_lineage.workflows.snapshot_history` links the chain first: what
``croissant-lineage history`` prints).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import pairwise
from typing import Any

import pandas as pd
import pyarrow as pa
from rapidfuzz import fuzz

from croissant_lineage.audits._items import dataset_items
from croissant_lineage.errors import InputError, SpecError
from croissant_lineage.family.spec import Derivation, FamilySpec
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import join_ref
from croissant_lineage.linking.normalize import normalize_option, normalize_stem

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

#: Change codes, in the order they are listed on a change.
CHANGE_KINDS = (
    "item_added",
    "item_removed",
    "item_replaced",
    "key_changed",
    "key_repointed",
    "options_reordered",
    "option_added",
    "option_removed",
    "option_edited",
    "option_whitespace",
    "stem_edited",
    "stem_whitespace",
)
_ORDER = {k: i for i, k in enumerate(CHANGE_KINDS)}

#: Derivation activities that make a dataset a later snapshot of its parent.
SNAPSHOT_ACTIVITIES = ("snapshot", "re_release")

#: Below this stem similarity (0-100, RapidFuzz ratio of normalised stems) an id holds
#: a different question: ``item_replaced``.
REPLACED_BELOW = 50.0

#: Options left unpaired after exact and white-space matching pair up as edits at or
#: above this similarity (0-100); below, they are a removal plus an addition.
OPTION_FUZZY_THRESHOLD = 60.0

#: One row per item of either snapshot (joined, added or removed).
CHANGES_SCHEMA = pa.schema([
    pa.field("old_item", pa.string()),  # None: item_added
    pa.field("new_item", pa.string()),  # None: item_removed
    pa.field("subject", pa.string()),
    pa.field("kinds", pa.list_(pa.string())),  # empty: unchanged
    pa.field("old_key", pa.string()),
    pa.field("new_key", pa.string()),
    pa.field("old_key_text", pa.string()),
    pa.field("new_key_text", pa.string()),
    pa.field("stem_score", pa.float64()),  # 0-100, normalised stem similarity
    pa.field("option_map", pa.list_(pa.int32())),  # per new option: old option index, -1 if added
    pa.field("old_options", pa.int32()),
    pa.field("new_options", pa.int32()),
])


def _ws(text: str | None) -> str:
    return " ".join((text or "").split())


def _key_text(key: str | None, options: Sequence[str]) -> str | None:
    if not key or key not in LETTERS:
        return None
    i = LETTERS.index(key)
    return options[i] if i < len(options) else None


@dataclass(frozen=True)
class ItemChange:
    """How one item differs between two snapshots.

    Attributes:
        old_item / new_item: The item id in each snapshot (None when absent there).
        kinds: Change codes (:data:`CHANGE_KINDS`), empty when the item is unchanged.
        old_key / new_key: Key letters.
        old_key_text / new_key_text: The option texts the keys point at.
        stem_score: Similarity of the normalised stems, 0-100 (None when one side is absent).
        option_map: Per new option, the index of the old option it continues, -1 when new.
        subject: The item's subject (new side, else old side).
    """

    old_item: str | None
    new_item: str | None
    kinds: tuple[str, ...]
    old_key: str | None = None
    new_key: str | None = None
    old_key_text: str | None = None
    new_key_text: str | None = None
    stem_score: float | None = None
    option_map: tuple[int, ...] = ()
    old_options: int = 0
    new_options: int = 0
    subject: str | None = None

    @property
    def changed(self) -> bool:
        """True when there is at least one change code."""
        return bool(self.kinds)

    @property
    def pattern(self) -> str:
        """The change codes joined with ``+`` (``"unchanged"`` when there are none)."""
        return "+".join(self.kinds) or "unchanged"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the fields of :data:`CHANGES_SCHEMA`."""
        return {
            "old_item": self.old_item,
            "new_item": self.new_item,
            "subject": self.subject,
            "kinds": list(self.kinds),
            "old_key": self.old_key,
            "new_key": self.new_key,
            "old_key_text": self.old_key_text,
            "new_key_text": self.new_key_text,
            "stem_score": self.stem_score,
            "option_map": list(self.option_map),
            "old_options": self.old_options,
            "new_options": self.new_options,
        }


def _align_options(old: Sequence[str], new: Sequence[str]) -> tuple[list[int], set[int], set[int]]:
    """Pair new options with the old ones they continue.

    Exact text first, then white-space-equal text, then RapidFuzz ratio of normalised
    options at or above :data:`OPTION_FUZZY_THRESHOLD` (best pair first), then options
    still unpaired at the same position on both sides (an in-place rewrite).

    Returns:
        ``(mapping, whitespace, edited)``: per new option the old index or -1, and the
        new indices paired by white space only / by a fuzzy edit.
    """
    mapping = [-1] * len(new)
    used: set[int] = set()
    whitespace: set[int] = set()
    edited: set[int] = set()
    for level, key in enumerate((lambda s: s, _ws)):
        free: dict[str, list[int]] = {}
        for j, o in enumerate(old):
            if j not in used:
                free.setdefault(key(o), []).append(j)
        for i, o in enumerate(new):
            if mapping[i] < 0 and free.get(key(o)):
                j = free[key(o)].pop(0)
                mapping[i] = j
                used.add(j)
                if level:
                    whitespace.add(i)
    left_new = [i for i, m in enumerate(mapping) if m < 0]
    left_old = [j for j in range(len(old)) if j not in used]
    if left_new and left_old:
        pairs = sorted(
            (
                (fuzz.ratio(normalize_option(new[i]), normalize_option(old[j])), i, j)
                for i in left_new
                for j in left_old
            ),
            key=lambda t: (-t[0], t[1], t[2]),
        )
        for score, i, j in pairs:
            if score < OPTION_FUZZY_THRESHOLD:
                break
            if mapping[i] >= 0 or j in used:
                continue
            mapping[i] = j
            used.add(j)
            edited.add(i)
    for i in range(len(new)):
        # An option rewritten in place (``10-20`` -> ``10 through 20``) is still that option.
        if mapping[i] < 0 and i < len(old) and i not in used:
            mapping[i] = i
            used.add(i)
            edited.add(i)
    return mapping, whitespace, edited


def compare_items(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> ItemChange:
    """Classify how one item changed between two snapshots.

    Args:
        old: The item's row in the older snapshot (keys of ``ITEMS_SCHEMA``: item, subject,
            stem, options, key), or None when it is absent there.
        new: Its row in the newer snapshot, or None.

    Returns:
        An :class:`ItemChange` (``kinds`` empty when nothing changed).

    Raises:
        ValueError: both rows are None.
    """
    if old is None and new is None:
        raise ValueError("compare_items needs at least one of old and new")
    if old is None or new is None:
        row = new if new is not None else old
        assert row is not None
        opts = list(row.get("options") or [])
        key = row.get("key")
        added = old is None
        return ItemChange(
            old_item=None if added else row["item"],
            new_item=row["item"] if added else None,
            kinds=("item_added",) if added else ("item_removed",),
            old_key=None if added else key,
            new_key=key if added else None,
            old_key_text=None if added else _key_text(key, opts),
            new_key_text=_key_text(key, opts) if added else None,
            old_options=0 if added else len(opts),
            new_options=len(opts) if added else 0,
            subject=row.get("subject"),
        )
    old_opts = list(old.get("options") or [])
    new_opts = list(new.get("options") or [])
    old_stem, new_stem = old.get("stem") or "", new.get("stem") or ""
    kinds: list[str] = []
    stem_score = 100.0
    if old_stem != new_stem:
        if _ws(old_stem) == _ws(new_stem):
            kinds.append("stem_whitespace")
        else:
            stem_score = round(fuzz.ratio(normalize_stem(old_stem), normalize_stem(new_stem)), 2)
            kinds.append("stem_edited")
    mapping, whitespace, edited = _align_options(old_opts, new_opts)
    okey, nkey = old.get("key"), new.get("key")
    common = dict(
        old_item=old["item"],
        new_item=new["item"],
        old_key=okey,
        new_key=nkey,
        old_key_text=_key_text(okey, old_opts),
        new_key_text=_key_text(nkey, new_opts),
        stem_score=stem_score,
        option_map=tuple(mapping),
        old_options=len(old_opts),
        new_options=len(new_opts),
        subject=new.get("subject") or old.get("subject"),
    )
    if stem_score < REPLACED_BELOW:
        return ItemChange(kinds=("item_replaced",), **common)
    if old_opts != new_opts:
        paired = [m for m in mapping if m >= 0]
        if any(b < a for a, b in pairwise(paired)):
            kinds.append("options_reordered")
        if any(m < 0 for m in mapping):
            kinds.append("option_added")
        if len(paired) < len(old_opts):
            kinds.append("option_removed")
        if edited:
            kinds.append("option_edited")
        if whitespace:
            kinds.append("option_whitespace")
    ok = LETTERS.index(okey) if okey and okey in LETTERS else None
    nk = LETTERS.index(nkey) if nkey and nkey in LETTERS else None
    if ok is None or nk is None:
        if (ok is None) != (nk is None):
            kinds.append("key_changed")
    else:
        source = mapping[nk] if nk < len(mapping) else -1
        if source != ok:
            kinds.append("key_changed")  # the key now points at another (or a new) option
        elif ok != nk:
            kinds.append("key_repointed")
    kinds.sort(key=_ORDER.__getitem__)
    return ItemChange(kinds=tuple(kinds), **common)


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
class SnapshotDiff:
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

    def _repr_html_(self) -> str:
        """Compact HTML view for Jupyter."""
        from croissant_lineage.render.html import to_html

        return to_html(self)


def _rows_by_id(items: pa.Table) -> dict[str, dict[str, Any]]:
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
        old_items / new_items: Item tables (``ITEMS_SCHEMA``) of the older and newer
            snapshot; each holds one dataset.
        old_date / new_date: The snapshots' dates (ISO), or None.
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
    old = _rows_by_id(old_items)
    new = _rows_by_id(new_items)
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
        return _rows_by_id(self.items)

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
                key_text=_key_text(row.get("key"), opts),
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

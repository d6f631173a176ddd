"""Groups of identical items within one dataset.

Two items are duplicates when their normalised stems are equal and their normalised
options are the same multiset (so a copy with permuted options still counts). A group's
``parent_*`` is filled when every member has the same single parent (siblings copied
from one parent).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA
from croissant_lineage.linking.codes import equal_codes
from croissant_lineage.linking.normalize import normalize_option, normalize_stem
from croissant_lineage.linking.sides import Side

__all__ = ["DuplicateGroup", "duplicates_table", "find_duplicates", "side_duplicates"]

#: A group: its dataset and its members' item ids, in item order.
DuplicateGroup = tuple[str, list[str]]


def find_duplicates(items: pa.Table, edges: pa.Table) -> pa.Table:
    """Groups of identical items within each dataset (see the module docstring).

    Args:
        items: Items of one or more datasets (``ITEMS_SCHEMA``).
        edges: Their lineage edges (``EDGES_SCHEMA``), for the groups' parents.

    Returns:
        A table with DUPLICATES_SCHEMA, one row per member, sorted by dataset and group.
    """
    cols = [items.column(c).to_pylist() for c in ("dataset", "item", "stem", "options")]
    groups: dict[tuple[str, str, tuple[str, ...]], list[str]] = defaultdict(list)
    for ds, it, stem, opts in zip(*cols, strict=True):
        key = (ds, normalize_stem(stem), tuple(sorted(normalize_option(o) for o in (opts or []))))
        groups[key].append(it)
    return duplicates_table([(ds, m) for (ds, s, _o), m in groups.items() if len(m) > 1 and s], edges)


def side_duplicates(name: str, side: Side) -> list[DuplicateGroup]:
    """Groups of identical items (see :func:`find_duplicates`) of one dataset.

    Only items whose normalised stem occurs more than once can be in a group: they are
    found over the Arrow column (:func:`.codes.equal_codes` and counts), and only their
    stems, options (normalised only for them, when linking has not done so already) and
    ids are built as Python objects.
    """
    stems = side.norm_stems.array
    if not len(stems):
        return []
    (codes,) = equal_codes(stems)
    repeated = np.bincount(codes)[codes] > 1
    rows = np.flatnonzero(repeated & pc.not_equal(stems, "").to_numpy(zero_copy_only=False))
    if not len(rows):
        return []
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
    for s, o, item in zip(side.norm_stems.take(rows), side.norm_options_of(rows), side.ids.take(rows), strict=True):
        groups[(s, tuple(sorted(o or ())))].append(item)
    return [(name, m) for m in groups.values() if len(m) > 1]


def _parents_of(members: set[tuple[str, str]], edges: pa.Table) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """The parents ``(dataset, item)`` of each of ``members`` that has any."""
    parents: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    if members:
        # Only the edges of members' items become Python objects (filtered column-wise).
        near = pc.is_in(edges.column("child_item"), value_set=pa.array(sorted({m for _, m in members}), pa.string()))
        picked = edges.filter(pc.fill_null(near, False))
        cols = (picked.column(c).to_pylist() for c in ("child_dataset", "child_item", "parent_dataset", "parent_item"))
        for cd, ci, pd_, pi in zip(*cols, strict=True):
            if (cd, ci) in members:
                parents[(cd, ci)].add((pd_, pi))
    return parents


def duplicates_table(found: list[DuplicateGroup], edges: pa.Table) -> pa.Table:
    """The duplicates table (DUPLICATES_SCHEMA) of some groups, sorted by dataset and group."""
    parents = _parents_of({(ds, m) for ds, members in found for m in members}, edges)
    rows: dict[str, list[Any]] = {f.name: [] for f in DUPLICATES_SCHEMA}
    for ds, members in sorted(found, key=lambda t: (t[0], t[1][0])):
        ps = [parents.get((ds, m), set()) for m in members]
        common = set.intersection(*ps) if all(ps) else set()
        parent = sorted(common)[0] if len(common) >= 1 else (None, None)
        for m in members:
            rows["dataset"].append(ds)
            rows["item"].append(m)
            rows["group"].append(members[0])
            rows["parent_dataset"].append(parent[0])
            rows["parent_item"].append(parent[1])
            rows["size"].append(len(members))
    return pa.table(rows, schema=DUPLICATES_SCHEMA)

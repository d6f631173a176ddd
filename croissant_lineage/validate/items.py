"""Item shape checks on an items table: ``CLV307``, a key that names none of the item's options;
``CLV308``, per dataset, the keys the spec names that could not be read.

``link`` refuses such items when it loads them (:mod:`croissant_lineage.lineage.shape`);
this check finds them in an items table written by anything else (an older version, another
tool, a hand edit): a key letter past the options (``K`` for four options), or a key that is
not an option letter at all.
"""

from __future__ import annotations

import pyarrow as pa

from croissant_lineage.lineage.keys import keys_unread
from croissant_lineage.lineage.shape import key_problem
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.report import Issue

__all__ = ["check_item_shapes"]


def check_item_shapes(items: pa.Table, where: str) -> list[Issue]:
    """``CLV307`` for every item whose key names none of its options.

    Args:
        items: A table with the ``dataset``, ``item``, ``options`` and ``key`` columns of
            :data:`~croissant_lineage.lineage.schema.ITEMS_SCHEMA` (others are ignored).
        where: The file name issues are reported against.

    Returns:
        One issue per such item, ``where#row=N``, in row order.
    """
    if not {"dataset", "item", "options", "key"} <= set(items.column_names):
        return []
    out: list[Issue] = [
        issue("CLV308", f"dataset {name}: {count} items have a key the spec names that could not be read", where)
        for name, count in keys_unread(items).items()
    ]
    rows = zip(*(items.column(c).to_pylist() for c in ("dataset", "item", "options", "key")), strict=True)
    for row, (dataset, item, options, key) in enumerate(rows):
        problem = key_problem(options, key)
        if problem is not None:
            out.append(issue("CLV307", f"item {dataset}:{item}: {problem}", f"{where}#row={row}"))
    return out

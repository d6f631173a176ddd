"""One dataset's items out of a linked family."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.errors import InputError
from croissant_lineage.lineage.model import Lineage

__all__ = ["dataset_items"]


def dataset_items(lineage: Lineage, name: str) -> pa.Table:
    """The items of dataset ``name`` in ``lineage`` (``ITEMS_SCHEMA``, in lineage order).

    Raises:
        InputError: the lineage holds no item of that dataset.
    """
    items = lineage.items
    sub = items.filter(pc.equal(items.column("dataset"), name))
    if not sub.num_rows:
        raise InputError(
            f"the lineage holds no items of dataset {name!r}",
            hint="link the family (croissant-lineage link) with this dataset's data",
        )
    return sub

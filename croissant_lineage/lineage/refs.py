"""Item refs and item IRIs of whole columns: the columnar twins of ``join_ref`` and ``item_iri``.

:func:`~croissant_lineage.lineage.schema.join_ref` and
:func:`~croissant_lineage.lineage.schema.item_iri` stay the reference implementation (one
item at a time, plain Python); :func:`ref_column` and :func:`iri_column` give the same
strings for a whole column with Arrow compute kernels. Only item ids that need
percent-encoding (a character outside ``A-Z a-z 0-9 _ . - ~ / : @``) go through
:func:`urllib.parse.quote`, one by one; MMLU's ids need none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias
from urllib.parse import quote

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.schema import item_iri_prefix

__all__ = ["iri_column", "ref_column", "take_last"]

#: Item ids that ``quote(item, safe='/:@-._~')`` returns unchanged (RE2 syntax: ``$`` is the end of the text).
_UNQUOTED = r"^[A-Za-z0-9_.~/:@-]*$"

Column: TypeAlias = "pa.Array | pa.ChunkedArray"


def ref_column(datasets: Column, items: Column) -> pa.ChunkedArray | pa.Array:
    """``join_ref(dataset, item)`` of each row: ``"{dataset}:{item}"`` (null where either is)."""
    return pc.binary_join_element_wise(datasets, items, ":")


def _quoted(items: Column) -> Column:
    """``quote(item, safe='/:@-._~')`` of each row; ids already safe are not touched."""
    unsafe = pc.invert(pc.fill_null(pc.match_substring_regex(items, _UNQUOTED), True))
    if not pc.any(unsafe).as_py():
        return items
    if isinstance(items, pa.ChunkedArray):
        items, unsafe = items.combine_chunks(), unsafe.combine_chunks()
    flat = items
    fixed = [quote(x, safe="/:@-._~") for x in flat.filter(unsafe).to_pylist()]
    return pc.replace_with_mask(flat, unsafe, pa.array(fixed, flat.type))


def iri_column(datasets: Column, items: Column, iris: Mapping[str, str]) -> pa.ChunkedArray | pa.Array:
    """``item_iri(iris[dataset], item)`` of each row: the dataset's item IRI prefix, the percent-encoded id.

    Args:
        datasets: Dataset names (no nulls).
        items: Item ids, as long as ``datasets``.
        iris: Dataset name -> dataset IRI.

    Raises:
        KeyError: a dataset of ``datasets`` is not in ``iris`` (as ``iris[dataset]`` would).
    """
    names = pc.unique(datasets)
    prefixes = pa.array([item_iri_prefix(iris[d]) for d in names.to_pylist()], pa.string())
    prefix = pc.take(prefixes, pc.index_in(datasets, value_set=names))
    return pc.binary_join_element_wise(prefix, _quoted(items), "")


def take_last(keys: Column, value_set: Column) -> pa.Array | pa.ChunkedArray:
    """Per key, the row of ``value_set`` holding it, the LAST such row when it repeats (null if none).

    What a dict built by a loop over ``value_set`` (later rows overwrite earlier ones)
    answers for each key.
    """
    n = len(value_set)
    if n == 0:
        return pa.nulls(len(keys), pa.int64())
    backwards = pc.index_in(keys, value_set=pc.take(value_set, np.arange(n - 1, -1, -1)))
    return pc.subtract(pa.scalar(n - 1, pa.int64()), pc.cast(backwards, pa.int64()))

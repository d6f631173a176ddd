"""The reference index beside an enriched descriptor's files: one item's rows read by ref.

``<stem>.index.parquet`` (FileObject ``cl-index-file``) has the schema and the sorting of a
lineage folder's ``index.parquet`` (:mod:`croissant_lineage.lineage.index`), pointing into
the descriptor's own files:

    ref     an item ref of the items file or of the lineage file
    kind    0 its row of ``<stem>.items.parquet``; 1 a row of ``<stem>.lineage.parquet``
            where it is the child; 2 where it is the parent; 3 the items-file row of a
            member of its duplicate group (its own included)
    row     the row in that file
    other   the edge's far end (kinds 1 and 2), the member (kind 3), the ref itself (kind 0)

The items and lineage files are written in the row groups of a lineage folder's tables
(:func:`~croissant_lineage.lineage.index.query_groups`), so that reading one item's
family decodes a few small groups of each, not the whole files (:class:`EnrichedRows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.index import (
    INDEX_SCHEMA,
    RefIndex,
    RowReader,
    build_index,
)

__all__ = ["INDEX_KIND", "EnrichedRows", "index_table"]

#: The file kind of the index (``<stem>.index.parquet``, FileObject ``cl-index-file``).
INDEX_KIND = "index"


def _split(refs: pa.ChunkedArray) -> tuple[pa.Array, pa.Array]:
    parts = pc.split_pattern(refs.combine_chunks(), ":", max_splits=1)
    return pc.list_element(parts, 0), pc.list_element(parts, 1)


def index_table(items: pa.Table, lineage: pa.Table) -> pa.Table:
    """The index (:data:`~croissant_lineage.lineage.index.INDEX_SCHEMA`) of one descriptor's
    items file (``ITEMS_FILE_SCHEMA``) and lineage file (``LINEAGE_FILE_SCHEMA``), sorted."""
    cds, cis = _split(lineage.column("child"))
    pds, pis = _split(lineage.column("parent"))
    edges = pa.table({"child_dataset": cds, "child_item": cis, "parent_dataset": pds, "parent_item": pis})
    grouped = items.column("duplicate_group").is_valid()
    at = pc.indices_nonzero(grouped)  # the items-file row of each duplicates row
    dups = items.filter(grouped)
    duplicates = pa.table({"dataset": dups.column("dataset"), "item": dups.column("item"),
                           "group": dups.column("duplicate_group")})
    index = build_index(items.select(["dataset", "item"]), edges, duplicates)
    kinds = index.column("kind").to_numpy()
    rows = index.column("row").to_numpy().copy()
    is_dup = kinds == 3
    if is_dup.any():
        rows[is_dup] = at.to_numpy()[rows[is_dup]]
    return index.set_column(2, INDEX_SCHEMA.field("row"), pa.array(rows, pa.int64()))


class EnrichedRows:
    """One descriptor's items and lineage rows, read by ref through its index: the index's
    row groups that can hold a ref and the files' row groups that hold its rows, each
    decoded once and kept (:class:`~croissant_lineage.lineage.index.RowReader`)."""

    def __init__(self, files: Mapping[str, Path], items: pa.Schema, lineage: pa.Schema):
        """``items`` and ``lineage``: the columns read of each file (their names and types)."""
        self._index = RefIndex(files[INDEX_KIND])
        self._items = RowReader(files["items"], items.names) if "items" in files else None
        self._lineage = RowReader(files["lineage"], lineage.names) if "lineage" in files else None
        self._empty = {"items": items.empty_table(), "lineage": lineage.empty_table()}

    def lookup(self, refs: Iterable[str]) -> dict[str, list[tuple[int, int, str]]]:
        """Ref -> its (kind, row, other) entries (refs this descriptor does not hold: absent)."""
        return self._index.lookup(refs)

    def items(self, rows: Iterable[int]) -> pa.Table:
        """Rows of the items file, in file order."""
        return self._read(self._items, rows, "items")

    def lineage(self, rows: Iterable[int]) -> pa.Table:
        """Rows of the lineage file, in file order."""
        return self._read(self._lineage, rows, "lineage")

    def _read(self, reader: RowReader | None, rows: Iterable[int], kind: str) -> pa.Table:
        wanted = sorted(set(rows))
        if reader is None or not wanted:
            return self._empty[kind]
        return reader.rows(wanted)

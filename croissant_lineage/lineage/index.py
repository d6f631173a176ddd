"""The reference index of a lineage folder: where each item's rows are, read by ref.

``index.parquet`` holds one row per (ref, table row) pair a query of one item needs:

    ref     the item ref (``dataset:item``, as :func:`~croissant_lineage.lineage.schema.join_ref` writes it)
    kind    0 its row of ``items.parquet``; 1 a row of ``edges.parquet`` where it is the child;
            2 where it is the parent; 3 a row of ``duplicates.parquet`` of its duplicate group
            (each member's row, its own included)
    row     the row in that table
    other   the edge's far end (kinds 1 and 2), the member (kind 3), the ref itself (kind 0)

sorted by ``ref`` (then kind, row) and written in row groups of :data:`INDEX_ROW_GROUP` rows
with min/max statistics: a look-up of a few refs reads the footer and the few row groups
whose ``ref`` range holds them (the statistics prune the rest), whatever the family's size.
The tables it points into are written in row groups of :data:`QUERY_ROW_GROUP` rows, so
that reading one item's rows decodes a few small groups, not the whole table.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from croissant_lineage.lineage.refids import joined_refs

__all__ = [
    "INDEX_FILE", "INDEX_ROW_GROUP", "INDEX_SCHEMA", "QUERY_ROW_GROUP", "RefIndex", "RowReader", "build_index",
    "read_rows",
]

#: The index's file name in a lineage folder.
INDEX_FILE = "index.parquet"
#: Rows per row group of the index.
INDEX_ROW_GROUP = 1 << 11
#: Rows per row group of ``items.parquet``, ``edges.parquet`` and ``duplicates.parquet``.
QUERY_ROW_GROUP = 1 << 10

ITEM, CHILD_OF, PARENT_OF, DUPLICATE = 0, 1, 2, 3

INDEX_SCHEMA = pa.schema([
    pa.field("ref", pa.string(), nullable=False),
    pa.field("kind", pa.int8(), nullable=False),
    pa.field("row", pa.int64(), nullable=False),
    pa.field("other", pa.string(), nullable=False),
])


def _part(ref: pa.ChunkedArray, kind: int, other: pa.ChunkedArray, rows: pa.Array | None = None) -> pa.Table:
    n = len(ref)
    row = pa.array(np.arange(n, dtype=np.int64)) if rows is None else rows
    return pa.table([ref, pa.array(np.full(n, kind, np.int8)), row, other], schema=INDEX_SCHEMA)


def _codes(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Per row, the code of its value (equal values, equal codes)."""
    encoded = pc.dictionary_encode(values)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    parts = [np.asarray(c.indices.to_numpy(zero_copy_only=False), np.int64) for c in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _duplicate_part(duplicates: pa.Table) -> pa.Table:
    """Kind 3: each member of a group, paired with every member's row (its own included).
    A group is a (dataset, group) pair; the pairs are built over whole arrays (the index is
    sorted afterwards, so their order here does not matter)."""
    n = duplicates.num_rows
    if not n:
        return INDEX_SCHEMA.empty_table()
    refs = joined_refs(duplicates.column("dataset"), duplicates.column("item")).combine_chunks()
    datasets, groups = _codes(duplicates.column("dataset")), _codes(duplicates.column("group"))
    _, group = np.unique(datasets * (int(groups.max()) + 1) + groups, return_inverse=True)
    members = np.argsort(group, kind="stable")  # the rows, group by group
    sizes = np.bincount(group)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    size_of = sizes[group[members]]  # per member (in ``members`` order): its group's size
    ref_rows = np.repeat(members, size_of)
    first = np.repeat(starts[group[members]], size_of)  # where each pair's group starts in ``members``
    within = np.arange(len(ref_rows)) - np.repeat(np.cumsum(size_of) - size_of, size_of)
    rows = members[first + within]
    return pa.table([refs.take(pa.array(ref_rows)), pa.array(np.full(len(rows), DUPLICATE, np.int8)),
                     pa.array(rows.astype(np.int64)), refs.take(pa.array(rows))], schema=INDEX_SCHEMA)


def build_index(items: pa.Table, edges: pa.Table, duplicates: pa.Table) -> pa.Table:
    """The index of a lineage's three tables (see the module docstring), sorted."""
    item_refs = joined_refs(items.column("dataset"), items.column("item"))
    child = joined_refs(edges.column("child_dataset"), edges.column("child_item"))
    parent = joined_refs(edges.column("parent_dataset"), edges.column("parent_item"))
    table = pa.concat_tables([
        _part(item_refs, ITEM, item_refs),
        _part(child, CHILD_OF, parent),
        _part(parent, PARENT_OF, child),
        _duplicate_part(duplicates),
    ])
    if table.column("ref").null_count:  # (a copy of the whole index only when there is something to drop)
        table = table.filter(pc.is_valid(table.column("ref")))
    return table.sort_by([("ref", "ascending"), ("kind", "ascending"), ("row", "ascending")]).combine_chunks()


def index_groups(table: pa.Table) -> Iterable[pa.Table]:
    """The index cut into its row groups."""
    for start in range(0, max(table.num_rows, 1), INDEX_ROW_GROUP):
        yield table.slice(start, INDEX_ROW_GROUP)


class RefIndex:
    """Look-ups in a folder's ``index.parquet``: the row groups whose ``ref`` statistics
    can hold a ref are read, the others never (predicate pushdown by min/max)."""

    def __init__(self, path: Path):
        self._file = pq.ParquetFile(path)
        meta = self._file.metadata
        self._mins: list[str] = []
        self._maxs: list[str] = []
        for g in range(meta.num_row_groups):
            stats = meta.row_group(g).column(0).statistics
            if stats is None or not stats.has_min_max:  # (no statistics: every group is read)
                self._mins, self._maxs = [], []
                break
            self._mins.append(stats.min)
            self._maxs.append(stats.max)
        self._groups = meta.num_row_groups
        self._cache = KeptGroups(lambda g: self._file.read_row_group(g, use_threads=False))

    def _candidates(self, ref: str) -> list[int]:
        if not self._mins:
            return list(range(self._groups))
        # groups are sorted by ref: those with min <= ref, from the first whose max >= ref
        stop = bisect.bisect_right(self._mins, ref)
        start = bisect.bisect_left(self._maxs, ref)
        return list(range(start, stop))

    def _entries(self, g: int, ref: str) -> list[tuple[int, int, str]]:
        """The entries of ``ref`` in group ``g`` (a vectorised equality: no Python list
        of the group's rows is built)."""
        t = self._cache.get(g)
        at = pc.indices_nonzero(pc.equal(t.column("ref"), ref))
        if not len(at):
            return []
        hit = t.take(at)
        return list(zip(*(hit.column(c).to_pylist() for c in ("kind", "row", "other")), strict=True))

    def lookup(self, refs: Iterable[str]) -> dict[str, list[tuple[int, int, str]]]:
        """Ref -> its (kind, row, other) entries, in index order (refs not indexed: absent)."""
        out: dict[str, list[tuple[int, int, str]]] = {}
        for ref in refs:
            for g in self._candidates(ref):
                entries = self._entries(g, ref)
                if entries:
                    out.setdefault(ref, []).extend(entries)
        return out


#: Bytes of decoded row groups a reader keeps (warm queries read each group once while
#: they fit; the least recently used go first).
KEPT_BYTES = 64 << 20


class KeptGroups:
    """Decoded row groups by number, read by ``read(g)`` on first use and kept, the least
    recently used dropped once they take more than :data:`KEPT_BYTES`."""

    def __init__(self, read: Callable[[int], pa.Table]):
        self._read = read
        self._kept: OrderedDict[int, pa.Table] = OrderedDict()
        self._bytes = 0

    def get(self, g: int) -> pa.Table:
        got = self._kept.get(g)
        if got is not None:
            self._kept.move_to_end(g)
            return got
        got = self._kept[g] = self._read(g)
        self._bytes += got.nbytes
        while self._bytes > KEPT_BYTES and len(self._kept) > 1:
            self._bytes -= self._kept.popitem(last=False)[1].nbytes
        return got


class RowReader:
    """The rows of a Parquet file by number, reading (and keeping, up to
    :data:`KEPT_BYTES`) only the row groups that hold them; ``check(group, first_row)``,
    when given, is called on each group once, when it is decoded."""

    def __init__(self, path: Path, columns: list[str] | None = None,
                 check: Callable[[pa.Table, int], object] | None = None):
        self._file = pq.ParquetFile(path)
        self._columns = columns
        self._check = check
        meta = self._file.metadata
        self._starts = [0]
        for g in range(meta.num_row_groups):
            self._starts.append(self._starts[-1] + meta.row_group(g).num_rows)
        self._kept = KeptGroups(self._decode)

    def _decode(self, g: int) -> pa.Table:
        got = self._file.read_row_group(g, columns=self._columns, use_threads=False)
        if self._check is not None:  # (once per group decoded, not per query)
            self._check(got, self._starts[g])
        return got

    def rows(self, rows: Iterable[int]) -> pa.Table:
        """The rows ``rows``, in ascending row order."""
        by_group: dict[int, list[int]] = {}
        for r in sorted(set(rows)):
            g = bisect.bisect_right(self._starts, r) - 1
            by_group.setdefault(g, []).append(r - self._starts[g])
        parts = [self._kept.get(g).take(pa.array(local, pa.int64())) for g, local in sorted(by_group.items())]
        if not parts:
            schema = self._file.schema_arrow
            return (schema if self._columns is None else pa.schema([schema.field(c) for c in self._columns])).empty_table()
        # (one chunk: what reads the rows then pays per chunk, not per group)
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts).combine_chunks()


def read_rows(path: Path, rows: Iterable[int], columns: list[str] | None = None) -> pa.Table:
    """The rows ``rows`` of a Parquet file (in ascending row order), reading only their row groups."""
    return RowReader(path, columns).rows(rows)

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

A table of more than :data:`~croissant_lineage.lineage.footers.BLOCK_THRESHOLD` groups
(past a million items) has its footer cut into blocks beside it
(:mod:`croissant_lineage.lineage.footers`): a Parquet reader parses the whole footer, which
holds every group's column metadata, so a query's cost would otherwise grow with the family
(at ten million items, 10,000 groups of items and 6,500 of edges: ~21 MB of footer, ~250 MB
of memory to parse it for one query); through the blocks, a query parses the few it reads.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.footers import GroupedFile
from croissant_lineage.lineage.refids import joined_refs

__all__ = [
    "INDEX_FILE", "INDEX_ROW_GROUP", "INDEX_SCHEMA", "QUERY_ROW_GROUP", "RefIndex", "RowReader",
    "build_index", "index_groups", "query_groups", "read_rows",
]

#: The index's file name in a lineage folder.
INDEX_FILE = "index.parquet"
#: Rows per row group of the index.
INDEX_ROW_GROUP = 1 << 11
#: Rows per row group of ``items.parquet``, ``edges.parquet`` and ``duplicates.parquet``.
QUERY_ROW_GROUP = 1 << 10


def query_groups(table: pa.Table, size: int | None = None) -> Iterator[pa.Table]:
    """``table`` cut into row groups of ``size`` rows (default :data:`QUERY_ROW_GROUP`;
    one, empty, for an empty table): what a query of one item reads a few of."""
    size = QUERY_ROW_GROUP if size is None else size
    for start in range(0, max(table.num_rows, 1), size):
        yield table.slice(start, size)

ITEM, CHILD_OF, PARENT_OF, DUPLICATE = 0, 1, 2, 3

INDEX_SCHEMA = pa.schema([
    pa.field("ref", pa.string(), nullable=False),
    pa.field("kind", pa.int8(), nullable=False),
    pa.field("row", pa.int64(), nullable=False),
    pa.field("other", pa.string(), nullable=False),
])


def _codes(values: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """Per row, the code of its value (equal values, equal codes)."""
    encoded = pc.dictionary_encode(values)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    parts = [np.asarray(c.indices.to_numpy(zero_copy_only=False), np.int64) for c in chunks]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _duplicate_pairs(duplicates: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """Kind 3: per pair, the member's row and the row it points to: each member of a
    group paired with every member (its own row included). A group is a (dataset, group)
    pair; the pairs are built over whole arrays (the index is sorted afterwards, so their
    order here does not matter)."""
    if not duplicates.num_rows:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    datasets, groups = _codes(duplicates.column("dataset")), _codes(duplicates.column("group"))
    _, group = np.unique(datasets * (int(groups.max()) + 1) + groups, return_inverse=True)
    group = group.reshape(-1)
    members = np.argsort(group, kind="stable")  # the rows, group by group
    sizes = np.bincount(group)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    size_of = sizes[group[members]]  # per member (in ``members`` order): its group's size
    first = np.repeat(starts[group[members]], size_of)  # where each pair's group starts in ``members``
    within = np.arange(int(size_of.sum())) - np.repeat(np.cumsum(size_of) - size_of, size_of)
    return np.repeat(members, size_of).astype(np.int64), members[first + within].astype(np.int64)


class _Unsorted:
    """The index's rows before sorting, each text held once: the refs of the items, of the
    edges' children and parents, of the duplicate pairs' members and of the duplicates,
    one after the other (the first ``n`` are the rows' refs), in the chunks they were
    joined in: never concatenated (a second copy of every ref while it is made). A row's
    kind, table row and far end follow from its place among them (the rows of each kind
    are its table's rows in order, but for the duplicate pairs, whose rows are kept), so
    no array of them is held for every row. A row group is then taken from these arrays
    by the sorted order, and the sorted index is never held whole."""

    def __init__(self, items: pa.Table, edges: pa.Table, duplicates: pa.Table):
        chunks: list[pa.Array] = []
        sizes = []
        for dataset, item in (("dataset", "item"), ("child_dataset", "child_item"), ("parent_dataset", "parent_item")):
            table = items if dataset == "dataset" else edges
            part = joined_refs(table.column(dataset), table.column(item))
            chunks.extend(part.chunks)
            sizes.append(len(part))
            del part
        dup_refs = joined_refs(duplicates.column("dataset"), duplicates.column("item"))
        ref_rows, rows = _duplicate_pairs(duplicates)
        # the pairs by the row they point to, so that a ref's pairs come in row order
        by_row = np.argsort(rows, kind="stable")
        ref_rows, self._pair_rows = ref_rows[by_row], rows[by_row]
        if len(ref_rows):
            chunks.extend(dup_refs.take(pa.array(ref_rows)).chunks)
        sizes.append(len(ref_rows))
        del ref_rows, by_row
        self._at = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        self.n = int(self._at[4])
        self._sorted_chunks = [c for c in chunks if len(c)]  # (the rows' refs)
        self._chunks = self._sorted_chunks + [c for c in dup_refs.chunks if len(c)]
        lengths = [len(c) for c in self._chunks]
        self._starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64) if lengths else np.zeros(0, np.int64)

    def order(self) -> pa.Array:
        """The rows sorted by ref, kind and row, the rows without a ref left out: a stable
        sort by ref alone, the rows being in (kind, row) order already (nulls sort last)."""
        refs = pa.chunked_array(self._sorted_chunks, pa.string())
        order = pc.sort_indices(refs)
        return order.slice(0, self.n - refs.null_count)

    def _refs_at(self, pos: np.ndarray) -> pa.Array:
        """The refs at places ``pos``, in that order: taken from each chunk they are in."""
        if len(self._chunks) == 1:
            return self._chunks[0].take(pa.array(pos))
        chunk = np.searchsorted(self._starts, pos, side="right") - 1
        if len(self._chunks) < (1 << 15):  # (a stable sort of 16-bit numbers is a radix sort)
            chunk = chunk.astype(np.int16)
        by_chunk = np.argsort(chunk, kind="stable")
        local = pos[by_chunk] - self._starts[chunk[by_chunk]]
        ends = np.searchsorted(chunk[by_chunk], np.arange(len(self._chunks)), side="right")
        parts, begin = [], 0
        for c, end in enumerate(ends.tolist()):
            if end > begin:
                parts.append(self._chunks[c].take(pa.array(local[begin:end])))
            begin = end
        if not parts:
            return pa.array([], pa.string())
        back = np.empty(len(pos), np.int64)
        back[by_chunk] = np.arange(len(pos), dtype=np.int64)
        return pa.concat_arrays(parts).take(pa.array(back))

    def rows(self, at: pa.Array) -> pa.Table:
        """The rows ``at`` (positions among the first ``n``), in that order."""
        pos = np.asarray(at.to_numpy(zero_copy_only=False), np.int64)
        kind = (np.searchsorted(self._at, pos, side="right") - 1).astype(np.int8)
        row = pos - self._at[kind]
        pairs = kind == DUPLICATE
        row[pairs] = self._pair_rows[row[pairs]]
        # the far end: an item itself; an edge's child its parent and the parent its
        # child (same edge row); a duplicate pair the member its row is
        other = row + np.array([0, self._at[2], self._at[1], self._at[4]], np.int64)[kind]
        return pa.table([self._refs_at(pos), pa.array(kind), pa.array(row), self._refs_at(other)], schema=INDEX_SCHEMA)


def build_index(items: pa.Table, edges: pa.Table, duplicates: pa.Table) -> pa.Table:
    """The index of a lineage's three tables (see the module docstring), sorted."""
    unsorted = _Unsorted(items, edges, duplicates)
    return unsorted.rows(unsorted.order())


def index_groups(items: pa.Table, edges: pa.Table, duplicates: pa.Table) -> Iterator[pa.Table]:
    """The index of a lineage's three tables (:func:`build_index`) in its row groups of
    :data:`INDEX_ROW_GROUP` rows (one, empty, for an empty index), each taken by the sorted
    order when it is written (:data:`_TAKEN_GROUPS` groups at a time): the sorted index is
    never held whole."""
    unsorted = _Unsorted(items, edges, duplicates)
    order = unsorted.order()
    size = INDEX_ROW_GROUP
    for start in range(0, max(len(order), 1), size * _TAKEN_GROUPS):
        taken = unsorted.rows(order.slice(start, size * _TAKEN_GROUPS))
        for at in range(0, max(taken.num_rows, 1), size):
            yield taken.slice(at, size)


#: Row groups of the index taken from its unsorted refs at once (a take per chunk of the
#: refs costs the same for one group as for these).
_TAKEN_GROUPS = 32


class RefIndex:
    """Look-ups in a folder's ``index.parquet``: the row groups whose ``ref`` statistics
    can hold a ref are read, the others never (predicate pushdown by min/max), and of a
    file with footer blocks only the blocks whose ``ref`` range can hold it are parsed."""

    def __init__(self, path: Path):
        self._file = GroupedFile(path)
        self._block_mins = [b.min for b in self._file.blocks]
        self._block_maxs = [b.max for b in self._file.blocks]
        self._ranges: dict[int, tuple[list[str], list[str]] | None] = {}
        self._cache = KeptGroups(self._file.read_row_group)

    def _group_ranges(self, b: int) -> tuple[list[str], list[str]] | None:
        """The ``ref`` min/max of each group of block ``b`` (None: a group has none)."""
        if b not in self._ranges:
            stats = self._file.group_stats(b, 0)
            self._ranges[b] = None if any(s is None for s in stats) else (
                [s[0] for s in stats if s is not None], [s[1] for s in stats if s is not None])
        return self._ranges[b]

    def _candidates(self, ref: str) -> list[int]:
        out: list[int] = []
        for b, block in enumerate(self._file.blocks):
            if block.min is not None and not block.min <= ref <= block.max:
                continue
            ranges = self._group_ranges(b)
            if ranges is None:
                out.extend(range(block.first_group, block.first_group + block.groups))
                continue
            mins, maxs = ranges
            # groups are sorted by ref: those with min <= ref, from the first whose max >= ref
            stop = bisect.bisect_right(mins, ref)
            start = bisect.bisect_left(maxs, ref)
            out.extend(block.first_group + g for g in range(start, stop))
        return out

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
    :data:`KEPT_BYTES`) only the row groups that hold them (through the file's footer
    blocks when it has them: :class:`~croissant_lineage.lineage.footers.GroupedFile`);
    ``check(group, first_row)``, when given, is called on each group once, when it is decoded."""

    def __init__(self, path: Path, columns: list[str] | None = None,
                 check: Callable[[pa.Table, int], object] | None = None, *, file: GroupedFile | None = None):
        self._file = GroupedFile(path) if file is None else file
        self._columns = columns
        self._check = check
        self._kept = KeptGroups(self._decode)
        self._firsts: dict[int, int] = {}

    @property
    def file(self) -> GroupedFile:
        """The file read (shared by readers of other columns of it)."""
        return self._file

    def _decode(self, g: int) -> pa.Table:
        got = self._file.read_row_group(g, columns=self._columns)
        if self._check is not None:  # (once per group decoded, not per query)
            self._check(got, self._firsts[g])
        return got

    def rows(self, rows: Iterable[int]) -> pa.Table:
        """The rows ``rows``, in ascending row order."""
        by_group: dict[int, list[int]] = {}
        for r in sorted(set(rows)):
            g, local = self._file.locate(r)
            self._firsts.setdefault(g, r - local)
            by_group.setdefault(g, []).append(local)
        parts = [self._kept.get(g).take(pa.array(local, pa.int64())) for g, local in sorted(by_group.items())]
        if not parts:
            schema = self._file.schema_arrow
            return (schema if self._columns is None else pa.schema([schema.field(c) for c in self._columns])).empty_table()
        # (one chunk: what reads the rows then pays per chunk, not per group)
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts).combine_chunks()


def read_rows(path: Path, rows: Iterable[int], columns: list[str] | None = None) -> pa.Table:
    """The rows ``rows`` of a Parquet file (in ascending row order), reading only their row groups."""
    return RowReader(path, columns).rows(rows)

"""A lineage folder that ``link --update`` keeps, read without the items it does not need.

An update links only the derivations a spec adds; the folder's other tables, its counts and
its items are kept. :class:`KeptFolder` reads what the new link is merged with (edges,
duplicates, unmatched rows, counts: the small tables) and, of ``items.parquet``, only:

* the rows of the datasets the added derivations link against, without their raw
  records (:meth:`KeptFolder.items_of`), the records read on demand, a row group at a
  time, if a link rule reads their fields (:class:`FileRecords`);
* the light columns of every kept row (:meth:`KeptFolder.light_items`): ids, keys,
  sources; no subject, stem, options nor record.

The kept rows of the new lineage are then copied from the file row group by row group as
the new folder is written (:class:`KeptRows`, held by the
:class:`~croissant_lineage.lineage.model.Lineage`): a kept item's raw record is never in
memory with the others'. Only their heavy columns are read then (the rows hold the light
ones already), and the next block of row groups is read on a thread while the writer
encodes the rows of the last.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from croissant_lineage._io import read_json
from croissant_lineage.croissant.limits import check_cells, check_parquet
from croissant_lineage.lineage.info import FamilyInfo, LinkSummary
from croissant_lineage.lineage.packed_records import PackedRecords
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_SCHEMA,
    UNMATCHED_SCHEMA,
    conform,
)

__all__ = ["HEAVY_COLUMNS", "READ_GROUPS", "FileRecords", "ItemsFile", "KeptFolder", "KeptRows", "NullRecords"]

#: Row groups of a kept ``items.parquet`` read at once (a lineage's are 1,024 rows each:
#: 32,768 rows, ~15 MB of raw records for a synthetic family).
READ_GROUPS = 32

#: The columns of ``items.parquet`` :meth:`KeptFolder.light_items` leaves unread (null):
#: the texts, most of a kept item's bytes.
HEAVY_COLUMNS = ("subject", "stem", "options", "record")


class ItemsFile:
    """Rows of a lineage's ``items.parquet`` by row number, read by row group.

    Raises:
        InputError / SizeLimitError: the file exceeds the data limits (checked once, from
            its metadata: the decompressed size of each block of :data:`READ_GROUPS` row
            groups, what is held at once, so that a lineage of any size is read).
    """

    def __init__(self, path: Path):
        check_parquet(path, groups_read=READ_GROUPS)
        self.path = path
        self._file = pq.ParquetFile(path)
        meta = self._file.metadata
        self._starts = [0]
        for g in range(meta.num_row_groups):
            self._starts.append(self._starts[-1] + meta.row_group(g).num_rows)
        self.num_rows = self._starts[-1]
        present = set(self._file.schema_arrow.names)
        self._names = [n for n in ITEMS_SCHEMA.names if n in present]
        self._last: tuple[tuple[int, tuple[str, ...]], pa.Table] | None = None  # the last block read
        self._ahead: tuple[tuple[int, tuple[str, ...]], Future[pa.Table]] | None = None  # the next, being read

    @property
    def starts(self) -> list[int]:
        """The first row of each row group, then the number of rows."""
        return self._starts

    def groups(self, start: int, stop: int, columns: Sequence[str] | None = None) -> Iterator[pa.Table]:
        """Rows ``start`` to ``stop`` (``ITEMS_SCHEMA``; columns not read are null), read
        :data:`READ_GROUPS` row groups of the file at a time, cut to those rows."""
        for table in self._groups(start, stop, columns):
            yield conform(table, ITEMS_SCHEMA)

    def _groups(self, start: int, stop: int, columns: Sequence[str] | None,
                until: int | None = None) -> Iterator[pa.Table]:
        """(``until``: rows up to it are read next, in order: the block after each block read
        is read ahead, on a thread, while the caller works, if it starts before ``until``;
        none by default: a reader that keeps what it reads, or reads few rows, holds no
        block more.)"""
        names = self._names if columns is None else [n for n in self._names if n in columns]
        n_groups = len(self._starts) - 1
        b = max(bisect.bisect_right(self._starts, start) - 1, 0) // READ_GROUPS
        while b * READ_GROUPS < n_groups and self._starts[b * READ_GROUPS] < stop:
            lo, hi = self._starts[b * READ_GROUPS], self._starts[min((b + 1) * READ_GROUPS, n_groups)]
            table = self._block(b, names, 0 if until is None else until)
            yield table.slice(max(start - lo, 0), min(stop, hi) - max(start, lo))
            b += 1

    def _block(self, b: int, names: Sequence[str], until: int) -> pa.Table:
        """Row groups ``b * READ_GROUPS`` on (columns ``names``), checked against the data
        limits; the last block read is kept, so that rows read in order read each block once
        where a range ends within it. The next block is read ahead when it starts before
        row ``until`` (one read at a time: the file is never read by two threads at once)."""
        key = (b, tuple(names))
        if self._last is None or self._last[0] != key:
            self._last = None  # (before the next block is read)
            ahead, self._ahead = self._ahead, None
            if ahead is not None and ahead[0] == key:
                table = ahead[1].result()
            else:
                if ahead is not None:  # (another block: waited for, its table or error dropped)
                    ahead[1].exception()
                table = self._read_block(b, names)
            self._last = (key, table)
            n_groups = len(self._starts) - 1
            if (b + 1) * READ_GROUPS < n_groups and self._starts[(b + 1) * READ_GROUPS] < until:
                self._ahead = ((b + 1, key[1]), _reader().submit(self._read_block, b + 1, names))
        return self._last[1]

    def _read_block(self, b: int, names: Sequence[str]) -> pa.Table:
        groups = list(range(b * READ_GROUPS, min((b + 1) * READ_GROUPS, len(self._starts) - 1)))
        return check_cells(self._file.read_row_groups(groups, columns=list(names)), self.path)

    def columns(self, start: int, stop: int, names: Sequence[str], until: int | None = None) -> Iterator[pa.Table]:
        """Rows ``start`` to ``stop`` of the columns ``names`` alone (typed as in
        ``ITEMS_SCHEMA``; null where the file lacks one), as :meth:`groups` reads them;
        ``until``: the rows up to it are asked for next, in order (the blocks they need are
        read ahead)."""
        fields = [ITEMS_SCHEMA.field(n) for n in names]
        for table in self._groups(start, stop, names, until):
            yield pa.table([_typed(table, f) for f in fields], schema=pa.schema(fields))

    def read(self, start: int, stop: int, columns: Sequence[str] | None = None) -> pa.Table:
        """Rows ``start`` to ``stop`` as one table (see :meth:`groups`)."""
        parts = list(self.groups(start, stop, columns))
        return pa.concat_tables(parts) if parts else ITEMS_SCHEMA.empty_table()

    def records(self, start: int, stop: int) -> Iterator[pa.Array]:
        """The ``record`` column of rows ``start`` to ``stop``, a block of row groups at a time."""
        for table in self._groups(start, stop, ["record"]):
            yield from table.column("record").chunks


def _typed(table: pa.Table, f: pa.Field) -> pa.ChunkedArray:
    """Column ``f`` of ``table`` as ``f`` types it (nulls when ``table`` lacks it)."""
    if f.name not in table.column_names:
        return pa.chunked_array([pa.nulls(table.num_rows, f.type)], f.type)
    column = table.column(f.name)
    return column if column.type == f.type else column.cast(f.type)


_READER: ThreadPoolExecutor | None = None


def _reader() -> ThreadPoolExecutor:
    """The one thread that reads blocks ahead (Arrow decodes without holding the GIL)."""
    global _READER
    if _READER is None:
        _READER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kept-items")
    return _READER


class _Unheld(PackedRecords):
    """Records this object does not hold (no bytes in memory or spilled): they are read
    from elsewhere when asked for."""

    __slots__ = ()

    @property
    def nbytes(self) -> int:
        return 0

    @property
    def memory(self) -> int:
        return 0


class FileRecords(_Unheld):
    """A kept dataset's raw records, left in ``items.parquet`` and read a row group at a
    time when a link rule reads their fields (what :class:`PackedRecords` gives)."""

    __slots__ = ("_file", "_start", "_stop")

    def __init__(self, file: ItemsFile, start: int, stop: int):
        self._file, self._start, self._stop = file, start, stop
        self._parts = ()

    def __len__(self) -> int:
        return self._stop - self._start

    def chunks(self, start: int = 0, stop: int | None = None) -> Iterator[pa.Array]:
        end = len(self) if stop is None else min(stop, len(self))
        yield from self._file.records(self._start + start, self._start + end)

    def array(self) -> pa.Array:
        chunks = list(self.chunks())
        return pa.concat_arrays(chunks) if chunks else pa.array([], pa.string())


class NullRecords(_Unheld):
    """``n`` null records: a kept dataset's part of a lineage's records held packed (its
    rows, records included, come from the kept file: :class:`KeptRows`)."""

    __slots__ = ("_n",)

    def __init__(self, n: int):
        self._n = n
        self._parts = ()

    def __len__(self) -> int:
        return self._n

    def chunks(self, start: int = 0, stop: int | None = None) -> Iterator[pa.Array]:
        end = self._n if stop is None else min(stop, self._n)
        if end > start:
            yield pa.nulls(end - start, pa.string())

    def array(self) -> pa.Array:
        return pa.nulls(self._n, pa.string())


@dataclass(frozen=True)
class KeptRows:
    """Where the kept rows of a lineage's items table are in a lineage file: per range,
    ``(first row in the table, first row in the file, rows)``, in table order."""

    file: ItemsFile
    ranges: tuple[tuple[int, int, int], ...]

    def segments(self, rows: int, *, raw: bool = True) -> Iterator[tuple[int, int] | tuple[int, int, int, int]]:
        """The items table's ``rows`` rows in order, cut where they are written from: ``(start,
        stop)``, rows to encode (the rows held, the kept ones filled by :meth:`fill`); ``(start,
        stop, first group, stop group)``, kept rows that are whole row groups of the file,
        copied as bytes (none unless ``raw``)."""
        runs: list[list[int]] = []  # (ranges that follow each other in the table and the file: one run)
        for first, in_file, n in (self.ranges if raw else ()):
            if runs and runs[-1][0] + runs[-1][2] == first and runs[-1][1] + runs[-1][2] == in_file:
                runs[-1][2] += n
            else:
                runs.append([first, in_file, n])
        at = 0
        for first, in_file, n in runs:
            starts = self.file.starts
            g0 = bisect.bisect_left(starts, in_file)
            g1 = bisect.bisect_right(starts, in_file + n) - 1
            if g1 <= g0 or g0 >= len(starts) - 1:
                continue
            lo, hi = first + starts[g0] - in_file, first + starts[g1] - in_file
            if lo > at:
                yield (at, lo)
            yield (lo, hi, g0, g1)
            at = hi
        if at < rows or not rows:
            yield (at, rows)

    def moved_to(self, file: ItemsFile) -> KeptRows:
        """The same rows in ``file``, which holds the whole table at its rows (the items
        file written from it)."""
        return KeptRows(file, tuple((at, at, n) for at, _f, n in self.ranges))

    def fill(self, table: pa.Table, start: int = 0, *, records: bool = True) -> pa.Table:
        """``table`` (rows ``start``... of the items table) with the :data:`HEAVY_COLUMNS` of
        its kept rows (``record`` only if ``records``) read from the file: the kept rows
        hold their other columns already (read from the same file,
        :meth:`KeptFolder.light_items`), the others are as they are. Only the heavy
        columns of the kept rows are read, and each column is spliced, not the rows."""
        stop = start + table.num_rows
        # (per kept range met: its rows here, their shift into the file, and where the range
        # ends in the file: the rows the next calls ask for, read ahead)
        spans = [(max(first, start), min(first + n, stop), in_file - first, in_file + n)
                 for first, in_file, n in self.ranges if max(first, start) < min(first + n, stop)]
        if not spans:
            return table
        names = [n for n in HEAVY_COLUMNS if records or n != "record"]
        pieces: dict[str, list[pa.Array]] = {n: [] for n in names}
        at = start
        for lo, hi, shift, until in spans:
            if lo > at:
                for n in names:
                    pieces[n].extend(table.column(n).slice(at - start, lo - at).chunks)
            for part in self.file.columns(lo + shift, hi + shift, names, until):
                for n in names:
                    pieces[n].extend(part.column(n).chunks)
            at = hi
        if at < stop:
            for n in names:
                pieces[n].extend(table.column(n).slice(at - start, stop - at).chunks)
        for n in names:
            i = table.schema.get_field_index(n)
            table = table.set_column(i, table.schema.field(n), pa.chunked_array(pieces[n], table.schema.field(n).type))
        return table


class KeptFolder:
    """The lineage folder an update keeps (see the module docstring).

    Attributes:
        family, summary: Its ``family.json`` and ``summary.json``.
        edges, duplicates, unmatched: Its tables, read whole (they are small beside the items).
        items_file: Its ``items.parquet``.

    Raises:
        ValueError: the items file does not hold the summary's counts.
        InputError / SizeLimitError: a table is unreadable or exceeds the data limits.
    """

    def __init__(self, folder: str | Path):
        src = Path(folder)
        self.family = FamilyInfo.from_dict(read_json(src / "family.json"))
        self.summary = LinkSummary.from_dict(read_json(src / "summary.json"))
        tables = {}
        for name, schema in (("edges", EDGES_SCHEMA), ("duplicates", DUPLICATES_SCHEMA),
                             ("unmatched", UNMATCHED_SCHEMA)):
            path = src / f"{name}.parquet"
            check_parquet(path)
            tables[name] = conform(check_cells(pq.read_table(path), path), schema)
        self.edges, self.duplicates, self.unmatched = tables["edges"], tables["duplicates"], tables["unmatched"]
        self.items_file = ItemsFile(src / "items.parquet")
        self._rows: dict[str, tuple[int, int]] = {}
        at = 0
        for name, n in self.summary.items.items():  # (a lineage holds its datasets one after another, in this order)
            self._rows[name] = (at, at + n)
            at += n
        if at != self.items_file.num_rows:
            raise ValueError(f"the items file holds {self.items_file.num_rows} rows, its summary {at}")

    def rows(self, name: str) -> tuple[int, int]:
        """The rows of dataset ``name`` in the items file (none when it has no items)."""
        return self._rows.get(name, (0, 0))

    def items_of(self, name: str) -> pa.Table:
        """The items of ``name`` without their raw records (the ``record`` column one null
        chunk): what linking reads, with :meth:`records_of`."""
        table = self.items_file.read(*self.rows(name), [n for n in ITEMS_SCHEMA.names if n != "record"])
        return _one_null_record_chunk(table)

    def records_of(self, name: str) -> FileRecords:
        """The raw records of ``name``, read from the file when asked for."""
        return FileRecords(self.items_file, *self.rows(name))

    def light_items(self, name: str) -> pa.Table:
        """The items of ``name`` without :data:`HEAVY_COLUMNS` (null): what the new
        lineage's counts and index read (its rows are then copied from the file)."""
        keep = [n for n in ITEMS_SCHEMA.names if n not in HEAVY_COLUMNS]
        return _one_null_record_chunk(self.items_file.read(*self.rows(name), keep))


def _one_null_record_chunk(table: pa.Table) -> pa.Table:
    i = table.schema.get_field_index("record")
    return table.set_column(i, table.schema.field("record"), pa.chunked_array([pa.nulls(table.num_rows, pa.string())]))

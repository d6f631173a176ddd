"""Deterministic table bytes: Parquet (zstd, no statistics) and spreadsheet-safe CSV."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from croissant_lineage._io.atomic import atomic_writer

if TYPE_CHECKING:
    import pyarrow as pa


#: How every Parquet file is written: zstd, no statistics or timestamps.
_PARQUET_OPTIONS: dict[str, Any] = {"compression": "zstd", "write_statistics": False, "store_schema": True}


def parquet_bytes(table: pa.Table) -> bytes:
    """Deterministic Parquet bytes (zstd, no statistics or timestamps): same table, same bytes."""
    import io

    import pyarrow.parquet as pq  # here: most users of this module never write Parquet

    buf = io.BytesIO()
    pq.write_table(table, buf, **_PARQUET_OPTIONS)
    return buf.getvalue()


def atomic_write_parquet(path: str | Path, table: pa.Table) -> str:
    """Write ``table`` to ``path`` atomically, the bytes :func:`parquet_bytes` gives, streamed
    to the file page by page (no copy of the whole file in memory); returns their sha256
    (hex)."""
    return atomic_write_parquet_groups(path, table.schema, [table])


class _Sha256Writer:
    """A binary file that hashes what is written to it (what Arrow's writer needs of a file).
    Arrow writes a Parquet file a page header and a page at a time: the pieces are gathered
    up to :data:`_WRITE_BYTES` and hashed and written together (a Python call per piece
    costs more than hashing it)."""

    def __init__(self, fh: IO[bytes]):
        self._fh, self._sha, self._at, self.closed = fh, hashlib.sha256(), 0, False
        self._pending: list[bytes] = []
        self._pending_bytes = 0

    def write(self, data: Any) -> int:
        piece = bytes(data)  # (a copy: Arrow may reuse its buffer once the call returns)
        self._pending.append(piece)
        self._pending_bytes += len(piece)
        self._at += len(piece)
        if self._pending_bytes >= _WRITE_BYTES:
            self._drain()
        return len(piece)

    def _drain(self) -> None:
        if self._pending:
            joined = b"".join(self._pending)
            self._sha.update(joined)
            self._fh.write(joined)
            self._pending, self._pending_bytes = [], 0

    def tell(self) -> int:
        return self._at

    def flush(self) -> None:
        self._drain()
        self._fh.flush()

    def close(self) -> None:
        self._drain()
        self.closed = True  # the file is the caller's to close

    def hexdigest(self) -> str:
        self._drain()
        return self._sha.hexdigest()


#: Bytes :class:`_Sha256Writer` gathers before hashing and writing them.
_WRITE_BYTES = 1 << 20


def atomic_write_parquet_groups(
    path: str | Path, schema: pa.Schema, groups: Iterable[pa.Table], *, statistics: Sequence[str] = (),
    dictionary: Sequence[str] | None = None,
) -> str:
    """Write the tables ``groups`` yields (each of ``schema``) to ``path`` atomically as one
    Parquet file, each table its own row group (split further only past Arrow's default of
    1Mi rows), written as ``pq.write_table`` would write them: a writer that builds a large
    table a part at a time never holds it whole. ``statistics``: the columns whose min/max
    each row group records (none by default; they are the data's, so deterministic too).
    ``dictionary``: the columns dictionary-encoded (None: every column, Arrow's default); a
    column of values that seldom repeat (ids, texts) is written plain at less cost, and
    smaller, in small row groups. Returns the file's sha256 (hex)."""
    import pyarrow.parquet as pq

    options = {**_PARQUET_OPTIONS, "write_statistics": list(statistics)} if statistics else _PARQUET_OPTIONS
    if dictionary is not None:
        options = {**options, "use_dictionary": list(dictionary)}
    with atomic_writer(path, "wb") as fh:
        out = _Sha256Writer(fh)
        with pq.ParquetWriter(out, schema, **options) as writer:
            for table in groups:
                writer.write_table(table)
                del table  # before the next group is built
        return out.hexdigest()


#: A CSV cell starting with one of these is a formula to a spreadsheet (``=HYPERLINK(...)``,
#: ``+cmd|...``, ``-2+3``, ``@SUM(...)``; tab and carriage return also start a DDE payload).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _neutralised(column: pa.ChunkedArray) -> pa.ChunkedArray:
    import pyarrow as pa
    import pyarrow.compute as pc

    risky = pc.starts_with(column, FORMULA_STARTS[0])
    for start in FORMULA_STARTS[1:]:
        risky = pc.or_(risky, pc.starts_with(column, start))
    quoted = pc.binary_join_element_wise(pa.scalar("'"), column, "")
    return pc.if_else(pc.fill_null(risky, False), quoted, column)


def csv_bytes(table: pa.Table) -> bytes:
    """CSV bytes of ``table`` safe to open in a spreadsheet: a text cell that starts like a
    formula (:data:`FORMULA_STARTS`) gets a leading ``'`` (OWASP's CSV-injection rule);
    numbers are written as they are."""
    import io

    import pyarrow as pa
    import pyarrow.csv as pacsv

    cols = [
        _neutralised(col) if pa.types.is_string(col.type) or pa.types.is_large_string(col.type) else col
        for col in table.columns
    ]
    buf = io.BytesIO()
    pacsv.write_csv(pa.table(cols, names=table.column_names), buf)
    return buf.getvalue()

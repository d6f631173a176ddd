"""Size limits on the data files read: a file's decompressed size, one line, one cell.

Bounded reads: of a Parquet or Arrow file only the columns the caller names are read
(:func:`read_table` ``columns``; the record reader names those its fields extract), and a
file whose data would take more than :data:`MAX_DECOMPRESSED_BYTES` is refused with a
:class:`SizeLimitError` (``CL-E008``) before it is read: for Parquet the uncompressed size
its metadata gives for the columns read, for a text file its size. One cell (a stem, an
option, a key, any value of a column read) may take at most :data:`MAX_CELL_BYTES`; a
larger one is a :class:`SizeLimitError` naming its column and row. Where the format tells
before the data is read, the cell is refused unread: a line of a CSV or JSON Lines file
longer than :data:`MAX_LINE_BYTES` while the file is read (:func:`read_bounded`), a
Parquet column chunk whose metadata gives it more than four times :data:`MAX_CELL_BYTES`
per value or whose statistics hold a longer value (:func:`check_parquet`); else right
after the read, before any other use (:func:`check_cells`). A column of a type
this reader cannot turn into plain values (a dictionary nested in a list or struct that
Arrow cannot decode, a corrupt page) is a :class:`DataError` (``CL-E004``), not a traceback.

Each limit is adjustable: set it on this module (``croissant_lineage.croissant.limits.MAX_CELL_BYTES``).
"""


from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from croissant_lineage.errors import DataError, SizeLimitError

__all__ = [
    "MAX_CELL_BYTES",
    "MAX_DECOMPRESSED_BYTES",
    "MAX_FIELD_CHARS",
    "MAX_LINE_BYTES",
    "check_cells",
    "check_parquet",
    "check_size",
    "read_bounded",
]


#: Longest CSV field accepted, in characters. A longer field almost always means a quote
#: that is never closed and swallows the rest of the file; such a file is refused with a
#: :class:`~croissant_lineage.errors.SizeLimitError` naming the line, instead of being
#: read as one giant field. (JSON Lines, Parquet and Arrow records have no such limit.)
MAX_FIELD_CHARS = 16 * 1024 * 1024


#: Most bytes one data file may take once decompressed (the columns read, for Parquet and
#: Arrow; the whole file, for text formats): 4 GiB. A larger file is refused (CL-E008)
#: before it is read. Adjustable: set ``croissant_lineage.croissant.limits.MAX_DECOMPRESSED_BYTES``.
MAX_DECOMPRESSED_BYTES = 4 * 1024**3


def check_size(path: Path, size: int, what: str) -> None:
    if size > MAX_DECOMPRESSED_BYTES:
        raise SizeLimitError(
            f"{what} take {size:,} bytes, over the limit of {MAX_DECOMPRESSED_BYTES:,}",
            path=path,
            hint="raise croissant_lineage.croissant.limits.MAX_DECOMPRESSED_BYTES if the file is trusted",
        )


#: Most bytes one cell may take (a string's UTF-8 bytes, a binary value's bytes; each
#: string of a list on its own): 16 MiB, as many as :data:`MAX_FIELD_CHARS` allows a CSV
#: field. Benchmark items take kilobytes; a larger cell is refused (CL-E008) naming its
#: column and row, so that no later step (normalising, matching, drawing, printing) holds
#: copies of it. Adjustable: set ``croissant_lineage.croissant.limits.MAX_CELL_BYTES``.
MAX_CELL_BYTES = 16 * 1024 * 1024

#: Longest line of a CSV or JSON Lines file, in bytes (between ``\n`` or ``\r`` line
#: ends): 64 MiB. A longer line is refused (CL-E008) while the file is read, before it
#: is held whole or parsed. Adjustable: set ``croissant_lineage.croissant.limits.MAX_LINE_BYTES``.
MAX_LINE_BYTES = 64 * 1024 * 1024

_CHUNK = 8 * 1024 * 1024


def read_bounded(path: Path) -> bytes:
    """The bytes of a text data file (CSV, JSON Lines), refused as soon as a line longer
    than :data:`MAX_LINE_BYTES` is seen: the file is scanned a chunk at a time (only the
    line ends at the chunks' edges are looked for, in C), then read whole.

    Raises:
        SizeLimitError: a line longer than :data:`MAX_LINE_BYTES` (the message gives its number).
        OSError: the file cannot be read.
    """
    if path.suffix == ".gz":
        return _read_gzip(path)
    run = 0  # bytes since the last line end
    lines = 1
    chunk_size = max(1, min(_CHUNK, MAX_LINE_BYTES))
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            first = min((i for i in (chunk.find(b"\n"), chunk.find(b"\r")) if i >= 0), default=-1)
            if first < 0:
                run += len(chunk)
            else:
                run += first
            if run > MAX_LINE_BYTES:
                raise SizeLimitError(
                    f"line {lines:,} is longer than {MAX_LINE_BYTES:,} bytes",
                    path=path,
                    hint="raise croissant_lineage.croissant.limits.MAX_LINE_BYTES if the file is trusted",
                )
            if first >= 0:  # lines inside one chunk are shorter than the limit
                lines += chunk.count(b"\n") or chunk.count(b"\r")
                run = len(chunk) - 1 - max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
        fh.seek(0)
        return fh.read()


def _read_gzip(path: Path) -> bytes:
    """The decompressed bytes of a gzip file (``HumanEval.jsonl.gz``), refused as soon as they
    pass :data:`MAX_DECOMPRESSED_BYTES`, or when a line is longer than :data:`MAX_LINE_BYTES`.

    Raises:
        SizeLimitError: over either limit.
        DataError: not a gzip file.
    """
    parts: list[bytes] = []
    size = 0
    try:
        with gzip.open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                size += len(chunk)
                check_size(path, size, "the decompressed bytes")
                parts.append(chunk)
    except (EOFError, OSError) as exc:  # gzip.BadGzipFile is an OSError
        raise DataError(f"not a readable gzip file ({exc})", path=path) from None
    raw = b"".join(parts)
    longest = max((len(line) for line in raw.splitlines()), default=0)
    if longest > MAX_LINE_BYTES:
        raise SizeLimitError(
            f"a line is longer than {MAX_LINE_BYTES:,} bytes",
            path=path,
            hint="raise croissant_lineage.croissant.limits.MAX_LINE_BYTES if the file is trusted",
        )
    return raw


def _cell_lengths(arr: pa.Array) -> pa.Array | None:
    """The byte length (int64) of each value of ``arr`` a cell's limit applies to: strings
    and binaries, those inside lists, maps and structs flattened; None when it holds none."""
    t = arr.type
    if pa.types.is_dictionary(t):
        return _cell_lengths(arr.dictionary)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pc.binary_length(arr).cast(pa.int64())
    if pa.types.is_map(t):
        parts = [_cell_lengths(arr.keys), _cell_lengths(arr.items)]
    elif pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        parts = [_cell_lengths(arr.flatten())]
    elif pa.types.is_struct(t):
        parts = [_cell_lengths(arr.field(f)) for f in range(t.num_fields)]
    else:
        return None
    kept = [p for p in parts if p is not None]
    return pa.concat_arrays(kept) if kept else None


def check_cells(table: pa.Table, path: Path | str, *, row_offset: int = 0) -> pa.Table:
    """``table`` unchanged when no cell takes more than :data:`MAX_CELL_BYTES`.

    Raises:
        SizeLimitError: a longer cell; the message names its column and its row (0-based,
            plus ``row_offset``, among the file's rows; for a value inside a list or struct,
            the column alone).
    """
    for name, column in zip(table.column_names, table.columns, strict=True):
        if column.nbytes <= MAX_CELL_BYTES:  # (no cell holds more bytes than its whole column)
            continue
        for start, chunk in _chunks(column):
            if chunk.nbytes <= MAX_CELL_BYTES:
                continue
            lengths = _cell_lengths(chunk)
            if lengths is None or not len(lengths):
                continue
            longest = pc.max(lengths).as_py() or 0
            if longest <= MAX_CELL_BYTES:
                continue
            flat = not (pa.types.is_nested(chunk.type) or pa.types.is_dictionary(chunk.type))
            where = f", row {row_offset + start + int(pc.index(lengths, longest).as_py()):,}" if flat else ""
            raise _cell_error(path, f"column {name!r}{where}", longest)
    return table


def _chunks(column: pa.ChunkedArray) -> list[tuple[int, pa.Array]]:
    out, at = [], 0
    for chunk in column.chunks:
        out.append((at, chunk))
        at += len(chunk)
    return out


def _cell_error(path: Path | str, where: str, size: int) -> SizeLimitError:
    return SizeLimitError(
        f"{where}: a value of {size:,} bytes is over the cell limit of {MAX_CELL_BYTES:,}",
        path=path,
        hint="raise croissant_lineage.croissant.limits.MAX_CELL_BYTES if the file is trusted",
    )


def check_parquet(path: Path, columns: list[str] | None = None, *, groups_read: int | None = None) -> list[str]:
    """The names of the columns of the Parquet file ``path`` to read (``columns`` that it
    has; all when None), after the limits its metadata lets be checked unread: the
    uncompressed size of those columns (:data:`MAX_DECOMPRESSED_BYTES`; with
    ``groups_read``, of each run of that many row groups: what a reader that holds that many
    at a time decompresses at once) and, per column chunk, more than four times
    :data:`MAX_CELL_BYTES` per value (a page may hold a value three times) or a value longer
    than :data:`MAX_CELL_BYTES` in its statistics.

    Raises:
        SizeLimitError: a limit is exceeded (the message names the column).
        DataError: a column name appears twice (readers would pick one of them).
        pyarrow.ArrowException, OSError: not a readable Parquet file (callers word it).
    """
    pf = pq.ParquetFile(path)
    names = pf.schema_arrow.names
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DataError(f"column {twice[0]!r} appears {names.count(twice[0])} times: a column name must be unique",
                        path=path)
    keep = names if columns is None else [c for c in names if c in set(columns)]
    md = pf.metadata
    wanted = {i for i in range(md.num_columns) if md.schema.column(i).path.split(".")[0] in set(keep)}
    size = 0
    for r in range(md.num_row_groups):
        if groups_read and r % groups_read == 0 and r:
            check_size(path, size, f"the {len(keep)} Parquet column(s) of {groups_read} row groups read at once")
            size = 0
        group = md.row_group(r)
        for c in sorted(wanted):
            chunk = group.column(c)
            size += chunk.total_uncompressed_size
            _check_chunk(path, chunk, md.schema.column(c).path)
    what = f"of {groups_read} row groups read at once" if groups_read else "read"
    check_size(path, size, f"the {len(keep)} Parquet column(s) {what}")
    return keep


def _check_chunk(path: Path, chunk: Any, column: str) -> None:
    """One column chunk's metadata against :data:`MAX_CELL_BYTES` (see :func:`check_parquet`)."""
    values = max(chunk.num_values, 1)
    # A page holds a value up to three times (the value, its page statistics' minimum and
    # maximum): more than four times the limit per value means a value over it.
    if chunk.total_uncompressed_size // values > 4 * MAX_CELL_BYTES:
        raise _cell_error(path, f"column {column!r} (metadata: {values:,} value(s) take "
                                f"{chunk.total_uncompressed_size:,} bytes)", chunk.total_uncompressed_size // values)
    stats = chunk.statistics
    if stats is not None and stats.has_min_max and chunk.physical_type in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
        longest = max(len(stats.min_raw or b""), len(stats.max_raw or b""))
        if longest > MAX_CELL_BYTES:
            raise _cell_error(path, f"column {column!r} (statistics)", longest)


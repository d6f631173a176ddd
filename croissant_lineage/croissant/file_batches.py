"""The files of a FileSet read in order, small JSON Lines files a batch at a time.

:func:`read_tables` gives what :func:`~croissant_lineage.croissant.tables.read_table`
gives for each file, in order. Small clean JSON Lines files (Global-MMLU has one per
subject, 53 of them per language, ~55 KB each) are read by one call of pyarrow's JSON
reader over their bytes joined, and each file's table is its rows' slice of the result:
one reader call costs about as much as a file's parse, so 53 calls cost three times one.

A batch is read so only when that gives the tables each file gives alone (else each of its
files is read alone, with the errors that gives): every file a regular file within
:data:`~croissant_lineage.croissant.limits.MAX_DECOMPRESSED_BYTES`, with a record on its
first non-blank line holding the keys of the first file's, in the same order, and not
ending with a bare ``\\r``; and the joined bytes a clean file (see
:func:`~croissant_lineage.croissant.tables.read_clean_jsonl`) whose table has those keys
as its columns. Then each file alone gives the same rows (its non-blank lines) and columns:
read by pyarrow, or by the standard library where pyarrow would infer another type from its
values alone (a timestamp), which gives the same table; a column's type can differ only
where a file's values are all null (``null``, or lists of nulls alone), which the record
reader's concatenation promotes to the batch's type. Where a batch is not read so, the bytes
of its files read already are handed to the reader of one file, not read again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from croissant_lineage._io import note_input
from croissant_lineage.croissant import csv_tables, limits, tables
from croissant_lineage.croissant.csv_batches import read_csv_batch
from croissant_lineage.croissant.tables import CSV_FORMATS, JSONL_FORMATS, read_table

__all__ = ["BATCH_BYTES", "BATCH_FILES", "read_tables"]

#: Most bytes, and files, of one batch (a file over the bytes is read alone).
BATCH_BYTES = 16 << 20
BATCH_FILES = 256


def read_tables(
    paths: list[Path],
    encoding_format: str,
    *,
    csv_columns: list[str] | None = None,
    columns: list[str] | None = None,
) -> Iterator[tuple[Path, pa.Table]]:
    """Each path with :func:`~croissant_lineage.croissant.tables.read_table`'s table of it,
    in order (the same arguments, the same errors: a cell over
    :data:`~croissant_lineage.croissant.limits.MAX_CELL_BYTES` too, in a file read in a batch)."""
    for path, table in _read_tables(paths, encoding_format, csv_columns, columns):
        yield path, limits.check_cells(table, path)


def _read_tables(
    paths: list[Path], encoding_format: str, csv_columns: list[str] | None, columns: list[str] | None
) -> Iterator[tuple[Path, pa.Table]]:
    fmt = encoding_format.split(";")[0].strip().lower()
    if fmt in CSV_FORMATS:  # (CSV files sharing a header: see :mod:`.csv_batches`)
        yield from _csv_tables(paths, encoding_format, csv_columns, csv_tables.csv_delimiter(fmt))
        return
    batches = _batches(paths) if fmt in JSONL_FORMATS else [[p] for p in paths]
    for batch in batches:
        raws: dict[Path, bytes] = {}
        read = _read_batch(batch, raws) if len(batch) > 1 else None
        if read is None:
            read = [
                tables.read_jsonl_bytes(p, raws[p]) if p in raws
                else read_table(p, encoding_format, csv_columns=csv_columns, columns=columns)
                for p in batch
            ]
        yield from zip(batch, read, strict=True)


def _csv_tables(
    paths: list[Path], encoding_format: str, csv_columns: list[str] | None, delimiter: str | None
) -> Iterator[tuple[Path, pa.Table]]:
    """:func:`read_tables` of CSV files: batches read by :func:`.csv_batches.read_csv_batch`
    (each file's bytes read once), the files it leaves (None: not clean, or unreadable) read
    by :func:`~croissant_lineage.croissant.tables.read_table`, in order."""
    for batch in _batches(paths):
        read = read_csv_batch(batch, csv_columns, delimiter, alone=True)
        for path, table in zip(batch, read, strict=True):
            yield path, table if table is not None else read_table(path, encoding_format, csv_columns=csv_columns)


def _batches(paths: list[Path]) -> list[list[Path]]:
    """``paths`` in order, cut into runs of at most :data:`BATCH_FILES` files and
    :data:`BATCH_BYTES` bytes (a file that cannot be sized ends a run alone)."""
    out: list[list[Path]] = []
    run: list[Path] = []
    size = 0
    for path in paths:
        try:
            n = path.stat().st_size
        except OSError:
            n = BATCH_BYTES + 1
        if run and (len(run) >= BATCH_FILES or size + n > BATCH_BYTES):
            out.append(run)
            run, size = [], 0
        run.append(path)
        size += n
    return [*out, run] if run else out


def _read_batch(paths: list[Path], read: dict[Path, bytes]) -> list[pa.Table] | None:
    """Each file's table, read as one (see the module docstring), or None to read them alone
    (``read`` then holds the bytes of the files read so far, by path)."""
    if not all(p.is_file() and p.stat().st_size <= limits.MAX_DECOMPRESSED_BYTES for p in paths):
        return None
    raws: list[bytes] = []
    rows: list[int] = []
    keys: list[str] | None = None
    for path in paths:
        note_input(path)
        read[path] = raw = limits.read_bounded(path)
        raw = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
        lines = [line for line in raw.split(b"\n") if line.strip()]
        first = _first_keys(lines)
        if first is None or raw.endswith(b"\r") or (keys is not None and first != keys):
            return None
        keys = first
        raws.append(raw if raw.endswith(b"\n") else raw + b"\n")
        rows.append(len(lines))
    table = tables.read_clean_jsonl(b"".join(raws))
    if table is None or table.column_names != keys or table.num_rows != sum(rows):
        return None
    return tables.split_rows(table, rows)


def _first_keys(lines: list[bytes]) -> list[str] | None:
    """The keys of the record on the first of ``lines`` (None: no line, or not a record)."""
    try:
        first = json.loads(lines[0]) if lines else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return list(first) if isinstance(first, dict) else None

"""Small clean CSV files of a FileSet read a group at a time.

The MMLU CSV FileSets hold one file per subject (57 files, ~100 KB each): one call of
pyarrow's CSV reader costs about as much as a file's parse, so reading them one by one
costs twice reading them at once. :func:`read_csv_batch` reads the files of a batch that
share a header (its column names and delimiter; mmlu-redux has 7 header lines across its 57
files) by one reader call over their rows joined, and gives each file its rows' slice of
the result.

A file is read so only when it is clean
(:func:`~croissant_lineage.croissant.csv_tables.clean_csv`: then each file alone is read by
pyarrow too) and the group's read gives as many rows as the files' rows counted one by one
(:func:`row_count`); otherwise each file of the group is read alone, with the errors that
gives. Under standard quoting every file's rows end outside quotes, so the joined bytes
are the files' rows one after another, each parsed as it is parsed alone.
"""

from __future__ import annotations

import stat
from pathlib import Path

import numpy as np
import pyarrow as pa

from croissant_lineage._io import note_input
from croissant_lineage.croissant import csv_tables, limits, tables

__all__ = ["read_csv_batch", "row_count"]


def row_count(body: bytes) -> int:
    """The rows of CSV bytes whose quoting is standard: non-empty lines, where a line ends at
    a ``\\n``, ``\\r\\n`` or ``\\r`` outside quotes (an even number of quotes before it),
    as pyarrow's reader (``ignore_empty_lines``) and the standard library count them."""
    data = np.frombuffer(body, np.uint8)
    n = len(data)
    if not n:
        return 0
    lf = data == 0x0A
    cr = data == 0x0D
    ends = lf.copy()
    ends[:-1] |= cr[:-1] & ~lf[1:]
    ends[-1] |= cr[-1]
    at = np.flatnonzero(ends)
    quotes = np.flatnonzero(data == 0x22)
    if len(quotes):
        at = at[np.searchsorted(quotes, at) % 2 == 0]  # outside quotes
    # A line spans from the end before it to its own end (a \r\n's \r not in the line).
    stops = at - (lf[at] & (at > 0) & cr[np.maximum(at - 1, 0)]).astype(np.int64)
    starts = np.concatenate(([0], at[:-1] + 1))
    rows = int(np.count_nonzero(stops > starts))
    last = int(at[-1]) + 1 if len(at) else 0
    return rows + (last < n)


def read_csv_batch(
    paths: list[Path], csv_columns: list[str] | None, delimiter: str | None, *, alone: bool = False
) -> list[pa.Table | None]:
    """Each file's table, read with the others of its header, or None where the file must
    be read alone (:func:`~croissant_lineage.croissant.tables.read_table` then gives its
    table, or its error).

    Args:
        paths: The files, in order.
        csv_columns: Column names for files without a header row.
        delimiter: The delimiter (tab for TSV); None sniffs each file's.
        alone: Also read each clean file that no group read, alone, from the bytes
            already read (what ``read_table`` would give it, without reading the file
            again); None is then left only where the tolerant reader must read the file.
    """
    heads: list[csv_tables.CleanCsv | None] = [_clean_head(p, csv_columns, delimiter) for p in paths]
    groups: dict[tuple[str, tuple[str, ...]], list[int]] = {}
    for i, head in enumerate(heads):
        if head is not None:
            groups.setdefault((head.delimiter, tuple(head.names)), []).append(i)
    out: list[pa.Table | None] = [None] * len(paths)
    for (delim, names), members in groups.items():
        if len(members) < 2:
            continue
        read = _read_group([h for i in members if (h := heads[i]) is not None], list(names), delim)
        if read is not None:
            for i, table in zip(members, read, strict=True):
                out[i] = table
    if alone:
        skip = 1 if csv_columns is None else 0  # the header line
        for i, head in enumerate(heads):
            if out[i] is None and head is not None:
                out[i] = csv_tables.read_clean_csv_rows(head.raw, head.names, head.delimiter, skip_rows=skip)
    return out


def _clean_head(path: Path, csv_columns: list[str] | None, delimiter: str | None) -> csv_tables.CleanCsv | None:
    """A file's layout when it is a clean CSV that may be read with others, else None."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size > limits.MAX_DECOMPRESSED_BYTES:
            return None
        note_input(path)
        raw = limits.read_bounded(path)
    except OSError:
        return None
    return csv_tables.clean_csv(raw, csv_columns, delimiter)


def _read_group(heads: list[csv_tables.CleanCsv], names: list[str], delimiter: str) -> list[pa.Table] | None:
    """The tables of files sharing a header, read by one reader call, or None."""
    bodies: list[bytes] = []
    rows: list[int] = []
    for head in heads:
        body = head.raw[head.body :]
        rows.append(row_count(body))
        bodies.append(body if body.endswith(b"\n") else body + b"\n")
    table = csv_tables.read_clean_csv_rows(b"".join(bodies), names, delimiter)
    if table is None or table.num_rows != sum(rows):
        return None
    return tables.split_rows(table, rows)

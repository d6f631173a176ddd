"""Reading the files behind a descriptor into Arrow tables, tolerating real-world mess.

Supported encodings: CSV / TSV, JSON Lines, JSON (a list of records), Parquet, and Arrow
IPC (stream or file, as ``datasets.save_to_disk`` writes). A JSON Lines file whose
name ends in ``.gz`` is gzip-compressed (HumanEval's ``HumanEval.jsonl.gz``): it is
decompressed while read, within :data:`MAX_DECOMPRESSED_BYTES`.

CSV is read, every cell as a string, by pyarrow's reader when the file is clean (valid
UTF-8, standard quoting, every row as wide as the header: see :func:`_read_clean_csv`),
else by the standard library, strictly; both give the same rows (tested on every CSV of
the MMLU family and on generated files):

* the delimiter is sniffed per file from the header line (``,``, ``;`` or tab);
* UTF-8 (a BOM is dropped); a stray non-UTF-8 byte is decoded as Mac Roman;
* ``\\r\\n``, ``\\r`` and ``\\n`` end rows; U+0085 (NEL) and U+2028 stay inside fields;
* quoted fields may hold newlines; a quote never closed is a :class:`DataError`;
* blank lines are skipped; blank header cells become ``_unnamed_{i}``, repeated header
  names get ``.1``, ``.2``;
* a row with fewer cells than the header, or with non-empty cells beyond it, is a
  :class:`DataError` (``CL-E004``) naming its line; empty trailing cells are dropped;
* NUL bytes are an :class:`InputError` (``CL-E001``), a field longer than
  :data:`MAX_FIELD_CHARS` a :class:`SizeLimitError` (``CL-E008``).

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

Headerless CSV: a FileObject/FileSet may carry ``cl:csvColumns`` (a list of column
names); the file is then read without a header row. mlcroissant 1.1.1 ignores this
property and reads the first row as a header, so it cannot read such files.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.ipc as ipc
import pyarrow.json as pjson
import pyarrow.parquet as pq

from croissant_lineage._io import loads_json, note_input, read_text
from croissant_lineage.errors import DataError, InputError, SizeLimitError

__all__ = [
    "MAX_CELL_BYTES",
    "MAX_DECOMPRESSED_BYTES",
    "MAX_FIELD_CHARS",
    "MAX_LINE_BYTES",
    "CleanCsv",
    "check_cells",
    "check_parquet",
    "clean_csv",
    "csv_delimiter",
    "parquet_shape",
    "read_bounded",
    "read_clean_csv_rows",
    "read_clean_jsonl",
    "read_jsonl_bytes",
    "read_table",
    "sniff_delimiter",
    "split_rows",
]

CSV_FORMATS = {"text/csv", "text/tab-separated-values"}
JSONL_FORMATS = {"application/jsonlines", "application/jsonl", "application/x-jsonlines"}
PARQUET_FORMATS = {"application/x-parquet", "application/vnd.apache.parquet", "application/parquet"}
ARROW_FORMATS = {
    "application/vnd.apache.arrow.stream",
    "application/vnd.apache.arrow.file",
    "application/x-arrow",
}

#: Longest CSV field accepted, in characters. A longer field almost always means a quote
#: that is never closed and swallows the rest of the file; such a file is refused with a
#: :class:`~croissant_lineage.errors.SizeLimitError` naming the line, instead of being
#: read as one giant field. (JSON Lines, Parquet and Arrow records have no such limit.)
MAX_FIELD_CHARS = 16 * 1024 * 1024

csv.field_size_limit(MAX_FIELD_CHARS)

#: Most bytes one data file may take once decompressed (the columns read, for Parquet and
#: Arrow; the whole file, for text formats): 4 GiB. A larger file is refused (CL-E008)
#: before it is read. Adjustable: set ``croissant_lineage.croissant.tables.MAX_DECOMPRESSED_BYTES``.
MAX_DECOMPRESSED_BYTES = 4 * 1024**3


def _check_size(path: Path, size: int, what: str) -> None:
    if size > MAX_DECOMPRESSED_BYTES:
        raise SizeLimitError(
            f"{what} take {size:,} bytes, over the limit of {MAX_DECOMPRESSED_BYTES:,}",
            path=path,
            hint="raise croissant_lineage.croissant.tables.MAX_DECOMPRESSED_BYTES if the file is trusted",
        )


#: Most bytes one cell may take (a string's UTF-8 bytes, a binary value's bytes; each
#: string of a list on its own): 16 MiB, as many as :data:`MAX_FIELD_CHARS` allows a CSV
#: field. Benchmark items take kilobytes; a larger cell is refused (CL-E008) naming its
#: column and row, so that no later step (normalising, matching, drawing, printing) holds
#: copies of it. Adjustable: set ``croissant_lineage.croissant.tables.MAX_CELL_BYTES``.
MAX_CELL_BYTES = 16 * 1024 * 1024

#: Longest line of a CSV or JSON Lines file, in bytes (between ``\n`` or ``\r`` line
#: ends): 64 MiB. A longer line is refused (CL-E008) while the file is read, before it
#: is held whole or parsed. Adjustable: set ``croissant_lineage.croissant.tables.MAX_LINE_BYTES``.
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
                    hint="raise croissant_lineage.croissant.tables.MAX_LINE_BYTES if the file is trusted",
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
                _check_size(path, size, "the decompressed bytes")
                parts.append(chunk)
    except (EOFError, OSError) as exc:  # gzip.BadGzipFile is an OSError
        raise DataError(f"not a readable gzip file ({exc})", path=path) from None
    raw = b"".join(parts)
    longest = max((len(line) for line in raw.splitlines()), default=0)
    if longest > MAX_LINE_BYTES:
        raise SizeLimitError(
            f"a line is longer than {MAX_LINE_BYTES:,} bytes",
            path=path,
            hint="raise croissant_lineage.croissant.tables.MAX_LINE_BYTES if the file is trusted",
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
        for start, chunk in _chunks(column):
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
        hint="raise croissant_lineage.croissant.tables.MAX_CELL_BYTES if the file is trusted",
    )


def check_parquet(path: Path, columns: list[str] | None = None) -> list[str]:
    """The names of the columns of the Parquet file ``path`` to read (``columns`` that it
    has; all when None), after the limits its metadata lets be checked unread: the
    uncompressed size of those columns (:data:`MAX_DECOMPRESSED_BYTES`) and, per column
    chunk, more than four times :data:`MAX_CELL_BYTES` per value (a page may hold a value
    three times) or a value longer than :data:`MAX_CELL_BYTES` in its statistics.

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
        group = md.row_group(r)
        for c in sorted(wanted):
            chunk = group.column(c)
            size += chunk.total_uncompressed_size
            _check_chunk(path, chunk, md.schema.column(c).path)
    _check_size(path, size, f"the {len(keep)} Parquet column(s) read")
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


def parquet_shape(path: Path) -> tuple[pa.Schema, int]:
    """The schema (dictionary types decoded, as :func:`read_table` gives them) and row
    count of a Parquet file, from its metadata alone: no data page is read.

    Raises:
        DataError: not a readable Parquet file.
    """
    note_input(path)
    try:
        pf = pq.ParquetFile(path)
        schema = pa.schema([pa.field(f.name, _without_dictionary(f.type), f.nullable) for f in pf.schema_arrow])
        return schema, pf.metadata.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"not a readable Parquet file: {str(exc).splitlines()[0][:300]}", path=path) from None


def _plain_dictionaries(table: pa.Table, path: Path) -> pa.Table:
    """Decode dictionary-encoded columns (at any depth) to their value types.

    Raises:
        DataError: Arrow cannot decode one (a nested dictionary it does not support).
    """
    for i, field in enumerate(table.schema):
        if not _has_dictionary(field.type):
            continue
        try:
            table = table.set_column(i, field.name, table.column(i).cast(_without_dictionary(field.type)))
        except pa.ArrowException as exc:
            raise DataError(
                f"column {field.name!r} has a nested dictionary type this reader cannot decode ({field.type})",
                path=path,
                hint=f"store it as plain values ({exc.__class__.__name__}: {str(exc)[:120]})",
            ) from None
    return table


def _has_dictionary(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        return True
    return any(_has_dictionary(t.field(i).type) for i in range(t.num_fields))


def _without_dictionary(t: pa.DataType) -> pa.DataType:
    if pa.types.is_dictionary(t):
        return _without_dictionary(t.value_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = pa.field(t.value_field.name, _without_dictionary(t.value_type), t.value_field.nullable)
        return pa.list_(inner) if pa.types.is_list(t) else pa.large_list(inner)
    if pa.types.is_fixed_size_list(t):
        return pa.list_(_without_dictionary(t.value_type), t.list_size)
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, _without_dictionary(f.type), f.nullable) for f in t])
    if pa.types.is_map(t):
        return pa.map_(_without_dictionary(t.key_type), _without_dictionary(t.item_type))
    return t


def _read_parquet(path: Path, columns: list[str] | None) -> pa.Table:
    """Only ``columns`` (those present; all when None), under the limits of :func:`check_parquet`."""
    try:
        keep = check_parquet(path, columns)
        table = pq.ParquetFile(path).read(columns=keep)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"not a readable Parquet file: {str(exc).splitlines()[0][:300]}", path=path) from None
    return _plain_dictionaries(check_cells(table, path), path)


def sniff_delimiter(header_line: str) -> str:
    """Pick the delimiter of a CSV from its first line: tab, ``;`` or ``,``.

    The character that splits the header into the most fields outside quotes wins;
    ties go to ``,``.
    """
    best, best_n = ",", 1
    for cand in (",", ";", "\t"):
        try:
            n = len(next(csv.reader([header_line], delimiter=cand), []))
        except csv.Error:  # e.g. a bare carriage return inside the line
            continue
        if n > best_n:
            best, best_n = cand, n
    return best


def _csv_rows(path: Path, text: str, delimiter: str) -> list[tuple[int, list[str]]]:
    """Parse CSV text into ``(first line number, cells)`` pairs, strictly.

    Strict parsing turns a quote that is never closed into an error instead of one
    field holding the rest of the file. Only ``\\n``, ``\\r`` and ``\\r\\n`` end a row: a
    U+0085 (NEL) or U+2028 character stays inside its field.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise SizeLimitError(
                f"line {start}: a field is longer than {MAX_FIELD_CHARS:,} characters",
                path=path,
                hint="most often a quote that is never closed; fix the quoting of that line",
            ) from None
        raise DataError(
            f"line {start}: cannot parse CSV ({exc})",
            path=path,
            hint="look for a quote that is never closed on or after that line",
        ) from None
    return rows


def _unique_header(cells: list[str]) -> list[str]:
    """Header names: stripped; blanks become ``_unnamed_{i}``; repeats get ``.1``, ``.2``
    (as pandas names them)."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for i, cell in enumerate(cells):
        name = cell.strip() or f"_unnamed_{i}"
        if name in seen:
            seen[name] += 1
            name = f"{name}.{seen[name]}"
        seen.setdefault(name, 0)
        out.append(name)
    return out


_NEWLINES = (0x0A, 0x0D)


def _standard_quoting(data: np.ndarray, delimiter: int) -> bool:
    """Whether every quote of a CSV (as bytes) opens or closes a quoted field, or escapes
    a quote inside one: the file's quoting is one that every CSV reader reads alike.

    Counting quotes, an opening quote (an even number before it) must start a field
    (after a delimiter, a line end, the start of the file, or the closing quote of a
    ``""`` pair) and a closing one must end it (before a delimiter, a line end, the end
    of the file, or the opening quote of a ``""`` pair). A quote inside an unquoted
    field (``ab"c``), text after a closing quote (``"ab"c``, an error to the standard
    library's strict reader) and a quote never closed all fail.
    """
    quotes = np.flatnonzero(data == 0x22)
    if len(quotes) % 2:
        return False
    if not len(quotes):
        return True
    bounds = np.array([delimiter, *_NEWLINES, 0x22], np.uint8)
    opening, closing = quotes[0::2], quotes[1::2]
    before = data[np.maximum(opening - 1, 0)]
    ok_open = np.isin(before, bounds) | (opening == 0)
    after = data[np.minimum(closing + 1, len(data) - 1)]
    ok_close = np.isin(after, bounds) | (closing == len(data) - 1)
    return bool(ok_open.all() and ok_close.all())


class CleanCsv(NamedTuple):
    """A clean CSV file's layout (see :func:`clean_csv`): its bytes without a BOM, its
    column names, its delimiter and where its rows start (after the header line)."""

    raw: bytes
    names: list[str]
    delimiter: str
    body: int


def clean_csv(raw: bytes, columns: list[str] | None, delimiter: str | None) -> CleanCsv | None:
    """The layout of a CSV file that pyarrow's reader reads as the standard library's
    strict reader does, or None when the file is not clean (see :func:`_read_clean_csv`).

    Checked here: valid UTF-8 header line, no NUL byte, not starting with a blank line, a
    header line (when the file has one) with balanced quotes, every quote standard
    (:func:`_standard_quoting`), at least two columns. Left to the read
    (:func:`read_clean_csv_rows`): every row as wide as the header, valid UTF-8, no field
    longer than :data:`MAX_FIELD_CHARS`.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if not raw.strip() or b"\x00" in raw or raw[0] in _NEWLINES:
        return None
    end = min((i for i in (raw.find(b"\n"), raw.find(b"\r")) if i >= 0), default=len(raw))
    try:
        first = raw[:end].decode("utf-8")
    except UnicodeDecodeError:
        return None
    delim = delimiter or sniff_delimiter(first)
    if (columns is None and first.count('"') % 2) or not _standard_quoting(np.frombuffer(raw, np.uint8), ord(delim)):
        return None
    names = _unique_header(next(csv.reader([first], delimiter=delim))) if columns is None else list(columns)
    if len(names) < 2:  # a row of one quoted empty cell is a blank line to the standard library
        return None
    body = 0 if columns is not None else end + (2 if raw[end : end + 2] == b"\r\n" else 1)
    return CleanCsv(raw, names, delim, min(body, len(raw)))


def _read_clean_csv(raw: bytes, columns: list[str] | None, delimiter: str | None) -> pa.Table | None:
    """A clean CSV read by pyarrow's multi-threaded reader, or None when the file is not
    clean and the tolerant reader must read it (which then gives the same rows, or the
    error the module docstring names).

    Clean: valid UTF-8 (a BOM is dropped), no NUL byte, not starting with a blank line,
    a header line (when the file has one) with balanced quotes, every quote standard
    (:func:`_standard_quoting`), at least two columns, every row as wide as the header,
    no field longer than :data:`MAX_FIELD_CHARS`. On such a file pyarrow and the
    standard library's strict reader find the same rows and cells.
    """
    head = clean_csv(raw, columns, delimiter)
    if head is None:
        return None
    return read_clean_csv_rows(head.raw, head.names, head.delimiter, skip_rows=1 if columns is None else 0)


def read_clean_csv_rows(raw: bytes, names: list[str], delimiter: str, *, skip_rows: int = 0) -> pa.Table | None:
    """The rows of clean CSV bytes (after ``skip_rows`` rows: the header) as string columns
    named ``names``, read by pyarrow; None when a row is not ``len(names)`` cells wide, a
    cell is not valid UTF-8 or is longer than :data:`MAX_FIELD_CHARS` (the tolerant reader
    must then read the file)."""
    slots = [f"c{i}" for i in range(len(names))]
    try:
        table = pcsv.read_csv(
            pa.BufferReader(raw),
            read_options=pcsv.ReadOptions(column_names=slots, skip_rows=skip_rows),
            parse_options=pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=True, ignore_empty_lines=True),
            convert_options=pcsv.ConvertOptions(
                column_types=dict.fromkeys(slots, pa.string()), strings_can_be_null=False, check_utf8=True
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a row of another width, invalid UTF-8
        return None
    if len(raw) > MAX_FIELD_CHARS and any(
        (pc.max(pc.utf8_length(col)).as_py() or 0) > MAX_FIELD_CHARS for col in table.columns
    ):
        return None
    return pa.table(
        {name: table.column(slot).combine_chunks() for name, slot in zip(names, slots, strict=True)}
    )


def csv_delimiter(fmt: str) -> str | None:
    """The delimiter of a CSV ``encodingFormat`` (lower-cased, without parameters): a tab for
    ``text/tab-separated-values``, None (sniffed per file) for ``text/csv``."""
    return "\t" if fmt.endswith("values") else None


def _read_csv(path: Path, columns: list[str] | None, delimiter: str | None) -> pa.Table:
    fast = _read_clean_csv(read_bounded(path), columns, delimiter)
    if fast is not None:
        return fast
    return _read_csv_tolerant(path, columns, delimiter)


def _read_csv_tolerant(path: Path, columns: list[str] | None, delimiter: str | None) -> pa.Table:
    """The standard library's reader: every file, with the errors the module docstring lists."""
    text, _enc = read_text(path)
    if not text.strip():
        raise InputError("empty file", path=path, hint="expected a header row and data rows")
    first = re.split(r"\r\n|\r|\n", text, maxsplit=1)[0]  # files may end rows with a bare \r
    delim = delimiter or sniff_delimiter(first)
    # Blank lines are skipped (as pandas does); a row of empty cells is a row.
    rows = [(line, row) for line, row in _csv_rows(path, text, delim) if row and row != [""]]
    if not rows:
        raise InputError("empty file", path=path, hint="expected a header row and data rows")
    if columns is None:
        header = _unique_header(rows[0][1])
        body = rows[1:]
    else:
        header, body = list(columns), rows
    width = len(header)
    out: list[list[str | None]] = [[] for _ in range(width)]
    for index, (line, row) in enumerate(body):
        if len(row) < width or any(cell.strip() for cell in row[width:]):
            raise DataError(
                f"line {line} (data row {index}, 0-based) has {len(row)} cells, "
                f"the header has {width}",
                path=path,
                hint="check the delimiter and quoting of that row",
            )
        for i in range(width):
            out[i].append(row[i])
    arrays = {name: pa.array(col, pa.string()) for name, col in zip(header, out, strict=True)}
    return pa.table(arrays)


#: Column types the pyarrow JSON reader infers exactly as :meth:`pyarrow.Table.from_pylist`
#: infers them from the standard library's parse: no doubles (a huge integer literal
#: becomes a double to pyarrow, an error to ``from_pylist``), timestamps (pyarrow reads
#: ``"2020-01-01"`` as one) or structs (field order).
_PLAIN_JSON_TYPES = (pa.string(), pa.int64(), pa.bool_(), pa.null())


def _plain_json_type(t: pa.DataType) -> bool:
    if pa.types.is_list(t):
        return t.value_type in _PLAIN_JSON_TYPES
    return t in _PLAIN_JSON_TYPES


def read_clean_jsonl(raw: bytes) -> pa.Table | None:
    """A clean JSON Lines file read by pyarrow's JSON reader, or None when the file is not
    clean and the standard library must read it (which then gives the same table, or the
    error that :func:`_read_jsonl` names).

    Clean: valid UTF-8 (a BOM is dropped), no control byte but ``\\n`` and ``\\r\\n``
    line ends, one JSON object on each non-blank line, no record with a key the first
    lacks (the first's key order is the table's), and columns of strings, integers, booleans, nulls
    or lists of those only (:data:`_PLAIN_JSON_TYPES`). On such a file pyarrow's table
    equals ``pa.Table.from_pylist`` of the standard library's records.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    data = np.frombuffer(raw, np.uint8)
    control = data[data < 0x20]
    if not len(data) or not ((control == 0x0A) | (control == 0x0D)).all():
        return None
    if (control == 0x0D).any() and raw.count(b"\r") != raw.count(b"\r\n"):
        return None
    lines = [line for line in raw.split(b"\n") if line.strip()]
    try:
        first = json.loads(lines[0]) if lines else None
        table = pjson.read_json(
            pa.BufferReader(raw),
            # One block: pyarrow 26 crashes (SIGSEGV) on a column whose type changes from a
            # list to an object across blocks; in one block that is an error, as it should be.
            read_options=pjson.ReadOptions(block_size=len(raw) + 1),
            parse_options=pjson.ParseOptions(newlines_in_values=False),
        )
        table = pa.table({name: table.column(name).combine_chunks() for name in table.column_names})
        table.validate(full=True)  # pyarrow's JSON reader does not check UTF-8
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, pa.ArrowException):
        return None
    if (
        not isinstance(first, dict)
        or table.num_rows != len(lines)
        or table.column_names != list(first)
        or not all(_plain_json_type(t) for t in table.schema.types)
    ):
        return None
    return table


def _read_jsonl(path: Path) -> pa.Table:
    return read_jsonl_bytes(path, read_bounded(path))


def split_rows(table: pa.Table, rows: list[int]) -> list[pa.Table]:
    """``table`` cut into consecutive slices of ``rows[k]`` rows each (zero-copy): the files
    of a batch read as one, given back one table per file."""
    out, at = [], 0
    for n in rows:
        out.append(table.slice(at, n))
        at += n
    return out


def read_jsonl_bytes(path: Path, raw: bytes) -> pa.Table:
    """The table of the JSON Lines file ``path`` whose bytes ``raw`` were read already: what
    :func:`read_table` gives for it (the file is read again only when it is not clean)."""
    fast = read_clean_jsonl(raw)
    if fast is not None:
        return fast
    return _read_jsonl_tolerant(path, raw if path.suffix == ".gz" else None)


def _read_jsonl_tolerant(path: Path, raw: bytes | None = None) -> pa.Table:
    """The standard library's parser: every file, with the errors :func:`_read_jsonl` gives
    (``raw``: a gzip file's decompressed bytes, decoded as UTF-8)."""
    if raw is not None:
        text = raw.decode("utf-8-sig", errors="replace")
    else:
        text, _enc = read_text(path)
    records: list[dict[str, Any]] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rec = loads_json(line, allow_nan=True)
        except json.JSONDecodeError as exc:
            raise DataError(f"line {lineno}: invalid JSON ({exc.msg})", path=path) from None
        if not isinstance(rec, dict):
            raise DataError(f"line {lineno}: not a JSON object", path=path)
        records.append(rec)
    if not records:
        raise InputError("empty file", path=path)
    return _records_to_table(records, path)


def _records_to_table(records: list[dict[str, Any]], path: Path) -> pa.Table:
    try:
        return _records_table(records)
    except UnicodeEncodeError:
        raise DataError(
            "a string is not valid Unicode (an escaped lone surrogate such as \\ud800)", path=path
        ) from None


def _records_table(records: list[dict[str, Any]]) -> pa.Table:
    try:
        return pa.Table.from_pylist(records)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        # Mixed types across records, or an integer past 64 bits: keep every value as JSON text.
        keys: dict[str, None] = {}
        for r in records:
            keys.update(dict.fromkeys(r))
        cols = {
            k: pa.array(
                [None if r.get(k) is None else _as_json_text(r[k]) for r in records],
                pa.string(),
            )
            for k in keys
        }
        return pa.table(cols)


def _as_json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _read_json(path: Path) -> pa.Table:
    text, _enc = read_text(path)
    try:
        data = loads_json(text, allow_nan=True)
    except json.JSONDecodeError:
        # ``datasets.to_json`` writes JSON Lines under a .json name.
        return _read_jsonl(path)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise DataError("expected a JSON list of objects", path=path)
    return _records_to_table(data, path)


def _read_arrow(path: Path, columns: list[str] | None) -> pa.Table:
    """The file memory-mapped (unread columns cost no memory), then only ``columns``."""
    try:
        with pa.memory_map(str(path), "r") as src:
            try:
                table = ipc.open_stream(src).read_all()
            except pa.ArrowInvalid:
                src.seek(0)
                table = ipc.open_file(src).read_all()
        if columns is not None:
            table = table.select([c for c in table.column_names if c in set(columns)])
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"not an Arrow IPC file: {str(exc).splitlines()[0][:300]}", path=path) from None
    _check_size(path, table.nbytes, f"the {table.num_columns} Arrow column(s) read")
    return _plain_dictionaries(table, path)


def read_table(
    path: Path,
    encoding_format: str,
    *,
    csv_columns: list[str] | None = None,
    columns: list[str] | None = None,
) -> pa.Table:
    """Read one data file into an Arrow table.

    Args:
        path: The file.
        encoding_format: Its Croissant ``encodingFormat`` (MIME type).
        csv_columns: Column names for a CSV without a header row.
        columns: For Parquet and Arrow, read only these columns (those the file has);
            None reads all. Text formats are parsed whole and keep every column.

    Returns:
        The table: for CSV every column is a string column, in header order. Dictionary
        columns of Parquet and Arrow files come decoded to their value types.

    Raises:
        InputError: missing or empty file, NUL bytes in a text file.
        DataError: the content does not parse as ``encoding_format`` (the message names
            the line), the format is not supported, or a column cannot be decoded.
        SizeLimitError: a CSV field longer than :data:`MAX_FIELD_CHARS`, a cell over
            :data:`MAX_CELL_BYTES`, a CSV or JSON Lines line over :data:`MAX_LINE_BYTES`,
            or a file over :data:`MAX_DECOMPRESSED_BYTES`.
    """
    if not path.exists():
        raise InputError("file not found", path=path)
    note_input(path)  # a regular file (a FIFO would block), recorded as an input of the command
    fmt = encoding_format.split(";")[0].strip().lower()
    if fmt not in PARQUET_FORMATS | ARROW_FORMATS:
        _check_size(path, path.stat().st_size, "the file's bytes")
    if fmt in CSV_FORMATS:
        return check_cells(_read_csv(path, csv_columns, csv_delimiter(fmt)), path)
    if fmt in JSONL_FORMATS:
        return check_cells(_read_jsonl(path), path)
    if fmt == "application/json":
        return check_cells(_read_json(path), path)
    if fmt in PARQUET_FORMATS:
        return _read_parquet(path, columns)
    if fmt in ARROW_FORMATS:
        return check_cells(_read_arrow(path, columns), path)
    raise DataError(
        f"unsupported encodingFormat {encoding_format!r}",
        path=path,
        hint="use text/csv, application/jsonlines, application/json, application/x-parquet "
        "or application/vnd.apache.arrow.stream",
    )

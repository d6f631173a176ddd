"""Reading the files behind a descriptor into Arrow tables, tolerating real-world mess.

Supported encodings: CSV / TSV, JSON Lines, JSON (a list of records), Parquet, and Arrow
IPC (stream or file, as ``datasets.save_to_disk`` writes). A JSON Lines file whose
name ends in ``.gz`` is gzip-compressed (HumanEval's ``HumanEval.jsonl.gz``): it is
decompressed while read, within :data:`MAX_DECOMPRESSED_BYTES`.

Of a Parquet or Arrow file only the columns the caller names are read (:func:`read_table`
``columns``; the record reader names those its fields extract), under the size limits of
:mod:`croissant_lineage.croissant.limits`; CSV is read by :mod:`croissant_lineage.croissant.csv_tables`.
A column of a type this reader cannot turn into plain values (a dictionary nested in a list or
struct that Arrow cannot decode, a corrupt page) is a :class:`DataError` (``CL-E004``), not a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.json as pjson
import pyarrow.parquet as pq

from croissant_lineage._io import loads_json, note_input, read_text
from croissant_lineage.croissant import limits
from croissant_lineage.croissant.csv_tables import csv_delimiter, read_csv
from croissant_lineage.croissant.csv_tables import sniff_delimiter as sniff_delimiter
from croissant_lineage.croissant.limits import MAX_DECOMPRESSED_BYTES as MAX_DECOMPRESSED_BYTES
from croissant_lineage.croissant.limits import (
    check_cells,
    check_parquet,
    check_size,
)
from croissant_lineage.errors import DataError, InputError

__all__ = [
    "ARROW_FORMATS",
    "CSV_FORMATS",
    "JSONL_FORMATS",
    "PARQUET_FORMATS",
    "parquet_shape",
    "read_clean_jsonl",
    "read_jsonl_bytes",
    "read_table",
    "split_rows",
]

# MAX_DECOMPRESSED_BYTES and sniff_delimiter are imported above under their own names for the
# modules that still import them from here; they live in limits.py and csv_tables.py.

CSV_FORMATS = {"text/csv", "text/tab-separated-values"}
JSONL_FORMATS = {"application/jsonlines", "application/jsonl", "application/x-jsonlines"}
PARQUET_FORMATS = {"application/x-parquet", "application/vnd.apache.parquet", "application/parquet"}
ARROW_FORMATS = {
    "application/vnd.apache.arrow.stream",
    "application/vnd.apache.arrow.file",
    "application/x-arrow",
}

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
    return read_jsonl_bytes(path, limits.read_bounded(path))


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
    check_size(path, table.nbytes, f"the {table.num_columns} Arrow column(s) read")
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
        check_size(path, path.stat().st_size, "the file's bytes")
    if fmt in CSV_FORMATS:
        return check_cells(read_csv(path, csv_columns, csv_delimiter(fmt)), path)
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

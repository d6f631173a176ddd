"""Reading the files behind a descriptor into Arrow tables, tolerating real-world mess.

Supported encodings: CSV / TSV, JSON Lines, JSON (a list of records), Parquet, and Arrow
IPC (stream or file, as ``datasets.save_to_disk`` writes).

CSV is read with the standard library, strictly, every cell as a string:

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

Headerless CSV: a FileObject/FileSet may carry ``cl:csvColumns`` (a list of column
names); the file is then read without a header row. mlcroissant 1.1.1 ignores this
property and reads the first row as a header, so it cannot read such files.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from croissant_lineage._io import loads_json, note_input, read_text
from croissant_lineage.errors import DataError, InputError, SizeLimitError

__all__ = ["MAX_FIELD_CHARS", "read_table", "sniff_delimiter"]

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


def _read_csv(path: Path, columns: list[str] | None, delimiter: str | None) -> pa.Table:
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


def _read_jsonl(path: Path) -> pa.Table:
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
        return pa.Table.from_pylist(records)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # Mixed types across records: keep every value as JSON text.
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


def _read_arrow(path: Path) -> pa.Table:
    try:
        with pa.memory_map(str(path), "r") as src:
            try:
                return ipc.open_stream(src).read_all()
            except pa.ArrowInvalid:
                src.seek(0)
                return ipc.open_file(src).read_all()
    except (pa.ArrowInvalid, OSError) as exc:
        raise DataError(f"not an Arrow IPC file: {exc}", path=path) from None


def read_table(
    path: Path, encoding_format: str, *, csv_columns: list[str] | None = None
) -> pa.Table:
    """Read one data file into an Arrow table.

    Args:
        path: The file.
        encoding_format: Its Croissant ``encodingFormat`` (MIME type).
        csv_columns: Column names for a CSV without a header row.

    Returns:
        The table: for CSV every column is a string column, in header order.

    Raises:
        InputError: missing or empty file, NUL bytes in a text file.
        DataError: the content does not parse as ``encoding_format`` (the message names
            the line), or the format is not supported.
        SizeLimitError: a CSV field longer than :data:`MAX_FIELD_CHARS`.
    """
    if not path.exists():
        raise InputError("file not found", path=path)
    note_input(path)  # a regular file (a FIFO would block), recorded as an input of the command
    fmt = encoding_format.split(";")[0].strip().lower()
    if fmt in CSV_FORMATS:
        return _read_csv(path, csv_columns, "\t" if fmt.endswith("values") else None)
    if fmt in JSONL_FORMATS:
        return _read_jsonl(path)
    if fmt == "application/json":
        return _read_json(path)
    if fmt in PARQUET_FORMATS:
        try:
            return pq.read_table(path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise DataError(f"not a Parquet file: {exc}", path=path) from None
    if fmt in ARROW_FORMATS:
        return _read_arrow(path)
    raise DataError(
        f"unsupported encodingFormat {encoding_format!r}",
        path=path,
        hint="use text/csv, application/jsonlines, application/json, application/x-parquet "
        "or application/vnd.apache.arrow.stream",
    )

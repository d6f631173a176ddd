"""CSV and TSV files read into Arrow tables, every cell as a string.

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
  :data:`~croissant_lineage.croissant.limits.MAX_FIELD_CHARS` a :class:`SizeLimitError` (``CL-E008``).

Headerless CSV: a FileObject/FileSet may carry ``cl:csvColumns`` (a list of column
names); the file is then read without a header row. mlcroissant 1.1.1 ignores this
property and reads the first row as a header, so it cannot read such files.
"""


from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from croissant_lineage._io import read_text
from croissant_lineage.croissant import limits
from croissant_lineage.errors import DataError, InputError, SizeLimitError

__all__ = ["CleanCsv", "clean_csv", "csv_delimiter", "read_clean_csv_rows", "read_csv", "sniff_delimiter"]

csv.field_size_limit(limits.MAX_FIELD_CHARS)


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
                f"line {start}: a field is longer than {limits.MAX_FIELD_CHARS:,} characters",
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
    longer than :data:`~croissant_lineage.croissant.limits.MAX_FIELD_CHARS`.
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
    no field longer than :data:`~croissant_lineage.croissant.limits.MAX_FIELD_CHARS`. On such a file pyarrow and the
    standard library's strict reader find the same rows and cells.
    """
    head = clean_csv(raw, columns, delimiter)
    if head is None:
        return None
    return read_clean_csv_rows(head.raw, head.names, head.delimiter, skip_rows=1 if columns is None else 0)


def read_clean_csv_rows(raw: bytes, names: list[str], delimiter: str, *, skip_rows: int = 0) -> pa.Table | None:
    """The rows of clean CSV bytes (after ``skip_rows`` rows: the header) as string columns
    named ``names``, read by pyarrow; None when a row is not ``len(names)`` cells wide, a
    cell is not valid UTF-8 or is longer than :data:`~croissant_lineage.croissant.limits.MAX_FIELD_CHARS` (the tolerant reader
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
    if len(raw) > limits.MAX_FIELD_CHARS and any(
        (pc.max(pc.utf8_length(col)).as_py() or 0) > limits.MAX_FIELD_CHARS for col in table.columns
    ):
        return None
    return pa.table(
        {name: table.column(slot).combine_chunks() for name, slot in zip(names, slots, strict=True)}
    )


def csv_delimiter(fmt: str) -> str | None:
    """The delimiter of a CSV ``encodingFormat`` (lower-cased, without parameters): a tab for
    ``text/tab-separated-values``, None (sniffed per file) for ``text/csv``."""
    return "\t" if fmt.endswith("values") else None


def read_csv(path: Path, columns: list[str] | None, delimiter: str | None) -> pa.Table:
    fast = _read_clean_csv(limits.read_bounded(path), columns, delimiter)
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



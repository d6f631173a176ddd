"""A dataset's files cut into shards that workers read apart: the Beam pipeline's read step.

A shard is a piece of one data file that reads, alone, into exactly the records the whole
file gives for those rows:

* **Parquet**: a range of rows (``shard_rows`` at most), read batch by batch from the row
  groups it overlaps (a row group larger than a shard is not held whole);
* **CSV / TSV with a header row, JSON Lines**: a range of bytes ending at a line end
  (``shard_bytes``, a little more when a line is longer), the CSV's header line carried to
  each shard. A CSV cut is kept only where the standard library's strict reader parses the
  piece before it to its end outside any quoted field (a quoted field holding a newline
  is never cut); each piece's rows are counted when the shards are planned, so that every
  shard knows the file row of its first record (``_row``, which item id templates such as
  ``{subject}/{_row}`` read);
* **one shard per file**: a file no larger than a shard, and any file that cannot be cut
  safely: Arrow IPC and JSON (a list of records) files, headerless CSV (``cl:csvColumns``:
  the delimiter is sniffed from a file's first line), CSV whose header line is not one plain
  line, text that is not plain UTF-8 (stray bytes are decoded file-wide), holds NUL bytes or
  does not parse strictly, files over the reader's size cap;
* **the whole dataset** (read with :func:`~croissant_lineage.lineage.items.load_items`, as
  before): Hub datasets, a RecordSet whose fields read several files, and any dataset whose
  files cannot be listed (its error is then the reader's own).

A shard is read by writing it (the header line and its bytes, or its rows as Parquet) to a
scratch folder at the path the file has under the descriptor's base folder, and reading the
descriptor's RecordSet there with the library's own reader
(:func:`~croissant_lineage.croissant.records.read_record_set`): file names, field extraction
and type conversions are the reader's, unchanged. Its ``_row`` numbers are then moved by the
shard's first row. Types that a reader infers from the data (JSON Lines values) are inferred
per shard: the pipeline compares the shards' record schemas and reads a dataset whole when
they differ (see :mod:`croissant_lineage.beam.pipeline`).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from croissant_lineage.croissant.descriptor import CL_NS, Descriptor, read_descriptor
from croissant_lineage.croissant.records import ROW_COLUMN, read_record_set
from croissant_lineage.croissant.tables import (
    CSV_FORMATS,
    JSONL_FORMATS,
    MAX_DECOMPRESSED_BYTES,
    PARQUET_FORMATS,
    sniff_delimiter,
)
from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import DatasetSpec
from croissant_lineage.lineage.items import load_items

__all__ = ["SHARD_BYTES", "SHARD_ROWS", "Shard", "plan_shards", "read_shard"]

#: Largest text shard, in bytes (a shard ends at the first line end past it).
SHARD_BYTES = 16 * 1024 * 1024

#: Most rows of a Parquet shard.
SHARD_ROWS = 50_000


@dataclass(frozen=True)
class Shard:
    """One piece of a dataset to read.

    Attributes:
        dataset: The dataset's position among the spec's datasets with items.
        index: The shard's position in the dataset (shards in file, then row order).
        kind: ``"whole"`` (the dataset, through ``load_items``), ``"file"`` (one whole
            file), ``"rows"`` (Parquet rows ``start:stop``) or ``"bytes"`` (text bytes
            ``start:stop``).
        path: The data file (empty for ``"whole"``).
        rel: Its path relative to the descriptor's base folder.
        start, stop: The rows or bytes.
        first_row: The file row of the shard's first record.
        header: Bytes of the CSV header line to put before the shard (0: none).
    """

    dataset: int
    index: int
    kind: str
    path: str = ""
    rel: str = ""
    start: int = 0
    stop: int = 0
    first_row: int = 0
    header: int = 0


#: A CSV piece that does not parse is joined to the next ones up to this length (or four
#: shards): a quoted field may hold newlines, a broken file is not re-parsed for ever.
_MAX_JOINED = 1 << 20

#: A piece of one file: (kind, start, stop, first_row, header).
_Piece = tuple[str, int, int, int, int]


def _descriptor(spec: DatasetSpec, data_dir: str | None) -> Descriptor | None:
    """The dataset's descriptor as ``load_items`` reads it (None: read the dataset whole)."""
    if spec.hub_id is not None or spec.descriptor is None:
        return None
    base = Path(data_dir) if (spec.files_relative_to_data_dir and data_dir is not None) else None
    return read_descriptor(spec.descriptor, base_dir=base)


def plan_shards(
    spec: DatasetSpec,
    position: int,
    *,
    data_dir: str | None = None,
    allow_outside: bool = False,
    shard_bytes: int = SHARD_BYTES,
    shard_rows: int = SHARD_ROWS,
) -> list[Shard]:
    """The shards of one dataset, in reading order (never fails: a dataset whose files
    cannot be listed is one ``"whole"`` shard, whose reading raises the reader's error)."""
    whole = [Shard(position, 0, "whole")]
    try:
        desc = _descriptor(spec, data_dir)
        if desc is None:
            return whole
        rs = desc.record_set(spec.record_set)
        sources = sorted({f.source_file for f in rs.fields.values() if f.source_file})
        fnode = desc.files().get(sources[0]) if len(sources) == 1 else None
        if fnode is None:
            return whole
        paths = desc.local_paths(sources[0], allow_outside=allow_outside)
    except LineageError:
        return whole
    fmt = fnode.encoding_format.split(";")[0].strip().lower()
    headerless = any(k in fnode.node for k in ("cl:csvColumns", f"{CL_NS}csvColumns"))
    shards: list[Shard] = []
    for path in paths:
        rel = os.path.relpath(path, desc.base_dir).replace(os.sep, "/")
        if rel.startswith("../") or os.path.isabs(rel):
            return whole
        pieces = _cut(path, fmt, headerless, shard_bytes, shard_rows) or [("file", 0, 0, 0, 0)]
        for kind, start, stop, first_row, header in pieces:
            shards.append(Shard(position, len(shards), kind, str(path), rel, start, stop, first_row, header))
    if len(shards) <= 1:
        return whole
    return shards


def _cut(path: Path, fmt: str, headerless: bool, shard_bytes: int, shard_rows: int) -> list[_Piece] | None:
    """The pieces of one file, or None when it is read as one piece."""
    try:
        if fmt in PARQUET_FORMATS:
            return _cut_parquet(path, shard_rows)
        size = path.stat().st_size
        if size <= shard_bytes or size > MAX_DECOMPRESSED_BYTES:
            return None
        if fmt in JSONL_FORMATS:
            return _cut_text(path, shard_bytes, None)
        if fmt in CSV_FORMATS and not headerless:
            return _cut_text(path, shard_bytes, "\t" if fmt.endswith("values") else "")
    except (OSError, pa.ArrowException, ValueError):
        return None  # the reader meets the same problem and reports it
    return None


def _cut_parquet(path: Path, shard_rows: int) -> list[_Piece] | None:
    n = pq.ParquetFile(path).metadata.num_rows
    if n <= shard_rows:
        return None
    return [("rows", a, min(a + shard_rows, n), a, 0) for a in range(0, n, shard_rows)]


def _chunks(path: Path, shard_bytes: int) -> Iterator[tuple[int, bytes]]:
    """``(offset, bytes)`` pieces of a file of about ``shard_bytes``, each ending at a
    ``\\n`` (the last at the end of the file)."""
    offset, carry = 0, b""
    with path.open("rb") as fh:
        while True:
            block = fh.read(shard_bytes)
            data = carry + block
            if not block:
                if data:
                    yield offset, data
                return
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # a line longer than a shard: read on
                carry = data
                continue
            yield offset, data[:cut]
            offset += cut
            carry = data[cut:]


class _Uncuttable(Exception):
    """The file is read as one piece."""


def _cut_text(path: Path, shard_bytes: int, delimiter: str | None) -> list[_Piece] | None:
    """Pieces of a JSON Lines (``delimiter`` None) or CSV file (``""``: sniffed from the
    header line), with the rows of each counted as the reader counts them. A CSV piece
    that ends inside a quoted field (or does not parse) is joined to the next one; one
    that still does not parse at four shards' length (or 1 MiB) makes the file one piece."""
    pieces: list[_Piece] = []
    row = header = 0
    start, pending = 0, b""
    try:
        for offset, raw in _chunks(path, shard_bytes):
            if not pending:
                start = offset
            pending += raw
            if start == 0 and delimiter is not None and not header:
                header, delimiter = _csv_header(pending, delimiter)
            n = _count_piece(pending, start == 0, delimiter)
            if n is None:
                if len(pending) > max(4 * shard_bytes, _MAX_JOINED):
                    raise _Uncuttable
                continue
            if n > 0:  # a piece of blank lines only is no shard
                pieces.append(("bytes", start, start + len(pending), row, 0 if start == 0 else header))
            row += n
            pending = b""
    except (_Uncuttable, UnicodeDecodeError):
        return None
    if pending:  # the end of the file inside a quoted field: the reader reports it
        return None
    return pieces if len(pieces) > 1 else None


def _count_piece(raw: bytes, first: bool, delimiter: str | None) -> int | None:
    """Records of a piece as the reader reads them (None: a CSV piece that ends inside a
    quoted field, or does not parse strictly)."""
    if first:
        text = raw.decode("utf-8-sig")
    elif raw.startswith(b"\xef\xbb\xbf"):  # a reader drops a BOM at the start of a file only
        raise _Uncuttable
    else:
        text = raw.decode("utf-8")
    if "\x00" in text:
        raise _Uncuttable
    if delimiter is None:
        return _count_jsonl(text)
    try:
        return _count_csv(text, delimiter) - first
    except csv.Error:
        return None


def _csv_header(raw: bytes, delimiter: str) -> tuple[int, str]:
    """The header line's length in bytes (with its line end) and the delimiter."""
    end = raw.find(b"\n")
    line = raw[: end + 1] if end >= 0 else raw
    text = line.decode("utf-8-sig").rstrip("\n").removesuffix("\r")
    if not text.strip() or "\r" in text or text.count('"') % 2:
        raise _Uncuttable  # blank first line, bare \r line ends, a header with a quoted newline
    return len(line), delimiter or sniff_delimiter(text)


def _count_jsonl(text: str) -> int:
    """Records of a JSON Lines piece: its non-blank lines (as the reader skips blank ones)."""
    return sum(1 for line in text.split("\n") if line.strip())


def _count_csv(text: str, delimiter: str) -> int:
    """Rows of a CSV piece, blank ones skipped as the reader skips them; a piece that
    ends inside a quoted field raises :class:`csv.Error` (strict parsing)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    return sum(1 for r in reader if r and r != [""])


def read_shard(
    spec: DatasetSpec,
    shard: Shard,
    *,
    data_dir: str | None = None,
    allow_outside: bool = False,
    scratch: str | None = None,
) -> tuple[pa.Table, pa.Schema | None]:
    """One shard's items, and the schema of its records as the reader gave them.

    Returns:
        ``(items, schema)``: an ``ITEMS_SCHEMA`` table of the shard's rows (``source_row``
        the file's rows) and the record schema (None for a ``"whole"`` shard).

    Raises:
        LineageError: what the reader or ``load_items`` raises for these rows (its row
            numbers may be the shard's own: the pipeline re-reads the dataset whole to
            report an error).
    """
    if shard.kind == "whole":
        return load_items(spec, data_dir=data_dir, allow_outside=allow_outside), None
    desc = _descriptor(spec, data_dir)
    assert desc is not None  # a dataset with file shards has a descriptor
    with tempfile.TemporaryDirectory(prefix="shard-", dir=scratch) as tmp:
        target = Path(tmp) / shard.rel
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_piece(shard, target)
        mirror = dataclasses.replace(desc, base_dir=Path(tmp))
        records = read_record_set(mirror, spec.record_set, allow_outside=True)
    if shard.first_row:
        i = records.schema.get_field_index(ROW_COLUMN)
        moved = pc.add(records.column(i), pa.scalar(shard.first_row, pa.int64()))
        records = records.set_column(i, ROW_COLUMN, moved)
    return load_items(spec, records=records), records.schema


def _write_piece(shard: Shard, target: Path) -> None:
    """The shard as a file of the same format at ``target``."""
    if shard.kind == "file":
        target.symlink_to(Path(shard.path).resolve())
    elif shard.kind == "rows":
        _write_rows(Path(shard.path), shard.start, shard.stop, target)
    else:
        with open(shard.path, "rb") as fh:
            head = fh.read(shard.header) if shard.header else b""
            fh.seek(shard.start)
            target.write_bytes(head + fh.read(shard.stop - shard.start))


def _write_rows(path: Path, start: int, stop: int, target: Path) -> None:
    """Rows ``start:stop`` of a Parquet file as a Parquet file, read batch by batch from
    the row groups they overlap."""
    pf = pq.ParquetFile(path)
    md = pf.metadata
    groups, first, at = [], None, 0
    for g in range(md.num_row_groups):
        n = md.row_group(g).num_rows
        if at < stop and at + n > start:
            groups.append(g)
            first = at if first is None else first
        at += n
    at = first or 0
    batches = []
    for batch in pf.iter_batches(batch_size=min(65_536, stop - start), row_groups=groups):
        lo, hi = max(start - at, 0), min(stop - at, batch.num_rows)
        if hi > lo:
            batches.append(batch.slice(lo, hi - lo))
        at += batch.num_rows
        if at >= stop:
            break
    table = pa.Table.from_batches(batches, schema=pf.schema_arrow if not batches else batches[0].schema)
    pq.write_table(table, target, compression="none")

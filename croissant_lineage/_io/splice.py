"""A Parquet file written from tables and from row groups copied whole, as bytes, out of
another Parquet file of the same schema: rows a writer would decode and encode again
unchanged (a lineage's kept items) are copied without either.

The file is what :func:`~croissant_lineage._io.formats.atomic_write_parquet_groups`
writes of the same rows (the same schema and Arrow metadata, each table its own row group),
but for the copied groups: their column chunks are the source's bytes (its encodings and
compression), their offsets moved to where they now are. Same parts, same bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from croissant_lineage._io.atomic import atomic_writer
from croissant_lineage._io.formats import _PARQUET_OPTIONS, _Sha256Writer
from croissant_lineage._io.parquet_footer import (
    Footer,
    Struct,
    encode_struct,
    field,
    footer_of,
    row_groups_of,
    set_field,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["RawGroups", "atomic_write_parquet_spliced", "copyable"]

_I16, _I64, _LIST, _STRUCT = 4, 6, 9, 12

#: Bytes copied at once.
_COPY_BYTES = 8 << 20


@dataclass(frozen=True)
class RawGroups:
    """Row groups ``first`` to ``stop`` (excluded) of the Parquet file ``path``, copied as bytes."""

    path: Path
    first: int
    stop: int


def _options(dictionary: Sequence[str] | None) -> dict[str, Any]:
    return _PARQUET_OPTIONS if dictionary is None else {**_PARQUET_OPTIONS, "use_dictionary": list(dictionary)}


def _encoded(schema: pa.Schema, tables: Iterable[pa.Table], options: dict[str, Any]) -> bytes:
    import io

    import pyarrow.parquet as pq

    buf = io.BytesIO()
    with pq.ParquetWriter(buf, schema, **options) as writer:
        for table in tables:
            writer.write_table(table)
    return buf.getvalue()


def _footer(data: bytes) -> Footer:
    return footer_of(data, len(data))


def _file_tail(path: Path) -> bytes:
    """The footer of the Parquet file ``path`` and its last 8 bytes."""
    size = path.stat().st_size
    with open(path, "rb") as fh:
        fh.seek(max(size - 8, 0))
        end = fh.read(8)
        if len(end) < 8 or end[4:] != b"PAR1":
            raise ValueError(f"{path}: not a Parquet file")
        (length,) = struct.unpack("<I", end[:4])
        if length + 8 > size:
            raise ValueError(f"{path}: not a Parquet file")
        fh.seek(size - 8 - length)
        return fh.read(length + 8)


def _file_footer(path: Path, until: int | None = None) -> Footer:
    tail = _file_tail(path)
    return footer_of(tail, path.stat().st_size, until)


def copyable(path: Path, schema: pa.Schema) -> bool:
    """True when the row groups of the Parquet file ``path`` can be copied into a file of
    ``schema`` (the same Parquet schema; no encryption)."""
    try:
        source = _file_footer(Path(path), until=2)  # (the schema; an encrypted footer is not PAR1's)
    except (OSError, ValueError, IndexError):
        return False
    template = _footer(_encoded(schema, [], _PARQUET_OPTIONS))
    return bool(field(source.meta, 2) == field(template.meta, 2))


def _chunk_span(chunk: Struct) -> tuple[int, int]:
    meta = field(chunk, 3)
    start = field(meta, 11)
    start = field(meta, 9) if start is None else min(start, field(meta, 9))
    return start, start + field(meta, 7)


def _moved(group: Struct, shift: int) -> Struct:
    """``group`` (a ``RowGroup``) with every file offset it holds moved by ``shift``."""
    chunks = [[_shifted(f, _CHUNK_OFFSETS, shift) if f[0] != 3 else [3, _STRUCT, [
        _shifted(m, _META_OFFSETS, shift) for m in f[2]]] for f in chunk] for chunk in field(group, 1)[1]]
    return [[1, _LIST, (_STRUCT, chunks)] if f[0] == 1 else _shifted(f, (5,), shift) for f in group]


#: The fields of a ``ColumnChunk`` that are file offsets (file_offset, offset_index_offset,
#: column_index_offset), and of a ``ColumnMetaData`` (data, index and dictionary page
#: offsets; bloom filter offset); a ``RowGroup``'s is its field 5.
_CHUNK_OFFSETS, _META_OFFSETS = (2, 4, 6), (9, 10, 11, 14)


def _shifted(f: list[Any], offsets: tuple[int, ...], shift: int) -> list[Any]:
    """Field ``f`` (the same list when it is no offset: the source's structs are not changed)."""
    return [f[0], _I64, f[2] + shift] if f[0] in offsets else f


def atomic_write_parquet_spliced(path: str | Path, schema: pa.Schema, parts: Iterable[pa.Table | RawGroups], *,
                                 dictionary: Sequence[str] | None = None) -> str:
    """Write ``parts`` in order to ``path`` atomically as one Parquet file: each table its
    own row group (written with the options of
    :func:`~croissant_lineage._io.formats.atomic_write_parquet_groups`), each
    :class:`RawGroups` its source's row groups, copied (check :func:`copyable` first).
    Returns the file's sha256 (hex).

    Raises:
        ValueError: a source whose Parquet schema is not ``schema``'s.
    """
    options = _options(dictionary)
    template = _footer(_encoded(schema, [], options))
    groups: list[bytes] = []  # (each row group's struct, moved and encoded)
    rows = 0
    with atomic_writer(path, "wb") as fh:
        out = _Sha256Writer(fh)
        out.write(b"PAR1")
        for part in parts:
            if isinstance(part, RawGroups):
                rows += _copy(part, template, out, groups)
                continue
            data = _encoded(schema, [part], options)
            footer = _footer(data)
            shift = out.tell() - 4
            out.write(memoryview(data)[4:footer.start])
            for g in footer.row_groups:
                rows += field(g, 3)
                groups.append(_finished(g, shift, len(groups)))
            del data
        meta = [list(f) for f in template.meta]
        set_field(meta, 3, _I64, rows)
        set_field(meta, 4, _LIST, (_STRUCT, groups))
        footer_bytes = encode_struct(meta)
        out.write(footer_bytes)
        out.write(struct.pack("<I", len(footer_bytes)) + b"PAR1")
        return out.hexdigest()


def _finished(group: Struct, shift: int, ordinal: int) -> bytes:
    """``group`` moved by ``shift``, its ordinal (if it has one) ``ordinal``, encoded."""
    moved = _moved(group, shift)
    return encode_struct([[7, _I16, ordinal] if f[0] == 7 else f for f in moved])


def _copy(part: RawGroups, template: Footer, out: _Sha256Writer, groups: list[bytes]) -> int:
    """Copy ``part``'s row groups to ``out`` and their structs, moved and encoded, to
    ``groups``; returns their rows. The groups are decoded one at a time (twice: the
    first and last give the bytes to copy, then each is moved)."""
    if part.stop <= part.first:
        return 0
    tail = _file_tail(part.path)
    if field(footer_of(tail, len(tail), until=2).meta, 2) != field(template.meta, 2):
        raise ValueError(f"{part.path}: its Parquet schema is not the file's")
    ends = [*row_groups_of(tail, part.first, part.first + 1), *row_groups_of(tail, part.stop - 1, part.stop)]
    if len(ends) < 2:
        raise ValueError(f"{part.path}: holds no row groups {part.first} to {part.stop}")
    lo = min(_chunk_span(c)[0] for c in field(ends[0], 1)[1])
    hi = max(_chunk_span(c)[1] for c in field(ends[-1], 1)[1])
    shift = out.tell() - lo
    with open(part.path, "rb") as fh:
        fh.seek(lo)
        left = hi - lo
        while left:
            piece = fh.read(min(left, _COPY_BYTES))
            if not piece:
                raise ValueError(f"{part.path}: shorter than its footer says")
            out.write(piece)
            left -= len(piece)
    rows = 0
    for g in row_groups_of(tail, part.first, part.stop):
        if any(not lo <= s <= e <= hi for s, e in (_chunk_span(c) for c in field(g, 1)[1])):
            raise ValueError(f"{part.path}: its row groups are not one after another")
        rows += field(g, 3)
        groups.append(_finished(g, shift, len(groups)))
    return rows

"""A Parquet file's footer (``FileMetaData``) read and written as Thrift compact-protocol
structs, generically: what copying row groups between files needs (their byte ranges, their
offsets moved), and nothing that interprets the data.

A struct is a list of ``[field id, type, value]`` in the order read (unknown fields are kept
and written back as they were); a list is ``(element type, [values])``; a map
``(key type, value type, [(key, value)])``. :func:`encode_struct` writes back the bytes
:func:`decode_struct` read.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

__all__ = [
    "Footer", "decode_struct", "encode_struct", "field", "footer_of", "footer_spans", "put_varint", "row_groups_of",
    "set_field",
]

_STOP, _TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(13)

Struct = list  # [[field id, type, value], ...]


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def byte(self) -> int:
        b = self.data[self.at]
        self.at += 1
        return b

    def varint(self) -> int:
        data, at = self.data, self.at
        b = data[at]
        if b < 0x80:  # (most values: one byte)
            self.at = at + 1
            return b
        shift = out = 0
        while True:
            b = data[at]
            at += 1
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                self.at = at
                return out
            shift += 7

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int) -> Any:
        if kind in (_I32, _I64, _I16):  # (the most frequent first)
            n = self.varint()
            return (n >> 1) ^ -(n & 1)
        if kind == _STRUCT:
            return self.struct()
        if kind in (_TRUE, _FALSE):  # (a bool in a list or map: one byte)
            return self.byte() == 1
        if kind == _BYTE:
            return self.byte()
        if kind == _DOUBLE:
            self.at += 8
            return self.data[self.at - 8:self.at]
        if kind == _BINARY:
            n = self.varint()
            self.at += n
            return self.data[self.at - n:self.at]
        if kind in (_LIST, _SET):
            head = self.byte()
            size, elem = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return (elem, [self.value(elem) for _ in range(size)])
        if kind == _MAP:
            size = self.varint()
            if not size:
                return (0, 0, [])
            kv = self.byte()
            return (kv >> 4, kv & 0x0F, [(self.value(kv >> 4), self.value(kv & 0x0F)) for _ in range(size)])
        raise ValueError(f"unknown Thrift compact type {kind}")

    def skip(self, kind: int) -> None:
        """Past a value of ``kind``, nothing built (what finding byte ranges needs)."""
        if kind in (_I32, _I64, _I16):
            self.varint()
        elif kind == _STRUCT:
            self.skip_struct()
        elif kind in (_TRUE, _FALSE, _BYTE):  # (a bool in a list or map: one byte)
            self.at += 1
        elif kind == _DOUBLE:
            self.at += 8
        elif kind == _BINARY:
            n = self.varint()
            self.at += n
        elif kind in (_LIST, _SET):
            head = self.byte()
            size, elem = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            for _ in range(size):
                self.skip(elem)
        elif kind == _MAP:
            size = self.varint()
            if size:
                kv = self.byte()
                for _ in range(size):
                    self.skip(kv >> 4)
                    self.skip(kv & 0x0F)
        else:
            raise ValueError(f"unknown Thrift compact type {kind}")

    def skip_struct(self) -> None:
        data = self.data
        while True:
            head = data[self.at]
            self.at += 1
            if head == _STOP:
                return
            if not head >> 4:  # (a long field header: the id follows)
                self.varint()
            if head & 0x0F not in (_TRUE, _FALSE):  # (a bool field's value is in its header)
                self.skip(head & 0x0F)

    def struct(self, until: int | None = None) -> Struct:
        fields: Struct = []
        last = 0
        data = self.data
        while True:
            head = data[self.at]
            self.at += 1
            if head == _STOP:
                return fields
            kind, delta = head & 0x0F, head >> 4
            fid = last + delta if delta else self.zigzag()
            if until is not None and fid > until:  # (the fields up to ``until`` alone)
                return fields
            if kind in (_I32, _I64) and data[self.at] < 0x80:  # (a small integer: one byte, read here)
                n = data[self.at]
                self.at += 1
                fields.append([fid, kind, (n >> 1) ^ -(n & 1)])
            elif kind in (_TRUE, _FALSE):
                fields.append([fid, _TRUE, kind == _TRUE])
            else:
                fields.append([fid, kind, self.value(kind)])
            last = fid


def put_varint(out: bytearray, n: int) -> None:
    """Append ``n`` (unsigned) as a varint."""
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _encode_value(kind: int, value: Any, out: bytearray) -> None:
    if kind in (_I32, _I64, _I16):  # (the most frequent first)
        put_varint(out, (value << 1) ^ (value >> 63))
    elif kind == _STRUCT:
        if isinstance(value, (bytes, bytearray)):  # (a struct encoded already)
            out += value
        else:
            _encode_struct(value, out)
    elif kind in (_TRUE, _FALSE):
        out.append(1 if value else 2)  # (within a list or map)
    elif kind == _BYTE:
        out.append(value & 0xFF)
    elif kind == _DOUBLE:
        out += value
    elif kind == _BINARY:
        put_varint(out, len(value))
        out += value
    elif kind in (_LIST, _SET):
        elem, values = value
        out.append((len(values) << 4 | elem) if len(values) < 15 else (0xF0 | elem))
        if len(values) >= 15:
            put_varint(out, len(values))
        for v in values:
            _encode_value(elem, v, out)
    elif kind == _MAP:
        kt, vt, pairs = value
        put_varint(out, len(pairs))
        if pairs:
            out.append(kt << 4 | vt)
            for k, v in pairs:
                _encode_value(kt, k, out)
                _encode_value(vt, v, out)
    else:
        raise ValueError(f"unknown Thrift compact type {kind}")


def _encode_struct(fields: Struct, out: bytearray) -> None:
    last = 0
    for fid, kind, value in fields:
        wire = (_TRUE if value else _FALSE) if kind == _TRUE else kind
        delta = fid - last
        if 0 < delta <= 15:
            out.append(delta << 4 | wire)
        else:
            out.append(wire)
            put_varint(out, (fid << 1) ^ (fid >> 63))
        if kind != _TRUE:
            _encode_value(kind, value, out)
        last = fid
    out.append(_STOP)


def decode_struct(data: bytes, until: int | None = None) -> Struct:
    """The struct at the start of ``data`` (its fields up to id ``until``, when given)."""
    return _Reader(data).struct(until)


def encode_struct(fields: Struct) -> bytes:
    out = bytearray()
    _encode_struct(fields, out)
    return bytes(out)


def field(fields: Struct, fid: int, default: Any = None) -> Any:
    """The value of field ``fid`` (``default`` when absent)."""
    for f in fields:
        if f[0] == fid:
            return f[2]
    return default


def set_field(fields: Struct, fid: int, kind: int, value: Any) -> None:
    """Set field ``fid`` (added in id order when absent)."""
    for f in fields:
        if f[0] == fid:
            f[1], f[2] = kind, value
            return
    fields.append([fid, kind, value])
    fields.sort(key=lambda f: f[0])


class Footer:
    """The footer of a Parquet file's bytes: ``meta`` (the ``FileMetaData`` struct) and
    ``start``, where it begins (the column chunks end there)."""

    def __init__(self, meta: Struct, start: int):
        self.meta, self.start = meta, start

    @property
    def row_groups(self) -> list[Struct]:
        groups: list[Struct] = field(self.meta, 4, (_STRUCT, []))[1]
        return groups


def row_groups_of(tail: bytes, first: int, stop: int) -> Iterator[Struct]:
    """The ``RowGroup`` structs ``first`` to ``stop`` (excluded) of the footer at the end of
    ``tail`` (see :func:`footer_of`), decoded one at a time (a large file's footer is never
    held decoded whole).

    Raises:
        ValueError: not a Parquet file's end, or a footer longer than ``tail``.
    """
    footer = footer_of(tail, len(tail), until=3)  # (checks the ends; the fields before the row groups)
    reader = _Reader(tail[footer.start:-8])
    last = 0
    while True:  # (to field 4, the row groups, skipping the fields before it)
        head = reader.byte()
        if head == _STOP:
            return
        kind, delta = head & 0x0F, head >> 4
        fid = last + delta if delta else reader.zigzag()
        if fid == 4:
            break
        if kind not in (_TRUE, _FALSE):
            reader.value(kind)
        last = fid
    head = reader.byte()
    size = head >> 4 if head >> 4 != 15 else reader.varint()
    for g in range(min(stop, size)):
        group = reader.struct()
        if g >= first:
            yield group


def footer_of(tail: bytes, size: int, until: int | None = None) -> Footer:
    """The footer of a Parquet file of ``size`` bytes whose last bytes are ``tail`` (they
    must hold the whole footer); its fields up to id ``until`` alone, when given.

    Raises:
        ValueError: not a Parquet file's end, or a footer longer than ``tail``.
    """
    if tail[-4:] != b"PAR1":
        raise ValueError("not a Parquet file (no PAR1 at its end)")
    (length,) = struct.unpack("<I", tail[-8:-4])
    if length + 8 > len(tail):
        raise ValueError("the footer is longer than the bytes read")
    return Footer(decode_struct(tail[-8 - length:-8], until), size - 8 - length)


def footer_spans(footer: bytes) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, int]]]:
    """Where the parts of a footer's bytes (its ``FileMetaData`` alone) are, nothing decoded:
    each top-level field as (field id, header start, value start, end), and each row group of
    field 4 as (start, end).

    Raises:
        ValueError: not a Thrift compact struct.
    """
    reader = _Reader(footer)
    fields: list[tuple[int, int, int, int]] = []
    groups: list[tuple[int, int]] = []
    last = 0
    try:
        while True:
            start = reader.at
            head = reader.byte()
            if head == _STOP:
                return fields, groups
            kind, delta = head & 0x0F, head >> 4
            fid = last + delta if delta else reader.zigzag()
            value = reader.at
            if fid == 4 and kind == _LIST:  # row_groups: list<RowGroup>
                head = reader.byte()
                size = head >> 4 if head >> 4 != 15 else reader.varint()
                for _ in range(size):
                    at = reader.at
                    reader.skip_struct()
                    groups.append((at, reader.at))
            elif kind not in (_TRUE, _FALSE):
                reader.skip(kind)
            fields.append((fid, start, value, reader.at))
            last = fid
    except IndexError:
        raise ValueError("not a Parquet footer: its bytes end inside a struct") from None

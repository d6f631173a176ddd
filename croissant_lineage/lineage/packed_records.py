"""The items' raw records held zstd-compressed between loading and writing.

A million synthetic items carry 462 MB of raw-record JSON (the ``record`` column of
:data:`~croissant_lineage.lineage.schema.ITEMS_SCHEMA`), which nothing reads while a family
is linked except the few fields a link rule names. :class:`PackedRecords` keeps one
dataset's column as zstd-compressed Arrow buffers, :data:`CHUNK_ROWS` rows a part (151 MB
for those 462), and gives back exactly the strings it was given: by part (:meth:`chunks`,
what a link rule's field reader walks) or whole (:meth:`array`, one Arrow array, as the
items table holds it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

__all__ = ["CHUNK_ROWS", "PackedRecords"]

#: Rows per compressed part.
CHUNK_ROWS = 1 << 16

#: zstd at level 1: 3x smaller JSON at ~150 MB/s, read back at ~500 MB/s.
_CODEC = pa.Codec("zstd", compression_level=1)


@dataclass(frozen=True)
class _Buffer:
    """One compressed Arrow buffer and its size before compression."""

    data: bytes
    size: int

    @classmethod
    def of(cls, buf: pa.Buffer) -> _Buffer:
        # As bytes: the Buffer that ``compress`` returns keeps the allocation of the
        # worst case (the input's size) however small the output.
        return cls(_CODEC.compress(buf, asbytes=True), buf.size)

    def get(self) -> pa.Buffer:
        return _CODEC.decompress(self.data, self.size)


@dataclass(frozen=True)
class _Part:
    """One string array's validity, offsets and data, compressed."""

    length: int
    null_count: int
    validity: _Buffer | None
    offsets: _Buffer
    data: _Buffer

    @classmethod
    def of(cls, arr: pa.Array) -> _Part:
        if arr.offset:  # a slice: its own buffers from offset 0
            arr = pa.concat_arrays([arr])
        validity, offsets, data = arr.buffers()
        n = len(arr)
        offsets = offsets.slice(0, (n + 1) * 4)
        end = int.from_bytes(offsets.to_pybytes()[-4:], "little", signed=True) if n else 0
        return cls(
            n,
            arr.null_count,
            _Buffer.of(validity) if (validity is not None and arr.null_count) else None,
            _Buffer.of(offsets),
            _Buffer.of(data.slice(0, end) if data is not None else pa.py_buffer(b"")),
        )

    def array(self) -> pa.Array:
        validity = self.validity.get() if self.validity is not None else None
        return pa.StringArray.from_buffers(
            self.length, self.offsets.get(), self.data.get(), validity, self.null_count
        )

    @property
    def nbytes(self) -> int:
        return sum(len(b.data) for b in (self.validity, self.offsets, self.data) if b is not None)


class PackedRecords:
    """One dataset's ``record`` column (strings), compressed in parts.

    Args:
        arrays: The column's values, in row order, as string arrays (any split).
    """

    __slots__ = ("_parts",)

    def __init__(self, arrays: Iterable[pa.Array | pa.ChunkedArray]):
        parts: list[_Part] = []
        for arr in arrays:
            chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
            for chunk in chunks:
                chunk = chunk.cast(pa.string())
                parts.extend(_Part.of(chunk.slice(s, CHUNK_ROWS)) for s in range(0, len(chunk), CHUNK_ROWS))
        self._parts = tuple(parts)

    def __len__(self) -> int:
        return sum(p.length for p in self._parts)

    @property
    def nbytes(self) -> int:
        """Bytes held (compressed)."""
        return sum(p.nbytes for p in self._parts)

    def chunks(self, start: int = 0, stop: int | None = None) -> Iterator[pa.Array]:
        """The values (rows ``start`` to ``stop``, all by default), one decompressed part
        (up to :data:`CHUNK_ROWS` rows) at a time; only the parts those rows are in, cut
        to them."""
        at = 0
        for p in self._parts:
            lo, hi = max(start - at, 0), p.length if stop is None else min(stop - at, p.length)
            if lo < hi:  # (no part is empty)
                part = p.array()
                yield part if (lo, hi) == (0, p.length) else part.slice(lo, hi - lo)
            at += p.length

    def array(self) -> pa.Array:
        """The values as one string array (a new copy each call), built in place: one
        part is decompressed at a time."""
        if not self._parts:
            return pa.array([], pa.string())
        if len(self._parts) == 1 or any(p.null_count for p in self._parts):
            return pa.concat_arrays(list(self.chunks()))
        n = len(self)
        offsets = np.empty(n + 1, np.int32)
        data = np.empty(sum(p.data.size for p in self._parts), np.uint8)
        row = end = 0
        offsets[0] = 0
        for p in self._parts:
            part_offsets = np.frombuffer(p.offsets.get(), np.int32)
            offsets[row + 1 : row + p.length + 1] = part_offsets[1:] + end
            data[end : end + p.data.size] = np.frombuffer(p.data.get(), np.uint8)
            row, end = row + p.length, end + p.data.size
        return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))

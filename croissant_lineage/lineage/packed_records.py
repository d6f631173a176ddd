"""The items' raw records held zstd-compressed between loading and writing.

A million synthetic items carry 462 MB of raw-record JSON (the ``record`` column of
:data:`~croissant_lineage.lineage.schema.ITEMS_SCHEMA`), which nothing reads while a family
is linked except the few fields a link rule names. :class:`PackedRecords` keeps one
dataset's column as zstd-compressed Arrow buffers, :data:`CHUNK_ROWS` rows a part (151 MB
for those 462), and gives back exactly the strings it was given: by part (:meth:`chunks`,
what a link rule's field reader walks) or whole (:meth:`array`, one Arrow array, as the
items table holds it).

A dataset whose compressed records pass :data:`SPILL_FROM` bytes moves its further parts to
a temporary file (:class:`_SpillFile`, unnamed in the system's temporary folder, gone when
the records are freed): at ten million items the packed records were 1.5 GB of the link's
memory. Parts are read back with ``pread`` when asked for; if the file cannot be made or
written (no space), the parts stay in memory.

A dataset whose records take at most :data:`PLAIN_UP_TO` bytes is held as it was given,
uncompressed (the same parts, their buffers held as they are): compressing and decompressing
a small dataset's records costs CPU (a sixth of loading the MMLU family) to save memory that
does not matter at that size.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

__all__ = ["CHUNK_ROWS", "PLAIN_UP_TO", "SPILL_FROM", "PackedRecords"]

#: Rows per compressed part.
CHUNK_ROWS = 1 << 16

#: Compressed bytes of one dataset's records kept in memory; the parts after them go to a
#: temporary file (None: never). The MMLU family's largest dataset packs to 2.6 MB.
SPILL_FROM: int | None = 4 << 20

#: Bytes of one dataset's records (uncompressed) held as they are, not compressed (None:
#: always compressed). A dataset past them is compressed whole: at most this many bytes are
#: held uncompressed at once. The MMLU family's largest dataset takes 12.1 MB.
PLAIN_UP_TO: int | None = 16 << 20

#: zstd at level 1: 3x smaller JSON at ~150 MB/s, read back at ~500 MB/s.
_CODEC = pa.Codec("zstd", compression_level=1)


class _SpillFile:
    """An unnamed temporary file that compressed buffers are appended to and read back
    from (``pwrite`` / ``pread``: no shared position); deleted when closed or collected."""

    __slots__ = ("_end", "_file")

    def __init__(self) -> None:
        # Open for the records' lifetime (closed, and so deleted, when they are collected).
        self._file = tempfile.TemporaryFile(prefix="croissant-lineage-records-")  # noqa: SIM115
        self._end = 0

    def put(self, data: bytes) -> int:
        """Append ``data``; returns its offset. Raises OSError when it cannot be written."""
        at, view = self._end, memoryview(data)
        while view:
            view = view[os.pwrite(self._file.fileno(), view, self._end) :]
            self._end = at + len(data) - len(view)
        return at

    def get(self, offset: int, size: int) -> bytes:
        """The ``size`` bytes written at ``offset``."""
        out = bytearray()
        while len(out) < size:
            got = os.pread(self._file.fileno(), size - len(out), offset + len(out))
            if not got:
                raise OSError(f"spilled records cut short at byte {offset + len(out)}")
            out += got
        return bytes(out)


@dataclass(frozen=True)
class _Buffer:
    """One Arrow buffer, held zstd-compressed or as it is, and its size before compression.

    Attributes:
        data: The bytes held (empty when spilled): compressed, or the buffer itself.
        size: The buffer's size before compression.
        stored: The size held (``size`` when not compressed).
        plain: Held as it is, not compressed.
        spill, offset: Where the compressed bytes were moved to (None: in ``data``).
    """

    data: bytes | pa.Buffer
    size: int
    stored: int
    plain: bool = False
    spill: _SpillFile | None = None
    offset: int = 0

    @classmethod
    def of(cls, buf: pa.Buffer, *, compress: bool = True) -> _Buffer:
        if not compress:
            return cls(buf, buf.size, buf.size, plain=True)
        # As bytes: the Buffer that ``compress`` returns keeps the allocation of the
        # worst case (the input's size) however small the output.
        data = _CODEC.compress(buf, asbytes=True)
        return cls(data, buf.size, len(data))

    def held(self) -> bytes | pa.Buffer:
        """The bytes held (read back from the spill file when spilled)."""
        return self.data if self.spill is None else self.spill.get(self.offset, self.stored)

    def spilled_to(self, spill: _SpillFile) -> _Buffer:
        """This buffer moved to ``spill`` (itself when already spilled)."""
        if self.spill is not None:
            return self
        return _Buffer(b"", self.size, self.stored, self.plain, spill, spill.put(self.data))

    def get(self) -> pa.Buffer:
        held = self.held()
        if self.plain:
            return held if isinstance(held, pa.Buffer) else pa.py_buffer(held)
        return _CODEC.decompress(held, self.size)

    def __reduce__(self) -> tuple[type[_Buffer], tuple[bytes | pa.Buffer, int, int, bool]]:
        # Pickled in memory: a spill file is this process's.
        return (_Buffer, (self.held(), self.size, self.stored, self.plain))


@dataclass(frozen=True)
class _Part:
    """One string array's validity, offsets and data, compressed or held as they are."""

    length: int
    null_count: int
    validity: _Buffer | None
    offsets: _Buffer
    data: _Buffer

    @classmethod
    def of(cls, arr: pa.Array, *, compress: bool = True) -> _Part:
        if arr.offset:  # a slice: its own buffers from offset 0
            arr = pa.concat_arrays([arr])
        validity, offsets, data = arr.buffers()
        n = len(arr)
        offsets = offsets.slice(0, (n + 1) * 4)
        end = int.from_bytes(offsets.slice(n * 4, 4).to_pybytes(), "little", signed=True) if n else 0
        return cls(
            n,
            arr.null_count,
            _Buffer.of(validity, compress=compress) if (validity is not None and arr.null_count) else None,
            _Buffer.of(offsets, compress=compress),
            _Buffer.of(data.slice(0, end) if data is not None else pa.py_buffer(b""), compress=compress),
        )

    def array(self) -> pa.Array:
        validity = self.validity.get() if self.validity is not None else None
        return pa.StringArray.from_buffers(
            self.length, self.offsets.get(), self.data.get(), validity, self.null_count
        )

    @property
    def nbytes(self) -> int:
        return sum(b.stored for b in self._buffers())

    @property
    def memory(self) -> int:
        """Bytes held in memory (not spilled)."""
        return sum(len(b.data) for b in self._buffers())

    def _buffers(self) -> list[_Buffer]:
        return [b for b in (self.validity, self.offsets, self.data) if b is not None]

    def spilled_to(self, spill: _SpillFile) -> _Part:
        """This part with its buffers moved to ``spill``."""
        return _Part(
            self.length, self.null_count, None if self.validity is None else self.validity.spilled_to(spill),
            self.offsets.spilled_to(spill), self.data.spilled_to(spill),
        )


class _Spilling:
    """The parts of one :class:`PackedRecords` as they are made: in memory up to
    :data:`SPILL_FROM` compressed bytes, then moved to one spill file (kept in memory when
    the file cannot be made or written)."""

    def __init__(self) -> None:
        self.held = 0
        self.file: _SpillFile | None = None
        self.failed = False

    def part(self, part: _Part) -> _Part:
        if SPILL_FROM is None or self.failed or self.held + part.nbytes <= SPILL_FROM:
            self.held += part.nbytes
            return part
        try:
            if self.file is None:
                self.file = _SpillFile()
            return part.spilled_to(self.file)
        except OSError:  # no temporary folder, or no space left: keep it in memory
            self.failed = True
            self.held += part.nbytes
            return part


class PackedRecords:
    """One dataset's ``record`` column (strings), compressed in parts (held as they are
    when they take at most :data:`PLAIN_UP_TO` bytes).

    Args:
        arrays: The column's values, in row order, as string arrays (any split).
    """

    __slots__ = ("_parts",)

    def __init__(self, arrays: Iterable[pa.Array | pa.ChunkedArray]):
        parts: list[_Part] = []
        plain: list[pa.Array] | None = []  # the parts while they take at most PLAIN_UP_TO bytes
        held = 0
        spilling = _Spilling()
        for piece in _pieces(arrays):
            if plain is None:
                parts.append(spilling.part(_Part.of(piece)))
                continue
            plain.append(piece)
            held += piece.nbytes
            if PLAIN_UP_TO is None or held > PLAIN_UP_TO:  # too big: all compressed
                parts.extend(spilling.part(_Part.of(p)) for p in plain)
                plain = None
        self._parts = tuple(parts) if plain is None else tuple(_Part.of(p, compress=False) for p in plain)

    def __len__(self) -> int:
        return sum(p.length for p in self._parts)

    @property
    def nbytes(self) -> int:
        """Bytes held (compressed, unless held plain), in memory or spilled."""
        return sum(p.nbytes for p in self._parts)

    @property
    def memory(self) -> int:
        """Bytes held in memory (the rest are in a temporary file)."""
        return sum(p.memory for p in self._parts)

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
        """The values as one string array (of compressed parts, a new copy each call), built
        in place: one part is decompressed at a time."""
        if not self._parts:
            return pa.array([], pa.string())
        if len(self._parts) == 1:
            return self._parts[0].array()
        if any(p.null_count for p in self._parts):
            return pa.concat_arrays(list(self.chunks()))
        parts = self._parts
        n = len(self)
        offsets = np.empty(n + 1, np.int32)
        data = np.empty(sum(p.data.size for p in parts), np.uint8)
        row = end = 0
        offsets[0] = 0
        for p in parts:
            part_offsets = np.frombuffer(p.offsets.get(), np.int32)
            offsets[row + 1 : row + p.length + 1] = part_offsets[1:] + end
            data[end : end + p.data.size] = np.frombuffer(p.data.get(), np.uint8)
            row, end = row + p.length, end + p.data.size
        return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data))


def _pieces(arrays: Iterable[pa.Array | pa.ChunkedArray]) -> Iterator[pa.Array]:
    """The string arrays of ``arrays`` cut into parts of at most :data:`CHUNK_ROWS` rows."""
    for arr in arrays:
        for chunk in arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]:
            chunk = chunk.cast(pa.string())
            yield from (chunk.slice(s, CHUNK_ROWS) for s in range(0, len(chunk), CHUNK_ROWS))

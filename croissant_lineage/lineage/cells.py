"""Single values of Arrow columns, read from their buffers.

A query reads a few cells of a million-row table. ``array[i].as_py()`` builds an Arrow
scalar first (~2 microseconds a value, more on a chunked column); converting whole
columns to Python lists costs a Python object per cell. :func:`cell_reader` gives a
function ``i -> array[i].as_py()`` that reads the array's buffers through memoryviews
(no copy): strings, integers, floats, booleans and lists of them; any other type falls
back to ``as_py``. :class:`Rows` reads rows of a few columns of a chunked table.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

__all__ = ["Rows", "cell_reader"]

Reader = Callable[[int], Any]

#: memoryview formats of Arrow's fixed-width numbers (little-endian, as this machine).
_FORMATS = {
    pa.int8(): "b", pa.int16(): "h", pa.int32(): "i", pa.int64(): "q",
    pa.uint8(): "B", pa.uint16(): "H", pa.uint32(): "I", pa.uint64(): "Q",
    pa.float32(): "f", pa.float64(): "d",
}


def _view(buffer: pa.Buffer | None, fmt: str, count: int) -> memoryview:
    """The first ``count`` values of ``buffer`` as a memoryview of format ``fmt``."""
    raw = memoryview(buffer if buffer is not None else b"").cast("B")
    return raw[: count * struct.calcsize(fmt)].cast(fmt)  # type: ignore[call-overload]


def _values(array: pa.Array) -> Reader | None:
    """A reader of the valid cells of ``array`` (None for an unsupported type)."""
    t, base, n = array.type, array.offset, len(array) + array.offset
    buffers = array.buffers()
    if t in _FORMATS:
        numbers = _view(buffers[1], _FORMATS[t], n)
        return lambda i: numbers[base + i]
    if t == pa.bool_():
        bits = _view(buffers[1], "B", (n + 7) // 8)
        return lambda i: bool(bits[(base + i) >> 3] >> ((base + i) & 7) & 1)
    if t in (pa.string(), pa.large_string()):
        offsets = _view(buffers[1], "i" if t == pa.string() else "q", n + 1)
        data = memoryview(buffers[2] if buffers[2] is not None else b"")
        return lambda i: str(data[offsets[base + i] : offsets[base + i + 1]], "utf-8")
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        starts = _view(buffers[1], "i" if pa.types.is_list(t) else "q", n + 1)
        item = cell_reader(array.values)
        return lambda i: [item(j) for j in range(starts[base + i], starts[base + i + 1])]
    return None


def cell_reader(array: pa.Array) -> Reader:
    """A function giving ``array[i].as_py()`` for row ``i`` (0 <= i < len(array)) of an
    Arrow array, reading its buffers (strings, numbers, booleans, lists of them)."""
    get = _values(array)
    if get is None:
        return lambda i: array[i].as_py()
    if not array.null_count:
        return get
    valid = _view(array.buffers()[0], "B", (array.offset + len(array) + 7) // 8)
    base = array.offset
    return lambda i: get(i) if valid[(base + i) >> 3] >> ((base + i) & 7) & 1 else None


class Rows:
    """Rows of some columns of a (chunked) table, each row's values as a tuple.

    Args:
        table: The table.
        columns: The columns read, in the order of each row's tuple.
    """

    __slots__ = ("_readers", "_starts")

    def __init__(self, table: pa.Table, columns: Sequence[str]):
        # Batches share their chunking across columns: the row's batch is found once.
        batches = table.select(list(columns)).to_batches()
        self._starts = [0]
        for b in batches:
            self._starts.append(self._starts[-1] + b.num_rows)
        self._readers = [[cell_reader(c) for c in b.columns] for b in batches]

    def row(self, i: int) -> tuple[Any, ...]:
        """The values of row ``i`` (0 <= i < the table's rows)."""
        k = bisect.bisect_right(self._starts, i) - 1
        at = i - self._starts[k]
        return tuple([read(at) for read in self._readers[k]])

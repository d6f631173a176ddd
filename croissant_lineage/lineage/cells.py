"""Single values of Arrow columns, read from their buffers.

A query reads a few cells of a million-row table. ``array[i].as_py()`` builds an Arrow
scalar first (~2 microseconds a value, more on a chunked column); converting whole
columns to Python lists costs a Python object per cell. :func:`cell_reader` gives a
function ``i -> array[i].as_py()`` that reads the array's buffers through memoryviews
(no copy): strings, integers, floats, booleans and lists of them; any other type falls
back to ``as_py``. :class:`Rows` reads rows of a few columns of a chunked table;
:class:`CodedRows`, rows of columns of few distinct values through one code a row.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["CODED_VALUES", "CodedRows", "Rows", "cell_reader", "few_valued_rows"]

Reader = Callable[[int], Any]

#: memoryview formats of Arrow's fixed-width numbers (little-endian, as this machine).
_FORMATS = {
    pa.int8(): "b", pa.int16(): "h", pa.int32(): "i", pa.int64(): "q",
    pa.uint8(): "B", pa.uint16(): "H", pa.uint32(): "I", pa.uint64(): "Q",
    pa.float32(): "f", pa.float64(): "d",
}

#: :class:`CodedRows` codes fewer combinations than this (two bytes a row).
CODED_VALUES = 1 << 16


def _view(buffer: pa.Buffer | None, fmt: str, count: int) -> memoryview:
    """The first ``count`` values of ``buffer`` as a memoryview of format ``fmt``."""
    raw = memoryview(buffer if buffer is not None else b"").cast("B")
    return raw[: count * struct.calcsize(fmt)].cast(fmt)  # type: ignore[call-overload]


def _valid(array: pa.Array) -> memoryview | None:
    """The validity bits of ``array`` (None when it has no nulls)."""
    if not array.null_count:
        return None
    return _view(array.buffers()[0], "B", (array.offset + len(array) + 7) // 8)


def _numbers(array: pa.Array, fmt: str) -> Reader:
    base, valid = array.offset, _valid(array)
    numbers = _view(array.buffers()[1], fmt, base + len(array))[base:]
    if valid is None:
        return numbers.__getitem__
    return lambda i: numbers[i] if valid[(base + i) >> 3] >> ((base + i) & 7) & 1 else None


def _booleans(array: pa.Array) -> Reader:
    base, valid = array.offset, _valid(array)
    bits = _view(array.buffers()[1], "B", (base + len(array) + 7) // 8)
    if valid is None:
        return lambda i: bits[(base + i) >> 3] >> ((base + i) & 7) & 1 == 1
    return lambda i: (bits[(base + i) >> 3] >> ((base + i) & 7) & 1 == 1
                      if valid[(base + i) >> 3] >> ((base + i) & 7) & 1 else None)


def _text(array: pa.Array) -> tuple[memoryview, memoryview]:
    """The offsets (from the array's first value on) and the data of a string array."""
    buffers = array.buffers()
    offsets = _view(buffers[1], "i" if array.type == pa.string() else "q", array.offset + len(array) + 1)[array.offset:]
    return offsets, memoryview(buffers[2] if buffers[2] is not None else b"")


def _strings(array: pa.Array) -> Reader:
    base, valid = array.offset, _valid(array)
    offsets, data = _text(array)
    if valid is None:
        return lambda i: str(data[offsets[i] : offsets[i + 1]], "utf-8")
    return lambda i: str(data[offsets[i] : offsets[i + 1]], "utf-8") if valid[(base + i) >> 3] >> ((base + i) & 7) & 1 else None


def _text_lists(child: pa.Array, starts: memoryview) -> Reader:
    """Lists of strings (``child`` without nulls, ``starts`` its list offsets): the texts of a
    list decoded at once, then sliced when they are ASCII (a character a byte), else each
    decoded alone; an empty list read no further."""
    offsets, data = _text(child)

    def get(i: int) -> list[str]:
        a, b = starts[i], starts[i + 1]
        if a == b:
            return []
        lo, hi = offsets[a], offsets[b]
        whole = str(data[lo:hi], "utf-8")
        if len(whole) == hi - lo:
            ends = offsets[a : b + 1].tolist()
            return [whole[x - lo : y - lo] for x, y in pairwise(ends)]
        return [str(data[offsets[j] : offsets[j + 1]], "utf-8") for j in range(a, b)]

    return get


def _lists(array: pa.Array) -> Reader:
    """Lists, read as Python lists: a slice of the values' buffer when they are numbers or
    strings without nulls, else value by value."""
    base, child = array.offset, array.values  # (offsets index the whole child)
    starts = _view(array.buffers()[1], "i" if pa.types.is_list(array.type) else "q", base + len(array) + 1)[base:]
    get: Reader
    if child.type in _FORMATS and not child.null_count:
        values = _view(child.buffers()[1], _FORMATS[child.type], child.offset + len(child))[child.offset:]
        get = lambda i: values[starts[i] : starts[i + 1]].tolist()  # noqa: E731
    elif child.type in (pa.string(), pa.large_string()) and not child.null_count:
        get = _text_lists(child, starts)
    else:
        item = cell_reader(child)
        get = lambda i: [item(j) for j in range(starts[i], starts[i + 1])]  # noqa: E731
    valid = _valid(array)
    if valid is None:
        return get
    return lambda i: get(i) if valid[(base + i) >> 3] >> ((base + i) & 7) & 1 else None


def cell_reader(array: pa.Array) -> Reader:
    """A function giving ``array[i].as_py()`` for row ``i`` (0 <= i < len(array)) of an
    Arrow array, reading its buffers (strings, numbers, booleans, lists of them)."""
    t = array.type
    if t in _FORMATS:
        return _numbers(array, _FORMATS[t])
    if t == pa.bool_():
        return _booleans(array)
    if t in (pa.string(), pa.large_string()):
        return _strings(array)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _lists(array)
    return lambda i: array[i].as_py()


def _codes(column: pa.ChunkedArray) -> tuple[list[Any], np.ndarray]:
    """The distinct values of ``column`` and None after them (the code of a null), and each
    row's code (int64)."""
    encoded = pc.dictionary_encode(column)  # (one dictionary, grown chunk by chunk)
    values: list[Any] = encoded.chunk(encoded.num_chunks - 1).dictionary.to_pylist() if encoded.num_chunks else []
    codes = np.empty(len(column), np.int64)
    at = 0
    for chunk in encoded.chunks:
        codes[at : at + len(chunk)] = pc.fill_null(chunk.indices, len(values)).to_numpy(zero_copy_only=False)
        at += len(chunk)
    return [*values, None], codes


def _distinct(key: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` for keys below ``size``: by marking the keys
    seen when ``size`` is small (no sort), else by sorting."""
    if size > max(1 << 22, 4 * len(key)):
        return np.unique(key, return_inverse=True)
    seen = np.zeros(size, np.bool_)
    seen[key] = True
    distinct = np.flatnonzero(seen)
    rank = np.cumsum(seen, dtype=np.int64) - 1
    return distinct, rank[key]


class CodedRows:
    """Rows of a few columns of few distinct values (names, kinds, small counts, flags),
    each row read through one code: its place among the distinct combinations of their
    values, a byte or two a row, each combination decoded once as a tuple.

    Args:
        table: The table.
        columns: The columns read (strings, integers or booleans), in the order of each
            row's tuple.

    Raises:
        ValueError: a column of another type, or :data:`CODED_VALUES` combinations or more
            (read such columns with :class:`Rows`).
    """

    __slots__ = ("_codes", "_rows")

    def __init__(self, table: pa.Table, columns: Sequence[str]):
        key = np.zeros(table.num_rows, np.int64)
        decoded, size = [], 1
        for c in columns:
            column = table.column(c)
            t = column.type
            if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t) or pa.types.is_boolean(t)):
                raise ValueError(f"column {c!r} of type {t} is not coded")
            values, codes = _codes(column)
            if size * len(values) >= 2**62:
                raise ValueError(f"too many combinations of {', '.join(columns)} to code")
            key += codes * size  # (mixed radix: the combination's number)
            decoded.append((values, size))
            size *= len(values)
        distinct, inverse = _distinct(key, size)
        if len(distinct) >= CODED_VALUES:
            raise ValueError(f"{len(distinct):,} combinations of {', '.join(columns)}: too many to code")
        self._rows = [tuple(values[k // radix % len(values)] for values, radix in decoded) for k in distinct.tolist()]
        self._codes = inverse.astype(np.uint8 if len(distinct) <= 256 else np.uint16).data

    def row(self, i: int) -> tuple[Any, ...]:
        """The values of row ``i`` (0 <= i < the table's rows)."""
        return self._rows[self._codes[i]]


def _uniform(array: pa.Array) -> Reader:
    """The reader of ``array``: a constant when it holds one value (not null) throughout."""
    if len(array) and not array.null_count and pc.all(pc.equal(array, array[0])).as_py():
        value = array[0].as_py()
        return lambda i: value
    return cell_reader(array)


def _row_reader(readers: Sequence[Reader]) -> Callable[[int], tuple[Any, ...]]:
    """``i -> tuple(read(i) for read in readers)``, for up to four readers without a loop."""
    if len(readers) == 2:
        a, b = readers
        return lambda i: (a(i), b(i))
    if len(readers) == 3:
        a, b, c = readers
        return lambda i: (a(i), b(i), c(i))
    if len(readers) == 4:
        a, b, c, d = readers
        return lambda i: (a(i), b(i), c(i), d(i))
    return lambda i: tuple([read(i) for read in readers])


class Rows:
    """Rows of some columns of a (chunked) table, each row's values as a tuple.

    Args:
        table: The table.
        columns: The columns read, in the order of each row's tuple.
        uniform: Those of ``columns`` likely to hold one value per batch (e.g. the
            dataset of items read from one file per dataset): in a batch where they
            do, their value is read once, not a row at a time.
    """

    __slots__ = ("_readers", "_starts")

    def __init__(self, table: pa.Table, columns: Sequence[str], uniform: Sequence[str] = ()):
        # Batches share their chunking across columns: the row's batch is found once.
        batches = table.select(list(columns)).to_batches()
        self._starts = [0]
        for b in batches:
            self._starts.append(self._starts[-1] + b.num_rows)
        self._readers = [
            _row_reader([_uniform(c) if name in uniform else cell_reader(c) for name, c in zip(columns, b.columns)])  # noqa: B905
            for b in batches
        ]

    def row(self, i: int) -> tuple[Any, ...]:
        """The values of row ``i`` (0 <= i < the table's rows)."""
        k = bisect.bisect_right(self._starts, i) - 1
        return self._readers[k](i - self._starts[k])


#: Rows up to which :func:`few_valued_rows` reads cells directly.
_FEW_ROWS = 1024


def few_valued_rows(table: pa.Table, columns: Sequence[str]) -> CodedRows | Rows:
    """Rows of ``columns`` (expected to have few distinct values) through one code a row
    (:class:`CodedRows`), or cell by cell (:class:`Rows`) when they do not code or the
    table is small (a family read for one query: coding costs more than it saves)."""
    if table.num_rows <= _FEW_ROWS:
        return Rows(table, columns)
    try:
        return CodedRows(table, columns)
    except ValueError:
        return Rows(table, columns)

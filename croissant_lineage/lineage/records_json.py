"""Item tables built column by column: the ``where`` filter and the raw records' JSON.

:func:`records_json` writes, for every row of a RecordSet table, exactly what
``json.dumps(record, ensure_ascii=False, default=str)`` writes for the record's dict (the
reader's own ``_`` columns left out), but column by column: string columns are escaped
and joined with Arrow compute kernels (a column without nulls quoted by the text around
it), as are integers, booleans and lists of strings; other columns (floats, other lists,
structs) are encoded value by value by the standard library. :func:`filter_where` keeps the
rows whose fields equal the spec's ``where`` values (as text), with an Arrow comparison for
string columns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from json.encoder import encode_basestring
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["filter_where", "json_strings", "records_json"]

#: What ``json.dumps(value, ensure_ascii=False, default=str)`` uses, built once.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)

def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def json_strings(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A string column as JSON text, value by value (``"..."``, ``null`` for null), as
    :func:`json.dumps` writes it with ``ensure_ascii=False``."""
    quoted = pc.binary_join_element_wise(pa.scalar('"'), _escaped(values), pa.scalar('"'), "")
    return pc.fill_null(quoted, "null")


def _escaped(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A string column's values as :func:`json.dumps` writes them with ``ensure_ascii=False``
    between their quotes (nulls stay null).

    Values with nothing to escape (no quote, backslash or control character: most of
    them) are kept as they are; the others are escaped by Arrow's substring replacement
    (:data:`_ESCAPES`), or by the standard library's own string encoder when they hold a
    control character that has no short escape.
    """
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    arr = arr.cast(pa.string())
    special = _needs_escaping(arr)
    if not pc.any(special).as_py():
        return arr
    some = arr.filter(special)
    escaped = some
    for char, escape in _ESCAPES:
        escaped = pc.replace_substring(escaped, char, escape)
    rare = _rows_with(some, _long_escaped)
    if pc.any(rare).as_py():
        slow = [encode_basestring(v)[1:-1] for v in some.filter(rare).to_pylist()]
        escaped = pc.replace_with_mask(escaped, rare, pa.array(slow, pa.string()))
    return pc.replace_with_mask(arr, special, escaped)


#: The escapes :func:`json.dumps` writes, the backslash's first (the others add backslashes).
_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"),
            ("\b", "\\b"), ("\f", "\\f"))


def _needs_escaping(arr: pa.Array) -> pa.Array:
    """Per value of a ``string`` array, whether it holds a quote, a backslash or a control
    character (U+0000-U+001F; null: false), as the RE2 search :data:`NEEDS_ESCAPING` tells,
    read off the data bytes with numpy: all of them are ASCII bytes, which UTF-8 never uses
    inside another character (a fifth of the regex's time over the raw records)."""
    return _rows_with(arr, _escaped_bytes)


def _escaped_bytes(data: np.ndarray) -> np.ndarray:
    """Which bytes :func:`json.dumps` escapes: control characters, quote, backslash."""
    return (data < 0x20) | (data == 0x22) | (data == 0x5C)


def _long_escaped(data: np.ndarray) -> np.ndarray:
    """Which bytes :func:`json.dumps` escapes as ``\\u00XX``: control characters with no
    short escape in :data:`_ESCAPES`."""
    return (data < 0x20) & ~np.isin(data, _SHORT_CONTROLS)


_SHORT_CONTROLS = np.array([ord(c) for c, _ in _ESCAPES if c < " "], np.uint8)


def _rows_with(arr: pa.Array, hit: Callable[[np.ndarray], np.ndarray]) -> pa.Array:
    """Per value of a ``string`` array, whether one of its bytes is a ``hit`` (null: false)."""
    n = len(arr)
    if not n:
        return pa.array([], pa.bool_())
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, np.int32, n + 1, arr.offset * 4)
    start, end = int(offsets[0]), int(offsets[-1])
    found = np.zeros(n, bool)
    if data_buf is not None and end > start:
        data = np.frombuffer(data_buf, np.uint8, end - start, start)
        hits = np.flatnonzero(hit(data)) + start
        found[np.searchsorted(offsets, hits, side="right") - 1] = True
    out = pa.array(found)
    return pc.and_(out, arr.is_valid()) if arr.null_count else out


#: The values :func:`json.dumps` escapes (without ``ensure_ascii``), as an RE2 search: the
#: statement :func:`_needs_escaping` is tested against.
NEEDS_ESCAPING = r'["\\\x00-\x1f]'


def _json_string_lists(lists: pa.ListArray | pa.LargeListArray) -> pa.Array:
    """A column of lists of strings as JSON arrays (``["a", null]``), ``null`` for null."""
    offsets = pc.subtract(lists.offsets, lists.offsets[0])
    items = json_strings(lists.flatten())
    joined = pc.binary_join(type(lists).from_arrays(offsets, items), ", ")
    wrapped = pc.binary_join_element_wise(pa.scalar("["), joined, pa.scalar("]"), "")
    return pc.if_else(pc.is_null(lists), pa.scalar("null"), wrapped)


def _json_values(values: pa.ChunkedArray) -> pa.Array:
    """One column's values as JSON text (Arrow kernels for strings, else one by one)."""
    t = values.type
    if _is_text(t):
        return json_strings(values)
    if pa.types.is_integer(t):
        return pc.fill_null(pc.cast(values, pa.string()), "null").combine_chunks()
    if pa.types.is_boolean(t):
        return pc.fill_null(pc.if_else(values, "true", "false"), "null").combine_chunks()
    if (pa.types.is_list(t) or pa.types.is_large_list(t)) and _is_text(t.value_type):
        return _json_string_lists(values.combine_chunks())
    encode = _ENCODER.encode
    return pa.array([encode(v) for v in values.to_pylist()], pa.string())


def records_json(table: pa.Table) -> pa.Array:
    """Each row's record (every column but those starting with ``_``) as JSON text.

    Returns:
        A string array: per row, what ``json.dumps(dict(row), ensure_ascii=False,
        default=str)`` gives (keys in column order).
    """
    names = [c for c in table.column_names if not c.startswith("_")]
    if not names:
        return pa.array(["{}"] * table.num_rows, pa.string())
    if not table.num_rows:
        return pa.array([], pa.string())
    parts: list[Any] = []
    text = ""  # what goes between the columns' values: keys, separators, quotes
    for k, name in enumerate(names):
        text += ("{" if k == 0 else ", ") + _ENCODER.encode(name) + ": "
        column = table.column(name)
        if _is_text(column.type) and not column.null_count:  # quoted by the text around it
            parts += [pa.scalar(text + '"'), _escaped(column)]
            text = '"'
        else:
            parts += [pa.scalar(text), _json_values(column)]
            text = ""
    parts.append(pa.scalar(text + "}"))
    return pc.binary_join_element_wise(*parts, "")


def filter_where(table: pa.Table, where: Mapping[str, Any], as_text: Callable[[Any], str | None]) -> pa.Table:
    """The rows whose fields equal the ``where`` values as text (``as_text(value) ==
    str(wanted)``); a field the table lacks matches no row."""
    mask = pa.array([True] * table.num_rows, pa.bool_())
    for name, wanted in where.items():
        if name not in table.column_names:
            return table.slice(0, 0)
        col = table.column(name)
        if _is_text(col.type):
            eq = pc.fill_null(pc.equal(col, pa.scalar(str(wanted), col.type)), False)
        else:
            eq = pa.array([as_text(v) == str(wanted) for v in col.to_pylist()], pa.bool_())
        mask = pc.and_(mask, eq)
    return table.filter(mask)

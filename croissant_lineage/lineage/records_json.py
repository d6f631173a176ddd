"""Item tables built column by column: the ``where`` filter and the raw records' JSON.

:func:`records_json` writes, for every row of a RecordSet table, exactly what
``json.dumps(record, ensure_ascii=False, default=str)`` writes for the record's dict (the
reader's own ``_`` columns left out), but column by column: string columns are escaped
and joined with Arrow compute kernels; other columns (numbers, lists, structs) are
encoded value by value by the standard library. :func:`filter_where` keeps the rows whose
fields equal the spec's ``where`` values (as text), with an Arrow comparison for string
columns.
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
    :func:`json.dumps` writes it with ``ensure_ascii=False``.

    Values with nothing to escape (no quote, backslash or control character: most of
    them) are quoted by Arrow kernels; the others by the standard library's own
    string encoder.
    """
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    arr = arr.cast(pa.string())
    quoted = pc.binary_join_element_wise(pa.scalar('"'), arr, pa.scalar('"'), "")
    special = _needs_escaping(arr)
    if pc.any(special).as_py():
        escaped = [encode_basestring(v) for v in arr.filter(special).to_pylist()]
        quoted = pc.replace_with_mask(quoted, special, pa.array(escaped, pa.string()))
    return pc.fill_null(quoted, "null")


def _needs_escaping(arr: pa.Array) -> pa.Array:
    """Per value of a ``string`` array, whether it holds a quote, a backslash or a control
    character (U+0000-U+001F; null: false), as the RE2 search :data:`NEEDS_ESCAPING` tells,
    read off the data bytes with numpy: all of them are ASCII bytes, which UTF-8 never uses
    inside another character (a fifth of the regex's time over the raw records)."""
    n = len(arr)
    if not n:
        return pa.array([], pa.bool_())
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, np.int32, n + 1, arr.offset * 4)
    start, end = int(offsets[0]), int(offsets[-1])
    found = np.zeros(n, bool)
    if data_buf is not None and end > start:
        data = np.frombuffer(data_buf, np.uint8, end - start, start)
        hits = np.flatnonzero((data < 0x20) | (data == 0x22) | (data == 0x5C)) + start
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
    for k, name in enumerate(names):
        parts.append(pa.scalar(("{" if k == 0 else ", ") + _ENCODER.encode(name) + ": "))
        parts.append(_json_values(table.column(name)))
    parts.append(pa.scalar("}"))
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

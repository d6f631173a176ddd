"""The roles of an item table evaluated over whole Arrow columns.

:func:`croissant_lineage.lineage.items.load_items` maps a RecordSet's fields onto the item
table's roles (id, subject, stem, options, key). Its plain-Python evaluation
(:func:`~croissant_lineage.lineage.items.evaluate` and the functions beside it) is the
reference; the functions here compute the same arrays with Arrow compute kernels for the
expressions real specs use (a field, an id template such as ``"{Subject}/test/{_row}"``,
a list of option fields, a list column of options, a key as a letter or an index), and
return None for anything else (a ``parse`` or ``regex`` expression, an option that is
null and so may be padding, a key given as the option's text, a field that is not there),
which the reference then evaluates, raising its errors. Keys are judged once per distinct
value by the reference's own function. Tested equal to the reference with Hypothesis and
on every dataset of the MMLU family (``tests/lineage/test_items_columnar.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.lineage.shape import LETTERS

__all__ = ["ids_problem", "options_and_keys", "text_column", "text_role"]

_TEMPLATE_SPLIT = re.compile(r"\{([^{}]+)\}")

#: Text one string array can hold (32-bit offsets): larger option columns go to the reference.
_MAX_STRING_BYTES = 2**31 - 1


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def text_column(values: pa.ChunkedArray | pa.Array, as_text: Callable[[Any], str | None]) -> pa.Array:
    """A column as text, value by value what ``as_text`` gives (strings as they are,
    integers in decimal, null as null): by Arrow kernels for string and integer columns,
    by ``as_text`` for the others."""
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if _is_text(arr.type):
        return arr.cast(pa.string())
    if pa.types.is_integer(arr.type) or pa.types.is_null(arr.type):
        return pc.cast(arr, pa.string())
    return pa.array([as_text(v) for v in arr.to_pylist()], pa.string())


def _field(expr: Any) -> str | None:
    """The field a role expression reads as it is, or None for any other expression."""
    if isinstance(expr, dict) and set(expr) == {"field"} and isinstance(expr["field"], str):
        return str(expr["field"])
    if isinstance(expr, str) and not _TEMPLATE_SPLIT.search(expr):
        return expr
    return None


def text_role(expr: Any, table: pa.Table, as_text: Callable[[Any], str | None]) -> pa.Array | None:
    """A text role (id, subject, stem) over the whole table, or None when the reference
    must evaluate it (an expression of another kind, or a field the table lacks)."""
    name = _field(expr)
    if name is not None:
        return text_column(table.column(name), as_text) if name in table.column_names else None
    if not isinstance(expr, str):
        return None
    parts = _TEMPLATE_SPLIT.split(expr)  # literal, field, literal, field, ..., literal
    if any(p not in table.column_names for p in parts[1::2]):
        return None
    pieces: list[Any] = []
    for i, part in enumerate(parts):
        if i % 2:
            pieces.append(pc.fill_null(text_column(table.column(part), as_text), ""))
        elif part:
            pieces.append(pa.scalar(part, pa.string()))
    return pc.binary_join_element_wise(*pieces, "")


def _interleave(columns: list[pa.Array]) -> pa.Array:
    """A list column whose row ``i`` holds ``columns[0][i], columns[1][i], ...``."""
    n, k = len(columns[0]), len(columns)
    flat = pa.concat_arrays(columns)
    order = (np.arange(n)[:, None] + np.arange(k)[None, :] * n).ravel()
    offsets = pa.array(np.arange(0, n * k + 1, k, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, flat.take(pa.array(order)))


#: A Python list literal of single-quoted strings with no quote, backslash or control
#: character inside, as ``repr`` writes a list of such strings: its items are the text
#: between the quotes.
_PLAIN_PY_LIST = r"^\[(?:'[^'\\\x00-\x1f]*'(?:, '[^'\\\x00-\x1f]*')*)?\]$"


def _python_lists(col: pa.Array, parse: Callable[[Any], list[Any] | None]) -> pa.Array | None:
    """A string column of Python list literals (``"['a', 'b']"``) as lists: plain
    literals (:data:`_PLAIN_PY_LIST`) split by Arrow kernels, the others by ``parse``
    (the reference's :func:`ast.literal_eval`); None when one holds a non-string item."""
    plain = pc.fill_null(pc.match_substring_regex(col, _PLAIN_PY_LIST), False)
    empty = pc.fill_null(pc.equal(col, "[]"), False)
    split = pc.split_pattern(pc.utf8_slice_codeunits(col.filter(plain), 2, -2), "', '")
    split = pc.if_else(empty.filter(plain), pa.scalar([], split.type), split)
    others = [parse(v) for v in col.filter(pc.invert(plain)).to_pylist()]
    if any(o is not None and not all(type(x) is str for x in o) for o in others):
        return None
    lists = pa.concat_arrays([split, pa.array(others, split.type)])
    order = np.empty(len(col), np.int64)
    mask = plain.to_numpy(zero_copy_only=False)
    order[np.flatnonzero(mask)] = np.arange(int(mask.sum()))
    order[np.flatnonzero(~mask)] = np.arange(int(mask.sum()), len(col))
    return lists.take(pa.array(order))


def _parsed_options(expr: dict[str, Any], table: pa.Table, parse: Callable[[Any], list[Any] | None]) -> pa.Array | None:
    """Options given as Python list literals in a string column, or None."""
    name = expr["field"]
    if expr["parse"] != "python_list" or name not in table.column_names or not _is_text(table.column(name).type):
        return None
    col = _python_lists(table.column(name).combine_chunks().cast(pa.string()), parse)
    return None if col is None or pc.list_flatten(col).null_count else col


def _options(
    expr: Any, table: pa.Table, as_text: Callable[[Any], str | None], parse: Callable[[Any], list[Any] | None]
) -> pa.Array | None:
    """Options as lists of text with no null option (so no padding to trim), or None."""
    if isinstance(expr, dict) and set(expr) == {"field", "parse"}:
        return _parsed_options(expr, table, parse)
    if isinstance(expr, list) and expr and all(isinstance(e, str) for e in expr):
        if any(e not in table.column_names for e in expr):
            return None
        cols = [text_column(table.column(e), as_text) for e in expr]
        if any(c.null_count for c in cols) or sum(c.nbytes for c in cols) >= _MAX_STRING_BYTES:
            return None
        return _interleave(cols)
    name = _field(expr)
    if name is None or name not in table.column_names:
        return None
    col = table.column(name).combine_chunks()
    if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)):
        return None
    start, end = col.offsets[0].as_py(), col.offsets[-1].as_py()
    offsets = pc.subtract(col.offsets, start).cast(pa.int32())
    values = text_column(col.values.slice(start, end - start), as_text)
    if values.null_count:
        return None
    return pa.ListArray.from_arrays(offsets, values, mask=col.is_null())


def _keys(expr: Any, table: pa.Table, n: int, letter_of: Callable[[Any], str | None]) -> pa.Array | None:
    """Key letters, each distinct raw key judged once by ``letter_of``, or None."""
    if expr is None:
        return pa.nulls(n, pa.string())
    name = _field(expr)
    if name is None or name not in table.column_names:
        return None
    col = table.column(name).combine_chunks()
    if not (_is_text(col.type) or pa.types.is_integer(col.type)):
        return pa.array([letter_of(v) for v in col.to_pylist()], pa.string())
    encoded = col.dictionary_encode()
    letters = pa.array([letter_of(v) for v in encoded.dictionary.to_pylist()], pa.string())
    return letters.take(encoded.indices)


def options_and_keys(
    expr_options: Any,
    expr_key: Any,
    table: pa.Table,
    as_text: Callable[[Any], str | None],
    letter_of: Callable[[Any], str | None],
    parse: Callable[[Any], list[Any] | None],
) -> tuple[pa.Array, pa.Array] | None:
    """Options (lists of text) and key letters over the whole table, or None when the
    reference must evaluate them: an expression of another kind, an option that is null
    (padding to trim, which depends on the key), or a key past its item's options
    (the reference raises the error).

    Args:
        expr_options: The options role's expression (None: the spec gives none).
        expr_key: The key role's expression (None: the spec gives none).
        table: The RecordSet's table.
        as_text: The reference's value-to-text function.
        letter_of: The reference's key-to-letter function for the spec's key format
            (not ``"text"``, whose letter depends on the options).
        parse: The reference's parser of one Python list literal (``parse: python_list``).
    """
    n = table.num_rows
    keys = _keys(expr_key, table, n, letter_of)
    if keys is None:
        return None
    if expr_options is None:
        return pa.nulls(n, pa.list_(pa.string())), keys
    options = _options(expr_options, table, as_text, parse)
    if options is None:
        return None
    index = pc.index_in(keys, value_set=pa.array(list(LETTERS)))
    past = pc.greater_equal(index, pc.list_value_length(options).cast(pa.int32()))
    if pc.any(pc.fill_null(past, False)).as_py():
        return None
    return options, keys


def ids_problem(ids: pa.Array) -> bool:
    """Whether an item has no id, or two items share one (the reference then says which)."""
    if ids.null_count or pc.any(pc.equal(pc.utf8_length(ids), 0)).as_py():
        return True
    return bool(pc.count_distinct(ids).as_py() != len(ids))

"""Cells of Arrow columns read from their buffers give what ``as_py`` gives."""

from __future__ import annotations

import itertools
from typing import Any

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.lineage.cells import Rows, cell_reader

TYPES: dict[Any, Any] = {
    pa.string(): st.text(max_size=5),
    pa.large_string(): st.text(max_size=5),
    pa.int8(): st.integers(-128, 127),
    pa.int32(): st.integers(-(2**31), 2**31 - 1),
    pa.int64(): st.integers(-(2**63), 2**63 - 1),
    pa.uint16(): st.integers(0, 2**16 - 1),
    pa.float64(): st.floats(allow_nan=False),
    pa.float32(): st.floats(width=32, allow_nan=False),
    pa.bool_(): st.booleans(),
    pa.list_(pa.int32()): st.lists(st.none() | st.integers(-5, 5), max_size=4),
    pa.list_(pa.string()): st.lists(st.none() | st.text(max_size=3), max_size=4),
    pa.large_list(pa.bool_()): st.lists(st.booleans(), max_size=4),
    pa.date32(): st.dates(),  # no reader of its own: as_py
}


@st.composite
def arrays(draw: Any) -> pa.Array:
    t = draw(st.sampled_from(list(TYPES)))
    values = draw(st.lists(st.none() | TYPES[t], max_size=20))
    array = pa.array(values, t)
    start = draw(st.integers(0, len(values)))
    return array.slice(start, draw(st.integers(0, len(values) - start)))


@given(array=arrays())
def test_every_cell_reads_as_as_py(array: pa.Array) -> None:
    read = cell_reader(array)
    assert [read(i) for i in range(len(array))] == array.to_pylist()
    assert [type(read(i)) for i in range(len(array))] == [type(v) for v in array.to_pylist()]


def test_bits_strings_and_lists_past_a_slice() -> None:
    bits = pa.array([True, None, False, True, True, None, False, True, False, True])[3:]
    assert [cell_reader(bits)(i) for i in range(7)] == [True, True, None, False, True, False, True]
    assert cell_reader(pa.array(["", ""]))(1) == ""  # (no data buffer to read)
    lists = pa.array([["a"], None, ["bé", None, "c"], []], pa.list_(pa.string()))[1:]
    assert [cell_reader(lists)(i) for i in range(3)] == [None, ["bé", None, "c"], []]


@given(sizes=st.lists(st.integers(0, 4), min_size=1, max_size=5), other=st.lists(st.integers(0, 4), max_size=5))
def test_rows_of_columns_chunked_apart(sizes: list[int], other: list[int]) -> None:
    n = sum(sizes)
    a = pa.chunked_array([pa.array(range(sum(sizes[:k]), sum(sizes[: k + 1])), pa.int64()) for k in range(len(sizes))])
    cuts = sorted({0, n, *(min(c, n) for c in other)})
    b = pa.chunked_array([pa.array([str(i) for i in range(lo, hi)], pa.string()) for lo, hi in itertools.pairwise(cuts)],
                         pa.string())
    rows = Rows(pa.table({"a": a, "b": b, "c": a}), ("b", "a"))
    assert [rows.row(i) for i in range(n)] == [(str(i), i) for i in range(n)]

"""Cells of Arrow columns read from their buffers give what ``as_py`` gives."""

from __future__ import annotations

import itertools
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.lineage.cells import CodedRows, Rows, cell_reader, few_valued_rows

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


FEW: dict[Any, Any] = {
    pa.string(): st.sampled_from(["", "a", "bé", "mmlu-pro"]),
    pa.large_string(): st.sampled_from(["x", "y"]),
    pa.int32(): st.integers(-2, 2),
    pa.int64(): st.sampled_from([0, 2**62, -(2**63)]),
    pa.bool_(): st.booleans(),
}


@st.composite
def few_valued_tables(draw: Any) -> tuple[pa.Table, list[str]]:
    types = draw(st.lists(st.sampled_from(list(FEW)), min_size=1, max_size=4))
    n = draw(st.integers(0, 12))
    cut = draw(st.integers(0, n))
    columns = {}
    for k, t in enumerate(types):
        values = draw(st.lists(st.none() | FEW[t], min_size=n, max_size=n))
        columns[f"c{k}"] = pa.chunked_array([pa.array(values[:cut], t), pa.array(values[cut:], t)], t)
    names = draw(st.permutations(list(columns)))
    return pa.table(columns), list(names)


@given(case=few_valued_tables())
def test_coded_rows_read_as_the_plain_rows(case: tuple[pa.Table, list[str]]) -> None:
    table, names = case
    coded, plain = CodedRows(table, names), Rows(table, names)
    rows = [coded.row(i) for i in range(table.num_rows)]
    assert rows == [plain.row(i) for i in range(table.num_rows)]
    assert rows == list(zip(*(table.column(c).to_pylist() for c in names), strict=True)) or not names
    assert [[type(v) for v in r] for r in rows] == [[type(v) for v in r] for r in map(plain.row, range(table.num_rows))]


def test_coded_rows_keep_one_code_a_row_and_refuse_what_does_not_code(monkeypatch: pytest.MonkeyPatch) -> None:
    from croissant_lineage.lineage import cells

    table = pa.table({"m": ["exact", "fuzzy", "exact", None] * 100, "n": pa.array([1, 2, 3, 4] * 100, pa.int32()),
                      "s": [0.5] * 400})
    coded = CodedRows(table, ["n", "m"])
    assert coded._codes.itemsize == 1 and len(coded._codes) == 400 and len(coded._rows) == 4  # 4 combinations
    assert coded.row(3) == (4, None) and coded.row(398) == (3, "exact")
    with pytest.raises(ValueError, match="not coded"):
        CodedRows(table, ["m", "s"])  # floats: -0.0 and 0.0 would need care
    assert isinstance(few_valued_rows(table, ["m", "s"]), Rows)
    assert few_valued_rows(table, ["m", "s"]).row(3) == (None, 0.5)
    monkeypatch.setattr(cells, "CODED_VALUES", 4)
    with pytest.raises(ValueError, match="4 combinations of n, m: too many"):
        CodedRows(table, ["n", "m"])
    monkeypatch.setattr(cells, "_FEW_ROWS", 399)
    assert isinstance(few_valued_rows(table, ["m"]), CodedRows)  # 3 values and null
    monkeypatch.setattr(cells, "_FEW_ROWS", 400)
    assert isinstance(few_valued_rows(table, ["m"]), Rows)  # (few rows: read cell by cell)
    wide = pa.table({f"c{k}": pa.array(range(400), pa.int32()) for k in range(8)})
    with pytest.raises(ValueError, match="too many combinations"):
        CodedRows(wide, list(wide.column_names))  # 401 ** 8 does not fit a number


def test_codes_past_256_combinations_take_two_bytes() -> None:
    table = pa.table({"a": pa.array([i % 300 for i in range(600)], pa.int64()), "b": ["x"] * 600})
    coded = CodedRows(table, ["a", "b"])
    assert coded._codes.itemsize == 2 and [coded.row(i) for i in (0, 299, 300, 599)] == [(0, "x"), (299, "x"), (0, "x"), (299, "x")]
    assert CodedRows(pa.table({"a": pa.array([], pa.string())}), ["a"])._rows == []


def test_lists_of_numbers_and_strings_without_nulls_read_past_offsets() -> None:
    numbers = pa.array([[1, 2], None, [3], [], [4, 5, 6]], pa.list_(pa.int32()))[1:]
    assert [cell_reader(numbers)(i) for i in range(4)] == [None, [3], [], [4, 5, 6]]
    child = pa.array(["z", "a", "bé", "c"])[1:]  # a sliced child: offsets index into it
    strings = pa.ListArray.from_arrays(pa.array([0, 2, 2, 3], pa.int32()), child)
    assert [cell_reader(strings)(i) for i in range(3)] == [["a", "bé"], [], ["c"]] == strings.to_pylist()
    floats = pa.ListArray.from_arrays(pa.array([0, 1, 3], pa.int32()), pa.array([0.1, 1.5, -0.0], pa.float32()))
    assert [cell_reader(floats)(i) for i in range(2)] == floats.to_pylist()


def test_many_possible_combinations_are_found_by_sorting() -> None:
    # 201 ** 3 possible keys (200 values and null a column): too many to mark, so the
    # 201 combinations there are are found by sorting
    n = 201
    table = pa.table({"a": pa.array([*range(200), None], pa.int64()), "b": [str(i) for i in range(n)][::-1],
                      "c": pa.array([i * 7 % 200 for i in range(n)], pa.int32())})
    coded, plain = CodedRows(table, ["c", "a", "b"]), Rows(table, ["c", "a", "b"])
    assert [coded.row(i) for i in range(n)] == [plain.row(i) for i in range(n)]
    assert len(coded._rows) == n and coded.row(200) == (0, None, "0")


@given(lists=st.lists(st.none() | st.lists(st.text(alphabet="ab:é漢\n", max_size=4) | st.text(alphabet="xyz", max_size=3),
                                           max_size=5), max_size=8),
       cut=st.integers(0, 3), child_cut=st.integers(0, 2))
def test_lists_of_strings_read_whole_or_one_by_one_as_as_py(lists: list[list[str] | None], cut: int, child_cut: int) -> None:
    """Lists of strings without nulls are decoded at once and sliced when ASCII, else text by
    text: both, and empty lists, give what ``as_py`` gives, past the offsets of a slice and
    of a sliced child."""
    array = pa.array(lists, pa.list_(pa.string()))[min(cut, len(lists)):]
    assert [cell_reader(array)(i) for i in range(len(array))] == array.to_pylist()
    flat = [t for x in lists if x for t in x]
    child = pa.array(["zz"] * child_cut + flat, pa.string())[child_cut:]
    sizes = [len(x) if x else 0 for x in lists]
    offsets = pa.array([sum(sizes[:k]) for k in range(len(sizes) + 1)], pa.int32())
    built = pa.ListArray.from_arrays(offsets, child)
    read = cell_reader(built)
    got = [read(i) for i in range(len(built))]
    assert got == [x or [] for x in lists] == built.to_pylist()
    assert all(type(t) is str for x in got for t in x)


def test_a_batch_of_one_value_reads_it_without_reading_rows() -> None:
    from croissant_lineage.lineage.cells import _uniform

    same, mixed = pa.array(["d", "d", "d"]), pa.array(["d", "e", "d"])
    assert _uniform(same)(10**9) == "d"  # (a constant: no row is read)
    with pytest.raises(IndexError):
        _uniform(mixed)(10**9)
    assert [_uniform(a)(i) for a in (mixed, pa.array(["d", None]), pa.array([1, 1])) for i in range(2)] == ["d", "e", "d", None, 1, 1]
    assert _uniform(pa.array([], pa.string()))  # (nothing to read: a plain reader)
    table = pa.table({"dataset": pa.chunked_array([["a", "a"], ["b", "c"], [None, None], ["d"]]),
                      "item": pa.chunked_array([["1", "2"], ["3", "4"], ["5", "6"], ["7"]])})
    rows = Rows(table, ["dataset", "item"], uniform=["dataset"])
    assert [rows.row(i) for i in range(7)] == list(zip(*(table.column(c).to_pylist() for c in ("dataset", "item")), strict=True))


@pytest.mark.parametrize("width", [1, 2, 3, 4, 5])
def test_rows_of_any_width_read_each_column_in_order(width: int) -> None:
    table = pa.table({f"c{k}": pa.chunked_array([[k * 10 + i for i in range(3)], [k * 10 + 3]]) for k in range(width)})
    rows = Rows(table, [f"c{k}" for k in reversed(range(width))])
    assert [rows.row(i) for i in range(4)] == [tuple(k * 10 + i for k in reversed(range(width))) for i in range(4)]

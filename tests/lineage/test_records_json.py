"""The columnar records' JSON and ``where`` filter against their plain-Python references."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage.items import _as_text
from croissant_lineage.lineage.records_json import (
    NEEDS_ESCAPING,
    _needs_escaping,
    filter_where,
    json_strings,
    records_json,
)


def _reference(table: pa.Table) -> list[str]:
    names = [c for c in table.column_names if not c.startswith("_")]
    return [
        json.dumps({k: row[k] for k in names}, ensure_ascii=False, default=str) for row in table.to_pylist()
    ]


_TEXT = st.one_of(st.none(), st.text(max_size=12), st.text(alphabet='"\\\x00\x01\n\r\t\x08\x0c\x1f\x7f\u2028é', max_size=8))


@settings(max_examples=300, deadline=None)
@given(
    texts=st.lists(_TEXT, min_size=0, max_size=8),
    ints=st.lists(st.one_of(st.none(), st.integers(-(2**40), 2**40)), min_size=8, max_size=8),
    floats=st.lists(st.one_of(st.none(), st.floats(allow_nan=True)), min_size=8, max_size=8),
    lists=st.lists(st.one_of(st.none(), st.lists(_TEXT, max_size=3)), min_size=8, max_size=8),
    bools=st.lists(st.one_of(st.none(), st.booleans()), min_size=8, max_size=8),
    cut=st.integers(0, 8),
)
def test_records_json_is_what_json_dumps_writes(texts, ints, floats, lists, bools, cut) -> None:
    n = len(texts)
    full = [t if t is not None else "" for t in texts]  # no null: quoted by the text around it
    table = pa.table({
        "full": pa.chunked_array([full[:cut], full[cut:]], pa.string()),
        "k": pa.array(bools[:n], pa.bool_()),
        "q": pa.array(texts, pa.string()),
        "big": pa.array(texts, pa.large_string()),
        "n": pa.array(ints[:n], pa.int64()),
        "x": pa.array(floats[:n], pa.float64()),
        "opts": pa.array(lists[:n], pa.list_(pa.string())),
        "_file": pa.array(["f"] * n),
        "again": pa.array(full, pa.large_string()),  # two in a row, the last
        "last": pa.array(full[::-1], pa.string()),
    })
    assert records_json(table).to_pylist() == _reference(table)


def test_json_strings_escapes_as_json_does() -> None:
    values = ['a"b\\c', "\x00\x1f\x7f", "\n\r\t\b\f", "\u2028é", "", None, '\\"\x01\n\\n']
    assert json_strings(pa.chunked_array([values[:3], values[3:]])).to_pylist() == [
        "null" if v is None else json.dumps(v, ensure_ascii=False) for v in values
    ]


def test_no_record_fields_gives_empty_objects() -> None:
    assert records_json(pa.table({"_row": [0, 1]})).to_pylist() == ["{}", "{}"]


@pytest.mark.parametrize("column", [pa.array(["test", "val", None, "test"]), pa.array([1.0, 2.0, None, 1.0])])
def test_filter_where_is_the_plain_python_filter(column: pa.Array) -> None:
    table = pa.table({"split": column, "_row": [0, 1, 2, 3]})
    for wanted in ("test", 1, "1", "val"):
        keep = [_as_text(v) == str(wanted) for v in column.to_pylist()]
        expected = [r for r, ok in zip(table.to_pylist(), keep, strict=True) if ok]
        assert filter_where(table, {"split": wanted}, _as_text).to_pylist() == expected
    assert filter_where(table, {"nope": "x"}, _as_text).num_rows == 0


def test_every_family_record_as_json_dumps_writes_it(shared_data: Path) -> None:
    """Every record of every MMLU-family dataset: the columnar JSON equals json.dumps."""
    from croissant_lineage.croissant.records import read_record_set
    from croissant_lineage.family.spec import load_family
    from croissant_lineage.lineage.items import _descriptor

    spec = load_family("mmlu")
    seen = 0
    for ds in spec.datasets.values():
        if not ds.has_items:
            continue
        table = read_record_set(_descriptor(ds, shared_data), ds.record_set)
        got: Any = records_json(table).to_pylist()
        assert got == _reference(table), ds.name
        seen += table.num_rows
    assert seen > 90_000


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=12), st.integers(0, 12), st.integers(0, 12))
def test_needs_escaping_is_the_regex(texts: list[str | None], lo: int, hi: int) -> None:
    """The byte scan tells what the RE2 search tells, on whole arrays and on slices (an
    offset into shared buffers), null rows false."""
    arr = pa.array(texts, pa.string())
    for part in (arr, arr.slice(min(lo, len(arr)), hi)):
        expected = pc.fill_null(pc.match_substring_regex(part, NEEDS_ESCAPING), False)
        assert _needs_escaping(part).equals(expected)


def test_needs_escaping_reads_null_slots_as_false() -> None:
    # A null whose slot still holds bytes (Arrow allows it): the bytes do not count.
    offsets = pa.py_buffer(bytes([0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]))
    arr = pa.Array.from_buffers(pa.string(), 3, [pa.py_buffer(b"\x06"), offsets, pa.py_buffer(b'"ab\\')])
    assert arr.to_pylist() == [None, "ab", "\\"]
    assert _needs_escaping(arr).to_pylist() == [False, False, True]

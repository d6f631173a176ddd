"""Roles over whole columns (``lineage.roles_columnar``) against the plain-Python reference.

``items.COLUMNAR = False`` makes :func:`~croissant_lineage.lineage.items.load_items` evaluate
every role with the reference (:func:`~croissant_lineage.lineage.items.evaluate`,
``key_letter``, ``_trim_padding``); the columnar path must give the same item table, or
raise the same error, on generated RecordSet tables and on every MMLU-family dataset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from croissant_lineage.errors import LineageError
from croissant_lineage.family.spec import DatasetSpec, load_family
from croissant_lineage.lineage import items

_TEXT = st.one_of(st.none(), st.sampled_from(["", "a", "B", " c ", "ı", "ſ", "K", "3", "1", " 2", "x y", "é"]))
_PY_LISTS = st.one_of(
    st.none(),
    st.lists(st.text(alphabet=st.sampled_from(list("a '\"\\\n\x00é,[]")), max_size=4), max_size=4).map(repr),
    st.sampled_from(["[]", "['a', 1]", "['a',\n 'b']", "('a', 'b')", "['a', None]", "['a'", "x", "[ 'a']", "['a','b']"]),
)
_INT = st.one_of(st.none(), st.integers(min_value=-2, max_value=30))


@st.composite
def _tables(draw: Any) -> pa.Table:
    n = draw(st.integers(min_value=0, max_value=6))
    col = lambda s: draw(st.lists(s, min_size=n, max_size=n))  # noqa: E731
    return pa.table(
        {
            "s1": pa.array(col(_TEXT), pa.string()),
            "s2": pa.array(col(_TEXT), pa.string()),
            "u": pa.array([f"u{i}" for i in range(n)], pa.string()),
            "i1": pa.array(col(_INT), pa.int64()),
            "f": pa.array(col(st.one_of(st.none(), st.sampled_from([0.0, 1.0, 2.5, -0.0]))), pa.float64()),
            "b": pa.array(col(st.one_of(st.none(), st.booleans())), pa.bool_()),
            "lst": pa.array(col(st.one_of(st.none(), st.lists(_TEXT, max_size=4))), pa.list_(pa.string())),
            "lsti": pa.array(col(st.one_of(st.none(), st.lists(_INT, max_size=3))), pa.large_list(pa.int64())),
            "pl": pa.array(col(_PY_LISTS), pa.string()),
            "_file": pa.array(["f.csv"] * n, pa.string()),
            "_row": pa.array(range(n), pa.int64()),
        }
    )


_TEXT_EXPRS = ["s1", "u", "{u}", "{s1}/{_row}", "{s2}-{i1}!", "i1", "f", "b", {"field": "s2"}, "missing", "{missing}/x", "{_row}"]
_OPTION_EXPRS = [
    ["s1", "s2"],
    ["s1", "i1", "u"],
    ["u", "u"],
    ["f", "b"],
    "lst",
    "lsti",
    {"field": "lst"},
    "s1",
    ["s1", "missing"],
    {"field": "s1", "parse": "json_list"},
    {"field": "pl", "parse": "python_list"},
    {"field": "pl", "parse": "python_list"},
]
_KEY_EXPRS = ["s1", "s2", "i1", "{s1}", "f", "u", {"field": "s2"}, "missing"]


@st.composite
def _specs(draw: Any) -> DatasetSpec:
    roles: dict[str, Any] = {
        "id": draw(st.sampled_from(_TEXT_EXPRS + ["{u}/{s1}", "{_row}"] * 3)),
        "stem": draw(st.sampled_from(_TEXT_EXPRS)),
    }
    for role, exprs in (("subject", _TEXT_EXPRS), ("options", _OPTION_EXPRS), ("key", _KEY_EXPRS)):
        if draw(st.booleans()):
            roles[role] = draw(st.sampled_from(exprs))
    where = draw(st.sampled_from([{}, {"s1": "a"}, {"i1": 3}]))
    fmt = draw(st.sampled_from(["letter", "index", "text"]))
    return DatasetSpec(name="d", iri="https://example.org/d", roles=roles, key_format=fmt, where=where)


def _outcome(spec: DatasetSpec, table: pa.Table, columnar: bool) -> Any:
    old = items.COLUMNAR
    items.COLUMNAR = columnar
    try:
        return items._items_table(spec, table)
    except LineageError as exc:
        return (type(exc).__name__, str(exc))
    finally:
        items.COLUMNAR = old


@settings(max_examples=400, deadline=None)
@given(spec=_specs(), table=_tables())
def test_columnar_roles_equal_the_reference(spec: DatasetSpec, table: pa.Table) -> None:
    fast = _outcome(spec, table, True)
    slow = _outcome(spec, table, False)
    event("an item table" if isinstance(slow, pa.Table) else f"refused: {slow[0]}")
    if isinstance(slow, pa.Table):
        assert isinstance(fast, pa.Table), fast
        assert fast.schema == slow.schema
        assert fast.equals(slow), (fast.to_pylist(), slow.to_pylist())
    else:
        assert fast == slow


def test_the_common_roles_take_the_columnar_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """An id template, option fields and a letter key never reach the reference."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the reference evaluated a role")

    monkeypatch.setattr(items, "evaluate", refuse)
    monkeypatch.setattr(items, "_options_and_keys", refuse)
    table = pa.table(
        {
            "q": ["what?", "why?"],
            "A": ["1", "2"],
            "B": ["3", "4"],
            "answer": [" b", "A"],
            "_file": ["x.csv", "x.csv"],
            "_row": pa.array([0, 1], pa.int64()),
        }
    )
    spec = DatasetSpec(
        name="d",
        iri="https://example.org/d",
        roles={"id": "{q}/test/{_row}", "stem": "q", "options": ["A", "B"], "key": "answer"},
    )
    got = items._items_table(spec, table)
    assert got.column("item").to_pylist() == ["what?/test/0", "why?/test/1"]
    assert got.column("options").to_pylist() == [["1", "3"], ["2", "4"]]
    assert got.column("key").to_pylist() == ["B", "A"]


def _family_datasets() -> list[DatasetSpec]:
    return [d for d in load_family("mmlu").datasets.values() if d.descriptor is not None]


@pytest.mark.parametrize("name", [d.name for d in _family_datasets()])
def test_every_mmlu_family_dataset_loads_alike(shared_data: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every item of every MMLU-family dataset: the columnar roles give the reference's table."""
    spec = load_family("mmlu").datasets[name]
    fast = items.load_items(spec, data_dir=shared_data)
    monkeypatch.setattr(items, "COLUMNAR", False)
    slow = items.load_items(spec, data_dir=shared_data)
    assert fast.num_rows == slow.num_rows > 0
    assert fast.equals(slow)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.one_of(st.none(), st.sampled_from(["a_test.csv", "b_test", "test", "x/test/y", "", "é_test.csv"])), max_size=6),
    patterns=st.lists(st.sampled_from([r"^(.+)_test\.csv$", r"(a)|(b)", r"x/(test)/", r"(z)?", r"^$"]), min_size=1, max_size=2),
    as_file_property=st.booleans(),
)
def test_transform_regexes_once_per_distinct_value_equal_per_row(values: list[Any], patterns: list[str], as_file_property: bool) -> None:
    """``records._regexes_column`` (a file property, a string column) gives ``_apply_regexes``' values."""
    from croissant_lineage.croissant import records

    if as_file_property:
        col: Any = [values[0]] * len(values) if values else []
        expected = records._apply_regexes(list(col), patterns)
    else:
        col = pa.chunked_array([pa.array(values, pa.string())])
        expected = records._apply_regexes(col.to_pylist(), patterns)
    got = records._regexes_column(col, patterns)
    got_values = got if isinstance(got, list) else got.to_pylist()
    assert got_values == expected
    assert (pa.array(got) if isinstance(got, list) else got).type == pa.array(expected).type

"""Columnar sides: a :class:`Side` reads the same values as plain Python lists of
its table would give, whether a row is held or not, and matching builds the Python texts of one block at a time."""

from __future__ import annotations

from typing import Any
from unittest import mock

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.lineage.items import LETTERS
from croissant_lineage.linking import sides as sides_module
from croissant_lineage.linking.duplicates import side_duplicates
from croissant_lineage.linking.match import _rows_of_ids, id_matches, match_text
from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_option_cased,
    normalize_stem,
    was_repaired,
)
from croissant_lineage.linking.sides import Rows, Side
from tests.helpers import items_table

_TEXT = st.text(alphabet=st.sampled_from(list("ab cA.1/`\u00e9\u00c3\u00a9\u2019")), max_size=8)
_ITEM = st.fixed_dictionaries({
    "stem": st.one_of(st.none(), _TEXT),
    "options": st.one_of(st.none(), st.lists(_TEXT, max_size=4)),
    "key": st.sampled_from([None, "A", "B", "Z", "AB", "a", ""]),
    "subject": st.sampled_from([None, "s", "t"]),
})


def _table(rows: list[dict[str, Any]], split: int = 0) -> pa.Table:
    """An item table of ``rows`` (ids 0, 1, ...); with ``split``, in two chunks."""
    rows = [{**r, "item": str(n)} for n, r in enumerate(rows)]
    if split and 0 < split < len(rows):
        return pa.concat_tables([items_table("d", rows[:split]), items_table("d", rows[split:])])
    return items_table("d", rows)


def _reference(table: pa.Table) -> dict[str, list[Any]]:
    """What the side's columns must read: plain lists and the plain-Python normalisers."""
    opts = table.column("options").to_pylist()
    return {
        "ids": table.column("item").to_pylist(),
        "keys": table.column("key").to_pylist(),
        "subjects": table.column("subject").to_pylist(),
        "raw_stems": table.column("stem").to_pylist(),
        "raw_options": opts,
        "norm_stems": [normalize_stem(s) for s in table.column("stem").to_pylist()],
        "norm_options": [None if o is None else [normalize_option(x) for x in o] for o in opts],
        "cased_options": [None if o is None else [normalize_option_cased(x) for x in o] for o in opts],
    }


@settings(max_examples=60, deadline=None)
@given(st.lists(_ITEM, max_size=12), st.integers(0, 12), st.data(), st.sampled_from([1, 2, 5, sides_module.NORMALISE_ROWS]))
def test_columns_read_as_plain_lists_held_or_not(
    rows: list[dict[str, Any]], split: int, data: st.DataObject, normalise_rows: int
) -> None:
    # normalise_rows: a side longer than NORMALISE_ROWS normalises a slice at a time into
    # a chunked column, which must read as the whole column normalised at once.
    with mock.patch.object(sides_module, "NORMALISE_ROWS", normalise_rows):
        _check_columns(rows, split, data)


def _check_columns(rows: list[dict[str, Any]], split: int, data: st.DataObject) -> None:
    table = _table(rows, split)
    side, want = Side(table), _reference(table)
    for name, values in want.items():
        column = getattr(side, name)
        assert len(column) == len(values)
        assert list(column) == values  # iteration (chunk by chunk)
        assert [column[i] for i in range(len(values))] == values  # from Arrow, row by row
        assert column[1:3] == values[1:3]
    held = data.draw(st.lists(st.integers(0, max(len(rows) - 1, 0)), max_size=len(rows))) if rows else []
    with side.hold(held):
        for name, values in want.items():
            column = getattr(side, name)
            assert [column[i] for i in range(len(values))] == values
            if name != "ids" and name != "subjects":
                assert set(column.held) == set(held)
    assert all(not c.held for c in side._text_columns())
    assert side.n_options.tolist() == [len(o or ()) for o in want["raw_options"]]
    assert side.key_indices.tolist() == [LETTERS.index(k) if k and k in LETTERS else -1 for k in want["keys"]]
    assert side.repaired_rows.tolist() == [
        was_repaired(s) or any(was_repaired(o) for o in opts or ())
        for s, opts in zip(want["raw_stems"], want["raw_options"], strict=True)
    ]
    some = list(range(0, len(rows), 2))
    assert Side(table).norm_options_of(some) == [want["norm_options"][i] for i in some]
    assert side.norm_options_of(some) == [want["norm_options"][i] for i in some]


def test_rows_index_errors_and_negative_rows() -> None:
    column: Rows[str] = Rows(pa.chunked_array([["a", "b"], ["c"]]))
    assert column[-1] == "c" and column[int(np.int64(1))] == "b"
    with pytest.raises(IndexError):
        column[3]
    with pytest.raises(IndexError):
        column[-4]
    assert column.take(np.array([2, 0])) == ["c", "a"] and column.take([]) == []


def test_hold_nests_and_releases_on_error() -> None:
    side = Side(_table([{"stem": f"s{i}", "options": ["x"], "key": "A"} for i in range(5)]))
    with side.hold([0, 1]):
        with side.hold([3]):
            assert set(side.raw_stems.held) == {0, 1, 3}
        assert set(side.raw_stems.held) == {0, 1}
        with pytest.raises(RuntimeError), side.hold([4]):
            raise RuntimeError
        assert set(side.raw_stems.held) == {0, 1}
    assert side.raw_stems.held == {}


def test_record_fields_and_roles_as_columns() -> None:
    rows: list[dict[str, Any]] = [{"item": "a", "stem": "x", "subject": "s", "record": {"src": "ori-1", "n": 1}},
            {"item": "b", "stem": "y", "subject": None, "record": {"src": None}}]
    side = Side(items_table("d", rows))
    assert side.eval("src", "") == ["ori-1", None]
    assert side.eval("subject", "") == ["s", None] and side.eval("item", "") == ["a", "b"]
    assert side.eval({"field": "src", "regex": "^ori-(.+)$"}, "") == ["1", None]
    assert side.eval("{item}/{src}", "") == ["a/ori-1", "b/"]
    assert sorted(side.columns()) == ["item", "n", "src", "subject"]


def test_ids_repeated_in_the_parent_resolve_to_the_last_row() -> None:
    # as the dict of ids the id match replaced did ({id: row} keeps the last row)
    parent = Side(items_table("p", [{"item": i, "stem": "s"} for i in ("a", "b", "a", "c")]))
    keys = pa.array(["a", "c", None, "zz", "b"])
    assert _rows_of_ids(parent, keys).tolist() == [2, 3, -1, -1, 1]
    unique = Side(items_table("p", [{"item": i, "stem": "s"} for i in ("a", "b")]))
    assert _rows_of_ids(unique, keys).tolist() == [0, -1, -1, -1, 1]
    child = Side(items_table("c", [{"item": "x", "stem": "s", "record": {"p": 3.0}},
                                   {"item": "y", "stem": "s", "record": {"p": None}}]))
    parent3 = Side(items_table("p", [{"item": "3", "stem": "s"}]))
    matches, unmatched = id_matches(child, parent3, LinkRule(by="id", child_field="p"), [0, 1], "")
    assert [(m.child, m.parent) for m in matches] == [(0, 0)] and unmatched == {1: (None, 0.0)}


@pytest.mark.parametrize("normalise_rows", [1, 2, 3, sides_module.NORMALISE_ROWS])
def test_duplicates_of_a_side_in_two_chunks(normalise_rows: int) -> None:
    # Normalised a slice at a time, the stems' codes must still index one dictionary.
    rows: list[dict[str, Any]] = [{"stem": "Same?", "options": ["a", "b"]}, {"stem": "other"}, {"stem": "same? ", "options": ["b", "a"]},
            {"stem": "", "options": ["a"]}, {"stem": None, "options": ["a"]}, {"stem": "OTHER", "options": None}]
    with mock.patch.object(sides_module, "NORMALISE_ROWS", normalise_rows):
        side = Side(_table(rows, split=2))
        assert side_duplicates("d", side) == [("d", ["0", "2"]), ("d", ["1", "5"])]
    assert isinstance(side.norm_stems.array, pa.ChunkedArray) == (normalise_rows < len(rows))


def test_match_text_builds_python_texts_of_one_block_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3 subjects of 4 parents and 3 children: exact matching is Arrow compute, and the
    # fuzzy scores take the Python texts of one block's rows at a time, never a whole column.
    parents = [{"stem": f"question {s} number {k}", "subject": s, "options": ["a", "b"]} for s in "xyz" for k in range(4)]
    children = [{"stem": f"question {s} number {k}!", "subject": s, "options": ["a", "b"]} for s in "xyz" for k in range(3)]
    child, parent = Side(_table(children)), Side(_table(parents))
    sizes: list[int] = []
    take = sides_module.Rows.take

    def spy(self: Rows[Any], rows: Any) -> list[Any]:
        sizes.append(len(rows))
        return take(self, rows)

    texts = [id(c) for c in (*child._text_columns(), *parent._text_columns())]
    to_list = sides_module.Rows.to_list

    def whole(self: Rows[Any]) -> list[Any]:
        if id(self) in texts:
            pytest.fail("a whole text column built")
        return to_list(self)

    monkeypatch.setattr(sides_module.Rows, "take", spy)
    monkeypatch.setattr(sides_module.Rows, "to_list", whole)
    matches, unmatched = match_text(child, parent, LinkRule(threshold=80), list(range(9)))
    assert sizes and max(sizes) == 4 and len(sizes) == 6  # children and parents of three blocks
    assert sorted((m.child, m.parent) for m in matches) == [(3 * s + k, 4 * s + k) for s in range(3) for k in range(3)]
    assert unmatched == {}


_FIELD_RECORDS = st.lists(
    st.dictionaries(st.sampled_from(["subject", "src", "q"]), st.one_of(st.none(), st.sampled_from(
        ['"subject": 1', "x", '{"subject": 2}'])), max_size=3),
    min_size=1, max_size=6,
)


@settings(max_examples=80, deadline=None)
@given(records=_FIELD_RECORDS, nested=st.booleans(), split=st.integers(0, 5))
def test_record_fields_read_the_same_with_or_without_the_text_check(
    records: list[dict[str, Any]], nested: bool, split: int
) -> None:
    """A field no record's JSON text names is known absent without parsing a record; the
    columns read the same as when every record is parsed (records as json.dumps gives them)."""
    if nested:  # the key inside a nested value: the text check must not call it absent
        records = [{**records[0], "q": {"subject": "deep"}}, *records[1:]]
    rows = [{"stem": "s", "subject": f"role{n}", "record": r} for n, r in enumerate(records)]
    table = _table(rows, split)
    plain = {key: [r.get(key) for r in records] for key in ("subject", "src", "q") if any(key in r for r in records)}
    side = Side(table)
    for key in ("subject", "src", "q", "item", "nope"):
        assert (key in side._columns) == (key in plain or key in ("subject", "item"))
        if key in plain:
            assert side._columns[key] == plain[key]
        elif key == "subject":
            assert side._columns[key] == [f"role{n}" for n in range(len(records))]
    assert list(side._columns) == [*dict.fromkeys(k for r in records for k in r),
                                   *(k for k in ("subject", "item") if not any(k in r for r in records))]


def test_a_field_no_record_names_is_not_parsed_for(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table([{"stem": "s", "subject": "a", "record": {"src": "x", "q": '"subject" is a word'}}] * 3)
    side = Side(table)

    def no_parse(_: str) -> Any:
        raise AssertionError("parsed a record")

    monkeypatch.setattr(sides_module.json, "loads", no_parse)
    assert "subject" in side._columns and side._columns["subject"] == ["a", "a", "a"]
    assert "nope" not in side._columns
    with pytest.raises(AssertionError, match="parsed"):
        _ = "src" in side._columns  # a field the records do name: parsed


def test_a_shared_side_computes_each_column_once_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads asking a shared side for its normalised stems and options at once: one
    computes each, the other waits for it and reads the same arrays."""
    import threading
    import time

    table = _table([{"stem": f"Stem {n}", "options": ["a", "B"], "key": "A"} for n in range(5)])
    side = Side(table)
    calls: dict[str, int] = {"stems": 0, "options": 0}
    stem_keys, option_keys = sides_module._stem_keys, sides_module._option_keys

    def slow_stems(col: Any) -> Any:
        calls["stems"] += 1
        time.sleep(0.05)  # the other thread arrives while this one computes
        return stem_keys(col)

    def slow_options(col: Any) -> Any:
        calls["options"] += 1
        time.sleep(0.05)
        return option_keys(col)

    monkeypatch.setattr(sides_module, "_stem_keys", slow_stems)
    monkeypatch.setattr(sides_module, "_option_keys", slow_options)
    start = threading.Barrier(2)
    seen: list[tuple[Any, ...]] = []

    def ask() -> None:
        start.wait()
        seen.append((side.norm_stems, side.norm_options, side.cased_options, side.key_indices, side.repaired_rows))

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == {"stems": 1, "options": 1}
    assert len(seen) == 2 and all(a is b for a, b in zip(*seen, strict=True))
    assert side.norm_stems.to_list() == [normalize_stem(f"Stem {n}") for n in range(5)]

"""Duplicate groups (``linking.duplicates``): who is grouped with whom, the table's order
and the parent common to a group's members.

Both paths are checked against each other: :func:`find_duplicates` (a whole items table)
and :func:`side_duplicates` (one dataset while linking).
"""

from __future__ import annotations

import pytest

from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA, EDGES_SCHEMA
from croissant_lineage.linking.duplicates import duplicates_table, find_duplicates, side_duplicates
from croissant_lineage.linking.sides import Side
from tests.helpers import items_table

OPTS = ["Ash", "Birl", "Corr", "Dun"]


def _groups(rows: list[dict]) -> tuple[list[list[str]], list[list[str]]]:
    table = items_table("d", rows)
    side = sorted(m for _, m in side_duplicates("d", Side(table)))
    found = find_duplicates(table, EDGES_SCHEMA.empty_table()).to_pylist()
    by_group: dict[str, list[str]] = {}
    for r in found:
        by_group.setdefault(r["group"], []).append(r["item"])
    return side, sorted(by_group.values())


def _item(item: str, stem: str | None, options: list[str] | None) -> dict:
    return {"item": item, "stem": stem, "options": options, "key": "A"}


@pytest.mark.parametrize(
    ("rows", "groups"),
    [
        # same stem, options permuted: duplicates
        ([_item("1", "Which moon?", OPTS), _item("2", "which  moon?", OPTS[::-1])], [["1", "2"]]),
        # same stem, different options: not duplicates (no group of one either)
        ([_item("1", "Which moon?", OPTS), _item("2", "Which moon?", ["Ash", "Birl", "Corr", "Eel"])], []),
        # empty stems with equal options are not duplicates
        ([_item("1", "", OPTS), _item("2", "", OPTS), _item("3", None, OPTS)], []),
        # a stem seen once: nothing
        ([_item("1", "Which moon?", OPTS), _item("2", "Which star?", OPTS)], []),
        # three copies, one with other options
        ([_item("1", "Q?", OPTS), _item("2", "Q?", OPTS), _item("3", "Q?", OPTS[:3])], [["1", "2"]]),
    ],
    ids=["permuted", "other-options", "empty-stems", "unique-stems", "three"],
)
def test_duplicate_groups_of_both_paths_agree(rows: list[dict], groups: list[list[str]]) -> None:
    side, found = _groups(rows)
    assert side == groups
    assert found == groups


def _edge(child: str, parent: str) -> dict:
    return {f.name: None for f in EDGES_SCHEMA} | {
        "child_dataset": "d", "child_item": child, "parent_dataset": "p", "parent_item": parent,
    }


def test_duplicates_table_orders_by_dataset_then_first_member() -> None:
    import pyarrow as pa

    edges = pa.Table.from_pylist([], schema=EDGES_SCHEMA)
    t = duplicates_table([("b", ["1", "2"]), ("a", ["7", "3"]), ("a", ["2", "9"])], edges).to_pylist()
    assert [(r["dataset"], r["group"], r["item"], r["size"]) for r in t] == [
        ("a", "2", "2", 2), ("a", "2", "9", 2), ("a", "7", "7", 2), ("a", "7", "3", 2), ("b", "1", "1", 2), ("b", "1", "2", 2),
    ]


@pytest.mark.parametrize(
    ("parents", "expected"),
    [
        ({"1": ["x"], "2": ["x"]}, ("p", "x")),  # one common parent
        ({"1": ["x", "y"], "2": ["y", "x"]}, ("p", "x")),  # several: the first, sorted
        ({"1": ["x"], "2": ["y"]}, (None, None)),  # no common parent
        ({"1": ["x"]}, (None, None)),  # a member without a parent
    ],
)
def test_duplicates_table_parent_is_common_to_all_members(parents: dict, expected: tuple) -> None:
    import pyarrow as pa

    edges = pa.Table.from_pylist([_edge(c, p) for c, ps in parents.items() for p in ps], schema=EDGES_SCHEMA)
    table = duplicates_table([("d", ["1", "2"])], edges)
    assert table.schema == DUPLICATES_SCHEMA  # typed columns even when every parent is null
    assert {(r["parent_dataset"], r["parent_item"]) for r in table.to_pylist()} == {expected}

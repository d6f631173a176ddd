"""Duplicate groups (issue 20): tests that kill the mutants mutmut left alive (2026-12-01).

Both paths are checked against each other: :func:`find_duplicates` (a whole items table)
and :func:`side_duplicates` (one dataset while linking).
"""

from __future__ import annotations

import pytest

from croissant_lineage.lineage.schema import EDGES_SCHEMA
from croissant_lineage.linking.duplicates import find_duplicates, side_duplicates
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
def test_duplicate_groups(rows: list[dict], groups: list[list[str]]) -> None:
    side, found = _groups(rows)
    assert side == groups
    assert found == groups

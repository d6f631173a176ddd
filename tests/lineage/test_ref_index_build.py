"""``build_index``'s duplicate entries (kind 3) against a plain reading of the groups."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage.index import DUPLICATE, INDEX_SCHEMA, build_index, index_groups
from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA, EDGES_SCHEMA, ITEMS_SCHEMA


def _expected(rows: list[tuple[str, str, str]]) -> list[tuple[str, int, int, str]]:
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (ds, _item, group) in enumerate(rows):
        groups.setdefault((ds, group), []).append(i)
    refs = [f"{ds}:{item}" for ds, item, _g in rows]
    return sorted((refs[m], DUPLICATE, j, refs[j]) for members in groups.values() for m in members for j in members)


def _duplicates(rows: list[tuple[str, str, str]]) -> pa.Table:
    n = len(rows)
    return pa.table({
        "dataset": [r[0] for r in rows], "item": [r[1] for r in rows], "group": [r[2] for r in rows],
        "parent_dataset": [None] * n, "parent_item": [None] * n, "size": [None] * n,
    }, schema=DUPLICATES_SCHEMA)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "a:b", "b"]), st.sampled_from(["b:c", "1"]), st.sampled_from(["1", "2", "c"])),
                max_size=12, unique_by=lambda r: (r[0], r[1])))
def test_duplicate_entries_pair_every_member_of_a_group(rows: list[tuple[str, str, str]]) -> None:
    index = build_index(ITEMS_SCHEMA.empty_table(), EDGES_SCHEMA.empty_table(), _duplicates(rows))
    assert index.schema == INDEX_SCHEMA
    got = list(zip(*(index.column(c).to_pylist() for c in INDEX_SCHEMA.names), strict=True)) if index.num_rows else []
    assert got == _expected(rows)


def test_row_groups_are_the_sorted_index_cut() -> None:
    n = 5000
    items = pa.table({"dataset": ["b"] * n, "item": [f"i{(i * 7919) % n}" for i in range(n)]})
    edges = pa.table({"child_dataset": ["c"] * 3, "child_item": ["x", "y", "z"], "parent_dataset": ["b"] * 3,
                      "parent_item": ["i3", "i1", "i3"]})
    dups = _duplicates([("b", "i1", "i1"), ("b", "i2", "i1"), ("c", "x", "x")])
    whole = build_index(items, edges, dups)
    groups = list(index_groups(items, edges, dups))
    assert [g.num_rows for g in groups] == [2048, 2048, whole.num_rows - 4096]
    assert pa.concat_tables(groups).equals(whole)
    assert whole.column("ref").to_pylist() == sorted(whole.column("ref").to_pylist())
    assert whole.num_rows == n + 6 + 5
    empty = list(index_groups(items.slice(0, 0), edges.slice(0, 0), dups.slice(0, 0)))
    assert [g.num_rows for g in empty] == [0]

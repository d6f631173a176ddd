"""``build_index``'s duplicate entries (kind 3) against a plain reading of the groups."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage.index import DUPLICATE, INDEX_SCHEMA, build_index
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

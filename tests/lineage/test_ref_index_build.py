"""``build_index``'s duplicate entries (kind 3) against a plain reading of the groups."""

from __future__ import annotations

from unittest.mock import patch

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage import index as index_module
from croissant_lineage.lineage.index import DUPLICATE, INDEX_SCHEMA, build_index, index_groups
from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA, EDGES_SCHEMA, ITEMS_SCHEMA, join_ref


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


def _plain_index(items: pa.Table, edges: pa.Table, dups: pa.Table) -> list[tuple[str, int, int, str]]:
    """The index read plainly: every (ref, kind, row, other) entry, sorted."""
    def refs(t: pa.Table, ds: str, item: str) -> list[str]:
        return [join_ref(d, i) for d, i in zip(t.column(ds).to_pylist(), t.column(item).to_pylist(), strict=True)]

    item_refs, dup_refs = refs(items, "dataset", "item"), refs(dups, "dataset", "item")
    child, parent = refs(edges, "child_dataset", "child_item"), refs(edges, "parent_dataset", "parent_item")
    out = [(r, 0, i, r) for i, r in enumerate(item_refs)]
    out += [(c, 1, i, p) for i, (c, p) in enumerate(zip(child, parent, strict=True))]
    out += [(p, 2, i, c) for i, (c, p) in enumerate(zip(child, parent, strict=True))]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, (ds, g) in enumerate(zip(dups.column("dataset").to_pylist(), dups.column("group").to_pylist(), strict=True)):
        groups.setdefault((ds, g), []).append(i)
    out += [(dup_refs[m], DUPLICATE, j, dup_refs[j]) for members in groups.values() for m in members for j in members]
    return sorted(out)


_REF_ITEM = st.one_of(st.none(), st.sampled_from(["1", "2", "b:c"]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), _REF_ITEM), max_size=10),
       st.lists(st.tuples(st.sampled_from(["a", "b"]), _REF_ITEM, st.sampled_from(["a", "b"]), _REF_ITEM), max_size=8),
       st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["1", "2", "b:c"]), st.sampled_from(["1", "2"])),
                max_size=8),
       st.integers(1, 4))
def test_index_is_every_entry_sorted_by_ref_kind_and_row(
    items: list[tuple[str, str | None]], edges: list[tuple[str, str | None, str, str | None]],
    dups: list[tuple[str, str, str]], group_rows: int,
) -> None:
    """Refs repeated within and across the tables (a duplicate listed twice included), ids
    missing: the entries, each with its far end, sorted by ref, kind and row, in any
    row group size."""
    items_t = pa.table({"dataset": [r[0] for r in items], "item": [r[1] for r in items]},
                       schema=pa.schema([("dataset", pa.string()), ("item", pa.string())]))
    edges_t = pa.table({n: [e[k] for e in edges] for k, n in enumerate(
        ["child_dataset", "child_item", "parent_dataset", "parent_item"])}, schema=pa.schema(
        [(n, pa.string()) for n in ["child_dataset", "child_item", "parent_dataset", "parent_item"]]))
    dups_t = _duplicates(dups)
    expected = _plain_index(items_t, edges_t, dups_t)
    index = build_index(items_t, edges_t, dups_t)
    assert list(zip(*(index.column(c).to_pylist() for c in INDEX_SCHEMA.names), strict=True)) == expected
    with patch.object(index_module, "INDEX_ROW_GROUP", group_rows):
        groups = list(index_groups(items_t, edges_t, dups_t))
    assert pa.concat_tables(groups).equals(index)

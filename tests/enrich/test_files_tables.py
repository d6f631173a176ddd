"""The items and lineage files are built column-wise; they equal a row-by-row reference."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from croissant_lineage.enrich.files import (
    ITEMS_FILE_SCHEMA,
    LINEAGE_FILE_SCHEMA,
    items_table,
    lineage_table,
)
from croissant_lineage.lineage.schema import (
    DUPLICATES_SCHEMA,
    EDGES_SCHEMA,
    ITEMS_BASE_SCHEMA,
    item_iri,
    join_ref,
)

IRIS = {"a": "https://example.org/a#", "b": "https://example.org/b", "c": "urn:c"}


def _items() -> pa.Table:
    rows = [("a", "x/1"), ("b", "é 2"), ("a", "x/2"), ("c", "3"), ("b", "4")]
    return pa.Table.from_pylist(
        [
            {"dataset": d, "item": i, "subject": "s", "stem": f"stem {n}", "options": ["p", "q"] if n % 2 else None,
             "key": "A", "source_file": "f.csv", "source_row": n, "record": "{}"}
            for n, (d, i) in enumerate(rows)
        ],
        schema=ITEMS_BASE_SCHEMA,
    )


def _duplicates() -> pa.Table:
    return pa.Table.from_pylist(
        [
            {"dataset": "a", "item": "x/2", "group": "old", "parent_dataset": None, "parent_item": None, "size": 9},
            {"dataset": "a", "item": "x/2", "group": "x/1", "parent_dataset": "c", "parent_item": "3", "size": 2},
            {"dataset": "b", "item": "4", "group": "4", "parent_dataset": None, "parent_item": None, "size": 2},
        ],
        schema=DUPLICATES_SCHEMA,
    )


def _reference_items(items: pa.Table, dups: pa.Table, keep: set[str]) -> list[dict[str, Any]]:
    last = {(r["dataset"], r["item"]): r for r in dups.to_pylist()}
    out = []
    for r in items.to_pylist():
        if r["dataset"] not in keep:
            continue
        dup = last.get((r["dataset"], r["item"]), {})
        out.append({
            "ref": join_ref(r["dataset"], r["item"]), "dataset": r["dataset"], "item": r["item"],
            "iri": item_iri(IRIS[r["dataset"]], r["item"]),
            **{c: r[c] for c in ("subject", "stem", "options", "key")},
            **{c: r.get(c) for c in ("key_kind", "key_text", "key_value", "key_answers")},
            **{c: r[c] for c in ("source_file", "source_row")},
            "duplicate_group": dup.get("group"), "duplicate_parent_dataset": dup.get("parent_dataset"),
            "duplicate_parent_item": dup.get("parent_item"), "duplicate_size": dup.get("size"),
        })
    return out


def test_items_file_equals_reference() -> None:
    items, dups = _items(), _duplicates()
    for keep in ({"a"}, {"a", "b"}, {"b", "c", "zzz"}, set()):
        got = items_table(items, dups, IRIS, keep)
        assert got.schema.equals(ITEMS_FILE_SCHEMA)
        assert got.to_pylist() == _reference_items(items, dups, keep)
    got = items_table(items, dups, IRIS, ["a"]).to_pylist()
    assert got[1]["duplicate_group"] == "x/1"  # the last duplicates row of a:x/2 wins
    assert items_table(items, DUPLICATES_SCHEMA.empty_table(), IRIS, ["b"]).column("duplicate_size").null_count == 2


def _edges() -> pa.Table:
    base = {"activity": "copy", "method": "exact", "score": 100.0, "options_score": None, "option_map": [0, -1],
            "options_copied": 1, "options_added": 1, "options_dropped": 0, "key_inherited": True,
            "stem_changed": False, "ambiguous": False, "text_repaired": None}
    rows = [
        ("b", "4", "a", "x/1", ["x/2", "y z"]),
        ("c", "3", "b", "é 2", None),
        ("b", "é 2", "a", "x/2", []),
    ]
    return pa.Table.from_pylist(
        [{**base, "child_dataset": cd, "child_item": ci, "parent_dataset": pd, "parent_item": pi, "alternatives": alt}
         for cd, ci, pd, pi, alt in rows],
        schema=EDGES_SCHEMA,
    )


def test_lineage_file_equals_reference() -> None:
    edges = _edges()
    for keep in ({"b"}, {"c"}, {"b", "c"}, set()):
        got = lineage_table(edges, IRIS, keep)
        assert got.schema.equals(LINEAGE_FILE_SCHEMA)
        want = []
        for r in edges.to_pylist():
            if r["child_dataset"] not in keep:
                continue
            row = {f.name: r.get(f.name) for f in LINEAGE_FILE_SCHEMA}
            for side in ("child", "parent"):
                row[side] = join_ref(r[f"{side}_dataset"], r[f"{side}_item"])
                row[f"{side}_iri"] = item_iri(IRIS[r[f"{side}_dataset"]], r[f"{side}_item"])
            row["alternatives"] = [join_ref(r["parent_dataset"], a) for a in r["alternatives"] or ()]
            want.append(row)
        assert got.to_pylist() == want
    assert lineage_table(edges, IRIS, ["c"]).column("alternatives").to_pylist() == [[]]  # null -> []

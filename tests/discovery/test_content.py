"""Per-content comparison of matched pairs, and the activities read from it."""

from __future__ import annotations

import json

import pyarrow as pa

from croissant_lineage.discovery.activity import (
    CODE_TRANSLATION,
    TRANSLATION,
    guess_activity,
    positional_ids,
    translation_activity,
)
from croissant_lineage.discovery.content import compare_contents
from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_SCHEMA


def _items(name: str, rows: list[dict[str, object]]) -> pa.Table:
    cols: dict[str, list[object]] = {f.name: [] for f in ITEMS_SCHEMA}
    for i, r in enumerate(rows):
        full = {"dataset": name, "item": str(i), "source_row": i, **r}
        for f in ITEMS_SCHEMA:
            cols[f.name].append(full.get(f.name))
    return pa.table(cols, schema=ITEMS_SCHEMA)


def test_every_status_counted() -> None:
    parent = _items("p", [
        {"stem": "Add 2 and 3.", "key_text": "5", "key_kind": "text", "record": json.dumps({"q": "Add 2 and 3.", "old": 1})},
        {"stem": "Name the capital of France.", "key_text": "Paris", "key_kind": "text", "record": json.dumps({"q": "x"})},
        {"stem": "Spell the word cat.", "key_text": "c a t", "key_kind": "text", "record": "{}"},
    ])
    child = _items("c", [
        {"stem": "Add 4 and 3.", "key_text": "7", "key_kind": "text", "record": json.dumps({"q": "Add 4 and 3.", "new": 2})},
        {"stem": "Name the capital of France.", "key_text": "Paris (the city on the Seine)", "key_kind": "text",
         "record": json.dumps({"q": "x"})},
        {"stem": "Spell the word dog.", "key_text": None, "key_kind": "text", "record": "{}"},
    ])
    got = compare_contents([(0, 0), (1, 1), (2, 2)], child, parent)
    assert got.contents["stem"] == {"recomputed": 1, "copied": 1, "edited": 1}
    assert got.contents["key"] == {"recomputed": 1, "expanded": 1, "edited": 1, "dropped": 1}
    assert got.contents["field:new"] == {"added": 1} and got.contents["field:old"] == {"dropped": 1}
    assert compare_contents([(1, 1)], child, parent, translated=True).count("key", "translated") == 1
    assert compare_contents([(0, 0)], child, parent, records=False).records_compared == 0


def _edges(pairs: list[tuple[str, str]], stem_changed: bool) -> pa.Table:
    n = len(pairs)
    cols: dict[str, list[object]] = {f.name: [None] * n for f in EDGES_SCHEMA}
    cols.update({"child_dataset": ["c"] * n, "parent_dataset": ["p"] * n, "child_item": [c for c, _ in pairs],
                 "parent_item": [p for _, p in pairs], "activity": ["filter"] * n, "method": ["exact"] * n,
                 "score": [90.0] * n, "stem_changed": [stem_changed] * n, "key_inherited": [True] * n})
    return pa.table(cols, schema=EDGES_SCHEMA)


def test_activities_from_contents() -> None:
    same = _edges([(str(i), str(i)) for i in range(100)], stem_changed=False)
    assert guess_activity(same, 100, 100)[0] == "snapshot"
    assert guess_activity(same, 100, 100, positional=True)[0] == "copy"  # row numbers are positions, not identity
    variants = _edges([(str(i), str(i // 50)) for i in range(200)], stem_changed=True)
    assert guess_activity(variants, 200, 4)[0] == "templated_variants"
    edited = _edges([(f"c{i}", str(i)) for i in range(100)], stem_changed=True)
    parent = _items("p", [{"stem": f"Add {i} and 3."} for i in range(100)])
    child = _items("c", [{"stem": f"Add {i + 1} and 3."} for i in range(100)])
    content = compare_contents([(i, i) for i in range(100)], child, parent)
    assert guess_activity(edited, 100, 100, content=content)[0] == "perturbation"
    assert guess_activity(edited, 100, 100)[0] == "re_release"  # without the contents: an edit
    assert translation_activity("cpp", "python") == CODE_TRANSLATION
    assert translation_activity("fr", "en") == TRANSLATION and translation_activity(None, "python") == TRANSLATION


def test_positional_ids() -> None:
    assert positional_ids(_items("a", [{"stem": "x"}] * 5))
    renamed = _items("a", [{"stem": "x"}] * 5)
    renamed = renamed.set_column(1, "item", pa.array([f"q-{i + 10}" for i in range(5)]))
    assert not positional_ids(renamed)

"""Builders for findings, routing and report tests: a small invented lineage."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import EDGES_SCHEMA
from tests.helpers import items_table


def edge(child: str, parent: str, activity: str, option_map: list[int], *, key_inherited: bool | None = True,
         method: str = "exact", score: float = 100.0, ambiguous: bool = False,
         stem_changed: bool | None = False) -> dict[str, Any]:
    """An edge row from refs ``dataset:item``."""
    cd, ci = child.split(":", 1)
    pd_, pi = parent.split(":", 1)
    return {
        "child_dataset": cd, "child_item": ci, "parent_dataset": pd_, "parent_item": pi,
        "activity": activity, "method": method, "score": score, "options_score": 100.0,
        "option_map": option_map,
        "options_copied": sum(1 for i in option_map if i >= 0),
        "options_added": sum(1 for i in option_map if i < 0),
        "options_dropped": 0, "key_inherited": key_inherited, "stem_changed": stem_changed,
        "ambiguous": ambiguous, "alternatives": [],
    }


def lineage(tables: list[pa.Table], edges: list[dict[str, Any]], *, duplicates: list[tuple[str, str, str]] = (),
            documented: list[dict[str, Any]] = ()) -> Lineage:
    """A Lineage from item tables, edge rows, duplicate (dataset, item, group) rows and
    documented derivations (dicts with child, parent, activity, languages)."""
    items = pa.concat_tables(tables)
    dup = pa.table(
        {"dataset": [d for d, _, _ in duplicates], "item": [i for _, i, _ in duplicates],
         "group": [g for _, _, g in duplicates], "parent_dataset": [None] * len(duplicates),
         "parent_item": [None] * len(duplicates), "size": [2] * len(duplicates)},
    )
    from croissant_lineage.lineage.schema import DUPLICATES_SCHEMA

    datasets = sorted(set(items.column("dataset").to_pylist()) | {d["child"] for d in documented})
    family = {
        "name": "toy",
        "datasets": [{"name": d} for d in datasets],
        # the spec's derivations as a linked lineage carries them: one per linked dataset pair
        "derivations": [
            *({"child": c, "parent": pa_, "activity": a}
              for c, pa_, a in sorted({(e["child_dataset"], e["parent_dataset"], e["activity"]) for e in edges})),
            *({**d, "coverage": "documented"} for d in documented),
        ],
    }
    return Lineage(
        family=family,
        items=items,
        edges=pa.Table.from_pylist(list(edges), schema=EDGES_SCHEMA),
        duplicates=dup.cast(DUPLICATES_SCHEMA),
    )


# An invented family: base (4 options) -> pro (6 options, 2 added), base -> trans
# (a translation), base -> ann (an annotation row), pro -> prosnap (a snapshot), and
# a documented translation of pro ("pro-x").
BASE = [
    {"item": "s/0", "subject": "s", "stem": "Which moon of Quill is the coldest?", "options": ["Ash", "Birch", "Cedar", "Dogwood"], "key": "B"},
    {"item": "s/1", "subject": "s", "stem": "Which river of Quill is the longest?", "options": ["Elm", "Fir", "Gum", "Hazel"], "key": "C"},
]
PRO = [
    # s/0 copied: options Birch, Xylo(added), Ash, Cedar, Yew(added), Dogwood; key Birch kept
    {"item": "10", "subject": "s", "stem": "Which moon of Quill is the coldest?",
     "options": ["Birch", "Xylo", "Ash", "Cedar", "Yew", "Dogwood"], "key": "A"},
    # an identical copy of item 10
    {"item": "11", "subject": "s", "stem": "Which moon of Quill is the coldest?",
     "options": ["Birch", "Xylo", "Ash", "Cedar", "Yew", "Dogwood"], "key": "A"},
    # s/1 copied, key changed from Gum to Hazel
    {"item": "12", "subject": "s", "stem": "Which river of Quill is the longest?",
     "options": ["Elm", "Fir", "Gum", "Hazel", "Ivy"], "key": "D"},
]
TRANS = [
    {"item": "s/0", "subject": "s", "stem": "Quel lune de Quill est la plus froide ?", "options": ["Frene", "Bouleau", "Cedre", "Cornouiller"], "key": "B"},
]
ANN = [
    {"item": "s/7", "subject": "s", "stem": "Which moon of Quill is the coldest?", "options": ["Ash", "Birch", "Cedar", "Dogwood"], "key": "B",
     "record": {"error_type": "Wrong Groundtruth", "correct_answer": "2", "potential_reason": "an invented reason", "source": ""}},
    {"item": "s/8", "subject": "s", "stem": "Which river of Quill is the longest?", "options": ["Elm", "Fir", "Gum", "Hazel"], "key": "C",
     "record": {"error_type": "ok ", "correct_answer": "", "potential_reason": "", "source": ""}},
]
SNAP = [dict(PRO[0]), dict(PRO[1])]


def items_lineage(*tables: pa.Table) -> Lineage:
    """A Lineage of item tables alone (no edges), as ``workflows.load_datasets`` makes one."""
    return lineage(list(tables), [])


def toy_lineage() -> Lineage:
    """The invented family above, linked."""
    return lineage(
        [items_table("base", BASE), items_table("pro", PRO), items_table("trans", TRANS),
         items_table("ann", ANN), items_table("prosnap", SNAP)],
        [
            edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3]),
            edge("pro:11", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3]),
            edge("pro:12", "base:s/1", "option_expansion", [0, 1, 2, 3, -1], key_inherited=False),
            edge("trans:s/0", "base:s/0", "translation", [0, 1, 2, 3], stem_changed=None),
            edge("ann:s/7", "base:s/0", "re_annotation", [0, 1, 2, 3]),
            edge("ann:s/8", "base:s/1", "re_annotation", [0, 1, 2, 3]),
            edge("prosnap:10", "pro:10", "snapshot", [0, 1, 2, 3, 4, 5]),
            edge("prosnap:11", "pro:11", "snapshot", [0, 1, 2, 3, 4, 5]),
        ],
        duplicates=[("pro", "10", "10"), ("pro", "11", "10"), ("prosnap", "10", "10"), ("prosnap", "11", "10")],
        documented=[{"child": "pro-x", "parent": "pro", "activity": "translation", "languages": 3},
                    {"child": "base-x", "parent": "base", "activity": "translation", "languages": 5}],
    )

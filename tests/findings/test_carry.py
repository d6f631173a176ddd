"""Carrying findings forward to a new snapshot.

Invented snapshots for the rules; the MMLU-Pro snapshots in ../shared/data for 3011
(answer changed on 2025-10-01) and 3983 (an option removed).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from croissant_lineage.findings.carry import (
    CARRY_STATUSES,
    carried_to_pandas,
    carry_forward,
    carry_through,
)
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.schema import ITEMS_BASE_SCHEMA
from croissant_lineage.linking.snapshotdiff import compare_snapshots

SRC = Source("invented review", kind="person")


def _table(dataset: str, rows: list[tuple[str, str, list[str], str | None]]) -> pa.Table:
    cols: dict[str, list[Any]] = {f.name: [] for f in ITEMS_BASE_SCHEMA}
    for i, (item, stem, options, key) in enumerate(rows):
        vals = {"dataset": dataset, "item": item, "subject": "s", "stem": stem, "options": options, "key": key,
                "source_file": "f", "source_row": i, "record": "{}"}
        for k in ITEMS_BASE_SCHEMA.names:
            cols[k].append(vals[k])
    return pa.table(cols, schema=ITEMS_BASE_SCHEMA)


OLD = _table("v1", [
    ("1", "Which moon of Quell is largest?", ["Ash", "Birl", "Corr", "Dun"], "A"),
    ("2", "Which moon of Quell is smallest?", ["Ash", "Birl", "Corr", "Dun"], "B"),
    ("3", "Which moon of Quell is oldest?", ["Ash", "Birl", "Corr", "Dun"], "C"),
    ("4", "Which moon of Quell is brightest?", ["Ash", "Birl", "Corr", "Dun"], "D"),
    ("5", "Which moon of Quell is dimmest?", ["Ash", "Birl", "Corr", "Dun"], "A"),
    ("6", "Which moon of Quell is coldest?", ["Ash", "Birl", "Corr", "Dun"], "A"),
    ("7", "Which moon of Quell is the hotest?", ["Ash", "Birl", "Corr", "Dun"], "A"),
])
NEW = _table("v2", [
    ("1", "Which moon of Quell is largest?", ["Ash", "Birl", "Corr", "Dun"], "A"),  # unchanged
    ("2", "Which moon of Quell is smallest?", ["Ash", "Birl", "Corr", "Dun"], "C"),  # key -> Corr
    ("3", "Which moon of Quell is oldest?", ["Dun", "Corr", "Birl", "Ash"], "B"),  # reordered only
    ("4", "Which moon of Quell is brightest?", ["Ash", "Birl", "Corr", "Dun"], "A"),  # key -> Ash
    ("5", "Which moon of Quell is dimmest?", ["Ash", "Birl", "Dun"], "A"),  # option Corr removed
    ("7", "Which moon of Quell is the hottest?", ["Ash", "Birl", "Corr", "Dun"], "A"),  # stem fixed
])
DIFF = compare_snapshots(OLD, NEW, old_date="2024-01-01", new_date="2025-01-01")


def _f(item: str, target: str = "key", proposed: str | None = None, option_index: int | None = None) -> Finding:
    return Finding(item=f"v1:{item}", target=target, kind="wrong_key" if target == "key" else "other",
                   source=SRC, proposed=proposed, option_index=option_index)


def test_statuses_of_invented_findings() -> None:
    findings = [
        _f("1", proposed="Birl"),  # unchanged item
        _f("2", proposed="Corr"),  # key changed to the proposed answer
        _f("2", proposed="C"),  # the same, proposed as a letter of the old item
        _f("4", proposed="Corr"),  # key changed, but to something else
        _f("3", proposed="Ash"),  # presentation only
        _f("3", target="option", option_index=3, proposed="Ashes"),  # follows its option
        _f("5", target="option", option_index=2, proposed="Core"),  # option gone
        _f("6", proposed="Birl"),  # item gone
        _f("7", target="stem", proposed="Which moon of Quell is the hottest?"),  # stem fixed upstream
        Finding(item="other:1", target="key", kind="wrong_key", source=SRC),  # not on this snapshot
    ]
    carried = carry_forward(findings, DIFF, old_items=OLD, new_items=NEW)
    got = [(c.old_ref, c.status, c.reason) for c in carried]
    assert got == [
        ("v1:1", "still_applicable", "unchanged"),
        ("v1:2", "fixed_upstream", "key_now_proposed"),
        ("v1:2", "fixed_upstream", "key_now_proposed"),
        ("v1:4", "needs_review", "key_changed"),
        ("v1:3", "still_applicable", "cosmetic"),
        ("v1:3", "still_applicable", "cosmetic"),
        ("v1:5", "needs_review", "option_removed"),
        ("v1:6", "item_removed", "item_removed"),
        ("v1:7", "fixed_upstream", "stem_now_proposed"),
    ]
    assert carried[5].option_index == 0 and carried[5].new_ref == "v2:3"
    assert carried[7].new_ref is None
    assert {c.status for c in carried} <= set(CARRY_STATUSES)


def test_without_tables_text_proposals_need_review() -> None:
    (c,) = carry_forward([_f("7", target="stem", proposed="Which moon of Quell is the hottest?")], DIFF)
    assert (c.status, c.reason) == ("needs_review", "target_changed")
    (k,) = carry_forward([_f("2", proposed="Corr")], DIFF)
    assert k.status == "fixed_upstream"  # key findings use the diff's key texts


def test_carry_through_a_chain_and_dataframe() -> None:
    v3 = _table("v3", [
        ("1", "Which moon of Quell is largest?", ["Ash", "Birl", "Corr", "Dun"], "B"),
        ("3", "Which moon of Quell is oldest?", ["Dun", "Corr", "Birl", "Ash"], "B"),
    ])
    d2 = compare_snapshots(NEW, v3, old_date="2025-01-01", new_date="2026-01-01")
    findings = [_f("1", proposed="Birl"), _f("2", proposed="Corr"), _f("3", target="option", option_index=3, proposed="x")]
    carried = carry_through(findings, [DIFF, d2], items={"v1": OLD, "v2": NEW, "v3": v3})
    assert [(c.old_ref, c.new_ref, c.status) for c in carried] == [
        ("v2:1", "v3:1", "fixed_upstream"),
        ("v1:2", "v2:2", "fixed_upstream"),
        ("v2:3", "v3:3", "still_applicable"),
    ]
    assert carried[0].finding is findings[0]  # the original finding, not a re-targeted copy
    df = carried_to_pandas(carried)
    assert list(df["status"]) == ["fixed_upstream", "fixed_upstream", "still_applicable"]
    assert carried[2].to_dict()["option_index"] == 0


@pytest.fixture(scope="module")
def pro_diff(mmlu_lineage):
    old = mmlu_lineage.items_of("mmlu-pro@2025-08-03", required=True)
    new = mmlu_lineage.items_of("mmlu-pro@2025-10-01", required=True)
    return old, new, compare_snapshots(old, new, old_date="2025-08-03", new_date="2025-10-01")


def test_real_key_fix_and_option_removal(pro_diff) -> None:
    old, new, diff = pro_diff
    key_3011 = {r["item"]: r for r in new.select(["item", "options", "key"]).to_pylist()}["3011"]
    proposed = key_3011["options"]["ABCDEFGHIJ".index(key_3011["key"])]
    findings = [
        Finding(item="mmlu-pro@2025-08-03:3011", target="key", kind="wrong_key", source=SRC, proposed=proposed),
        Finding(item="mmlu-pro@2025-08-03:3542", target="key", kind="wrong_key", source=SRC, proposed="x"),
        Finding(item="mmlu-pro@2025-08-03:3983", target="option", option_index=3, kind="other", source=SRC),
        Finding(item="mmlu-pro@2025-08-03:6249", target="item", kind="duplicate", source=SRC),
    ]
    carried = carry_forward(findings, diff, old_items=old, new_items=new)
    assert [c.status for c in carried] == ["fixed_upstream", "still_applicable", "needs_review", "needs_review"]
    assert carried[2].reason == "option_removed"
    assert carried[3].reason == "key_changed"  # a duplicate whose answer moved to another text

"""Carry-forward, one rule at a time (``findings.carry``).

One invented pair of snapshots where each item changes in exactly one way, and findings
chosen so that each carry rule alone decides their status.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from croissant_lineage.findings.carry import (
    CarriedFinding,
    carried_to_pandas,
    carry_forward,
    carry_through,
)
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.linking.snapshotdiff import compare_snapshots
from tests.helpers import items_table

SRC = Source("invented review", kind="person")
S = "Which moon of Quell is largest? "
OPTS = ["Ash", "Birl", "Corr", "Dun"]


def _table(dataset: str, rows: list[tuple[str, str, list[str] | None, str | None]]) -> Any:
    return items_table(dataset, [{"item": i, "subject": "s", "stem": s, "options": o, "key": k} for i, s, o, k in rows])


OLD = _table("v1", [(str(i), S + str(i), OPTS, "A") for i in range(1, 10)] + [("10", S, None, None)])
NEW = _table("v2", [
    ("1", S + "1", OPTS, "A"),  # unchanged
    ("2", S + "2", ["Ash", "Birl", "Corx", "Dun"], "A"),  # option C edited
    ("3", S + "3", [*OPTS, "Eve"], "A"),  # option E added
    ("4", "Completely different text about rivers", ["Q", "R", "S", "T"], "A"),  # replaced
    ("5", S + "5 edited", OPTS, "A"),  # stem edited
    ("6", S + "6", ["Birl", "Ash", "Corr", "Dun"], "B"),  # reordered, key follows Ash
    ("7", S + "7", OPTS, "B"),  # key changed to Birl
    ("8", S + "8", ["Ash", "Birl", "Dun"], "A"),  # option Corr removed
    ("9", S + "9", ["Ash", "Birl", "Corr", "Dun "], "A"),  # white space only
    ("10", S + "!", None, None),  # stem edited, no options
])
DIFF = compare_snapshots(OLD, NEW, old_date="2024-01-01", new_date="2025-01-01")


def _f(item: str, target: str = "key", proposed: str | None = None, option_index: int | None = None,
       fid: str = "") -> Finding:
    return Finding(id=fid, item=f"v1:{item}", target=target, kind="wrong_key" if target == "key" else "other",
                   source=SRC, proposed=proposed, option_index=option_index)


CASES: list[tuple[Finding, tuple[str | None, str, str, int | None]]] = [
    # key findings: the proposed answer as text or as a letter of the old item
    (_f("7", proposed="Birl"), ("v2:7", "fixed_upstream", "key_now_proposed", None)),
    (_f("7", proposed=" birl. "), ("v2:7", "fixed_upstream", "key_now_proposed", None)),
    (_f("7", proposed="B"), ("v2:7", "fixed_upstream", "key_now_proposed", None)),
    (_f("7", proposed=" b "), ("v2:7", "fixed_upstream", "key_now_proposed", None)),
    (_f("7", proposed="C"), ("v2:7", "needs_review", "key_changed", None)),
    (_f("7", proposed="Corr"), ("v2:7", "needs_review", "key_changed", None)),
    (_f("7"), ("v2:7", "needs_review", "key_changed", None)),
    (_f("1", proposed="Birl"), ("v2:1", "still_applicable", "unchanged", None)),
    (_f("6", proposed="Birl"), ("v2:6", "still_applicable", "cosmetic", None)),
    (_f("9", proposed="Birl"), ("v2:9", "still_applicable", "cosmetic", None)),
    (_f("2", proposed="Corr"), ("v2:2", "needs_review", "target_changed", None)),
    (_f("3", proposed="Eve"), ("v2:3", "needs_review", "target_changed", None)),
    (_f("8", proposed="Birl"), ("v2:8", "needs_review", "target_changed", None)),
    (_f("5", proposed="Birl"), ("v2:5", "needs_review", "item_changed", None)),
    (_f("4", proposed="Q"), ("v2:4", "needs_review", "item_replaced", None)),
    # option findings follow their option
    (_f("2", "option", "Corx", 2), ("v2:2", "fixed_upstream", "option_now_proposed", 2)),
    (_f("2", "option", "Cory", 2), ("v2:2", "needs_review", "target_changed", 2)),
    (_f("2", "option", "Birch", 1), ("v2:2", "needs_review", "target_changed", 1)),  # another option edited
    (_f("6", "option", "Ash", 0), ("v2:6", "still_applicable", "cosmetic", 1)),
    (_f("6", "option", "Birl", 1), ("v2:6", "still_applicable", "cosmetic", 0)),
    (_f("8", "option", "Dun", 3), ("v2:8", "needs_review", "target_changed", 2)),
    (_f("8", "option", "Corr", 2), ("v2:8", "needs_review", "option_removed", None)),
    (_f("1", "option", "Dun", 3), ("v2:1", "still_applicable", "unchanged", 3)),
    (_f("5", "option", None, 3), ("v2:5", "needs_review", "item_changed", 3)),
    (_f("10", "option", "x", 0), ("v2:10", "needs_review", "option_removed", None)),
    # stem findings
    (_f("5", "stem", S + "5   edited"), ("v2:5", "fixed_upstream", "stem_now_proposed", None)),
    (_f("5", "stem", S + "5 edit"), ("v2:5", "needs_review", "target_changed", None)),
    (_f("10", "stem", S + "!"), ("v2:10", "fixed_upstream", "stem_now_proposed", None)),
    (_f("2", "stem", S + "2"), ("v2:2", "needs_review", "item_changed", None)),
    (_f("9", "stem", S + "9"), ("v2:9", "still_applicable", "cosmetic", None)),
    # item findings: no target kinds
    (Finding(item="v1:3", target="item", kind="other", source=SRC), ("v2:3", "needs_review", "item_changed", None)),
]


@pytest.mark.parametrize(("finding", "expected"), CASES, ids=[f"{f.item}-{f.target}-{f.proposed}" for f, _ in CASES])
def test_each_carry_rule_alone_decides_the_status(finding: Finding, expected: tuple[Any, ...]) -> None:
    (c,) = carry_forward([finding], DIFF, old_items=OLD, new_items=NEW)
    assert (c.new_ref, c.status, c.reason, c.option_index) == expected
    assert c.old_ref == finding.item and c.finding is finding
    assert c.kinds == DIFF.change_for(finding.item.partition(":")[2]).kinds


def test_letters_beyond_the_old_options_are_text() -> None:
    few = _table("v1", [("1", S, ["Ash", "E"], "A")])
    more = _table("v2", [("1", S, ["Ash", "E"], "B")])
    d = compare_snapshots(few, more, old_date="2024-01-01", new_date="2025-01-01")
    # "B" is the old option E; "E" is beyond the 2 old options, so it is the text E
    for proposed in ("E", "e", "B"):
        (c,) = carry_forward([_f("1", proposed=proposed)], d, old_items=few, new_items=more)
        assert (c.status, c.reason) == ("fixed_upstream", "key_now_proposed"), proposed
    (c,) = carry_forward([_f("1", proposed="A")], d, old_items=few, new_items=more)
    assert (c.status, c.reason) == ("needs_review", "key_changed")
    # without the old table a letter is just text
    (c,) = carry_forward([_f("1", proposed="B")], d)
    assert (c.status, c.reason) == ("needs_review", "key_changed")


def test_removed_item_and_other_datasets() -> None:
    gone = _table("v2", [("2", S + "2", OPTS, "A")])
    d = compare_snapshots(OLD, gone, old_date="2024-01-01", new_date="2025-01-01")
    other = Finding(item="v0:1", target="key", kind="wrong_key", source=SRC)
    out = carry_forward([_f("1", fid="f1"), other, _f("2", fid="f2")], d, old_items=OLD, new_items=gone)
    assert [c.to_dict() for c in out] == [
        {"finding": "f1", "old_ref": "v1:1", "new_ref": None, "status": "item_removed", "kinds": ["item_removed"],
         "option_index": None, "reason": "item_removed"},
        {"finding": "f2", "old_ref": "v1:2", "new_ref": "v2:2", "status": "still_applicable", "kinds": [],
         "option_index": None, "reason": "unchanged"},
    ]


def test_carry_through_stops_at_the_first_non_applicable_status() -> None:
    v3 = _table("v3", [("1", S + "1", OPTS, "B"), ("6", S + "6", ["Birl", "Ash", "Corr", "Dun"], "A"),
                       ("9", S + "9", ["Ash", "Birl", "Corr", "Dun "], "C")])
    d2 = compare_snapshots(NEW, v3, old_date="2025-01-01", new_date="2026-01-01")
    f6 = _f("6", "option", "Ash", 0, fid="f6")  # Ash moves to B in v2, and stays B in v3
    f7 = _f("7", proposed="Birl", fid="f7")  # fixed in v2: not carried to v3
    f1 = _f("1", proposed="Birl", fid="f1")  # unchanged in v2, fixed in v3
    late = Finding(id="late", item="v2:9", target="key", kind="wrong_key", source=SRC, proposed="Corr")
    never = Finding(id="never", item="v9:1", target="key", kind="wrong_key", source=SRC)
    out = carry_through([f6, never, f7, late, f1], [DIFF, d2], items={"v1": OLD, "v2": NEW, "v3": v3})
    assert [(c.finding.id, c.old_ref, c.new_ref, c.status, c.reason, c.option_index) for c in out] == [
        ("f6", "v2:6", "v3:6", "needs_review", "key_changed", 1),
        ("f7", "v1:7", "v2:7", "fixed_upstream", "key_now_proposed", None),
        ("late", "v2:9", "v3:9", "fixed_upstream", "key_now_proposed", None),
        ("f1", "v2:1", "v3:1", "fixed_upstream", "key_now_proposed", None),
    ]
    assert out[0].finding is f6 and out[3].finding is f1
    # without the tables, the option and text proposals still move where they can
    bare = carry_through([f6, f1], [DIFF, d2])
    assert [(c.old_ref, c.status, c.reason) for c in bare] == [
        ("v2:6", "needs_review", "key_changed"), ("v2:1", "fixed_upstream", "key_now_proposed")]


def test_frame_columns_even_when_empty() -> None:
    cols = ["finding", "old_ref", "new_ref", "status", "kinds", "option_index", "reason"]
    assert list(carried_to_pandas([]).columns) == cols
    c = CarriedFinding(_f("1", fid="x"), "v1:1", "v2:1", "still_applicable", (), None, "unchanged")
    frame = carried_to_pandas([c])
    assert list(frame.columns) == cols and frame.iloc[0].tolist()[:4] == ["x", "v1:1", "v2:1", "still_applicable"]




def test_an_added_option_is_a_change_of_every_option_finding() -> None:
    # item 3 only gained option E: a finding on option A still points at A, but the choice it
    # was judged among changed, so it is reviewed as a change of its target, not of the item
    (c,) = carry_forward([_f("3", "option", "Ashes", 0)], DIFF, old_items=OLD, new_items=NEW)
    assert (c.status, c.reason, c.option_index) == ("needs_review", "target_changed", 0)


def test_option_findings_without_the_new_table_are_reviewed() -> None:
    # option C of item 2 was edited; without the new item table the new text is unknown, so
    # even a finding on the first option cannot be decided (and must not fail)
    for index in (0, 2):
        (c,) = carry_forward([_f("2", "option", "Corx", index)], DIFF, old_items=OLD)
        assert (c.status, c.reason, c.option_index) == ("needs_review", "target_changed", index)


def test_a_stem_proposal_is_compared_as_a_stem() -> None:
    # the option normaliser forgives a trailing period and a thousands separator, the stem
    # normaliser does not: these proposals are not the new stem
    old = _table("v1", [("1", "Quell has 1,000 moons, name the lagest.", OPTS, "A")])
    new = _table("v2", [("1", "Quell has 1,000 moons, name the largest.", OPTS, "A")])
    d = compare_snapshots(old, new, old_date="2024-01-01", new_date="2025-01-01")
    assert d.change_for("1").kinds == ("stem_edited",)
    for proposed, expected in [
        ("Quell has 1,000 moons, name the largest", ("needs_review", "target_changed")),
        ("Quell has 1000 moons, name the largest.", ("needs_review", "target_changed")),
        ("QUELL has 1,000  moons, name the largest.", ("fixed_upstream", "stem_now_proposed")),
    ]:
        (c,) = carry_forward([_f("1", "stem", proposed)], d, old_items=old, new_items=new)
        assert (c.status, c.reason) == expected, proposed


def test_only_key_findings_are_fixed_by_a_new_key() -> None:
    # item 7's key moved to Birl: a stem or option finding proposing "Birl" is not fixed by it
    (c,) = carry_forward([_f("7", "stem", "Birl")], DIFF, old_items=OLD, new_items=NEW)
    assert (c.status, c.reason) == ("needs_review", "key_changed")
    (c,) = carry_forward([_f("7", "option", "Birl", 0)], DIFF, old_items=OLD, new_items=NEW)
    assert (c.status, c.reason, c.option_index) == ("needs_review", "key_changed", 0)


def test_all_four_presentation_changes_at_once_are_cosmetic() -> None:
    old = _table("v1", [("1", "Pick  one", ["Ash", "Birl ", "Corr"], "A")])
    new = _table("v2", [("1", " Pick one", ["Birl", "Ash", "Corr"], "B")])
    d = compare_snapshots(old, new, old_date="2024-01-01", new_date="2025-01-01")
    assert set(d.change_for("1").kinds) == {"key_repointed", "options_reordered", "option_whitespace",
                                            "stem_whitespace"}
    (c,) = carry_forward([_f("1", proposed="Corr")], d, old_items=old, new_items=new)
    assert (c.status, c.reason) == ("still_applicable", "cosmetic")
    (c,) = carry_forward([_f("1", "option", "Birch", 1)], d, old_items=old, new_items=new)
    assert (c.status, c.reason, c.option_index) == ("still_applicable", "cosmetic", 0)


def test_the_letter_just_past_the_old_options_is_text() -> None:
    # two old options: "C" names none of them, so it is the text "C" (the new key)
    old = _table("v1", [("1", S, ["Ash", "Birl"], "A")])
    new = _table("v2", [("1", S, ["Ash", "C"], "B")])
    d = compare_snapshots(old, new, old_date="2024-01-01", new_date="2025-01-01")
    (c,) = carry_forward([_f("1", proposed="C")], d, old_items=old, new_items=new)
    assert (c.status, c.reason) == ("fixed_upstream", "key_now_proposed")


def test_a_blank_proposal_is_not_fixed_by_a_key_that_points_nowhere() -> None:
    # the new key letter names no option (no key text): a blank proposal is not that answer
    old = _table("v1", [("1", S, ["Ash", "Birl"], "A")])
    new = _table("v2", [("1", S, ["Ash", "Birl"], "D")])
    d = compare_snapshots(old, new, old_date="2024-01-01", new_date="2025-01-01")
    assert d.change_for("1").new_key_text is None and "key_changed" in d.change_for("1").kinds
    for proposed in ("", " "):
        (c,) = carry_forward([_f("1", proposed=proposed)], d, old_items=old, new_items=new)
        assert (c.status, c.reason) == ("needs_review", "key_changed"), repr(proposed)


def test_option_index_is_carried_for_option_findings_only() -> None:
    # finding-like records need not be Finding objects: a key record with a stray option index
    # carries no option index, an option record without one lost its option
    stray = SimpleNamespace(id="k", item="v1:3", target="key", option_index=1, proposed="Eve")
    lost = SimpleNamespace(id="o", item="v1:3", target="option", option_index=None, proposed="Eve")
    key, option = carry_forward([stray, lost], DIFF, old_items=OLD, new_items=NEW)
    assert (key.option_index, key.status, key.reason) == (None, "needs_review", "target_changed")
    assert (option.option_index, option.status, option.reason) == (None, "needs_review", "option_removed")


def test_an_unchanged_item_keeps_the_option_index_as_given() -> None:
    # item 2 has no options in either snapshot (nothing to map through): an option finding on
    # it is still applicable at the index it names
    old = _table("v1", [("2", S, None, None)])
    new = _table("v2", [("2", S, None, None)])
    d = compare_snapshots(old, new, old_date="2024-01-01", new_date="2025-01-01")
    (c,) = carry_forward([_f("2", "option", "x", 1)], d, old_items=old, new_items=new)
    assert (c.status, c.reason, c.option_index) == ("still_applicable", "unchanged", 1)


def test_carry_through_passes_both_item_tables_on() -> None:
    # a key proposed as a letter needs the old table, an option proposal the new one
    findings = [_f("7", proposed="B", fid="letter"), _f("2", "option", "Corx", 2, fid="option"),
                _f("5", "stem", S + "5 edited", fid="stem")]
    out = carry_through(findings, [DIFF], items={"v1": OLD, "v2": NEW})
    assert [(c.finding.id, c.status, c.reason) for c in out] == [
        ("letter", "fixed_upstream", "key_now_proposed"),
        ("option", "fixed_upstream", "option_now_proposed"),
        ("stem", "fixed_upstream", "stem_now_proposed"),
    ]


def test_findings_without_an_id_are_carried_and_listed() -> None:
    # carrying reads item, target, option index and proposal only: records without an id go
    # through a chain of snapshots and are listed with no finding id
    v3 = _table("v3", [("1", S + "1", OPTS, "B")])
    d2 = compare_snapshots(NEW, v3, old_date="2025-01-01", new_date="2026-01-01")
    record = SimpleNamespace(item="v1:1", target="key", option_index=None, proposed="Birl")
    (c,) = carry_through([record], [DIFF, d2], items={"v1": OLD, "v2": NEW, "v3": v3})
    assert c.finding is record
    assert c.to_dict() == {"finding": None, "old_ref": "v2:1", "new_ref": "v3:1", "status": "fixed_upstream",
                           "kinds": ["key_changed"], "option_index": None, "reason": "key_now_proposed"}
    assert carried_to_pandas([c]).iloc[0]["finding"] is None

"""Carry-forward boundaries: a whitespace-only stem change is cosmetic, an
edit of one character is not; the item-diff thresholds at, just below and just above."""

from __future__ import annotations

from typing import Any

import pytest

from croissant_lineage.findings.carry import carry_forward
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.linking.itemdiff import OPTION_FUZZY_THRESHOLD, REPLACED_BELOW, compare_items
from croissant_lineage.linking.snapshotdiff import compare_snapshots
from tests.helpers import items_table

SRC = Source("invented review", kind="person")
STEM = "Which moon of Quell is largest?"
OPTS = ["Ash", "Birl", "Corr", "Dun"]


def _carry(new_stem: str, target: str = "key", proposed: str | None = "Birl") -> tuple[tuple[str, ...], str, str]:
    old = items_table("v1", [{"item": "1", "subject": "s", "stem": STEM, "options": OPTS, "key": "A"}])
    new = items_table("v2", [{"item": "1", "subject": "s", "stem": new_stem, "options": OPTS, "key": "A"}])
    diff = compare_snapshots(old, new, old_date="2024-01-01", new_date="2025-01-01")
    f = Finding(item="v1:1", target=target, kind="wrong_key" if target == "key" else "other", source=SRC,
                proposed=proposed)
    (c,) = carry_forward([f], diff, old_items=old, new_items=new)
    return c.kinds, c.status, c.reason


@pytest.mark.parametrize(
    "new_stem",
    ["Which  moon of Quell is largest?", "Which moon of Quell is largest? ", "Which moon of\nQuell is\tlargest?"],
)
@pytest.mark.parametrize(("target", "proposed"), [("key", "Birl"), ("stem", "Which moon of Quell is biggest?")])
def test_whitespace_only_stem_change_is_cosmetic(new_stem: str, target: str, proposed: str) -> None:
    assert _carry(new_stem, target, proposed) == (("stem_whitespace",), "still_applicable", "cosmetic")


def test_one_character_stem_edit_is_not_cosmetic() -> None:
    kinds, status, reason = _carry("Which moon of Quell is largest!")
    assert kinds == ("stem_edited",) and (status, reason) == ("needs_review", "item_changed")
    kinds, status, reason = _carry("Which moon of Quell is largest!", "stem", "Which moon of Quell is biggest?")
    assert (status, reason) == ("needs_review", "target_changed")


def test_unchanged_stem_is_unchanged() -> None:
    assert _carry(STEM) == ((), "still_applicable", "unchanged")


def _row(stem: str, options: list[str], key: str = "A") -> dict[str, Any]:
    return {"item": "1", "subject": "s", "stem": stem, "options": options, "key": key}


# "abcdefghij" vs k substitutions: ratio = 100 - 10 k on the normalised stems.
@pytest.mark.parametrize(
    ("new_stem", "replaced"),
    [("abcde#####", False), ("abcd######", True)],
    ids=["at-50", "below-50"],
)
def test_replaced_below_boundary(new_stem: str, replaced: bool) -> None:
    assert REPLACED_BELOW == 50.0
    change = compare_items(_row("abcdefghij", OPTS), _row(new_stem, OPTS))
    # an item replaced gets no finer kinds
    assert change.kinds == (("item_replaced",) if replaced else ("stem_edited",))


def test_replaced_just_above_boundary() -> None:
    change = compare_items(_row("abcdefghij", OPTS), _row("abcdef####", OPTS))  # 60
    assert "item_replaced" not in change.kinds


@pytest.mark.parametrize(
    ("new_option", "edited"),
    [("abc#######", False), ("abcdef####", True), ("abcdefg###", True), ("abcde#####", False)],
    ids=["far-below", "at-60", "above-60", "below-60"],
)
def test_option_fuzzy_threshold_boundary(new_option: str, edited: bool) -> None:
    assert OPTION_FUZZY_THRESHOLD == 60.0
    # the option moves, so that it is not paired in place (same index) whatever its score
    change = compare_items(_row(STEM, ["abcdefghij", "Birl"]), _row(STEM, ["Birl", new_option]))
    assert change.option_map == ((1, 0) if edited else (1, -1))
    assert ("option_edited" in change.kinds) is edited
    assert ("option_removed" in change.kinds) is not edited

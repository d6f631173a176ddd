"""The item diff (:mod:`croissant_lineage.linking.itemdiff`): one change code per way an
item can change.

Every change code is produced by a pair of rows that differ in that one way, and each
threshold is tried at, just below and just above its boundary.
"""

from __future__ import annotations

from typing import Any

import pytest
from rapidfuzz import fuzz

from croissant_lineage.linking.itemdiff import (
    CHANGE_KINDS,
    OPTION_FUZZY_THRESHOLD,
    REPLACED_BELOW,
    ItemChange,
    compare_items,
    key_text,
)

STEM = "Which moon of the outer planets is the largest one?"
OPTS = ["Ganymede", "Titan", "Callisto", "Io"]


def _row(stem: str | None = STEM, options: list[str] | None = None, key: str | None = "A",
         item: str = "q1", subject: str | None = "astronomy") -> dict[str, Any]:
    return {"item": item, "subject": subject, "stem": stem, "options": list(OPTS) if options is None else options,
            "key": key}


def _kinds(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, ...]:
    return compare_items(old, new).kinds


@pytest.mark.parametrize(
    ("key", "options", "text"),
    [("A", OPTS, "Ganymede"), ("D", OPTS, "Io"), ("E", OPTS, None), ("D", OPTS[:3], None), ("", OPTS, None),
     (None, OPTS, None), ("a", OPTS, None), ("B", OPTS, "Titan")],
)
def test_key_text_of_a_key_and_its_options(key: str | None, options: list[str], text: str | None) -> None:
    assert key_text(key, options) == text


def test_change_thresholds_and_kinds() -> None:
    assert (REPLACED_BELOW, OPTION_FUZZY_THRESHOLD) == (50.0, 60.0)
    assert CHANGE_KINDS[0] == "item_added" and CHANGE_KINDS[-1] == "stem_whitespace"


def test_unchanged_item() -> None:
    c = compare_items(_row(), _row())
    assert c == ItemChange("q1", "q1", (), "A", "A", "Ganymede", "Ganymede", 100.0, (0, 1, 2, 3), 4, 4, "astronomy")
    assert c.changed is False
    assert c.pattern == "unchanged"


def test_added_and_removed_items() -> None:
    added = compare_items(None, _row(key="B"))
    assert added == ItemChange(None, "q1", ("item_added",), None, "B", None, "Titan", None, (), 0, 4, "astronomy")
    assert added.changed and added.pattern == "item_added"
    removed = compare_items(_row(key="C", options=OPTS[:3]), None)
    assert removed == ItemChange("q1", None, ("item_removed",), "C", None, "Callisto", None, None, (), 3, 0, "astronomy")
    # an item without options
    bare = compare_items(_row(options=[], key=None), None)
    assert (bare.old_options, bare.old_key_text) == (0, None)
    with pytest.raises(ValueError, match=r"^compare_items needs at least one of old and new$"):
        compare_items(None, None)


def test_to_dict_has_every_field() -> None:
    c = compare_items(_row(), _row(key="B", item="q2", subject=None))
    assert c.to_dict() == {
        "old_item": "q1", "new_item": "q2", "subject": "astronomy", "kinds": ["key_changed"], "old_key": "A",
        "new_key": "B", "old_key_text": "Ganymede", "new_key_text": "Titan", "stem_score": 100.0,
        "option_map": [0, 1, 2, 3], "old_options": 4, "new_options": 4,
    }


def test_subject_new_side_first() -> None:
    assert compare_items(_row(subject="old"), _row(subject="new")).subject == "new"
    assert compare_items(_row(subject="old"), _row(subject=None)).subject == "old"


# -- the stem -----------------------------------------------------------------------------------


def test_whitespace_only_stem_change_is_cosmetic() -> None:
    c = compare_items(_row(), _row(stem="  Which moon of the outer\tplanets is  the largest one? "))
    assert c.kinds == ("stem_whitespace",)
    assert c.stem_score == 100.0


def test_stem_edit_is_scored_on_normalised_stems() -> None:
    c = compare_items(_row(stem="ABCDEFGHIJ"), _row(stem="abcdefghiX"))
    assert c.kinds == ("stem_edited",)
    assert c.stem_score == 90.0  # case folded away; one letter of ten differs
    c = compare_items(_row(stem="abcdef"), _row(stem="abcdeX"))
    assert c.stem_score == 83.33


def test_missing_stems_are_empty_text() -> None:
    assert _kinds(_row(stem=None), _row(stem="")) == ()
    assert _kinds(_row(stem=None), _row(stem=" ")) == ("stem_whitespace",)


@pytest.mark.parametrize(
    ("new_stem", "score", "replaced"),
    [("abxy", 50.0, False), ("abxyz", 44.44, True), ("abcxy", 66.67, False)],
    ids=["at", "below", "above"],
)
def test_replaced_below_50(new_stem: str, score: float, replaced: bool) -> None:
    assert round(fuzz.ratio("abcd", new_stem), 2) == score
    c = compare_items(_row(stem="abcd", key="A"), _row(stem=new_stem, key="B"))
    assert c.stem_score == score
    # a replaced item gets no finer kinds (the key change is not listed)
    assert c.kinds == (("item_replaced",) if replaced else ("key_changed", "stem_edited"))
    assert c.option_map == (0, 1, 2, 3)


# -- the options --------------------------------------------------------------------------------


def test_option_kinds_one_by_one() -> None:
    assert _kinds(_row(), _row(options=["Titan", "Ganymede", "Callisto", "Io"], key="B")) == (
        "key_repointed", "options_reordered")
    assert _kinds(_row(), _row(options=[*OPTS, "Europa"])) == ("option_added",)
    assert _kinds(_row(), _row(options=OPTS[:3])) == ("option_removed",)
    assert _kinds(_row(), _row(options=["Ganymede", "Titan", "Callisto", "Io "])) == ("option_whitespace",)
    assert _kinds(_row(), _row(options=["Ganymede", "Titan", "Calisto", "Io"])) == ("option_edited",)
    # rewritten in place beyond recognition: still an edit of that option
    c = compare_items(_row(), _row(options=["Ganymede", "Titan", "Callisto", "Rhea"]))
    assert c.kinds == ("option_edited",)
    assert c.option_map == (0, 1, 2, 3)


def test_options_none_is_no_options() -> None:
    old = {"item": "q1", "stem": STEM, "options": None, "key": None}
    assert compare_items(old, dict(old)).kinds == ()
    assert compare_items(old, {**old, "options": ["x"]}).kinds == ("option_added",)


def test_the_first_option_removed_is_seen() -> None:
    c = compare_items(_row(key="B"), _row(options=OPTS[1:], key="A"))
    assert c.option_map == (1, 2, 3)
    assert c.kinds == ("key_repointed", "option_removed")


def test_an_order_kept_is_not_reordered() -> None:
    # a removal in the middle keeps the order of the others
    assert _kinds(_row(), _row(options=["Ganymede", "Callisto", "Io"])) == ("option_removed",)
    # equal neighbours (a repeated option) are not a reordering either
    old = _row(options=["x", "x", "y"])
    assert _kinds(old, _row(options=["x", "x", "y", "z"])) == ("option_added",)


def test_case_only_option_change_is_an_edit_found_wherever_it_moved() -> None:
    c = compare_items(_row(options=["q", "TITAN"]), _row(options=["titan", "q"], key="B"))
    assert c.option_map == (1, 0)
    assert c.kinds == ("key_repointed", "options_reordered", "option_edited")


@pytest.mark.parametrize(
    ("old_option", "score", "paired"),
    [("abcdeXXXXX", 50.0, False), ("abcdefXXXX", 60.0, True), ("abcdefgXXX", 70.0, True),
     ("abcdefXXXXY", 57.14, False)],
    ids=["below", "at", "above", "just-below"],
)
def test_option_fuzzy_threshold_60(old_option: str, score: float, paired: bool) -> None:
    assert round(fuzz.ratio("abcdefghij", old_option.lower()), 2) == score
    # the edited option moves, so that the in-place pass cannot pair it
    c = compare_items(_row(options=["q", old_option], key="A"), _row(options=["abcdefghij", "q"], key="B"))
    if paired:
        assert c.option_map == (1, 0)
        assert c.kinds == ("key_repointed", "options_reordered", "option_edited")
    else:
        assert c.option_map == (-1, 0)
        assert c.kinds == ("key_repointed", "option_added", "option_removed")


def test_in_place_needs_a_free_parent_at_the_position() -> None:
    # "q" moved to position 0; the new option at position 1 cannot take old option 1 in
    # place (used by "q"), nor can the one at position 2 (no old option there): both added
    c = compare_items(_row(options=["zzzz", "q"]), _row(options=["q", "yyyy", "wwww"]))
    assert c.option_map == (1, -1, -1)
    assert c.kinds == ("key_changed", "option_added", "option_removed")
    # the new option at position 0 takes the free old option 0 in place
    c = compare_items(_row(options=["zzzz", "q"]), _row(options=["yyyy", "q", "wwww"]))
    assert c.option_map == (0, 1, -1)
    assert c.kinds == ("option_added", "option_edited")


# -- the key ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old_key", "new_key", "new_options", "kinds"),
    [
        ("A", "A", OPTS, ()),
        ("A", "B", OPTS, ("key_changed",)),
        ("A", None, OPTS, ("key_changed",)),
        (None, "A", OPTS, ("key_changed",)),
        (None, None, OPTS, ()),
        ("A", "Z", OPTS, ("key_changed",)),  # a letter past the options: a new option
        ("A", "E", OPTS, ("key_changed",)),  # the letter just past the options
        ("B", "E", OPTS, ("key_changed",)),
        ("D", "A", ["Io", "Ganymede", "Titan", "Callisto"], ("key_repointed", "options_reordered")),
        ("A", "A", ["Io", "Ganymede", "Titan", "Callisto"], ("key_changed", "options_reordered")),
        ("A", "E", [*OPTS, "Europa"], ("key_changed", "option_added")),
        ("A", "A", ["Europa", *OPTS[1:]], ("option_edited",)),  # the key option edited in place: still the key
    ],
)
def test_key_kinds(old_key: str | None, new_key: str | None, new_options: list[str], kinds: tuple[str, ...]) -> None:
    assert _kinds(_row(key=old_key), _row(key=new_key, options=new_options)) == kinds


def test_kinds_are_listed_in_code_order() -> None:
    c = compare_items(_row(), _row(stem=STEM + " Name it.", options=["Titan ", "Ganymede", "Europa"], key="C"))
    assert c.kinds == tuple(sorted(c.kinds, key=CHANGE_KINDS.index))
    assert c.kinds == ("key_changed", "options_reordered", "option_removed", "option_edited", "option_whitespace",
                       "stem_edited")
    assert c.pattern == "+".join(c.kinds)

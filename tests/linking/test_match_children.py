"""Matching children to parents (:mod:`croissant_lineage.linking.match`): by id, exact
and fuzzy stems, the option evidence that breaks ties, blocks, and one child per parent.

Stems are invented so that their RapidFuzz ratio is exact (``k`` substitutions in a
100-character stem score ``100 - k``); each test asserts the scores it relies on.
"""

from __future__ import annotations

from typing import Any

import pytest
from rapidfuzz import fuzz

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import LinkRule
from croissant_lineage.linking.match import Match, id_matches, match_text, option_evidence
from croissant_lineage.linking.sides import Side
from tests.helpers import items_table

S100 = "which planet in the zorblat system has the longest orbital year among all of its known rocky moons??"
OPTS = ["Ash", "Birl", "Corr", "Dun"]
OTHER = ["Fir", "Gor", "Hul", "Ix"]


def _sub(k: int, stem: str = S100) -> str:
    chars = list(stem)
    for p in (3, 20, 40, 60, 80, 90, 95, 50, 70, 10, 30)[:k]:
        chars[p] = "#"
    return "".join(chars)


def _item(item: str, stem: str | None, options: list[str] | None = None, key: str | None = "A",
          subject: str | None = "s", **record: Any) -> dict:
    return {"item": item, "subject": subject, "stem": stem, "options": options, "key": key, "record": record}


def _side(rows: list[dict]) -> Side:
    return Side(items_table("d", rows))


def _text(children: list[dict], parents: list[dict], *, threshold: float = 85.0, one_to_one: bool = False,
          **rule: Any) -> tuple[dict[int, Match], dict[int, tuple[int | None, float]]]:
    r = LinkRule(by="text", threshold=threshold, **rule)
    matches, unmatched = match_text(_side(children), _side(parents), r, list(range(len(children))), one_to_one=one_to_one)
    by_child = {m.child: m for m in matches}
    assert len(by_child) == len(matches)
    assert not set(by_child) & set(unmatched)
    return by_child, unmatched


def test_invented_stems_score_as_constructed() -> None:
    assert [fuzz.ratio(S100, _sub(k)) for k in (1, 2, 3, 4)] == [99.0, 98.0, 97.0, 96.0]


# -- id_matches ---------------------------------------------------------------------------------


def test_id_matches_by_own_id_and_by_field() -> None:
    parents = _side([_item("7", "a"), _item("8", "b"), _item("x", "c")])
    children = _side([
        _item("8", "q", pid=7.0), _item("7", "q", pid=8), _item("x", "q", pid="x"), _item("9", "q", pid=None),
        _item("10", "q", pid=7.5),
    ])
    matches, unmatched = id_matches(children, parents, LinkRule(by="id"), [0, 1, 2, 3], "")
    assert [(m.child, m.parent, m.method, m.score) for m in matches] == [(0, 1, "id", 100.0), (1, 0, "id", 100.0),
                                                                         (2, 2, "id", 100.0)]
    assert unmatched == {3: (None, 0.0)}
    matches, unmatched = id_matches(children, parents, LinkRule(by="index", child_field="pid"), [0, 1, 2, 3, 4], "")
    # 7.0 names item "7"; 7.5 names nothing; None names nothing
    assert [(m.child, m.parent, m.method) for m in matches] == [(0, 0, "index"), (1, 1, "index"), (2, 2, "index")]
    assert unmatched == {3: (None, 0.0), 4: (None, 0.0)}
    # only the selected children
    matches, unmatched = id_matches(children, parents, LinkRule(by="id"), [1], "")
    assert [m.child for m in matches] == [1] and unmatched == {}


def test_id_matches_keeps_a_non_integer_float_as_text() -> None:
    parents = _side([_item("7.5", "a"), _item("7", "b")])
    children = _side([_item("c", "q", pid=7.5)])
    matches, _ = id_matches(children, parents, LinkRule(by="id", child_field="pid"), [0], "")
    assert [m.parent for m in matches] == [0]


# -- option_evidence ----------------------------------------------------------------------------


def test_option_evidence_counts_each_pass_cumulatively() -> None:
    child = _side([_item("c", "Q?", ["A", "b ", "C", "nan", "zzzzzzzzzz", "new"])])
    parent = _side([_item("p", "Q?", ["A", "b", "c", "None", "zzzzzzzzzy", "gone"])])
    # bytes 1 (A), cased +1 (b), folded/na +2 (c, nan), fuzzy +1; 5 of 6 parent options
    assert option_evidence(child, 0, parent, 0) == (False, 83.33, 1, 2, 4, 5)


def test_option_evidence_of_a_byte_identical_copy() -> None:
    rows = [_item("c", "Q?", OPTS)]
    assert option_evidence(_side(rows), 0, _side(rows), 0) == (True, 100.0, 4, 4, 4, 4)
    # same options, stem differs in bytes only: not the same item bytes
    other = _side([_item("p", "Q? ", OPTS)])
    assert option_evidence(_side(rows), 0, other, 0) == (False, 100.0, 4, 4, 4, 4)
    # same stem, options differ
    other = _side([_item("p", "Q?", [*OPTS[:3], "Eel"])])
    assert option_evidence(_side(rows), 0, other, 0) == (False, 75.0, 3, 3, 3, 3)


@pytest.mark.parametrize(
    ("c_stem", "c_opts", "p_stem", "p_opts", "same"),
    [
        ("Q?", None, "Q?", None, True),
        ("Q?", None, "q?", None, False),  # equal keys, different bytes
        ("Q?", None, "Q?", OPTS, False),
        ("Q?", OPTS, "Q?", None, False),
    ],
)
def test_option_evidence_without_options(c_stem: str, c_opts: list[str] | None, p_stem: str,
                                         p_opts: list[str] | None, same: bool) -> None:
    ev = option_evidence(_side([_item("c", c_stem, c_opts)]), 0, _side([_item("p", p_stem, p_opts)]), 0)
    assert ev == (same, 0.0, 0, 0, 0, 0)


# -- exact matches ------------------------------------------------------------------------------


def test_exact_match_prefers_the_byte_copy_and_lists_the_others() -> None:
    parents = [_item("p0", "q?", [*OPTS[:3], "Eel"]), _item("p1", "Q?", OPTS), _item("p2", "Q? ", OPTS)]
    m, un = _text([_item("c", "Q?", OPTS)], parents)
    assert m[0] == Match(0, 1, "exact", 100.0, (2, 0), False)
    assert un == {}


def test_exact_tie_is_ambiguous_and_goes_to_the_first_parent() -> None:
    parents = [_item("p0", "Other?", OPTS), _item("p1", "Q?", OPTS), _item("p2", "Q?", OPTS)]
    m, _ = _text([_item("c", "Q?", OPTS)], parents)
    assert m[0] == Match(0, 1, "exact", 100.0, (2,), True)


def test_a_single_exact_candidate_is_not_ambiguous() -> None:
    m, _ = _text([_item("c", "Q?", OPTS)], [_item("p", "Q?", [*OTHER[:3], "Ash"])])
    assert m[0] == Match(0, 0, "exact", 100.0, (), False)


def test_generic_stem_lets_fuzzy_find_the_parent_whose_options_it_copies() -> None:
    parents = [_item("p-generic", S100, OTHER), _item("p-copy", _sub(2), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert (m[0].parent, m[0].method, m[0].score) == (1, "fuzzy", 98.0)


def test_generic_stem_without_a_better_parent_keeps_the_exact_match() -> None:
    parents = [_item("p-generic", S100, OTHER), _item("p-far", _sub(2), ["Jay", "Kel", "Lom", "Mun"])]
    m, un = _text([_item("c", S100, OPTS)], parents)
    assert m[0] == Match(0, 0, "exact", 100.0, (), False)
    assert un == {}
    # nothing in fuzzy reach at all: the exact fallback still holds
    m, un = _text([_item("c", S100, OPTS)], [_item("p-generic", S100, OTHER)])
    assert m[0] == Match(0, 0, "exact", 100.0, (), False)


def test_same_stem_without_options_is_an_exact_match_not_a_generic_one() -> None:
    # no options on either side: nothing to compare, the exact stem is the evidence
    parents = [_item("p0", S100, None), _item("p1", _sub(1), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert (m[0].parent, m[0].method) == (0, "exact")
    m, _ = _text([_item("c", S100, None)], [_item("p0", S100, OTHER), _item("p1", _sub(1), None)])
    assert (m[0].parent, m[0].method) == (0, "exact")


# -- fuzzy matches ------------------------------------------------------------------------------


def test_below_threshold_is_unmatched_with_its_best_candidate_rounded() -> None:
    short = "abcdef"  # 5 of 6 equal: 2*5/12 = 83.33
    m, un = _text([_item("c", short, OPTS)], [_item("p0", "zzzzzz", OPTS), _item("p1", "abcdeX", OPTS)])
    assert m == {}
    assert un == {0: (1, 83.33)}


def test_fuzzy_score_is_rounded() -> None:
    m, _ = _text([_item("c", "abcdef", OPTS)], [_item("p0", "abcdeX", OPTS)], threshold=80)
    assert m[0] == Match(0, 0, "fuzzy", 83.33, (), False)


def test_no_parent_in_the_block() -> None:
    m, un = _text([_item("c", S100, OPTS, subject="a")], [_item("p", S100, OPTS, subject="b")])
    assert m == {} and un == {0: (None, 0.0)}
    # blocking off: the same pair links
    m, un = _text([_item("c", S100, OPTS, subject="a")], [_item("p", S100, OPTS, subject="b")],
                  child_block=None, parent_block=None)
    assert m[0].parent == 0 and un == {}


def test_blocks_are_matched_separately() -> None:
    parents = [_item("pa", _sub(1), OPTS, subject="a"), _item("pb", _sub(2), OPTS, subject="b")]
    children = [_item("cb", S100, OPTS, subject="b"), _item("ca", S100, OPTS, subject="a")]
    m, _ = _text(children, parents)
    assert (m[0].parent, m[0].score) == (1, 98.0)
    assert (m[1].parent, m[1].score) == (0, 99.0)


def test_fuzzy_near_equal_stems_are_decided_by_options_then_stem_then_order() -> None:
    # the best stem (99) has other options; the 97 copies them: options decide
    parents = [_item("p-stem", _sub(1), OTHER), _item("p-opts", _sub(3), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert m[0] == Match(0, 1, "fuzzy", 97.0, (0,), False)
    # equal options: the closer stem, not the list order
    parents = [_item("p98", _sub(2), OPTS), _item("p99", _sub(1), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert m[0] == Match(0, 1, "fuzzy", 99.0, (0,), False)
    # equal options and stems: the first parent, ambiguous
    parents = [_item("p0", _sub(1), OTHER), _item("p1", _sub(1), OPTS), _item("p2", _sub(1), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert m[0] == Match(0, 1, "fuzzy", 99.0, (2, 0), True)


def test_equal_evidence_at_another_score_is_not_a_tie() -> None:
    parents = [_item("p97", _sub(3), OPTS), _item("p99", _sub(1), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert m[0].ambiguous is False and m[0].alternatives == (0,)


# -- one child per parent -----------------------------------------------------------------------


def test_one_to_one_moves_the_weaker_claim_to_its_next_candidate() -> None:
    parents = [_item("p0", S100, OPTS), _item("p1", _sub(3), OPTS)]
    children = [_item("c-copy", S100, OPTS), _item("c-near", _sub(1), OPTS)]
    m, un = _text(children, parents)  # greedy: both take p0
    assert (m[0].parent, m[1].parent) == (0, 0)
    m, un = _text(children, parents, one_to_one=True)
    assert m[0] == Match(0, 0, "exact", 100.0, (), False)
    assert m[1] == Match(1, 1, "fuzzy", 98.0, (0,), False)  # _sub(1) vs _sub(3): two positions differ
    assert un == {}


def test_one_to_one_counts_candidates_outside_the_near_window() -> None:
    # p1 is 6 points below the best stem: outside NEAR, yet above the threshold
    parents = [_item("p0", S100, OPTS), _item("p1", _sub(7), OPTS)]
    children = [_item("c-copy", S100, OPTS), _item("c-near", _sub(1), OPTS)]
    m, un = _text(children, parents, one_to_one=True)
    assert m[0].parent == 0
    assert (m[1].parent, m[1].method, m[1].alternatives) == (1, "fuzzy", (0,))
    assert m[1].score == round(fuzz.ratio(_sub(1), _sub(7)), 2)
    assert un == {}
    # below the threshold it is no candidate: the child is left unmatched with its best one
    m, un = _text(children, parents, one_to_one=True, threshold=95)
    assert list(m) == [0]
    assert un == {1: (0, 99.0)}


def test_one_to_one_leaves_a_child_without_a_free_parent_unmatched() -> None:
    parents = [_item("p0", S100, OPTS)]
    children = [_item("c0", S100, OPTS), _item("c1", S100, OPTS)]
    m, un = _text(children, parents, one_to_one=True)
    assert list(m) == [0] and m[0].parent == 0
    assert un == {1: (0, 100.0)}


def test_one_to_one_without_collisions_changes_nothing() -> None:
    parents = [_item("p0", S100, OPTS), _item("p1", _sub(5), OTHER)]
    children = [_item("c0", S100, OPTS), _item("c1", _sub(4), OTHER)]
    assert _text(children, parents, one_to_one=True) == _text(children, parents)


def test_one_to_one_keeps_the_match_of_a_child_that_keeps_its_parent() -> None:
    # two identical parents, two identical children: each gets one; the child that keeps
    # its first choice keeps its match as it was (ambiguous, with its alternative)
    rows = [_item("x0", S100, OPTS), _item("x1", S100, OPTS)]
    m, un = _text(rows, rows, one_to_one=True)
    assert m[0] == Match(0, 0, "exact", 100.0, (1,), True)
    assert m[1] == Match(1, 1, "exact", 100.0, (0,), False)
    assert un == {}


def test_one_to_one_unmatched_child_names_its_best_candidate() -> None:
    # c2 is 99 from p0 and 98 from p1; both are taken by exact copies
    parents = [_item("p0", _sub(1), OPTS), _item("p1", S100, OPTS)]
    children = [_item("c0", _sub(1), OPTS), _item("c1", S100, OPTS), _item("c2", _sub(2), OPTS)]
    m, un = _text(children, parents, one_to_one=True)
    assert (m[0].parent, m[1].parent) == (0, 1)
    assert un == {2: (0, 99.0)}


def test_one_to_one_alternatives_are_in_weight_order() -> None:
    # c2: p1 99 (taken by an exact copy), p2 98, p0 97 -> p2, alternatives p1 then p0
    parents = [_item("p0", _sub(5), OPTS), _item("p1", _sub(1), OPTS), _item("p2", S100, OPTS)]
    assert [fuzz.ratio(_sub(2), p["stem"]) for p in parents] == [97.0, 99.0, 98.0]
    m, un = _text([_item("c0", _sub(1), OPTS), _item("c2", _sub(2), OPTS)], parents, one_to_one=True)
    assert m[0] == Match(0, 1, "exact", 100.0, (), False)
    assert m[1] == Match(1, 2, "fuzzy", 98.0, (1, 0), False)
    assert un == {}


def test_a_missing_field_is_named_with_its_role() -> None:
    side = _side([_item("c", "Q?", OPTS)])
    with pytest.raises(SpecError, match=r"^CL-E003 d->p: child_field names field 'pid', which"):
        id_matches(side, side, LinkRule(by="id", child_field="pid"), [0], "d->p: ")
    with pytest.raises(SpecError, match=r"^CL-E003 d->p: child_block names field 'topic', which"):
        match_text(side, side, LinkRule(child_block="topic"), [0], "d->p: ")
    with pytest.raises(SpecError, match=r"^CL-E003 d->p: parent_block names field 'topic', which"):
        match_text(side, side, LinkRule(parent_block="topic"), [0], "d->p: ")


def test_id_matches_a_missing_id_names_no_parent_called_none() -> None:
    parents = _side([_item("None", "a"), _item("nan", "b")])
    children = _side([_item("c", "q", pid=None)])
    matches, unmatched = id_matches(children, parents, LinkRule(by="id", child_field="pid"), [0], "")
    assert list(matches) == [] and unmatched == {0: (None, 0.0)}


def test_one_to_one_an_equal_stem_outweighs_better_options() -> None:
    # c0 has p0's stem and 3 of its 4 options; c1 a stem 99 from it and all 4 options
    parents = [_item("p0", S100, OPTS)]
    children = [_item("c0", S100, [*OPTS[:3], "Eel"]), _item("c1", _sub(1), OPTS)]
    m, un = _text(children, parents, one_to_one=True)
    assert list(m) == [0] and (m[0].parent, m[0].method) == (0, "exact")
    assert un == {1: (0, 99.0)}


def test_same_stem_options_equal_only_once_folded_is_still_exact() -> None:
    m, _ = _text([_item("c", S100, [o.upper() for o in OPTS])], [_item("p", S100, OPTS)])
    assert m[0] == Match(0, 0, "exact", 100.0, (), False)


@pytest.mark.parametrize(("threshold", "linked"), [(97.0, True), (96.99, True), (97.01, False)])
def test_fuzzy_threshold_is_inclusive(threshold: float, linked: bool) -> None:
    m, un = _text([_item("c", S100, OPTS)], [_item("p", _sub(3), OPTS)], threshold=threshold)
    assert (0 in m) is linked
    assert un == ({} if linked else {0: (0, 97.0)})


@pytest.mark.parametrize(("k", "chosen"), [(4, 1), (5, 0)])
def test_near_window_edge_is_inclusive(k: int, chosen: int) -> None:
    # the best stem scores 99; a parent at exactly 96 (99 - NEAR) still competes on options
    parents = [_item("p-stem", _sub(1), OTHER), _item("p-opts", _sub(k), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert m[0].parent == chosen


@pytest.mark.parametrize("key", [None, "1", ""])
def test_option_evidence_with_a_key_that_is_no_letter(key: str | None) -> None:
    child = _side([_item("c", "Q?", ["x", "y"], key=key)])
    parent = _side([_item("p", "Q?", ["y", "x"], key=key)])
    assert option_evidence(child, 0, parent, 0) == (False, 100.0, 2, 2, 2, 2)


def test_a_missing_subject_is_not_the_subject_none() -> None:
    m, un = _text([_item("c", S100, OPTS, subject=None)], [_item("p", S100, OPTS, subject="None")])
    assert m == {} and un == {0: (None, 0.0)}


def test_match_text_defaults() -> None:
    side = _side([_item("c", "Q?", OPTS)])
    with pytest.raises(SpecError, match=r"^CL-E003 child_block names field 'topic'"):
        match_text(side, side, LinkRule(child_block="topic"), [0])
    # many children may share a parent unless one_to_one is asked
    rows = [_item("c0", S100, OPTS), _item("c1", S100, OPTS)]
    matches, unmatched = match_text(_side(rows), _side(rows[:1]), LinkRule(), [0, 1])
    assert [(m.child, m.parent) for m in matches] == [(0, 0), (1, 0)] and unmatched == {}


def test_one_to_one_candidate_at_the_threshold_outside_the_window() -> None:
    parents = [_item("p0", S100, OPTS), _item("p1", _sub(7), OPTS)]
    children = [_item("c-copy", S100, OPTS), _item("c-near", _sub(1), OPTS)]
    assert fuzz.ratio(_sub(1), _sub(7)) == 94.0
    m, un = _text(children, parents, one_to_one=True, threshold=94)
    assert (m[1].parent, m[1].score) == (1, 94.0) and un == {}


def test_one_to_one_reassigned_score_is_rounded() -> None:
    parents = [_item("p0", "abcdef", OPTS), _item("p1", "abcdYZ", OPTS)]
    children = [_item("c0", "abcdef", OPTS), _item("c1", "abcdeX", OPTS)]
    m, un = _text(children, parents, one_to_one=True, threshold=60, child_block=None, parent_block=None)
    assert m[1] == Match(1, 1, "fuzzy", 66.67, (0,), False)
    assert un == {}


def test_generic_stem_fuzzy_parent_with_case_folded_options_wins() -> None:
    parents = [_item("p-generic", S100, OTHER), _item("p-copy", _sub(2), [o.upper() for o in OPTS])]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert (m[0].parent, m[0].method) == (1, "fuzzy")


def test_same_score_other_options_is_no_tie() -> None:
    parents = [_item("p0", _sub(1), OTHER), _item("p1", _sub(1), OPTS)]
    m, _ = _text([_item("c", S100, OPTS)], parents)
    assert m[0] == Match(0, 1, "fuzzy", 99.0, (0,), False)


def test_fuzzy_blocks_are_matched_in_block_order() -> None:
    # children listed b, a, none: matches come block by block, ordered by the block's text
    parents = [_item("pa", _sub(1), OPTS, subject="a"), _item("pb", _sub(1), OPTS, subject="b"),
               _item("pn", _sub(1), OPTS, subject=None)]
    children = [_item("cb", S100, OPTS, subject="b"), _item("ca", S100, OPTS, subject="a"),
                _item("cn", S100, OPTS, subject=None)]
    matches, unmatched = match_text(_side(children), _side(parents), LinkRule(threshold=85), [0, 1, 2])
    # str(None) = "None" sorts before "a"
    assert [(m.child, m.parent) for m in matches] == [(2, 2), (1, 0), (0, 1)]
    assert unmatched == {}

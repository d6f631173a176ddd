"""Matching children to parents (:mod:`croissant_lineage.linking.match`): id matches as
columns (``IdMatches``, ``id_matches``), ``match_text`` on no child, and the text
matching's steps (fuzzy evidence per block, one child per parent by weight).

Stems whose RapidFuzz ratio must fall between two roundings are runs of ``a`` padded
with another letter: the ratio of ``"a" * 1000`` with ``"a" * n + "c" * k`` is
``200 * n / (1000 + n + k)``; each test asserts the scores it relies on.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from rapidfuzz import fuzz

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.linking.match import IdMatches, Match, id_matches, match_text
from croissant_lineage.linking.sides import Side
from tests.helpers import items_table
from tests.linking.test_match_children import OPTS, OTHER, S100, _item, _side, _sub, _text

A1000 = "a" * 1000


def _pad(n: int, k: int) -> str:
    return "a" * n + "c" * k


# -- IdMatches ----------------------------------------------------------------------------------


def test_id_matches_columns_are_int64_whatever_they_are_given() -> None:
    m = IdMatches(np.array([2, 0], np.int32), np.array([5, 7], np.int32), "id")
    assert (m.child.dtype, m.parent.dtype) == (np.dtype(np.int64), np.dtype(np.int64))
    assert list(m) == [Match(2, 5, "id", 100.0), Match(0, 7, "id", 100.0)]
    empty = IdMatches([], [], "index")  # type: ignore[arg-type]
    assert (empty.child.dtype, empty.parent.dtype) == (np.dtype(np.int64), np.dtype(np.int64))
    assert len(empty) == 0 and list(empty) == [] and empty.by_child() is empty


def test_id_matches_of_unequal_columns_are_an_error_not_a_shorter_list() -> None:
    m = IdMatches(np.array([0, 1, 2]), np.array([4, 5]), "id")
    with pytest.raises(ValueError):
        m[:]
    with pytest.raises(ValueError):
        list(m)


def test_by_child_sorts_when_a_later_child_is_below_an_earlier_one() -> None:
    # each child is above the first one, yet 2 comes before 1
    m = IdMatches(np.array([0, 2, 1]), np.array([10, 12, 11]), "id").by_child()
    assert m.child.tolist() == [0, 1, 2] and m.parent.tolist() == [10, 11, 12]
    assert [(x.child, x.parent) for x in m] == [(0, 10), (1, 11), (2, 12)]
    ordered = IdMatches(np.array([0, 1, 3]), np.array([5, 4, 3]), "id")
    assert ordered.by_child() is ordered


def test_by_child_is_a_stable_sort() -> None:
    # as list.sort(key=child): the matches of one child keep their order (many rows, so
    # that an unstable sort would show)
    n = 3000
    child = np.array([1, 0, 2] * n)
    parent = np.arange(3 * n)
    m = IdMatches(child, parent, "id").by_child()
    expected = sorted(zip(child.tolist(), parent.tolist(), strict=True), key=lambda t: t[0])
    assert list(zip(m.child.tolist(), m.parent.tolist(), strict=True)) == expected
    assert m.method == "id"


# -- id_matches / _rows_of_ids ------------------------------------------------------------------


def test_id_matches_of_no_selected_child() -> None:
    side = _side([_item("7", "a", pid=8), _item("8", "b", pid=7)])
    for rule in (LinkRule(by="id"), LinkRule(by="index", child_field="pid")):
        matches, unmatched = id_matches(side, side, rule, [], "")
        assert len(matches) == 0 and list(matches) == [] and unmatched == {}
        assert matches.child.dtype == np.dtype(np.int64) and matches.method == rule.by


def _with_null_id(side_rows: list[dict], row: int) -> Side:
    table = items_table("d", side_rows)
    ids = table.column("item").to_pylist()
    ids[row] = None
    return Side(table.set_column(table.schema.get_field_index("item"), table.schema.field("item"),
                                 pa.array(ids, pa.string())))


def test_a_null_key_names_no_parent_even_a_parent_without_id() -> None:
    # a child field that is null names no parent, not the parent whose id is null
    for repeated in (False, True):  # distinct ids, and repeated ones (the reversed lookup)
        rows = [_item("7", "a"), _item("8", "b"), _item("x", "c")] + ([_item("7", "d")] if repeated else [])
        parents = _with_null_id(rows, 2)
        children = _side([_item("c0", "q", pid=None), _item("c1", "q", pid=8), _item("c2", "q", pid=7)])
        matches, unmatched = id_matches(children, parents, LinkRule(by="index", child_field="pid"), [0, 1, 2], "")
        assert [(m.child, m.parent) for m in matches] == [(1, 1), (2, 3 if repeated else 0)]
        assert unmatched == {0: (None, 0.0)}


# -- match_text ---------------------------------------------------------------------------------


def test_match_text_of_no_selected_child() -> None:
    children = _side([_item("c0", S100, OPTS)])
    parents = _side([_item("p0", S100, OPTS), _item("p1", _sub(1), OTHER, subject="t")])
    for one_to_one in (False, True):
        for rule in (LinkRule(by="text"), LinkRule(by="text", child_block="subject", parent_block="subject")):
            assert match_text(children, parents, rule, [], one_to_one=one_to_one) == ([], {})


T100 = "name the river that crosses the capital of the invented kingdom of varnholt from north to south!!!!!"
U100 = "what colour is the flag raised over the harbour of the town of quellmouth on the first day of june!!"


def test_fuzzy_evidence_rows_follow_every_child_of_a_block() -> None:
    # three children with no exact match in one block: c0 and c1 have one near parent each,
    # c2 two (p-stem 99 with other options, p-opts 98 with its options): the options decide,
    # read from c2's own evidence rows (the third child's rows start after the first two's)
    assert len(T100) == len(U100) == 100
    parents = [
        _item("q0", T100, OTHER), _item("q1", U100, OPTS), _item("p-stem", _sub(1), OTHER), _item("p-opts", _sub(2), OPTS),
    ]
    children = [_item("c0", _sub(1, T100), OPTS), _item("c1", _sub(1, U100), OPTS), _item("c2", S100, OPTS)]
    assert [fuzz.ratio(S100, p["stem"]) for p in parents[2:]] == [99.0, 98.0]
    assert max(fuzz.ratio(c["stem"], p["stem"]) for c in children[:2] for p in parents[2:]) < 80
    m, un = _text(children, parents)
    assert m[0] == Match(0, 0, "fuzzy", 99.0, (), False)
    assert m[1] == Match(1, 1, "fuzzy", 99.0, (), False)
    assert m[2] == Match(2, 3, "fuzzy", 98.0, (2,), False)
    assert un == {}


# -- one child per parent: weights and ties ------------------------------------------------------


def test_one_to_one_unmatched_child_names_the_first_parent_of_equal_weight() -> None:
    # c is 90.0 from p0 and 90.005 from p1: equal weights (scores rounded to 90.0), p1 the
    # greedy choice; both parents go to their exact copies, and c, unmatched, names the first
    # parent of its best weight (p0), not the one it ranked first by the unrounded score
    parents = [_item("p0", _pad(900, 100)), _item("p1", _pad(905, 106))]
    assert [fuzz.ratio(A1000, p["stem"]) for p in parents] == [90.0, pytest.approx(90.00497, abs=1e-5)]
    children = [_item("c", A1000), _item("d1", _pad(905, 106)), _item("d0", _pad(900, 100))]
    m, un = _text(children, parents)
    assert m[0] == Match(0, 1, "fuzzy", 90.0, (0,), False)  # greedy: the higher unrounded score
    m, un = _text(children, parents, one_to_one=True)
    assert (m[1].parent, m[2].parent) == (1, 0)
    assert un == {0: (0, 90.0)}


def test_one_to_one_weighs_fuzzy_scores_to_the_hundredth() -> None:
    # two children claim the one parent: the higher stem score, to the hundredth, wins,
    # though both round to 95 (a higher score in the thousandths, equal to the hundredth, is
    # no better: equal weights, the assignment keeps the first child)
    c_low, c_high = _pad(909, 0), _pad(913, 0)  # 95.23 and 95.45
    assert (round(fuzz.ratio(c_low, A1000), 2), round(fuzz.ratio(c_high, A1000), 2)) == (95.23, 95.45)
    parents = [_item("p", A1000)]
    m, un = _text([_item("c-low", c_low), _item("c-high", c_high)], parents, one_to_one=True)
    assert list(m) == [1] and m[1].parent == 0 and un == {0: (0, 95.23)}
    # 90.0 (2 * 900 / 2000) and 90.00497 (2 * 905 / 2011), both 90.0 to the hundredth
    c_even, c_above = _pad(900, 100), _pad(905, 106)
    assert (fuzz.ratio(c_even, A1000), round(fuzz.ratio(c_above, A1000), 2)) == (90.0, 90.0)
    assert fuzz.ratio(c_above, A1000) > fuzz.ratio(c_even, A1000)
    m, un = _text([_item("c-even", c_even), _item("c-above", c_above)], parents, one_to_one=True)
    assert list(m) == [0] and m[0].parent == 0 and un == {1: (0, 90.0)}

"""Matching children to parents (:mod:`croissant_lineage.linking.match`): the scores it
decides by: stem ratios, blocking, candidate weights, the option evidence columns and
``option_evidence``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cdist

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.linking.assign import candidate_weight
from croissant_lineage.linking.match import (
    Match,
    _weights,
    evidence_columns,
    match_text,
    option_evidence,
    stem_ratios,
)
from croissant_lineage.linking.sides import Side
from tests.helpers import items_table
from tests.oracles.match import reference_match_text

S100 = "which planet in the zorblat system has the longest orbital year among all of its known rocky moons??"
OPTS = ["Ash", "Birl", "Corr", "Dun"]


def _item(item: str, stem: str | None, options: list[str] | None = None, key: str | None = "A",
          subject: str | None = "s") -> dict[str, Any]:
    return {"item": item, "subject": subject, "stem": stem, "options": options, "key": key, "record": {}}


def _side(rows: list[dict[str, Any]]) -> Side:
    return Side(items_table("d", rows))


def _sub(k: int, at: int = 0, stem: str = S100) -> str:
    """``stem`` with ``k`` characters from position ``at`` (every 7th) replaced: ratio ``100 - k``."""
    chars = list(stem)
    for p in range(at, at + 7 * k, 7):
        chars[p] = "#"
    return "".join(chars)


# -- option_evidence: the key options pair first -----------------------------------------------

X = "abcdefghijklmnopqrst"
P1 = "z" + X[1:]  # X with its first letter changed: ratio 95
Y = P1[:10] + "z" + P1[11:]  # P1 with another letter changed: 95 from P1, 90 from X
P2 = X[:5] + "z" + X[6:]  # 95 from X, 85 from Y (three letters apart)


def test_key_options_paired_first_leave_another_copy_of_an_equal_text_for_the_fuzzy_pass() -> None:
    # The child lists X twice, its key (C) the second; the parent has X as its key (A).
    # Pairing the keys first leaves the child's first X (before Y) for the fuzzy pass, and
    # the fuzzy pass pairs best first, ties in child order: X takes P1 (95), and Y, whose
    # only pair at 90 or more is P1 (95), is left. Without the keys the first X pairs with
    # the parent's X, Y (now first) takes P1 and X P2: one more option copied. (So the
    # key letters change the count: the fuzzy pass pairs best first, not the most pairs.)
    assert [fuzz.ratio(a, b) for a, b in ((X, P1), (Y, P1), (X, P2), (Y, P2))] == [95.0, 95.0, 95.0, 85.0]
    child = _side([_item("c", "Q?", [X, Y, X], key="C"), _item("c-nokey", "Q?", [X, Y, X], key=None)])
    parent = _side([_item("p", "Q?", [X, P1, P2], key="A")])
    assert option_evidence(child, 0, parent, 0) == (False, 66.67, 1, 1, 1, 2)
    assert option_evidence(child, 1, parent, 0) == (False, 100.0, 1, 1, 1, 3)
    # the columns agree, pair by pair
    got = evidence_columns(child, np.array([0, 1]), parent, np.array([0, 0]))
    assert [tuple(r) for r in got.tolist()] == [(0.0, 66.67, 1.0, 1.0, 1.0, 2.0), (0.0, 100.0, 1.0, 1.0, 1.0, 3.0)]


# -- evidence_columns: stems as stored -----------------------------------------------------------


def test_two_missing_stems_are_equal_stems_in_the_evidence() -> None:
    # a null stem on both sides counts as the same stem (as ``None == None`` in
    # option_evidence); a null against a text does not
    child = _side([_item("c0", None, OPTS), _item("c1", None, None), _item("c2", None, OPTS)])
    parent = _side([_item("p0", None, OPTS), _item("p1", None, None), _item("p2", "", OPTS)])
    ci, pi = np.array([0, 1, 2, 0]), np.array([0, 1, 2, 1])
    got = evidence_columns(child, ci, parent, pi)
    want = [option_evidence(child, i, parent, j) for i, j in zip(ci.tolist(), pi.tolist(), strict=True)]
    assert [tuple(r) for r in got.tolist()] == want
    assert [w[0] for w in want] == [True, True, False, False]



def test_evidence_columns_takes_rows_of_any_number_type() -> None:
    # Rows gathered with ``np.concatenate`` of a list that may hold an empty ``[]`` come
    # out as float64 (``np.concatenate([[], [0, 2]])``): they are read as the row numbers.
    child = _side([_item("c0", "Q?", OPTS), _item("c1", "R?", None), _item("c2", "Q?", [*OPTS[:3], "Eel"])])
    parent = _side([_item("p0", "Q?", OPTS), _item("p1", "R?", OPTS)])
    ci, pi = np.concatenate([[], [0, 1, 2, 2]]), np.concatenate([[], [0, 1, 0, 1]])
    assert ci.dtype == pi.dtype == np.float64
    want = evidence_columns(child, ci.astype(np.int64), parent, pi.astype(np.int64))
    assert evidence_columns(child, ci, parent, pi).tolist() == want.tolist()
    assert evidence_columns(child, [0, 1, 2, 2], parent, [0, 1, 0, 1]).tolist() == want.tolist()
    assert [tuple(r) for r in want.tolist()] == [
        option_evidence(child, i, parent, j) for i, j in ((0, 0), (1, 1), (2, 0), (2, 1))
    ]

# -- _weights: candidate_weight of many candidates ------------------------------------------------


def test_weights_are_candidate_weight_past_the_caps_and_of_float32_stem_scores() -> None:
    # 120 options copied as they were: every count past its cap (99 bytes, 9 for the others)
    many = [f"option {k}" for k in range(120)]
    child = _side([_item("c0", S100, many), _item("c1", "abcdef", None)])
    parent = _side([_item("p0", S100, many), _item("p1", "abcdeX", None)])
    evidence = evidence_columns(child, np.array([0, 1]), parent, np.array([0, 1]))
    assert evidence[0].tolist() == [1.0, 100.0, 120.0, 120.0, 120.0, 120.0]
    scores = np.array([stem_ratios([S100], [S100])[0, 0], stem_ratios(["abcdef"], ["abcdeX"])[0, 0]])
    assert scores.dtype == np.float32 and float(scores[1]) != 83.33333333333333  # a float32 score
    for exact in (True, False):
        want = [candidate_weight(exact, tuple(e), float(s)) for e, s in zip(evidence.tolist(), scores.tolist(), strict=True)]
        assert _weights(exact, evidence, scores).tolist() == want
        assert _weights(exact, evidence, 100.0).tolist() == [candidate_weight(exact, tuple(e), 100.0) for e in evidence.tolist()]
    # the caps: 99 options paired as bytes, 9 of each kind after
    capped = candidate_weight(False, (False, 0.0, 99, 9, 9, 9), 0.0)
    assert _weights(False, evidence[:1] * [0, 0, 1, 1, 1, 1], 0.0).tolist() == [capped]


# -- stem_ratios ---------------------------------------------------------------------------------


def test_stem_ratios_of_two_empty_texts_is_100_without_a_warning() -> None:
    queries, choices = ["", "ab"], ["", "a"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0 / 0 of two empty texts: no RuntimeWarning
        got = stem_ratios(queries, choices)
    assert got.tobytes() == cdist(queries, choices, scorer=fuzz.ratio, dtype=np.float32, workers=1).tobytes()
    assert got[0, 0] == 100.0


def test_stem_ratios_with_no_queries_or_no_choices() -> None:
    for queries, choices in (([], ["a", "b"]), (["a", "b"], []), ([], [])):
        got = stem_ratios(queries, choices)
        assert got.dtype == np.float32 and got.shape == (len(queries), len(choices))


# -- blocks: each block's rows in row order ------------------------------------------------------


def test_blocks_of_many_rows_keep_their_rows_in_row_order() -> None:
    # 64 children and 64 parents in two interleaved blocks. Each child's fuzzy match comes
    # block by block in child order; a child below the threshold names the first of its
    # block's parents that tie for its best score.
    n = 64
    children = [_item(f"c{k}", _sub(1, 3), OPTS, subject="st"[k % 2]) for k in range(n)]
    parents = [_item(f"p{k}", S100, OPTS, subject="st"[k % 2]) for k in range(n)]
    rule = LinkRule(by="text", threshold=85.0, child_block="subject", parent_block="subject")
    selected = list(range(n))
    matches, unmatched = match_text(_side(children), _side(parents), rule, selected)
    assert [m.child for m in matches] == list(range(0, n, 2)) + list(range(1, n, 2))
    assert [m.parent for m in matches] == [0] * (n // 2) + [1] * (n // 2)
    assert matches[0] == Match(0, 0, "fuzzy", 99.0, tuple(range(2, n, 2)), True)
    assert unmatched == {}
    assert (matches, unmatched) == reference_match_text(_side(children), _side(parents), rule, selected)
    # above every score: unmatched, each with the first parent of its block
    rule = LinkRule(by="text", threshold=99.5, child_block="subject", parent_block="subject")
    matches, unmatched = match_text(_side(children), _side(parents), rule, selected)
    assert matches == []
    assert list(unmatched.items()) == [(k, (k % 2, 99.0)) for k in range(0, n, 2)] + [
        (k, (k % 2, 99.0)) for k in range(1, n, 2)
    ]

"""The columnar stem matching equals the per-child code it replaced.

:func:`croissant_lineage.linking.match.match_text` joins the two sides' (block, stem)
codes and ranks candidates by :func:`~croissant_lineage.linking.match.evidence_columns`;
``tests/oracles/match.py`` keeps the per-child implementation (a dict of stems
per block, :func:`~croissant_lineage.linking.match.option_evidence` per candidate).
Hypothesis draws sides whose stems repeat (several candidates, ties), differ by an edit
(fuzzy, near-best candidates), or are generic (same stem, other options: the exact
fallback), in blocks present on one side only, with and without one child per parent.
Every MMLU-family derivation is compared in ``test_match_columnar_real.py``.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz
from rapidfuzz.process import cdist

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.linking import match as match_module
from croissant_lineage.linking import sides as sides_module
from croissant_lineage.linking.assign import candidate_weight
from croissant_lineage.linking.match import (
    _weights,
    evidence_columns,
    match_text,
    option_evidence,
    stem_ratios,
)
from croissant_lineage.linking.sides import Side
from tests.helpers import items_table
from tests.oracles.evidence import option_evidence_reference
from tests.oracles.match import reference_match_text

_BASE = "which planet of the zorblat system has the longest year"
_STEM = st.sampled_from([
    _BASE, _BASE + "?", _BASE.upper(), _BASE.replace("planet", "planat"), _BASE.replace("longest", "shortest"),
    _BASE[:40], "Other question entirely", "", None,
])
_OPTION = st.sampled_from(["Ash", "ash", "Ash.", "Birl", "Corr", "Dun", "nan", "N/A", "Dunn", ""])
_OPTIONS = st.one_of(st.none(), st.lists(_OPTION, max_size=5))
_KEY = st.sampled_from([None, "A", "B", "C", "E"])
_SUBJECT = st.sampled_from(["s", "t", "u", None])


def _rows(draw: st.DrawFn, name: str, n: tuple[int, int]) -> list[dict[str, Any]]:
    items = draw(st.lists(st.tuples(_STEM, _OPTIONS, _KEY, _SUBJECT), min_size=n[0], max_size=n[1]))
    return [
        {"item": f"{name}{k}", "subject": subj, "stem": stem, "options": opts, "key": key, "record": {}}
        for k, (stem, opts, key, subj) in enumerate(items)
    ]


@st.composite
def _case(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]], LinkRule, list[int], bool]:
    children = _rows(draw, "c", (1, 8))
    parents = _rows(draw, "p", (0, 10))
    blocked = draw(st.booleans())
    rule = LinkRule(
        by="text", threshold=draw(st.sampled_from([70.0, 85.0, 95.0])),
        child_block="subject" if blocked else None, parent_block="subject" if blocked else None,
    )
    selected = sorted(draw(st.sets(st.integers(0, len(children) - 1), min_size=1)))
    return children, parents, rule, selected, draw(st.booleans())


def _assert_is_the_reference(got: tuple[Any, Any], case: tuple[Any, ...]) -> None:
    """``got`` (match_text's result on ``case``) is the per-child reference's, in the same order."""
    children, parents, rule, selected, one_to_one = case
    want = reference_match_text(
        Side(items_table("c", children)), Side(items_table("p", parents)), rule, selected, one_to_one=one_to_one
    )
    assert got[0] == want[0]
    assert list(got[1].items()) == list(want[1].items())


@settings(max_examples=300, deadline=None)
@given(_case())
def test_match_text_is_the_per_child_reference(case: tuple[Any, ...]) -> None:
    children, parents, rule, selected, one_to_one = case
    got = match_text(Side(items_table("c", children)), Side(items_table("p", parents)), rule, selected, one_to_one=one_to_one)
    _assert_is_the_reference(got, case)


@settings(max_examples=200, deadline=None)
@given(_case(), st.sampled_from([1, 2, 3]))
def test_fuzzy_blocks_grouped_any_way_match_as_the_reference(case: tuple[Any, ...], pairs: int) -> None:
    # The fuzzy step computes the option evidence of several blocks' candidates at once,
    # flushing a group once it holds FUZZY_PAIRS pairs: groups of every size (one block,
    # a block cut off mid-way through the next) must give the same matches, in block order.
    children, parents, rule, selected, one_to_one = case
    with mock.patch.object(match_module, "FUZZY_PAIRS", pairs):
        got = match_text(Side(items_table("c", children)), Side(items_table("p", parents)), rule, selected, one_to_one=one_to_one)
    _assert_is_the_reference(got, case)


@settings(max_examples=100, deadline=None)
@given(_case(), st.sampled_from([1, 2, 3]))
def test_sides_normalised_and_stems_compared_in_small_chunks_match_as_the_reference(
    case: tuple[Any, ...], rows: int
) -> None:
    # Long sides normalise a slice of NORMALISE_ROWS rows at a time (chunked columns) and
    # the candidates' stems are compared CHUNK_PAIRS pairs at a time: chunks of any size
    # must give the matches of one pass.
    children, parents, rule, selected, one_to_one = case
    with mock.patch.object(sides_module, "NORMALISE_ROWS", rows), mock.patch.object(match_module, "CHUNK_PAIRS", rows):
        child, parent = Side(items_table("c", children)), Side(items_table("p", parents))
        got = match_text(child, parent, rule, selected, one_to_one=one_to_one)
        assert isinstance(child.norm_stems.array, pa.ChunkedArray) == (len(children) > rows)
    _assert_is_the_reference(got, case)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_evidence_columns_is_the_reference_evidence(data: st.DataObject) -> None:
    children = _rows(data.draw, "c", (1, 5))
    parents = _rows(data.draw, "p", (1, 5))
    child, parent = Side(items_table("c", children)), Side(items_table("p", parents))
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(children) - 1), st.integers(0, len(parents) - 1)), max_size=10))
    ci = np.array([i for i, _ in pairs], np.int64)
    pi = np.array([j for _, j in pairs], np.int64)
    with mock.patch.object(match_module, "CHUNK_PAIRS", data.draw(st.sampled_from([1, 3, match_module.CHUNK_PAIRS]))):
        got = evidence_columns(child, ci, parent, pi)  # stems compared a chunk of pairs at a time
    for k, (i, j) in enumerate(pairs):
        want = option_evidence_reference(child, i, parent, j)
        assert tuple(got[k].tolist()) == want
        assert option_evidence(child, i, parent, j) == want
        for exact, score in ((True, 100.0), (False, 87.5)):
            assert _weights(exact, got[k : k + 1], score)[0] == candidate_weight(exact, want, score)


def test_one_to_one_gives_a_collided_child_a_candidate_further_than_near() -> None:
    # Two pending children pick the same parent (both within NEAR of nothing else); the
    # assignment gives one of them its candidate further down, at or above the threshold.
    children = [
        {"item": "c0", "stem": _BASE.replace("planet", "planat"), "options": ["Ash"], "key": "A"},
        {"item": "c1", "stem": _BASE.replace("longest", "shortest"), "options": ["Ash"], "key": "A"},
    ]
    parents = [
        {"item": "p0", "stem": _BASE, "options": ["Ash"], "key": "A"},
        {"item": "p1", "stem": _BASE[:40], "options": ["Ash"], "key": "A"},
    ]
    rule = LinkRule(by="text", threshold=70.0)
    got = match_text(Side(items_table("c", children)), Side(items_table("p", parents)), rule, [0, 1], one_to_one=True)
    want = reference_match_text(Side(items_table("c", children)), Side(items_table("p", parents)), rule, [0, 1], one_to_one=True)
    assert got == want
    assert sorted((m.child, m.parent) for m in got[0]) == [(0, 0), (1, 1)]


_TEXT = st.text(alphabet=st.sampled_from("ab c\u00e9\u4e2d\U0001f600"), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abc", max_size=5), st.text(alphabet="abc", max_size=3),
       st.lists(_TEXT, max_size=6), st.lists(_TEXT, max_size=6))
def test_stem_ratios_are_cdist_ratios_to_the_bit(prefix: str, suffix: str, queries: list[str], choices: list[str]) -> None:
    # A shared prefix and suffix (cut before the LCS), texts shorter than both, empty texts.
    queries = [prefix + q + suffix for q in queries] + [prefix[:2]]
    choices = [prefix + c + suffix for c in choices]
    got = stem_ratios(queries, choices)
    want = cdist(queries, choices, scorer=fuzz.ratio, dtype=np.float32, workers=1)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("threaded_pairs", [1, 10**9])
def test_stem_ratios_threaded_or_not(monkeypatch: pytest.MonkeyPatch, threaded_pairs: int) -> None:
    """A block of at least ``THREADED_PAIRS`` pairs runs ``cdist`` on every core: same scores."""
    import croissant_lineage.linking.match as match_module

    monkeypatch.setattr(match_module, "THREADED_PAIRS", threaded_pairs)
    queries = [f"question {k} about {'x' * (k % 7)} and more" for k in range(60)]
    choices = [f"question {k} about {'y' * (k % 5)} and less" for k in range(90)]
    want = cdist(queries, choices, scorer=fuzz.ratio, dtype=np.float32, workers=1)
    assert stem_ratios(queries, choices).tobytes() == want.tobytes()


def test_stem_ratios_of_long_texts_either_way_round() -> None:
    long = "for which of these two scenarios does the main character do something clearly wrong? " * 2
    queries = [long + "scenario one: i took the bus", long + "scenario two"]
    choices = [long + f"scenario {k}: " + "x" * (40 * k) for k in range(5)]
    for q, c in ((queries, choices), (choices, queries), ([""], ["", "a"])):
        assert stem_ratios(q, c).tobytes() == cdist(q, c, scorer=fuzz.ratio, dtype=np.float32, workers=1).tobytes()

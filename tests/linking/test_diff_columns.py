"""The option diffs equal the plain-Python statement of the rules, pair by pair.

:func:`croissant_lineage.linking.diff_columns.diff_pairs` diffs whole columns of pairs
(:func:`~croissant_lineage.linking.options.diff_texts` is its one-pair form);
:func:`tests.oracles.options.diff_texts_reference` (one pair at a time) is the
oracle. Hypothesis draws option lists that exercise every pass (equal bytes, case,
trailing dots, missing-value words, near-equal texts for the fuzzy pass, repeated texts
where the key-first rule decides, null lists and null options, keys out of range); the
MMLU family's every candidate pair and edge is checked in ``test_link_real.py``'s module
of real-data tests (``test_diff_columns_real.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage.schema import ITEMS_BASE_SCHEMA
from croissant_lineage.linking.diff_columns import (
    OptionColumns,
    _scores,
    diff_pairs,
    positional_pairs,
)
from croissant_lineage.linking.options import OptionTexts, diff_texts, positional_diff
from croissant_lineage.linking.sides import Side
from tests.oracles.options import diff_texts_reference

_OPTION = st.one_of(
    st.sampled_from([
        "Paris", "paris", "paris.", "PARIS", "Pariss", "Parjs", "nan", "NaN", "", "N/A", "none", "null",
        "1/2", "1.0", "caf\u00c3\u00a9", "café", "a long option text", "a long option texts", "x",
    ]),
    st.text(alphabet="abAB. ", max_size=4),
)
_OPTIONS = st.one_of(st.none(), st.lists(_OPTION, max_size=6), st.lists(st.one_of(_OPTION, st.none()), max_size=3))
_KEYS = st.integers(-1, 6)


def _table(name: str, options: list[Any]) -> pa.Table:
    n = len(options)
    return pa.table(
        {
            "dataset": [name] * n, "item": [f"{name}/{i}" for i in range(n)], "subject": ["s"] * n,
            "stem": ["q"] * n, "options": options, "key": [None] * n,
            "source_file": ["f"] * n, "source_row": list(range(n)), "record": ["{}"] * n,
        },
        schema=ITEMS_BASE_SCHEMA,
    )


def _texts(side: Side, i: int) -> OptionTexts:
    return side.option_texts(i) or OptionTexts((), (), ())


def _check(children: list[Any], parents: list[Any], pairs: list[tuple[int, int, int, int]], threshold: float = 90.0) -> None:
    child, parent = Side(_table("c", children)), Side(_table("p", parents))
    ci, pi, ck, pk = (np.array([p[k] for p in pairs], np.int64) for k in range(4))
    # Fresh sides normalise only the rows diffed; then the same from whole normalised columns.
    got = diff_pairs(child.option_columns(), parent.option_columns(), ci, pi, ck, pk, fuzzy_threshold=threshold)
    whole = [OptionColumns.of_forms(s.table.column("options"), s.cased_options.array, s.norm_options.array)
             for s in (child, parent)]
    again = diff_pairs(*whole, ci, pi, ck, pk, fuzzy_threshold=threshold)
    assert [again.diff(k) for k in range(len(pairs))] == [got.diff(k) for k in range(len(pairs))]
    flags = got.key_inherited(ck, pk)
    for k, (i, j, a, b) in enumerate(pairs):
        keys = (None if a < 0 else a, None if b < 0 else b)
        want = diff_texts_reference(_texts(child, i), _texts(parent, j), keys=keys, fuzzy_threshold=threshold)
        assert got.diff(k) == want, (children[i], parents[j], keys)
        assert diff_texts(_texts(child, i), _texts(parent, j), keys=keys, fuzzy_threshold=threshold) == want
        assert flags[k] == want.key_inherited(*keys)
        assert got.paired("bytes", "cased")[k] == want.paired("bytes", "cased")
        assert got.identical[k] == (tuple(_texts(child, i).raw) == tuple(_texts(parent, j).raw))


@st.composite
def _case(draw: st.DrawFn) -> tuple[list[Any], list[Any], list[tuple[int, int, int, int]]]:
    children = draw(st.lists(_OPTIONS, min_size=1, max_size=5))
    parents = draw(st.lists(_OPTIONS, min_size=1, max_size=5))
    pairs = draw(st.lists(
        st.tuples(st.integers(0, len(children) - 1), st.integers(0, len(parents) - 1), _KEYS, _KEYS), max_size=8,
    ))
    return children, parents, pairs


@settings(max_examples=400)
@given(_case())
def test_diff_pairs_is_the_reference_diff(case: tuple[list[Any], list[Any], list[tuple[int, int, int, int]]]) -> None:
    _check(*case)


@given(st.lists(_OPTION, min_size=1, max_size=6), st.lists(_OPTION, min_size=1, max_size=6), _KEYS, _KEYS,
       st.sampled_from([0.0, 50.0, 90.0, 100.0]))
def test_one_pair_at_any_threshold(child: list[str], parent: list[str], ck: int, pk: int, threshold: float) -> None:
    _check([child], [parent], [(0, 0, ck, pk)], threshold)


def test_key_options_pair_first_among_repeated_texts() -> None:
    # The parent holds the key text twice: the key option takes the parent's key option.
    _check([["a", "b", "a"]], [["a", "a", "c"]], [(0, 0, 2, 1), (0, 0, 0, 1), (0, 0, -1, -1)])


def test_equal_lists_are_the_identity_even_with_repeated_texts() -> None:
    # diff_texts' first test: equal lists pair by position, whatever the keys say.
    _check([["a", "a"]], [["a", "a"]], [(0, 0, 0, 1)])


def test_null_lists_are_empty_and_null_options_compare_as_bytes() -> None:
    _check([None, [], ["x"]], [None, ["x"], []], [(a, b, -1, -1) for a in range(3) for b in range(3)])


def test_no_pairs() -> None:
    side = Side(_table("c", [["a"]]))
    got = diff_pairs(side.option_columns(), side.option_columns(), [], [], [], [])
    assert len(got) == 0 and got.offsets.tolist() == [0]


def test_chunks_give_the_diffs_of_one_chunk(monkeypatch: Any) -> None:
    import croissant_lineage.linking.diff_columns as dc

    children = [["a", "b"], ["Paris", "nan"], ["x"], None]
    parents = [["b", "a"], ["paris.", "N/A"], ["y"], ["z"]]
    pairs = [(i, j, 0, 1) for i in range(4) for j in range(4)]
    whole = diff_pairs(Side(_table("c", children)).option_columns(), Side(_table("p", parents)).option_columns(),
                       *(np.array([p[k] for p in pairs]) for k in range(4)))
    monkeypatch.setattr(dc, "CHUNK_PAIRS", 3)
    _check(children, parents, pairs)
    chunked = diff_pairs(Side(_table("c", children)).option_columns(), Side(_table("p", parents)).option_columns(),
                         *(np.array([p[k] for p in pairs]) for k in range(4)))
    assert [chunked.diff(k) for k in range(len(pairs))] == [whole.diff(k) for k in range(len(pairs))]


@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=60))
def test_scores_are_diff_texts_rounding_per_pair(pairs: list[tuple[int, int]]) -> None:
    copied = np.array([a for a, _ in pairs], np.int64)
    n_parent = np.array([b for _, b in pairs], np.int64)
    expected = [round(100.0 * a / b, 2) if b else 100.0 for a, b in pairs]
    assert _scores(copied, n_parent).tolist() == expected


@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=40))
def test_positional_pairs_is_positional_diff(counts: list[tuple[int, int]]) -> None:
    """A translation's diffs as whole arrays equal :func:`positional_diff` pair by pair."""
    got = positional_pairs([a for a, _ in counts], [b for _, b in counts])
    assert len(got) == len(counts) and not got.identical.any()
    for k, (a, b) in enumerate(counts):
        want = positional_diff(("",) * a, ("",) * b)
        d = got.diff(k)
        assert (d.option_map, d.copied, d.added, d.dropped, d.score) == (
            want.option_map, want.copied, want.added, want.dropped, want.score,
        ), (a, b)
        assert d.score.hex() == want.score.hex()
    maps = got.option_map_column().to_pylist()
    assert maps == [list(positional_diff(("",) * a, ("",) * b).option_map) for a, b in counts]

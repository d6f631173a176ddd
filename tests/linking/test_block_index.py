"""Fuzzy candidates of a large block through the word-pair index: the full product's choices.

:func:`croissant_lineage.linking.block_index.indexed_scores` scores only the pairs that
decide a child's match. With the index forced on every block (``INDEX_PAIRS = 0``) and
off (``INDEX_PAIRS`` above any block), :func:`~croissant_lineage.linking.match.match_text`
must choose the same parents, alternatives and scores wherever the full product's best
parent is at the threshold, on generated stems and on adversarial ones: near-duplicate
stems (one number apart), short stems, stems sharing a long template prefix (all of them,
or half).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest

from croissant_lineage.family.spec import LinkRule
from croissant_lineage.linking import block_index
from croissant_lineage.linking.block_index import indexed_scores
from croissant_lineage.linking.match import NEAR, Match, match_text, stem_ratios
from croissant_lineage.linking.sides import Side
from croissant_lineage.testing.synthetic import generate_family
from croissant_lineage.testing.words import Words
from croissant_lineage.workflows import link
from tests.helpers import items_table


def _side(name: str, stems: list[str]) -> Side:
    return Side(items_table(name, [{"item": f"{name}{k}", "stem": s, "options": None, "key": None} for k, s in enumerate(stems)]))


def _both(children: list[str], parents: list[str], threshold: float, one_to_one: bool) -> tuple[Any, Any]:
    rule = LinkRule(by="text", threshold=threshold, child_block=None, parent_block=None)
    runs = []
    for pairs in (0, 10**12):
        with mock.patch.object(block_index, "INDEX_PAIRS", pairs):
            runs.append(match_text(_side("c", children), _side("p", parents), rule, list(range(len(children))),
                                   one_to_one=one_to_one))
    return runs[0], runs[1]


def _assert_same(children: list[str], parents: list[str], threshold: float = 85.0, one_to_one: bool = False) -> list[Match]:
    (got, got_un), (want, want_un) = _both(children, parents, threshold, one_to_one)
    assert got == want
    assert sorted(got_un) == sorted(want_un)  # the same children unmatched (their best candidate may differ)
    return want


def _edited(words: Words, rng: np.random.Generator, stem: str, edits: int) -> str:
    w = stem.split()
    for _ in range(edits):
        w[int(rng.integers(len(w)))] = words.words[int(rng.integers(len(words.words)))]
    return " ".join(w)


@pytest.mark.parametrize("one_to_one", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_generated_stems_same_matches(seed: int, one_to_one: bool) -> None:
    rng = np.random.default_rng(seed)
    words = Words(rng, 800)
    parents = words.texts(300, 20, 60)
    children = [_edited(words, rng, parents[int(rng.integers(300))], int(rng.integers(0, 8))) for _ in range(250)]
    children += words.texts(50, 20, 60)  # new items: no parent
    children += [parents[7], parents[7] + " x"]  # an exact copy (exact match) and a near one
    matches = _assert_same(children, parents, 85.0, one_to_one)
    assert sum(m.method == "fuzzy" for m in matches) > 100


def test_near_duplicate_stems_same_matches() -> None:
    """Parents one number apart: every one is near the best, and all are alternatives."""
    template = "a train leaves the station at {} and travels {} miles north before it turns and stops at the depot"
    parents = [template.format(h, m) for h in range(1, 13) for m in (10, 20, 30, 40, 50)]
    children = [template.format(h, m).replace("train", "trian") for h in (3, 7) for m in (20, 40)]
    children += [template.format(h, 35) for h in (1, 12)]
    matches = _assert_same(children, parents)
    assert len(matches) == len(children) and all(len(m.alternatives) >= 2 for m in matches)
    _assert_same(children, parents, one_to_one=True)


def test_short_stems_same_matches() -> None:
    parents = ["2+2?", "2+3?", "sum of 3 and 4", "capital of france", "7*8", "what is pi", "x", "", "hello world again"]
    children = ["2+2 ?", "sum of 3 and 5", "capital of frence", "7*9", "what is pie", "y", "hello world agian", ""]
    matches = _assert_same(children, parents, 70.0)
    assert matches


@pytest.mark.parametrize("shared", ["all", "half"])
def test_template_prefix_same_matches(shared: str) -> None:
    rng = np.random.default_rng(5)
    words = Words(rng, 500)
    prefix = "read the following passage carefully and answer the question that follows it " * 3
    tails = words.texts(200, 4, 12)
    parents = [(prefix if shared == "all" or k % 2 else "") + t for k, t in enumerate(tails)]
    children = [_edited(words, rng, parents[k], 1) for k in range(0, 200, 3)]
    matches = _assert_same(children, parents)
    assert len(matches) > 30


def test_scored_pairs_are_the_full_products() -> None:
    rng = np.random.default_rng(3)
    words = Words(rng, 600)
    parents = words.texts(200, 10, 40)
    children = [_edited(words, rng, parents[int(rng.integers(200))], 3) for _ in range(120)] + words.texts(20, 5, 30)
    full = stem_ratios(children, parents)
    rows = indexed_scores(children, parents, threshold=85.0, near=NEAR, one_to_one=False, ratios=stem_ratios)
    sparse = 0
    for i, (cols, scores) in enumerate(rows):
        if cols is None:
            assert np.array_equal(scores, full[i])
            continue
        sparse += 1
        assert np.array_equal(scores, full[i, cols])  # bit-equal floats
        assert np.all(np.diff(cols) > 0)
    assert sparse > 100


def test_empty_sides() -> None:
    assert indexed_scores([], ["a b c"], threshold=85.0, near=NEAR, one_to_one=False, ratios=stem_ratios) == []
    rows = indexed_scores(["a b c"], [], threshold=85.0, near=NEAR, one_to_one=False, ratios=stem_ratios)
    assert len(rows) == 1 and rows[0][0] is None and rows[0][1].size == 0


@pytest.mark.parametrize("shape", ["number", "text"])
def test_generated_family_same_edges(tmp_path: Path, shape: str) -> None:
    """A synthetic family without subjects links to the same edges through the index."""
    fam = generate_family(tmp_path / shape, 400, seed=4, shape=shape)
    cols = ["child_dataset", "child_item", "parent_dataset", "parent_item", "method", "score"]
    with mock.patch.object(block_index, "INDEX_PAIRS", 0):
        got = link(fam.spec)
    with mock.patch.object(block_index, "INDEX_PAIRS", 10**12):
        want = link(fam.spec)
    assert got.edges.select(cols).to_pylist() == want.edges.select(cols).to_pylist()
    assert got.unmatched.select(["child_dataset", "child_item"]).to_pylist() == want.unmatched.select(["child_dataset", "child_item"]).to_pylist()
    assert got.edges.num_rows > 100

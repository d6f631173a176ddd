"""The columnar matching and option diffs on every MMLU-family derivation, against their references.

Each text-linked derivation is matched by :func:`~croissant_lineage.linking.match.match_text`
and by the per-child reference (``tests/oracles/match.py``): the matches (with
their alternatives, ties, methods and scores) and the unmatched children must be equal.
Every same-language edge and every alternative of the family is diffed by
:func:`~croissant_lineage.linking.diff_columns.diff_pairs` and by ``diff_texts``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.diff_columns import diff_pairs
from croissant_lineage.linking.linker import ONE_CHILD_PER_PARENT, _selected
from croissant_lineage.linking.match import id_matches, match_text
from croissant_lineage.linking.options import OptionTexts, diff_texts
from croissant_lineage.linking.sides import Side
from tests.oracles.match import reference_match_text

pytestmark = pytest.mark.realdata

_EMPTY = OptionTexts((), (), ())


@pytest.fixture(scope="module")
def derivations(shared_data: Path) -> Callable[[bool], Iterator[tuple[Any, Any, Any]]]:
    """The family's same-language derivations that link by text (or not), with their item
    tables: each dataset is loaded once for the module, as the tests ask for it."""
    spec = load_family("mmlu")
    tables: dict = {}

    def of(by_text: bool) -> Iterator[tuple[Any, Any, Any]]:
        for d in spec.item_derivations():
            if d.is_translation or (d.link.by == "text") != by_text:
                continue
            for name in (d.child, d.parent):
                if name not in tables:
                    tables[name] = load_items(spec.dataset(name), data_dir=shared_data)
            yield d, tables[d.child], tables[d.parent]

    return of


@pytest.fixture(scope="module")
def text_matches(derivations: Callable[[bool], Iterator[tuple[Any, Any, Any]]]) -> list[tuple[Any, ...]]:
    """Per text derivation: it, its two item tables, the children selected and
    :func:`match_text`'s answer (matched once for the module)."""
    out = []
    for d, ct, pt in derivations(True):
        child = Side(ct)
        selected = _selected(child, d.link, "")
        out.append((d, ct, pt, selected, match_text(child, Side(pt), d.link, selected, one_to_one=d.activity in ONE_CHILD_PER_PARENT)))
    return out


def test_match_text_is_the_reference_on_every_text_derivation(text_matches: list[tuple[Any, ...]]) -> None:
    seen = 0
    for d, ct, pt, selected, got in text_matches:
        want = reference_match_text(Side(ct), Side(pt), d.link, selected, one_to_one=d.activity in ONE_CHILD_PER_PARENT)
        assert got[0] == want[0], d
        assert got[1] == want[1], d
        seen += len(got[0])
    assert seen > 27000  # the four text derivations' matches


def _check_diffs(child: Side, parent: Side, ci: np.ndarray, pi: np.ndarray) -> int:
    ck, pk = child.key_indices[ci], parent.key_indices[pi]
    got = diff_pairs(child.option_columns(), parent.option_columns(), ci, pi, ck, pk)
    # The reference's texts, one chunk of pairs at a time held as Python objects.
    for start in range(0, len(ci), 4096):
        rows = range(start, min(start + 4096, len(ci)))
        with child.hold(ci[rows.start : rows.stop]), parent.hold(pi[rows.start : rows.stop]):
            for k in rows:
                keys = (None if ck[k] < 0 else int(ck[k]), None if pk[k] < 0 else int(pk[k]))
                want = diff_texts(child.option_texts(int(ci[k])) or _EMPTY, parent.option_texts(int(pi[k])) or _EMPTY, keys=keys)
                assert got.diff(k) == want, (k, int(ci[k]), int(pi[k]))
    return len(ci)


@pytest.mark.parametrize("by_text", [True, False])
def test_diff_pairs_is_diff_texts_on_every_edge_and_alternative(
    derivations: Callable[[bool], Iterator[tuple[Any, Any, Any]]], request: pytest.FixtureRequest, by_text: bool
) -> None:
    checked = 0
    if by_text:
        pairs = [(d, ct, pt, got[0]) for d, ct, pt, _, got in request.getfixturevalue("text_matches")]
    else:
        pairs = []
        for d, ct, pt in derivations(False):
            child = Side(ct)
            pairs.append((d, ct, pt, id_matches(child, Side(pt), d.link, _selected(child, d.link, ""), "")[0]))
    for _, ct, pt, matches in pairs:
        ci = np.array([m.child for m in matches] + [m.child for m in matches for _ in m.alternatives], np.int64)
        pi = np.array([m.parent for m in matches] + [j for m in matches for j in m.alternatives], np.int64)
        checked += _check_diffs(Side(ct), Side(pt), ci, pi)
    assert checked > (27000 if by_text else 29000)

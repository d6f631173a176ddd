"""The columnar matching and option diffs on every MMLU-family derivation.

Each text-linked derivation is matched by :func:`~croissant_lineage.linking.match.match_text`
and by the per-child reference (``tests/oracles/match.py``): the matches (with
their alternatives, ties, methods and scores) and the unmatched children must be equal.
Every same-language edge and every alternative of the family is diffed by
:func:`~croissant_lineage.linking.diff_columns.diff_pairs` and by ``diff_texts``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from croissant_lineage.family.spec import load_family
from croissant_lineage.lineage.items import load_items
from croissant_lineage.linking.diff_columns import diff_pairs
from croissant_lineage.linking.linker import ONE_CHILD_PER_PARENT, _selected
from croissant_lineage.linking.match import match_id, match_text
from croissant_lineage.linking.options import OptionTexts
from croissant_lineage.linking.sides import Side
from tests.oracles.match import reference_match_text
from tests.oracles.options import diff_texts_reference

pytestmark = pytest.mark.realdata

_EMPTY = OptionTexts((), (), ())


def _derivations(shared_data: Path, by_text: bool):
    spec = load_family("mmlu")
    tables: dict = {}
    for d in spec.item_derivations():
        if d.is_translation or (d.link.by == "text") != by_text:
            continue
        for name in (d.child, d.parent):
            if name not in tables:
                tables[name] = load_items(spec.dataset(name), data_dir=shared_data)
        yield d, tables[d.child], tables[d.parent]


def test_match_text_is_the_reference_on_every_text_derivation(shared_data: Path) -> None:
    seen = 0
    for d, ct, pt in _derivations(shared_data, by_text=True):
        one = d.activity in ONE_CHILD_PER_PARENT
        child, parent = Side(ct), Side(pt)
        selected = _selected(child, d.link, "")
        got = match_text(child, parent, d.link, selected, one_to_one=one)
        want = reference_match_text(Side(ct), Side(pt), d.link, selected, one_to_one=one)
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
                want = diff_texts_reference(child.option_texts(int(ci[k])) or _EMPTY, parent.option_texts(int(pi[k])) or _EMPTY, keys=keys)
                assert got.diff(k) == want, (k, int(ci[k]), int(pi[k]))
    return len(ci)


@pytest.mark.parametrize("by_text", [True, False])
def test_diff_pairs_is_diff_texts_on_every_edge_and_alternative(shared_data: Path, by_text: bool) -> None:
    checked = 0
    for d, ct, pt in _derivations(shared_data, by_text=by_text):
        child, parent = Side(ct), Side(pt)
        selected = _selected(child, d.link, "")
        if by_text:
            matches, _ = match_text(child, parent, d.link, selected, one_to_one=d.activity in ONE_CHILD_PER_PARENT)
        else:
            matches, _ = match_id(child, parent, d.link, selected, "")
        ci = np.array([m.child for m in matches] + [m.child for m in matches for _ in m.alternatives], np.int64)
        pi = np.array([m.parent for m in matches] + [j for m in matches for j in m.alternatives], np.int64)
        checked += _check_diffs(child, parent, ci, pi)
    assert checked > (27000 if by_text else 29000)

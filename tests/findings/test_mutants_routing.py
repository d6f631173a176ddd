"""Routing, pinned row by row (issue 20: the mutants of findings/routing.py).

Each case routes one finding (or an item) through a small invented family and pins every
row of the queue: rank, relation, status, certainty, letter, the transformation label,
depth and the note. The expected rows were checked by hand against the family drawn in
tests/findings_helpers.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from croissant_lineage.errors import InputError
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import QUEUE_COLUMNS, RANKS, Queue, route
from croissant_lineage.lineage.graph import LineageGraph
from tests.findings_helpers import BASE, PRO, TRANS, edge, lineage, toy_lineage
from tests.helpers import items_table

R = Source("Invented reviewer", kind="person")
TOY = LineageGraph(toy_lineage())


def _f(fid: str, item: str, target: str = "key", kind: str = "wrong_key", **kw: Any) -> Finding:
    return Finding(id=fid, item=item, target=target, kind=kind, source=kw.pop("source", R), **kw)


def pin(q: Queue) -> list[tuple[Any, ...]]:
    """Every row of ``q`` as a tuple (finding, rank, ref, relation, status, certainty,
    letter, transformation, depth, note)."""
    return [(r.finding, r.rank, r.ref, r.relation, r.status, r.certainty, r.letter, r.transformation, r.depth,
             r.note) for r in q.rows]


def _probable() -> LineageGraph:
    """base:s/0 -> pro:10 (fuzzy 91.4), -> trans:s/0 (ambiguous, fuzzy 88), -> ann:s/7
    (key inheritance unknown), pro:10 -> prosnap:10 (stem edited)."""
    return LineageGraph(lineage(
        [items_table("base", BASE), items_table("pro", PRO[:1]), items_table("trans", TRANS),
         items_table("ann", [dict(BASE[0], item="s/7")]), items_table("prosnap", [dict(PRO[0], stem="Edited?")])],
        [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3], method="fuzzy", score=91.4),
         edge("trans:s/0", "base:s/0", "translation", [0, 1, 2, 3], method="fuzzy", score=88.0, ambiguous=True),
         edge("ann:s/7", "base:s/0", "re_annotation", [0, 1, 2, 3], key_inherited=None),
         edge("prosnap:10", "pro:10", "snapshot", [0, 1, 2, 3, 4, 5], stem_changed=True)],
    ))


CASES: dict[str, Callable[[], Queue]] = {
    "key": lambda: route(TOY, _f("k", "base:s/0", proposed="Cedar")),
    "key_changed": lambda: route(TOY, _f("k1", "base:s/1", proposed="Hazel", status="confirmed_fixed",
                                         status_date="2025-01-01")),
    "added_option": lambda: route(TOY, _f("o", "pro:10", "option", "multiple_correct_answers", option_index=1)),
    "copied_option": lambda: route(TOY, _f("o2", "pro:10", "option", "bad_options_clarity", option_index=3)),
    "whole_item": lambda: route(TOY, "trans:s/0"),
    "option_of_item": lambda: route(TOY, "pro:12", option_index=4),
    "rejected_source": lambda: route(TOY, _f("rj", "base:s/0", proposed="Dogwood", status="rejected",
                                             status_reason="the key is right", source=Source("Redux", item="ann:s/7"))),
    "duplicate": lambda: route(TOY, _f("d", "pro:11", "item", "duplicate", related=["pro:10"])),
    "probable_key": lambda: route(_probable(), _f("pk", "pro:10", proposed="Xylo")),
    "probable_stem": lambda: route(_probable(), _f("ps", "base:s/0", "stem", "bad_question_clarity")),
    "stem_from_snapshot": lambda: route(_probable(), _f("ss", "prosnap:10", "stem", "bad_question_clarity")),
    "key_unknown": lambda: route(_probable(), _f("ku", "base:s/0", proposed="Ash")),
    "related_elsewhere": lambda: route(TOY, _f("rel", "base:s/1", "item", "other", related=["pro:10", "nowhere:1"])),
}

EXPECTED: dict[str, list[tuple[Any, ...]]] = {
    'key': [
        ('k', 1, 'base:s/0', 'finding_item', 'added', 'certain', 'B', '', 0, 'wrong_key on the key (proposed); the questioned key first appears here (no parent item known); proposed answer is option C here'),
        ('k', 1, 'ann:s/7', 'descendant', 'inherited', 'certain', 'B', 'down:re_annotation', 1, 'carries the questioned key; proposed answer is option C here'),
        ('k', 1, 'pro:10', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion', 1, 'carries the questioned key; proposed answer is option D here; identical copy of pro:11'),
        ('k', 1, 'pro:11', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion', 1, 'carries the questioned key; proposed answer is option D here; identical copy of pro:10'),
        ('k', 1, 'trans:s/0', 'descendant', 'inherited', 'certain', 'B', 'down:translation', 1, 'carries the questioned key; proposed answer is option C here'),
        ('k', 1, 'prosnap:10', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion, down:snapshot', 2, 'carries the questioned key; proposed answer is option D here; identical copy of prosnap:11'),
        ('k', 1, 'prosnap:11', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion, down:snapshot', 2, 'carries the questioned key; proposed answer is option D here; identical copy of prosnap:10'),
        ('k', 3, 'base-x', 'documented', 'unverified', 'unverified', None, 'down:translation of base', 0, 'documented coverage only, 5 languages; no item data here'),
        ('k', 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
    ],
    'key_changed': [
        ('k1', 1, 'base:s/1', 'finding_item', 'added', 'certain', 'C', '', 0, 'wrong_key on the key (confirmed_fixed); the questioned key first appears here (no parent item known); proposed answer is option D here'),
        ('k1', 1, 'ann:s/8', 'descendant', 'inherited', 'certain', 'C', 'down:re_annotation', 1, 'carries the questioned key; proposed answer is option D here'),
        ('k1', 3, 'base-x', 'documented', 'unverified', 'unverified', None, 'down:translation of base', 0, 'documented coverage only, 5 languages; no item data here'),
        ('k1', 4, 'pro-x', 'documented', 'unaffected', 'none', None, 'down:translation of pro', 0, 'documented coverage of pro; its items lack the questioned key'),
        ('k1', 4, 'pro:12', 'descendant', 'unaffected', 'none', None, 'down:option_expansion', 1, 'not present: key changed at option_expansion in pro:12'),
    ],
    'added_option': [
        ('o', 1, 'pro:10', 'finding_item', 'added', 'certain', 'B', '', 0, 'multiple_correct_answers on the option (proposed); the questioned option entered here; identical copy of pro:11'),
        ('o', 1, 'pro:11', 'duplicate', 'inherited', 'certain', 'B', 'duplicate', 1, 'carries the questioned option; identical copy of pro:10'),
        ('o', 1, 'prosnap:10', 'descendant', 'inherited', 'certain', 'B', 'down:snapshot', 1, 'carries the questioned option; identical copy of prosnap:11'),
        ('o', 1, 'prosnap:11', 'duplicate', 'inherited', 'certain', 'B', 'down:snapshot, duplicate', 2, 'carries the questioned option; identical copy of prosnap:10'),
        ('o', 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
        ('o', 4, 'base-x', 'documented', 'unaffected', 'none', None, 'down:translation of base', 0, 'documented coverage of base; its items lack the questioned option'),
        ('o', 4, 'base:s/0', 'ancestor', 'unaffected', 'none', None, 'up:option_expansion', 1, 'not present: option added at option_expansion in pro:10'),
        ('o', 4, 'ann:s/7', 'collateral', 'unaffected', 'none', None, 'up:option_expansion, down:re_annotation', 2, 'not present: option added at option_expansion in pro:10'),
        ('o', 4, 'trans:s/0', 'collateral', 'unaffected', 'none', None, 'up:option_expansion, down:translation', 2, 'not present: option added at option_expansion in pro:10'),
    ],
    'copied_option': [
        ('o2', 1, 'pro:10', 'finding_item', 'inherited', 'certain', 'D', '', 0, 'bad_options_clarity on the option (proposed); carries the questioned option; identical copy of pro:11'),
        ('o2', 1, 'base:s/0', 'ancestor', 'added', 'certain', 'C', 'up:option_expansion', 1, 'the questioned option first appears here (no parent item known)'),
        ('o2', 1, 'pro:11', 'duplicate', 'inherited', 'certain', 'D', 'duplicate', 1, 'carries the questioned option; identical copy of pro:10'),
        ('o2', 1, 'prosnap:10', 'descendant', 'inherited', 'certain', 'D', 'down:snapshot', 1, 'carries the questioned option; identical copy of prosnap:11'),
        ('o2', 1, 'ann:s/7', 'collateral', 'inherited', 'certain', 'C', 'up:option_expansion, down:re_annotation', 2, 'carries the questioned option'),
        ('o2', 1, 'prosnap:11', 'duplicate', 'inherited', 'certain', 'D', 'down:snapshot, duplicate', 2, 'carries the questioned option; identical copy of prosnap:10'),
        ('o2', 1, 'trans:s/0', 'collateral', 'inherited', 'certain', 'C', 'up:option_expansion, down:translation', 2, 'carries the questioned option'),
        ('o2', 3, 'base-x', 'documented', 'unverified', 'unverified', None, 'down:translation of base', 0, 'documented coverage only, 5 languages; no item data here'),
        ('o2', 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
    ],
    'whole_item': [
        (None, 1, 'trans:s/0', 'finding_item', 'inherited', 'certain', None, '', 0, 'carries the questioned item'),
        (None, 1, 'base:s/0', 'ancestor', 'added', 'certain', None, 'up:translation', 1, 'the questioned item first appears here (no parent item known)'),
        (None, 1, 'ann:s/7', 'collateral', 'inherited', 'certain', None, 'up:translation, down:re_annotation', 2, 'carries the questioned item'),
        (None, 1, 'pro:10', 'collateral', 'inherited', 'certain', None, 'up:translation, down:option_expansion', 2, 'carries the questioned item; identical copy of pro:11'),
        (None, 1, 'pro:11', 'collateral', 'inherited', 'certain', None, 'up:translation, down:option_expansion', 2, 'carries the questioned item; identical copy of pro:10'),
        (None, 1, 'prosnap:10', 'collateral', 'inherited', 'certain', None, 'up:translation, down:option_expansion, down:snapshot', 3, 'carries the questioned item; identical copy of prosnap:11'),
        (None, 1, 'prosnap:11', 'collateral', 'inherited', 'certain', None, 'up:translation, down:option_expansion, down:snapshot', 3, 'carries the questioned item; identical copy of prosnap:10'),
        (None, 3, 'base-x', 'documented', 'unverified', 'unverified', None, 'down:translation of base', 0, 'documented coverage only, 5 languages; no item data here'),
        (None, 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
    ],
    'option_of_item': [
        (None, 1, 'pro:12', 'finding_item', 'added', 'certain', 'E', '', 0, 'the questioned option entered here'),
        (None, 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
        (None, 4, 'base-x', 'documented', 'unaffected', 'none', None, 'down:translation of base', 0, 'documented coverage of base; its items lack the questioned option'),
        (None, 4, 'base:s/1', 'ancestor', 'unaffected', 'none', None, 'up:option_expansion', 1, 'not present: option added at option_expansion in pro:12'),
        (None, 4, 'ann:s/8', 'collateral', 'unaffected', 'none', None, 'up:option_expansion, down:re_annotation', 2, 'not present: option added at option_expansion in pro:12'),
    ],
    'rejected_source': [
        ('rj', 0, 'ann:s/7', 'source_annotation', 'inherited', 'certain', 'B', 'down:re_annotation', 1, 'source annotation; finding rejected (the key is right): amend the annotation'),
        ('rj', 1, 'base:s/0', 'finding_item', 'added', 'certain', 'B', '', 0, 'wrong_key on the key (rejected); the questioned key first appears here (no parent item known) (finding rejected: keep as is); proposed answer is option D here'),
        ('rj', 1, 'pro:10', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion', 1, 'carries the questioned key (finding rejected: keep as is); proposed answer is option F here; identical copy of pro:11'),
        ('rj', 1, 'pro:11', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion', 1, 'carries the questioned key (finding rejected: keep as is); proposed answer is option F here; identical copy of pro:10'),
        ('rj', 1, 'trans:s/0', 'descendant', 'inherited', 'certain', 'B', 'down:translation', 1, 'carries the questioned key (finding rejected: keep as is); proposed answer is option D here'),
        ('rj', 1, 'prosnap:10', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion, down:snapshot', 2, 'carries the questioned key (finding rejected: keep as is); proposed answer is option F here; identical copy of prosnap:11'),
        ('rj', 1, 'prosnap:11', 'descendant', 'inherited', 'certain', 'A', 'down:option_expansion, down:snapshot', 2, 'carries the questioned key (finding rejected: keep as is); proposed answer is option F here; identical copy of prosnap:10'),
        ('rj', 3, 'base-x', 'documented', 'unverified', 'unverified', None, 'down:translation of base', 0, 'documented coverage only, 5 languages; no item data here'),
        ('rj', 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
    ],
    'duplicate': [
        ('d', 1, 'pro:11', 'finding_item', 'added', 'certain', None, '', 0, 'duplicate on the item (proposed); the questioned item entered here; identical copy of pro:10'),
        ('d', 1, 'pro:10', 'duplicate', 'inherited', 'certain', None, 'duplicate', 1, 'carries the questioned item; identical copy of pro:11'),
        ('d', 1, 'prosnap:11', 'descendant', 'inherited', 'certain', None, 'down:snapshot', 1, 'carries the questioned item; identical copy of prosnap:10'),
        ('d', 1, 'prosnap:10', 'duplicate', 'inherited', 'certain', None, 'down:snapshot, duplicate', 2, 'carries the questioned item; identical copy of prosnap:11'),
        ('d', 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
        ('d', 4, 'base-x', 'documented', 'unaffected', 'none', None, 'down:translation of base', 0, 'documented coverage of base; its items lack the questioned item'),
        ('d', 4, 'base:s/0', 'ancestor', 'unaffected', 'none', None, 'up:option_expansion', 1, 'not present: no identical copy beside it in pro:11'),
        ('d', 4, 'ann:s/7', 'collateral', 'unaffected', 'none', None, 'up:option_expansion, down:re_annotation', 2, 'not present: no identical copy beside it in pro:11'),
        ('d', 4, 'trans:s/0', 'collateral', 'unaffected', 'none', None, 'up:option_expansion, down:translation', 2, 'not present: no identical copy beside it in pro:11'),
    ],
    'probable_key': [
        ('pk', 1, 'pro:10', 'finding_item', 'inherited', 'certain', 'A', '', 0, 'wrong_key on the key (proposed); carries the questioned key; proposed answer is option B here'),
        ('pk', 1, 'prosnap:10', 'descendant', 'inherited', 'certain', 'A', 'down:snapshot', 1, 'carries the questioned key; proposed answer is option B here'),
        ('pk', 2, 'base:s/0', 'ancestor', 'added', 'probable', 'B', 'up:option_expansion (fuzzy 91)', 1, 'the questioned key first appears here (no parent item known); proposed answer is not among its options'),
        ('pk', 2, 'ann:s/7', 'collateral', 'inherited', 'probable', 'B', 'up:option_expansion (fuzzy 91), down:re_annotation', 2, 'carries the questioned key; proposed answer is not among its options'),
        ('pk', 2, 'trans:s/0', 'collateral', 'inherited', 'probable', 'B', 'up:option_expansion (fuzzy 91), down:translation (fuzzy 88, ambiguous)', 2, 'carries the questioned key; proposed answer is not among its options'),
    ],
    'probable_stem': [
        ('ps', 1, 'base:s/0', 'finding_item', 'added', 'certain', None, '', 0, 'bad_question_clarity on the stem (proposed); the questioned stem first appears here (no parent item known)'),
        ('ps', 1, 'ann:s/7', 'descendant', 'inherited', 'certain', None, 'down:re_annotation', 1, 'carries the questioned stem'),
        ('ps', 2, 'pro:10', 'descendant', 'inherited', 'probable', None, 'down:option_expansion (fuzzy 91)', 1, 'carries the questioned stem'),
        ('ps', 2, 'trans:s/0', 'descendant', 'inherited', 'probable', None, 'down:translation (fuzzy 88, ambiguous)', 1, 'carries the questioned stem'),
        ('ps', 2, 'prosnap:10', 'descendant', 'inherited', 'probable', None, 'down:option_expansion (fuzzy 91), down:snapshot', 2, 'carries the questioned stem'),
    ],
    'stem_from_snapshot': [
        ('ss', 1, 'prosnap:10', 'finding_item', 'inherited', 'certain', None, '', 0, 'bad_question_clarity on the stem (proposed); carries the questioned stem'),
        ('ss', 2, 'pro:10', 'ancestor', 'inherited', 'probable', None, 'up:snapshot', 1, 'carries the questioned stem'),
        ('ss', 2, 'base:s/0', 'ancestor', 'added', 'probable', None, 'up:snapshot, up:option_expansion (fuzzy 91)', 2, 'the questioned stem first appears here (no parent item known)'),
        ('ss', 2, 'ann:s/7', 'collateral', 'inherited', 'probable', None, 'up:snapshot, up:option_expansion (fuzzy 91), down:re_annotation', 3, 'carries the questioned stem'),
        ('ss', 2, 'trans:s/0', 'collateral', 'inherited', 'probable', None, 'up:snapshot, up:option_expansion (fuzzy 91), down:translation (fuzzy 88, ambiguous)', 3, 'carries the questioned stem'),
    ],
    'key_unknown': [
        ('ku', 1, 'base:s/0', 'finding_item', 'added', 'certain', 'B', '', 0, 'wrong_key on the key (proposed); the questioned key first appears here (no parent item known); proposed answer is option A here'),
        ('ku', 2, 'ann:s/7', 'descendant', 'inherited', 'probable', 'B', 'down:re_annotation', 1, 'carries the questioned key; proposed answer is option A here'),
        ('ku', 2, 'pro:10', 'descendant', 'inherited', 'probable', 'A', 'down:option_expansion (fuzzy 91)', 1, 'carries the questioned key; proposed answer is option C here'),
        ('ku', 2, 'trans:s/0', 'descendant', 'inherited', 'probable', 'B', 'down:translation (fuzzy 88, ambiguous)', 1, 'carries the questioned key; proposed answer is option A here'),
        ('ku', 2, 'prosnap:10', 'descendant', 'inherited', 'probable', 'A', 'down:option_expansion (fuzzy 91), down:snapshot', 2, 'carries the questioned key; proposed answer is option C here'),
    ],
    'related_elsewhere': [
        ('rel', 1, 'base:s/1', 'finding_item', 'added', 'certain', None, '', 0, 'other on the item (proposed); the questioned item first appears here (no parent item known)'),
        ('rel', 1, 'ann:s/8', 'descendant', 'inherited', 'certain', None, 'down:re_annotation', 1, 'carries the questioned item'),
        ('rel', 1, 'pro:12', 'descendant', 'inherited', 'certain', None, 'down:option_expansion', 1, 'carries the questioned item'),
        ('rel', 3, 'base-x', 'documented', 'unverified', 'unverified', None, 'down:translation of base', 0, 'documented coverage only, 5 languages; no item data here'),
        ('rel', 3, 'pro-x', 'documented', 'unverified', 'unverified', None, 'down:translation of pro', 0, 'documented coverage only, 3 languages; no item data here'),
        ('rel', 4, 'pro:10', 'related', 'unaffected', 'none', None, 'related', 1, 'not on a line that carries the questioned content'),
        ('rel', 4, 'prosnap:10', 'related', 'unaffected', 'none', None, 'related, down:snapshot', 2, 'not on a line that carries the questioned content'),
    ],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_queue_rows_pinned(case: str) -> None:
    assert pin(CASES[case]()) == EXPECTED[case]


def test_option_index_bounds_and_messages() -> None:
    last = route(TOY, _f("ok", "base:s/0", "option", "other", option_index=3))  # Dogwood, the last option
    assert last.row("base:s/0").letter == "D" and last.row("pro:10").letter == "F"
    with pytest.raises(InputError) as e:
        route(TOY, _f("bad", "base:s/0", "option", "other", option_index=4))
    assert str(e.value) == "CL-E001 finding bad: option_index 4 but base:s/0 has 4 options"
    with pytest.raises(InputError) as e2:
        route(TOY, _f("away", "nowhere:1"))
    assert str(e2.value) == ("CL-E001 finding away names 'nowhere:1', which is not in the lineage "
                             "(import the findings with the same lineage, or check the item ref)")
    with pytest.raises(InputError, match="'pro:999' is not in the lineage"):
        route(TOY, "pro:999")


def test_queue_dict_frame_and_row_lookup() -> None:
    k, o = _f("k", "base:s/0", proposed="Cedar"), _f("o", "pro:10", "option", "other", option_index=2)
    q = route(TOY, "pro:11", [k, o])
    assert (q.query, q.item, q.findings) == ("pro:11", "pro:11", ["k", "o"])
    d = q.to_dict()
    assert list(d) == ["query", "item", "findings", "ranks", "rows", "related_findings"]
    assert d["ranks"] == {str(n): text for n, text in RANKS.items()} and d["related_findings"] == []
    assert d["rows"] == [r.to_dict() for r in q.rows] and d["findings"] == ["k", "o"]
    assert list(d["rows"][0]) == list(QUEUE_COLUMNS)
    frame = q.to_pandas()
    assert list(frame.columns) == list(QUEUE_COLUMNS) and frame["ref"].tolist() == [r.ref for r in q.rows]
    # both findings reach pro:11: the row of each is found by its finding
    assert q.row("pro:11", "k").finding == "k" and q.row("pro:11", "o").finding == "o"
    assert q.row("pro:11").finding == "k"
    assert q.row("pro:11", "o").note.endswith("carries the questioned option; identical copy of pro:10; the queried item")
    with pytest.raises(KeyError):
        q.row("pro:11", "zzz")
    with pytest.raises(KeyError):
        q.row("nowhere:1")
    # rank first, then the findings in input order, then depth and ref
    keys = [(r.rank, ["k", "o"].index(r.finding or ""), r.depth, r.ref) for r in q.rows]
    assert keys == sorted(keys) and len(keys) == 18
    assert not q.expanded and q.expand().expanded and q.expand().rows == q.rows
    assert route(TOY, "o", [k, o]).findings == ["o"]


def test_findings_of_relatives_by_item_source_or_related() -> None:
    on_item = _f("a", "base:s/1")
    by_source = _f("b", "other:1", source=Source("Redux", item="ann:s/8"))
    by_related = _f("c", "other:2", "item", "duplicate", related=["pro:12"])
    unrelated = _f("d", "other:3", source=Source("Redux", item="ann:s/7"), related=["pro:10"])
    from croissant_lineage.findings.routing import relevant_findings

    assert relevant_findings(TOY, "pro:12", [unrelated, by_related, by_source, on_item]) == [
        by_related, by_source, on_item]


def test_a_duplicate_without_the_option_is_not_lettered() -> None:
    # pro:11 is listed as an identical copy of pro:10 but lacks the questioned option's text
    lin = lineage([items_table("pro", [PRO[0], dict(PRO[1], options=["Birch", "Xylo"])])], [],
                  duplicates=[("pro", "10", "g"), ("pro", "11", "g")])
    q = route(lin, _f("o", "pro:10", "option", "other", option_index=3))
    assert (q.row("pro:11").status, q.row("pro:11").letter) == ("inherited", None)
    q2 = route(lin, _f("o2", "pro:10", "option", "other", option_index=1))
    assert (q2.row("pro:11").status, q2.row("pro:11").letter) == ("inherited", "B")
    qk = route(lin, _f("k", "pro:10", proposed="Dogwood"))
    assert qk.row("pro:11").note == "carries the questioned key; proposed answer is not among its options; identical copy of pro:10"
    assert qk.row("pro:10").note.endswith("proposed answer is option F here; identical copy of pro:11")


def test_a_category_finding_with_an_unknown_subject_is_probable() -> None:
    lin = lineage([items_table("base", [dict(BASE[0], subject=None)]), items_table("pro", PRO[:1])],
                  [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3])])
    q = route(lin, _f("c", "pro:10", "category", "other"))
    assert (q.row("base:s/0").status, q.row("base:s/0").certainty) == ("added", "probable")
    same = lineage([items_table("base", [dict(BASE[0], subject="Virology_ Studies")]),
                    items_table("pro", [dict(PRO[0], subject="virology  studies")])],
                   [edge("pro:10", "base:s/0", "option_expansion", [1, -1, 0, 2, -1, 3])])
    q2 = route(same, _f("c", "pro:10", "category", "other"))
    assert (q2.row("base:s/0").status, q2.row("base:s/0").certainty) == ("added", "certain")


def test_an_option_of_an_item_without_an_option_map_is_probable() -> None:
    lin = lineage([items_table("base", BASE[:1]), items_table("pro", PRO[:1])],
                  [edge("pro:10", "base:s/0", "option_expansion", [])])
    q = route(lin, _f("o", "base:s/0", "option", "other", option_index=0))
    assert (q.row("pro:10").status, q.row("pro:10").certainty, q.row("pro:10").letter) == ("inherited", "probable", None)
    assert q.row("base:s/0").note.endswith("the questioned option first appears here (no parent item known)")
    dropped = lineage([items_table("base", BASE[:1]), items_table("pro", [dict(PRO[0], options=["Birch", "Ash"])])],
                      [edge("pro:10", "base:s/0", "option_expansion", [1, 0])])
    q2 = route(dropped, _f("o", "base:s/0", "option", "other", option_index=3))
    assert q2.row("pro:10").note == "not present: option dropped at option_expansion in pro:10"
    assert route(dropped, _f("o", "base:s/0", "option", "other", option_index=1)).row("pro:10").letter == "A"

"""Routing, pinned row by row (``findings.routing``).

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
from croissant_lineage.findings.routing import QUEUE_COLUMNS, RANKS, Queue, route, route_item
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
    (key inheritance unknown), pro:10 -> prosnap:10 (stem edited: a stem finding is
    unverified across it, and beyond)."""
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
    "whole_item": lambda: route_item(TOY, "trans:s/0"),
    "option_of_item": lambda: route_item(TOY, "pro:12", option_index=4),
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
        ('pk', 2, 'ann:s/7', 'collateral', 'inherited', 'probable', 'B', 'up:option_expansion (fuzzy 91), down:re_annotation', 2, 'carries the questioned key; proposed answer is not among its options; key inheritance unknown'),
        ('pk', 2, 'trans:s/0', 'collateral', 'inherited', 'probable', 'B', 'up:option_expansion (fuzzy 91), down:translation (fuzzy 88, ambiguous)', 2, 'carries the questioned key; proposed answer is not among its options'),
    ],
    'probable_stem': [
        ('ps', 1, 'base:s/0', 'finding_item', 'added', 'certain', None, '', 0, 'bad_question_clarity on the stem (proposed); the questioned stem first appears here (no parent item known)'),
        ('ps', 1, 'ann:s/7', 'descendant', 'inherited', 'certain', None, 'down:re_annotation', 1, 'carries the questioned stem'),
        ('ps', 2, 'pro:10', 'descendant', 'inherited', 'probable', None, 'down:option_expansion (fuzzy 91)', 1, 'carries the questioned stem'),
        ('ps', 2, 'trans:s/0', 'descendant', 'inherited', 'probable', None, 'down:translation (fuzzy 88, ambiguous)', 1, 'carries the questioned stem'),
        ('ps', 3, 'prosnap:10', 'descendant', 'unverified', 'unverified', None, 'down:option_expansion (fuzzy 91), down:snapshot', 2, 'unverified: stem edited at snapshot; the questioned stem may not be there'),
    ],
    'stem_from_snapshot': [
        ('ss', 1, 'prosnap:10', 'finding_item', 'inherited', 'certain', None, '', 0, 'bad_question_clarity on the stem (proposed); carries the questioned stem'),
        ('ss', 3, 'pro:10', 'ancestor', 'unverified', 'unverified', None, 'up:snapshot', 1, 'unverified: stem edited at snapshot; the questioned stem may not be there'),
        ('ss', 3, 'base:s/0', 'ancestor', 'unverified', 'unverified', None, 'up:snapshot, up:option_expansion (fuzzy 91)', 2, 'unverified: stem edited at snapshot; the questioned stem may not be there'),
        ('ss', 3, 'ann:s/7', 'collateral', 'unverified', 'unverified', None, 'up:snapshot, up:option_expansion (fuzzy 91), down:re_annotation', 3, 'unverified: stem edited at snapshot; the questioned stem may not be there'),
        ('ss', 3, 'trans:s/0', 'collateral', 'unverified', 'unverified', None, 'up:snapshot, up:option_expansion (fuzzy 91), down:translation (fuzzy 88, ambiguous)', 3, 'unverified: stem edited at snapshot; the questioned stem may not be there'),
    ],
    'key_unknown': [
        ('ku', 1, 'base:s/0', 'finding_item', 'added', 'certain', 'B', '', 0, 'wrong_key on the key (proposed); the questioned key first appears here (no parent item known); proposed answer is option A here'),
        ('ku', 2, 'ann:s/7', 'descendant', 'inherited', 'probable', 'B', 'down:re_annotation', 1, 'carries the questioned key; proposed answer is option A here; key inheritance unknown'),
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
def test_queue_rows_of_each_routed_case(case: str) -> None:
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
        route_item(TOY, "pro:999")


def test_queue_dict_frame_and_row_lookup() -> None:
    k, o = _f("k", "base:s/0", proposed="Cedar"), _f("o", "pro:10", "option", "other", option_index=2)
    q = route_item(TOY, "pro:11", [k, o])
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
    assert route(TOY, o, [k, o]).findings == ["o"]


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



P10 = [1, -1, 0, 2, -1, 3]  # pro:10's option map onto base:s/0


def _notes(q: Queue) -> dict[str, str]:
    return {r.ref: r.note for r in q.rows}


def test_a_copy_reached_only_as_a_duplicate_traces_the_proposal() -> None:
    # pro:13 has no edge: it is reached as the identical copy of pro:10; the French proposal
    # "Cedre" is option C of trans:s/0, Cedar, which is option D of pro:10 and of its copy
    lin = lineage([items_table("base", BASE[:1]), items_table("trans", TRANS),
                   items_table("pro", [PRO[0], dict(PRO[1], item="13")])],
                  [edge("trans:s/0", "base:s/0", "translation", [0, 1, 2, 3]),
                   edge("pro:10", "base:s/0", "option_expansion", P10)],
                  duplicates=[("pro", "10", "g"), ("pro", "13", "g")])
    q = route(lin, _f("k", "trans:s/0", proposed="Cedre"))
    r = q.row("pro:13")
    assert (r.relation, r.status, r.letter) == ("duplicate", "inherited", "A")
    assert r.note == "carries the questioned key; proposed answer is option D here; identical copy of pro:10"


def test_a_parent_that_does_not_carry_does_not_hide_the_next_one() -> None:
    lin = lineage([items_table("base", BASE[:1]), items_table("q", [dict(BASE[0], item="1")]),
                   items_table("pro", PRO[:1])],
                  [edge("pro:10", "q:1", "option_expansion", P10, key_inherited=False),
                   edge("pro:10", "base:s/0", "option_expansion", P10)])
    assert pin(route(lin, _f("k", "pro:10")))[1:] == [
        ("k", 1, "base:s/0", "ancestor", "added", "certain", "B", "up:option_expansion", 1,
         "the questioned key first appears here (no parent item known)"),
        ("k", 4, "q:1", "ancestor", "unaffected", "none", None, "up:option_expansion", 1,
         "not present: key changed at option_expansion in pro:10"),
    ]


def test_a_duplicate_finding_travels_to_items_that_have_a_copy() -> None:
    # going down, the child must have an identical copy beside it (x:1 has none)
    lin = lineage([items_table("base", BASE[:1]), items_table("pro", PRO[:2]), items_table("x", [dict(PRO[0], item="1")])],
                  [edge("pro:10", "base:s/0", "option_expansion", P10), edge("pro:11", "base:s/0", "option_expansion", P10),
                   edge("x:1", "pro:10", "snapshot", [0, 1, 2, 3, 4, 5])],
                  duplicates=[("pro", "10", "g"), ("pro", "11", "g")])
    q = route(lin, _f("d", "pro:10", "item", "duplicate", related=["pro:11"]))
    assert [(r.ref, r.status) for r in q.rows] == [
        ("pro:10", "added"), ("pro:11", "inherited"), ("base:s/0", "unaffected"), ("x:1", "unaffected")]
    assert q.row("x:1").note == "not present: no identical copy beside it in x:1"


def test_documented_coverage_without_a_language_count() -> None:
    lin = lineage([items_table("base", BASE[:1])], [],
                  documented=[{"child": "base-x", "parent": "base", "activity": "translation"}])
    assert _notes(route_item(lin, "base:s/0"))["base-x"] == "documented coverage only; no item data here"


def test_an_unverified_link_is_probable() -> None:
    lin = lineage([items_table("base", BASE[:1]), items_table("pro", PRO[:1])],
                  [edge("pro:10", "base:s/0", "option_expansion", P10, method="unverified", score=0.0)])
    r = route(lin, _f("k", "base:s/0")).row("pro:10")
    assert (r.rank, r.certainty, r.transformation) == (2, "probable", "down:option_expansion (unverified 0)")


def test_options_past_z_have_no_letter() -> None:
    options = [f"option {n}" for n in range(27)]
    lin = lineage([items_table("big", [dict(BASE[0], item="1", options=options, key="A")])], [])
    assert route_item(lin, "big:1", option_index=25).row("big:1").letter == "Z"
    assert route_item(lin, "big:1", option_index=26).row("big:1").letter is None


def test_related_findings_of_every_routed_finding_are_kept_and_noted() -> None:
    a, b = _f("a", "base:s/0", proposed="Cedar"), _f("b", "base:s/0", proposed="Dogwood")
    c = _f("c", "pro:10", proposed="Ash")
    q = route_item(TOY, "base:s/0", [a, b, c])
    assert [(r.finding, r.id, r.ref) for r in q.related] == [
        ("b", "a", "base:s/0"), ("c", "a", "base:s/0"), ("c", "b", "base:s/0")]
    b_row = q.row("base:s/0", "b")
    assert b_row.rank == 0 and b_row.note == (
        "existing finding a (Invented reviewer, wrong_key, proposed) contradicts: amend: proposes C (Cedar), "
        "the new finding proposes D (Dogwood); wrong_key on the key (proposed); the questioned key first appears "
        "here (no parent item known); proposed answer is option D here")
    assert q.row("base:s/0", "c").note.startswith(
        "existing finding a (Invented reviewer, wrong_key, proposed) contradicts: amend: proposes C (Cedar), "
        "the new finding proposes A (Ash); existing finding b (")


def test_the_proposed_answer_is_noted_for_key_findings_that_propose_one() -> None:
    for finding in (_f("k", "base:s/0"), _f("o", "base:s/0", "option", "other", option_index=1, proposed="Birk")):
        assert not any("proposed answer" in note for note in _notes(route(TOY, finding)).values()), finding.id


def test_a_proposal_is_found_by_its_text_where_it_was_not_traced() -> None:
    # Xylo is not an option of base:s/0 (nothing to trace): pro:10 and its copy have it as B
    notes = _notes(route(TOY, _f("x", "base:s/0", proposed="Xylo")))
    assert notes["base:s/0"].endswith("; proposed answer is not among its options")
    assert "; proposed answer is option B here" in notes["pro:10"]
    assert "; proposed answer is option B here" in notes["pro:11"]
    assert notes["trans:s/0"].endswith("; proposed answer is not among its options")


def test_source_annotation_and_copies_in_notes() -> None:
    lin = lineage([items_table("base", BASE[:1]), items_table("pro", [PRO[0], PRO[1], dict(PRO[1], item="13")]),
                   items_table("ann", [dict(BASE[0], item="s/7")])],
                  [edge("pro:10", "base:s/0", "option_expansion", P10), edge("ann:s/7", "base:s/0", "re_annotation", [0, 1, 2, 3])],
                  duplicates=[("pro", "10", "g"), ("pro", "11", "g"), ("pro", "13", "g")])
    notes = _notes(route(lin, _f("s", "base:s/0", proposed="Xylo", source=Source("Redux", item="ann:s/7"))))
    assert notes["ann:s/7"] == ("source annotation (Redux, proposed); carries the questioned key; "
                                "proposed answer is not among its options")
    assert notes["pro:10"] == "carries the questioned key; proposed answer is option B here; identical copy of pro:11, pro:13"


def test_a_category_change_names_both_subjects_normalised() -> None:
    lin = lineage([items_table("base", [dict(BASE[0], subject="College  Biology")]),
                   items_table("pro", [dict(PRO[0], subject="high_school biology")])],
                  [edge("pro:10", "base:s/0", "option_expansion", P10)])
    assert route(lin, _f("c", "base:s/0", "category", "other")).row("pro:10").note == (
        "not present: subject/category changed at option_expansion (college biology -> high school biology) in pro:10")


def test_unaffected_notes_name_the_step_where_the_line_leaves_the_carriers() -> None:
    # pro:10 -> base:s/0 carry the key; ann:s/7 and snap:10 changed it: the note names that step,
    # however many carrying steps come before it
    lin = lineage([items_table("base", BASE[:1]), items_table("pro", PRO[:1]), items_table("snap", [dict(PRO[0], item="10")]),
                   items_table("ann", [dict(BASE[0], item="s/7")])],
                  [edge("pro:10", "base:s/0", "option_expansion", P10),
                   edge("snap:10", "pro:10", "snapshot", [0, 1, 2, 3, 4, 5], key_inherited=False),
                   edge("ann:s/7", "base:s/0", "re_annotation", [0, 1, 2, 3], key_inherited=False)])
    up = route(lin, _f("k", "pro:10")).row("ann:s/7")
    assert (up.relation, up.transformation) == ("collateral", "up:option_expansion, down:re_annotation")
    assert up.note == "not present: key changed at re_annotation in ann:s/7"
    down = route(lin, _f("k", "base:s/0")).row("snap:10")
    assert (down.relation, down.transformation) == ("descendant", "down:option_expansion, down:snapshot")
    assert down.note == "not present: key changed at snapshot in snap:10"


def test_the_queue_does_not_climb_from_children_or_copies() -> None:
    # q:1 is another parent of base:s/0's child, q:2 the parent of pro:10's copy: neither is
    # an ancestor of base:s/0 nor descends from one, so neither is queued
    lin = lineage([items_table("base", BASE[:1]), items_table("q", [dict(BASE[0], item="1"), dict(PRO[0], item="2")]),
                   items_table("pro", [PRO[0], dict(PRO[1], item="13")])],
                  [edge("pro:10", "base:s/0", "option_expansion", P10), edge("pro:10", "q:1", "option_expansion", P10),
                   edge("pro:13", "q:2", "snapshot", [0, 1, 2, 3, 4, 5])],
                  duplicates=[("pro", "10", "g"), ("pro", "13", "g")])
    assert [r.ref for r in route(lin, _f("k", "base:s/0")).rows] == ["base:s/0", "pro:10", "pro:13"]


def test_a_stem_finding_crosses_a_translation_for_sure() -> None:
    # a translation always changes the stem's words: that is no edit of the questioned stem
    lin = lineage([items_table("base", BASE[:1]), items_table("trans", TRANS), items_table("pro", PRO[:1])],
                  [edge("trans:s/0", "base:s/0", "translation", [0, 1, 2, 3], stem_changed=True),
                   edge("pro:10", "base:s/0", "option_expansion", P10, stem_changed=True)])
    q = route(lin, _f("s", "base:s/0", "stem", "bad_question_clarity"))
    assert (q.row("trans:s/0").rank, q.row("trans:s/0").certainty) == (1, "certain")
    assert (q.row("pro:10").rank, q.row("pro:10").status) == (3, "unverified")  # an edited stem


def test_a_copy_missing_from_the_items_is_still_queued() -> None:
    # the duplicates table names pro:13, which the item table lacks (e.g. a filtered lineage)
    lin = lineage([items_table("base", BASE[:1]), items_table("pro", PRO[:1])],
                  [edge("pro:10", "base:s/0", "option_expansion", P10)],
                  duplicates=[("pro", "10", "g"), ("pro", "13", "g")])
    r = route(lin, _f("k", "base:s/0", proposed="Cedar")).row("pro:13")
    assert (r.status, r.letter) == ("inherited", None)
    assert r.note == "carries the questioned key; proposed answer is not among its options; identical copy of pro:10"


def test_queue_lookup_error_and_empty_frame() -> None:
    with pytest.raises(KeyError, match="nowhere:1"):
        route_item(TOY, "base:s/1").row("nowhere:1")
    assert list(Queue(query="x:1", item="x:1").to_pandas().columns) == list(QUEUE_COLUMNS)


@pytest.mark.parametrize(("key_inherited", "certainty"), [(True, "certain"), (None, "probable")])
def test_an_ancestor_reached_through_a_changed_key_is_judged_by_its_own_edges(
        key_inherited: bool | None, certainty: str) -> None:
    # a diamond: pro:10 <- p:1 keeps the key, pro:10 <- q:1 changed it, but q:1 <- p:1 keeps it
    # too, so q:1 carries the questioned key; its other parent x:1 handed q:1 the same key, so
    # x:1 carries it as well (it used to be listed unaffected, "not present: not carried in q:1")
    lin = lineage([items_table(d, [dict(BASE[0], item="1")]) for d in ("p", "q", "x")] + [items_table("pro", PRO[:1])],
                  [edge("pro:10", "p:1", "option_expansion", P10),
                   edge("pro:10", "q:1", "option_expansion", P10, key_inherited=False),
                   edge("q:1", "p:1", "copy", [0, 1, 2, 3]), edge("q:1", "x:1", "copy", [0, 1, 2, 3], key_inherited=key_inherited)])
    q = route(lin, _f("k", "pro:10"))
    assert [(r.ref, r.status) for r in q.rows] == [
        ("pro:10", "inherited"), ("p:1", "added"), ("q:1", "inherited"), ("x:1", "added")]
    x = q.row("x:1")
    assert (x.certainty, x.letter, x.transformation) == (certainty, "B", "up:option_expansion, up:copy")
    doubt = "" if key_inherited else "; key inheritance unknown"  # a probable row says why
    assert x.note == f"the questioned key first appears here (no parent item known){doubt}"


def test_an_ancestor_first_reached_from_another_ancestor_is_still_climbed() -> None:
    # pro:10 <- a:1 and pro:10 <- q:1 <- r:1 <- x:1, and r:1 <- a:1 too: going breadth first,
    # r:1 is a child of a:1 one step before it is q:1's parent. It is an ancestor of pro:10,
    # so it is reached by climbing, and its other parent x:1 (which handed it the key) is queued
    lin = lineage([items_table(d, [dict(BASE[0], item="1")]) for d in ("a", "q", "r", "x")] + [items_table("pro", PRO[:1])],
                  [edge("pro:10", "a:1", "option_expansion", P10), edge("pro:10", "q:1", "option_expansion", P10),
                   edge("q:1", "r:1", "copy", [0, 1, 2, 3]), edge("r:1", "a:1", "copy", [0, 1, 2, 3]),
                   edge("r:1", "x:1", "copy", [0, 1, 2, 3])])
    q = route(lin, _f("k", "pro:10"))
    assert "x:1" in [r.ref for r in q.rows]
    r1, x1 = q.row("r:1"), q.row("x:1")
    assert (r1.relation, r1.transformation) == ("ancestor", "up:option_expansion, up:copy")
    assert (x1.relation, x1.transformation) == ("ancestor", "up:option_expansion, up:copy, up:copy")
    assert x1.status == "added"

"""Relating a routed finding to the existing findings on the same content (rank 0)."""

from __future__ import annotations

import json

import pytest

from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.findings.routing import route, route_item
from croissant_lineage.lineage.graph import LineageGraph
from tests.findings_helpers import toy_lineage

REVIEWER = Source("Invented reviewer", kind="person")
ANNOTATORS = Source("Invented annotators", kind="dataset", item="ann:s/7")


@pytest.fixture(scope="module")
def graph() -> LineageGraph:
    return LineageGraph(toy_lineage())


def _f(item: str, target: str = "key", kind: str = "wrong_key", **kw) -> Finding:
    return Finding(item=item, target=target, kind=kind, source=kw.pop("source", REVIEWER), **kw)


def _related(graph, new: Finding, old: Finding) -> tuple[str, str] | None:
    q = route(graph, new, [old])
    assert [r.finding for r in q.related] == [new.id] * len(q.related)
    if not q.related:
        assert all(r.rank > 0 for r in q.rows)
        return None
    (rel,) = q.related
    assert rel.id == old.id and rel.item == old.item and rel.status == old.status
    row = q.row(rel.ref)
    assert row.rank == 0 and q.rows[0] is row and [r.rank for r in q.rows].count(0) == 1
    assert old.id in row.note
    return rel.relation, rel.action


def test_a_label_on_the_parent_is_refined_by_a_key_finding_on_the_child(graph) -> None:
    # base:s/0's key (Birch) is pro:10's key: the annotation questions the same content
    old = _f("base:s/0", "stem", "bad_question_clarity", source=ANNOTATORS, label="bad_question_clarity")
    new = _f("pro:10", "key", "no_correct_answer")
    assert _related(graph, new, old) == ("refines", "amend")
    q = route(graph, new, [old])
    (rel,) = q.related
    assert rel.ref == "ann:s/7"  # shown on its source annotation, an item of the family
    assert (rel.label, rel.source) == ("bad_question_clarity", "Invented annotators")
    doc = json.loads(json.dumps(q.to_dict()))
    assert doc["related_findings"][0]["relation"] == "refines"
    assert len(doc["rows"]) == len(route(graph, new).rows)  # every row kept


def test_a_proposal_is_contradicted_by_a_finding_that_keeps_the_key(graph) -> None:
    old = _f("base:s/0", proposed="Cedar")
    keeps = _f("pro:10", "key", "other", proposed="Birch")  # Birch is the published key
    assert _related(graph, keeps, old) == ("contradicts", "reject")
    assert route(graph, keeps, [old]).related[0].ref == "base:s/0"  # no source item: its own row
    # the other way round: a finding that kept the key is contradicted by a proposal
    assert _related(graph, _f("pro:10", proposed="Cedar"), keeps) == ("contradicts", "reject")


def test_different_answers_contradict_and_the_same_answer_duplicates(graph) -> None:
    old = _f("base:s/0", proposed="Cedar")
    assert _related(graph, _f("pro:10", proposed="Dogwood"), old) == ("contradicts", "amend")
    assert _related(graph, _f("pro:10", kind="no_correct_answer"), old) == ("contradicts", "amend")
    # Cedar is option D of pro:10 and option C of base:s/0: the same option, followed by the map
    assert _related(graph, _f("pro:10", proposed="Cedar"), old) == ("duplicates", "link")
    assert _related(graph, _f("trans:s/0", proposed="Cedre"), old) == ("duplicates", "link")


def test_a_proposal_refines_a_bare_wrong_key_finding_and_not_the_reverse(graph) -> None:
    bare = _f("base:s/0")
    assert _related(graph, _f("pro:10", proposed="Cedar"), bare) == ("refines", "amend")
    # saying less than an existing finding, in the same direction: the same finding
    assert _related(graph, bare, _f("pro:10", proposed="Cedar")) == ("duplicates", "link")


def test_unrelated_findings_are_not_listed(graph) -> None:
    new = _f("pro:10", proposed="Cedar")
    assert _related(graph, new, _f("base:s/1", proposed="Elm")) is None  # another item
    rejected = _f("base:s/0", proposed="Dogwood").with_status("rejected", date="2025-01-01", reason="settled")
    assert _related(graph, new, rejected) is None  # settled already
    assert _related(graph, _f("pro:10", "stem", "bad_question_clarity"), _f("base:s/0")) is None  # vaguer
    # pro:12 changed the key of base:s/1: a key finding on pro:12 is not about base:s/1's key
    assert _related(graph, _f("pro:12", proposed="Ivy"), _f("base:s/1", proposed="Elm")) is None
    assert _related(graph, _f("pro:10", "category", "other"), _f("base:s/0")) is None


def test_option_findings_relate_on_the_same_option_only(graph) -> None:
    ash = _f("base:s/0", "option", "bad_options_clarity", option_index=0)  # Ash, pro:10 option C
    assert _related(graph, _f("pro:10", "option", "multiple_correct_answers", option_index=2), ash) == (
        "refines", "amend")
    assert _related(graph, _f("pro:10", "option", "bad_options_clarity", option_index=2), ash) == (
        "duplicates", "link")
    birch = _f("base:s/0", "option", "bad_options_clarity", option_index=1)
    assert _related(graph, _f("pro:10", "option", "multiple_correct_answers", option_index=2), birch) is None
    # an option added in pro:10 (Xylo) never reaches base:s/0
    assert _related(graph, _f("pro:10", "option", "multiple_correct_answers", option_index=1), ash) is None


def test_an_item_route_relates_each_finding_to_those_listed_before_it(graph) -> None:
    older, newer = _f("base:s/0", proposed="Cedar"), _f("pro:10", "key", "other", proposed="Birch")
    q = route_item(graph, "pro:10", [older, newer])
    assert q.findings == [older.id, newer.id]
    assert [(r.finding, r.id, r.relation) for r in q.related] == [(newer.id, older.id, "contradicts")]
    assert [r.ref for r in q.rows if r.rank == 0] == ["base:s/0"]
    assert q.row("base:s/0", finding=older.id).rank == 1  # the older finding's own rows are unchanged
    assert route_item(graph, "pro:10", [newer, older]).related[0].finding == older.id

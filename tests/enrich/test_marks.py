"""Which descriptors this library wrote, and sealing and stripping an enrichment
(``enrich.marks``): the generator test, the list of added nodes, and what stripping removes
and keeps (the user's marked nodes, the context, empty keys)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.croissant.descriptor import GENERATOR
from croissant_lineage.croissant.namespaces import CL_NS
from croissant_lineage.enrich.marks import (
    ADDED_NODES,
    ENRICHMENT_ID,
    is_our_descriptor,
    is_ours,
    seal,
    strip_enrichment,
)
from croissant_lineage.prov.vocab import MARK

OURS = {"@index": MARK, "name": "added"}
ACTIVITY = {"@index": MARK, "@id": ENRICHMENT_ID}


@pytest.mark.parametrize(
    ("doc", "ours"),
    [
        # made by describe: the generator marker alone, no marked node
        ({"@context": {"cl": CL_NS}, f"{CL_NS}generatedBy": GENERATOR, "name": "x"}, True),
        # enriched: our activity node deep down (below a dict, then a list)
        ({"name": "x", "recordSet": [{"field": [{"name": "f"}, ACTIVITY]}]}, True),
        # a user's node that merely carries our @index is no mark of ours
        ({"name": "x", "recordSet": [{"field": [{"name": "f"}, OURS]}]}, False),
        (dict(OURS), False),
        # a marked-looking object inside @context is no mark
        ({"@context": {"cl": CL_NS, "x": OURS}, "name": "x"}, False),
        # nothing of ours
        ({"name": "x", "recordSet": [{"field": [{"name": "f"}]}]}, False),
    ],
    ids=["describe", "deep-activity", "deep-user-index", "top-user-index", "mark-in-context", "foreign"],
)
def test_is_our_descriptor_by_its_generator_and_marks(tmp_path: Path, doc: Any, ours: bool) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps(doc))
    assert is_our_descriptor(path) is ours


def _node(name: str) -> dict[str, Any]:
    return {"@index": MARK, "name": name}


def _enriched(base: dict[str, Any]) -> dict[str, Any]:
    """``base`` with nodes added the way enrichment adds them (new keys, appended items)."""
    doc = copy.deepcopy(base)
    doc["cl:extra"] = _node("top")
    doc["recordSet"][0]["field"].append(_node("field-added"))
    doc["recordSet"].append({"name": "plain", "sub": [_node("deep")]})
    doc["prov:wasGeneratedBy"] = [{"@id": "_:user-activity"}, dict(ACTIVITY)]
    doc["@context"]["cl"] = CL_NS
    doc["@context"]["cl:inContext"] = _node("in-context")  # a term value: never a node
    return doc


BASE: dict[str, Any] = {
    "@context": {"sc": "https://schema.org/"},
    "name": "x",
    "recordSet": [{"name": "rs", "field": [{"name": "f"}, _node("users-own")]}],
}


def test_seal_lists_the_added_nodes_in_document_order() -> None:
    doc = _enriched(BASE)
    seal(doc, BASE)
    activity = doc["prov:wasGeneratedBy"][1]
    assert activity[ADDED_NODES] == [
        "/recordSet/0/field/2",
        "/recordSet/1/sub/0",
        "/cl:extra",
        "/prov:wasGeneratedBy/1",
    ]
    # the user's own marked node (already in base) and the @context term are not listed
    assert "/recordSet/0/field/1" not in activity[ADDED_NODES]


def test_seal_pointer_escapes_and_root_node() -> None:
    base: dict[str, Any] = {"a/b": [], "t~": {}}
    doc = {"a/b": [_node("slash")], "t~": {"n": _node("tilde")}, "act": dict(ACTIVITY)}
    seal(doc, base)
    assert doc["act"][ADDED_NODES] == ["/a~1b/0", "/t~0/n", "/act"]


@pytest.mark.parametrize("activities", [0, 2])
def test_seal_wants_exactly_one_new_activity(activities: int) -> None:
    doc = copy.deepcopy(BASE)
    doc["acts"] = [dict(ACTIVITY) for _ in range(activities)]
    with pytest.raises(ValueError, match=r"^an enriched document holds exactly one new enrichment activity$"):
        seal(doc, BASE)


def test_seal_ignores_an_activity_already_in_base() -> None:
    base = copy.deepcopy(BASE)
    base["old"] = dict(ACTIVITY)
    doc = copy.deepcopy(base)
    doc["new"] = dict(ACTIVITY)
    seal(doc, base)
    assert doc["new"][ADDED_NODES] == ["/new"]
    assert ADDED_NODES not in doc["old"]


def test_strip_undoes_a_sealed_enrichment_and_keeps_the_users_marked_node() -> None:
    doc = _enriched(BASE)
    doc["@context"] = [{"@vocab": "https://schema.org/"}, doc["@context"]]
    doc["prov:wasGeneratedBy"][1]["cl:addedContextTerms"] = ["cl", "cl:inContext"]
    seal(doc, BASE)
    before = copy.deepcopy(doc)
    out = strip_enrichment(doc)
    assert doc == before, "the input is not modified"
    assert out == {
        "@context": [{"@vocab": "https://schema.org/"}, {"sc": "https://schema.org/"}],
        "name": "x",
        "recordSet": [{"name": "rs", "field": [{"name": "f"}, _node("users-own")]},
                      {"name": "plain"}],  # "sub" emptied by the removal
        "prov:wasGeneratedBy": [{"@id": "_:user-activity"}],
    }


def test_strip_drops_a_key_its_removal_empties_but_keeps_a_key_that_was_empty() -> None:
    doc = {"@context": {"cl": CL_NS}, "empty": [], "added": [_node("a"), _node("b")],
           "mixed": [_node("c"), 1], "act": dict(ACTIVITY)}
    doc["act"][ADDED_NODES] = ["/added/0", "/added/1", "/mixed/0", "/act"]
    assert strip_enrichment(doc) == {"@context": {"cl": CL_NS}, "empty": [], "mixed": [1]}


def test_strip_removes_only_listed_pointers() -> None:
    doc = {"a": _node("a"), "b": _node("b"), "l": [_node("l0"), _node("l1")],
           "nested": {"c": _node("c")}, "act": dict(ACTIVITY)}
    doc["act"][ADDED_NODES] = ["/b", "/l/1", "/nested/c", "/act", 7]
    assert strip_enrichment(doc) == {"a": _node("a"), "l": [_node("l0")], "nested": {}}


def test_strip_of_an_enrichment_without_the_list_drops_every_marked_node() -> None:
    """An older enrichment (no cl:addedNodes): every marked node goes, as that version did."""
    doc = {"@context": {"cl": CL_NS, "old": CL_NS + "old"}, "a": _node("a"), "l": [1, _node("l")],
           "act": {**ACTIVITY, "cl:addedContextTerms": ["old"]}}
    assert strip_enrichment(doc) == {"@context": {"cl": CL_NS}, "l": [1]}
    # one activity without the list is enough to fall back to every marked node
    two = {"a": _node("a"), "b": _node("b"), "acts": [{**ACTIVITY, ADDED_NODES: ["/acts/0"]}, dict(ACTIVITY)]}
    assert strip_enrichment(two) == {}


def test_strip_context_terms_only_from_a_dict_context() -> None:
    act = {**ACTIVITY, ADDED_NODES: ["/act"], "cl:addedContextTerms": ["cl", 3, "gone"]}
    dict_ctx = {"@context": {"cl": CL_NS, "sc": "s", "gone": "g"}, "act": act}
    assert strip_enrichment(dict_ctx) == {"@context": {"sc": "s"}}
    list_ctx = {"@context": ["https://remote/ctx", {"cl": CL_NS, "keep": "k"}], "act": act}
    assert strip_enrichment(list_ctx) == {"@context": ["https://remote/ctx", {"keep": "k"}]}
    # the last entry is the one enrichment extends: a dict before a remote context is left alone
    last_remote = {"@context": [{"cl": CL_NS}, "https://remote/ctx"], "act": act}
    assert strip_enrichment(last_remote) == {"@context": [{"cl": CL_NS}, "https://remote/ctx"]}
    for ctx in ([], "https://remote/ctx"):
        assert strip_enrichment({"@context": ctx, "act": act}) == {"@context": ctx}
    terms_not_a_list = {"@context": {"cl": CL_NS}, "act": {**act, "cl:addedContextTerms": "cl"}}
    assert strip_enrichment(terms_not_a_list) == {"@context": {"cl": CL_NS}}


def test_strip_copies_and_leaves_a_document_without_activity_alone() -> None:
    doc = {"@context": {"x": {"@id": "y"}}, "a": _node("users"), "b": [{"c": [1]}]}
    out = strip_enrichment(doc)
    assert out == doc and out is not doc
    out["@context"]["x"]["@id"] = "changed"
    out["b"][0]["c"].append(2)
    assert doc == {"@context": {"x": {"@id": "y"}}, "a": _node("users"), "b": [{"c": [1]}]}
    act = {**ACTIVITY, ADDED_NODES: ["/act"]}
    sealed = {"@context": {"x": {"@id": "y"}}, "b": [{"c": [1]}], "act": act}
    out = strip_enrichment(sealed)
    out["@context"]["x"]["@id"] = "changed"
    assert sealed["@context"] == {"x": {"@id": "y"}}


def test_an_activity_inside_context_or_with_another_id_is_not_one() -> None:
    in_ctx = {"@context": {"act": dict(ACTIVITY)}, "a": _node("a")}
    assert strip_enrichment(in_ctx) == in_ctx
    other = {"act": {"@index": MARK, "@id": "_:other"}, "a": _node("a")}
    assert strip_enrichment(other) == other
    nested = {"wrap": {"act": {**ACTIVITY, ADDED_NODES: ["/wrap/act", "/a"]}}, "a": _node("a")}
    assert strip_enrichment(nested) == {"wrap": {}}


@pytest.mark.parametrize(
    ("value", "ours"),
    [({"@index": MARK}, True), ({"@index": "other"}, False), ({"index": MARK}, False),
     ([("@index", MARK)], False), ("croissant-lineage", False), ({}, False)],
)
def test_is_ours_by_the_index_mark(value: Any, ours: bool) -> None:
    assert is_ours(value) is ours


def test_strip_reaches_into_lists_of_lists() -> None:
    doc = {"m": [[_node("gone"), 1, _node("kept")], [{"k": [_node("deep")]}]], "act": dict(ACTIVITY)}
    doc["act"][ADDED_NODES] = ["/m/0/0", "/m/1/0/k/0", "/act"]
    assert strip_enrichment(doc) == {"m": [[1, _node("kept")], [{}]]}
    old = {"m": [[_node("a"), [2, _node("b")]]], "act": dict(ACTIVITY)}  # no list: every marked node
    assert strip_enrichment(old) == {"m": [[[2]]]}


def test_strip_keeps_unlisted_marked_nodes_at_any_depth() -> None:
    users = _node("users")
    doc = {"m": [[{"x": users}]], "wrap": {"inner": {"u": users}}, "added": {"n": _node("n")},
           "act": {**ACTIVITY, ADDED_NODES: ["/added/n", "/act"]}}
    assert strip_enrichment(doc) == {"m": [[{"x": users}]], "wrap": {"inner": {"u": users}}, "added": {}}


def test_strip_never_takes_nodes_out_of_the_context() -> None:
    ctx = {"cl": CL_NS, "term": {"@index": MARK, "@id": "cl:term"}}
    old = {"@context": ctx, "a": _node("a"), "act": dict(ACTIVITY)}  # no list: every marked node outside @context
    assert strip_enrichment(old) == {"@context": ctx}
    listed = {"@context": ctx, "act": {**ACTIVITY, ADDED_NODES: ["/act", "/@context/term"]}}
    assert strip_enrichment(listed) == {"@context": ctx}


@pytest.mark.parametrize(
    ("ctx", "left"),
    [
        ([{"cl": CL_NS, "t": "x"}], [{"t": "x"}]),
        (["https://remote/ctx", {"cl": CL_NS, "a": "1"}, {"cl": CL_NS, "b": "2"}],
         ["https://remote/ctx", {"cl": CL_NS, "a": "1"}, {"b": "2"}]),
    ],
    ids=["one-entry", "three-entries"],
)
def test_strip_context_terms_from_the_last_entry(ctx: list[Any], left: list[Any]) -> None:
    doc = {"@context": ctx, "act": {**ACTIVITY, ADDED_NODES: ["/act"], "cl:addedContextTerms": ["cl"]}}
    assert strip_enrichment(doc) == {"@context": left}

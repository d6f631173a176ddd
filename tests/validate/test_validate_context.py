"""JSON-LD context and PROV-O checks (what mlcroissant lets through), and mlcroissant mapping."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from croissant_lineage.validate.context import check_context
from croissant_lineage.validate.croissant import check_with_mlcroissant
from tests.validate_helpers import VALIDATE_FIXTURES

BASE = json.loads((VALIDATE_FIXTURES / "clean" / "croissant.json").read_text("utf-8"))


def _codes(doc: dict) -> list[tuple[str, str]]:
    return [(i.code, i.where.split("#", 1)[1]) for i in check_context(doc, "d.json")]


def _with(**extra) -> dict:
    doc = copy.deepcopy(BASE)
    doc.update(extra)
    return doc


def test_clean_descriptor_has_no_context_issue():
    assert _codes(BASE) == []


def test_term_coerced_to_id_accepts_plain_string_iris():
    doc = _with(derivedFrom="https://example.org/p")
    doc["@context"] = {**doc["@context"], "derivedFrom": {"@id": "prov:wasDerivedFrom", "@type": "@id"}}
    assert _codes(doc) == []
    doc["@context"]["derivedFrom"] = "prov:wasDerivedFrom"  # no coercion: a literal
    assert _codes(doc) == [("CLV205", "/derivedFrom")]


@pytest.mark.parametrize(("extra", "expected"), [
    ({"prov:startedAtTime": "2024-01-01T00:00:00Z"}, ("CLV204", "/prov:startedAtTime")),
    ({"prov:generatedAtTime": "last spring"}, ("CLV205", "/prov:generatedAtTime")),
    ({"prov:generatedAtTime": "2024-01-01"}, None),
    ({"prov:wasGeneratedBy": {"@type": "prov:Agent", "prov:label": "x"}}, ("CLV205", "/prov:wasGeneratedBy")),
    ({"prov:wasAttributedTo": {"@type": "prov:Organization", "name": "Invented lab"}}, None),
    ({"prov:wasDerivedFrom": [{"@id": "https://example.org/a"}, 5]}, ("CLV205", "/prov:wasDerivedFrom/1")),
    ({"http://www.w3.org/ns/prov#wasDerivedFrom": "https://example.org/a"}, ("CLV205", "/http:~1~1www.w3.org~1ns~1prov#wasDerivedFrom")),
    ({"foaf:maker": {"@id": "https://example.org/me"}}, ("CLV201", "/foaf:maker")),
    ({"prov:hadDerivation": {"@id": "https://example.org/a"}}, ("CLV206", "/prov:hadDerivation")),
])
def test_prov_on_the_dataset(extra: dict, expected: tuple[str, str] | None):
    assert _codes(_with(**extra)) == ([expected] if expected else [])


def test_entity_property_on_an_activity_node():
    activity = {"@type": "prov:Activity", "prov:wasDerivedFrom": {"@id": "https://example.org/a"}}
    assert _codes(_with(**{"prov:wasGeneratedBy": activity})) == [("CLV204", "/prov:wasGeneratedBy/prov:wasDerivedFrom")]


def test_annotation_with_activity_property_or_literal_type():
    doc = copy.deepcopy(BASE)
    ann = doc["recordSet"][1]["field"][2]["annotation"]
    ann["equivalentProperty"] = "prov:used"
    assert _codes(doc) == [("CLV204", "/recordSet/1/field/2/annotation/equivalentProperty")]
    ann["equivalentProperty"] = "prov:wasDerivedFrom"
    ann["dataType"] = "sc:Integer"
    assert _codes(doc) == [("CLV205", "/recordSet/1/field/2/annotation/equivalentProperty")]
    ann["equivalentProperty"] = "foaf:age"
    ann["dataType"] = "sc:Integer"
    assert _codes(doc) == [("CLV201", "/recordSet/1/field/2/annotation/equivalentProperty")]


def test_undeclared_prefix_in_types_and_vocab_values():
    doc = copy.deepcopy(BASE)
    doc["recordSet"][1]["field"][0]["dataType"] = ["sc:Text", "wd:Q1"]
    doc["recordSet"][0]["@type"] = ["cr:RecordSet", "ex:Table"]
    assert sorted(_codes(doc)) == [("CLV201", "/recordSet/0/@type/1"), ("CLV201", "/recordSet/1/field/0/dataType/1")]


def test_inline_data_is_not_read_as_json_ld():
    doc = copy.deepcopy(BASE)
    doc["recordSet"][0]["data"] = [{"subjects/name": "astro", "odd:key": "prov:nothing"}]
    assert _codes(doc) == []


def test_mlcroissant_is_not_run_on_a_remote_context(monkeypatch):
    import mlcroissant as mlc

    def boom(*a, **k):  # pragma: no cover - must not be called
        raise AssertionError("mlcroissant called")

    monkeypatch.setattr(mlc.Metadata, "from_json", boom)
    doc = _with(**{"@context": "https://example.org/context.jsonld"})
    assert check_with_mlcroissant(doc, "d.json") == []


def test_mlcroissant_crash_becomes_clv107(monkeypatch):
    import mlcroissant as mlc

    def crash(*a, **k):
        raise RuntimeError("unexpected")

    monkeypatch.setattr(mlc.Metadata, "from_json", crash)
    assert [i.code for i in check_with_mlcroissant(BASE, "d.json")] == ["CLV107"]


def test_mlcroissant_issue_points_at_the_node():
    doc = copy.deepcopy(BASE)
    doc["recordSet"][1]["field"][3]["value"] = "A"
    hits = [i for i in check_with_mlcroissant(doc, "d.json") if i.code == "CLV101"]
    assert [i.where for i in hits] == ["d.json#/recordSet/1/field/3"]


def test_activity_property_on_the_dataset_is_a_warning():
    """As a Croissant 1.1 example writes it: prov:wasAssociatedWith on the dataset beside
    its activities (outside PROV-O's domain, read as written): CLV204, a warning."""
    from croissant_lineage.validate.codes import CODES

    doc = _with(**{"prov:wasAssociatedWith": {"@type": "prov:Agent", "@id": "https://example.org/annotators"},
                   "prov:wasGeneratedBy": {"@type": "prov:Activity", "prov:label": "annotation round"}})
    assert _codes(doc) == [("CLV204", "/prov:wasAssociatedWith")]
    assert CODES["CLV204"].severity == CODES["CLV205"].severity == "warning"
    assert CODES["CLV206"].severity == "error"


def test_missing_standard_term_reported_only_when_used():
    """mlcroissant names every standard term the @context lacks; CLV106 keeps those the
    descriptor uses (every official example lacks samplingRate or equivalentProperty unused)."""
    unused = copy.deepcopy(BASE)
    for term in ("samplingRate", "examples"):
        unused["@context"].pop(term)
    assert "CLV106" not in {i.code for i in check_with_mlcroissant(unused, "d.json")}
    used = copy.deepcopy(unused)
    used["@context"].pop("citeAs")
    hits = [i for i in check_with_mlcroissant(used, "d.json") if i.code == "CLV106"]
    assert [(i.severity, i.where, i.message.rsplit(": ", 1)[1]) for i in hits] == [
        ("warning", "d.json#/@context", "citeAs")]
    prefixed = copy.deepcopy(BASE)
    prefixed["@context"].pop("rai")
    prefixed["rai:dataCollection"] = "invented"
    hits = [i for i in check_with_mlcroissant(prefixed, "d.json") if i.code == "CLV106"]
    assert [i.message.rsplit(": ", 1)[1] for i in hits] == ["rai"]


# --- real data ------------------------------------------------------------------------


def test_mlcommons_examples(shared_data: Path):
    """The MLCommons Croissant examples: mlcroissant accepts them all; two 1.1 examples
    use PROV or annotations in ways Croissant tools silently drop."""
    from croissant_lineage.validate import validate

    root = shared_data / "croissant-examples"
    report = validate([root], ignore=["CLV103", "CLV106"])
    found = {(i.code, i.where.split("#")[0].split("/")[-2]) for i in report.issues}
    assert ("CLV208", "huggingface-data_provenance_initiative") in found  # equivalentProperty not in @context
    assert ("CLV207", "huggingface-squad_v2") in found  # prov:locatedAt, prov:isAssociatedWith (a warning)
    assert not [i for i in report.issues if i.code.startswith("CLV1")]
    assert len([c for c in report.checked if c.kind.endswith("descriptor")]) == 30

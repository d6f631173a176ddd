"""A spec may declare its own activity (an IRI and a label): it parses, travels in the
family's info and becomes the activity's class in PROV-O; undeclared names are refused."""

from __future__ import annotations

from typing import Any

import pytest
import rdflib

from croissant_lineage.errors import SpecError
from croissant_lineage.family.spec import ACTIVITIES, parse_family
from croissant_lineage.lineage.info import FamilyInfo, family_info
from croissant_lineage.prov.graph import family_graph

IRI = "https://example.org/vocab#DistractorRewrite"


def _doc(activity: str, activities: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": "fam",
        "datasets": [{"name": "root", "iri": "https://example.org/root"},
                     {"name": "child", "iri": "https://example.org/child"}],
        "derivations": [{"child": "child", "parent": "root", "activity": activity}],
    }
    if activities is not None:
        doc["activities"] = activities
    return doc


def test_a_declared_activity_reaches_prov_as_its_class() -> None:
    spec = parse_family(_doc("distractor_rewrite", {"distractor_rewrite": {"iri": IRI, "label": "distractors rewritten"}}))
    (d,) = spec.derivations
    assert (d.activity, d.activity_iri, d.activity_label) == ("distractor_rewrite", IRI, "distractors rewritten")
    info = family_info(spec)
    assert FamilyInfo.from_dict(info.to_dict()) == info  # family.json keeps it
    g = family_graph(info)
    assert any(o == rdflib.URIRef(IRI) for o in g.objects(None, rdflib.RDF.type))


def test_built_in_activities_write_no_declared_iri() -> None:
    info = family_info(parse_family(_doc("perturbation")))
    assert "activity_iri" not in info.to_dict()["derivations"][0]


@pytest.mark.parametrize(("activity", "activities"), [
    ("distractor_rewrite", None),  # not declared
    ("copy", {"copy": {"iri": IRI, "label": "again"}}),  # a built-in name declared again
    ("x", {"x": {"iri": "not an iri", "label": "x"}}),
    ("x", {"x": {"iri": IRI}}),  # no label
])
def test_undeclared_or_malformed_activities_are_refused(activity: str, activities: dict[str, Any] | None) -> None:
    with pytest.raises(SpecError) as exc:
        parse_family(_doc(activity, activities))
    assert exc.value.code == "CL-E003"


def test_the_built_in_kinds_families_use() -> None:
    for kind in ("perturbation", "templated_variants", "paraphrase", "format_conversion", "test_augmentation"):
        assert kind in ACTIVITIES

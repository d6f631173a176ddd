"""a user's node that carries the library's mark is never taken for ours.

``"@index": "croissant-lineage"`` is an ordinary JSON-LD value a user may write; the
enrichment activity lists the pointers of the nodes it added, and only those go.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from croissant_lineage.enrich import enrich_descriptor, enrich_file, strip_enrichment
from croissant_lineage.enrich.marks import ADDED_NODES, is_our_descriptor
from croissant_lineage.errors import LineageError
from croissant_lineage.prov.vocab import MARK

GOOD = Path(__file__).resolve().parent / "_good" / "croissant.json"
PARENT = "https://example.org/parent"


def _user_doc() -> dict[str, Any]:
    doc = json.loads(GOOD.read_text())
    doc["@context"]["prov"] = "http://www.w3.org/ns/prov#"
    user = {"@index": MARK, "@id": "https://example.org/mine", "name": "my own node"}
    doc["prov:wasDerivedFrom"] = [user]
    doc["recordSet"][0]["field"][0]["@index"] = MARK  # a user Field with the same @index
    doc["isPartOf"] = {"@index": MARK, "@id": "https://example.org/collection"}
    return doc


def test_strip_of_enrich_is_identity_with_user_nodes_carrying_the_mark() -> None:
    doc = _user_doc()
    before = copy.deepcopy(doc)
    enriched = enrich_descriptor(doc, derived_from=[PARENT], time=0)
    assert doc == before  # not modified
    assert enriched != doc
    assert strip_enrichment(enriched) == before
    # Twice: enriching an enriched document replaces our part and keeps every user node.
    again = enrich_descriptor(enriched, derived_from=[PARENT, "https://example.org/other"], time=0)
    assert strip_enrichment(again) == before
    kept = [n for n in again["prov:wasDerivedFrom"] if n.get("@id") == "https://example.org/mine"]
    assert len(kept) == 1


def test_a_document_never_enriched_is_not_stripped_and_not_ours(tmp_path: Path) -> None:
    doc = _user_doc()
    assert strip_enrichment(doc) == doc
    path = tmp_path / "croissant.json"
    path.write_text(json.dumps(doc))
    assert not is_our_descriptor(path)  # a marked user node does not make the file replaceable
    out = tmp_path / "foreign.json"
    out.write_text(json.dumps(doc))
    with pytest.raises(LineageError) as info:
        enrich_file(path, out, derived_from=[PARENT], time=0)
    assert info.value.code == "CL-E007"


def test_the_activity_lists_exactly_the_added_nodes() -> None:
    enriched = enrich_descriptor(_user_doc(), derived_from=[PARENT], time=0)
    (activity,) = [n for n in enriched["prov:wasGeneratedBy"] if "cl:Enrichment" in n.get("@type", [])]
    listed = activity[ADDED_NODES]
    assert "/prov:wasDerivedFrom/0" not in listed  # the user's node
    assert "/prov:wasDerivedFrom/1" in listed
    assert "/isPartOf" not in listed and "/recordSet/0/field/0" not in listed


def test_an_enrichment_activity_with_the_old_blank_node_id_is_still_ours() -> None:
    """Descriptors enriched before activities had IRIs name the enrichment ``_:cl-enrichment``
    (and may lack the type): they are still recognised, stripped and replaced."""
    doc = _user_doc()
    enriched = enrich_descriptor(doc, derived_from=[PARENT], time=0)
    (activity,) = [n for n in enriched["prov:wasGeneratedBy"] if "cl:Enrichment" in n.get("@type", [])]
    assert activity["@id"].startswith("https://w3id.org/croissant-lineage/family/")
    activity["@id"], activity["@type"] = "_:cl-enrichment", "prov:Activity"
    assert strip_enrichment(enriched) == doc
    again = enrich_descriptor(enriched, derived_from=[PARENT], time=0)
    assert again["prov:wasGeneratedBy"][-1]["@id"] == _enrichment_iri(doc)


def _enrichment_iri(doc: dict[str, Any]) -> str:
    new = enrich_descriptor(doc, derived_from=[PARENT], time=0)
    return str(new["prov:wasGeneratedBy"][-1]["@id"])


def test_an_old_enrichment_without_the_list_is_stripped_as_before() -> None:
    plain = json.loads(GOOD.read_text())
    enriched = enrich_descriptor(plain, derived_from=[PARENT], time=0)
    for node in enriched["prov:wasGeneratedBy"]:
        node.pop(ADDED_NODES, None)
    assert strip_enrichment(enriched) == plain

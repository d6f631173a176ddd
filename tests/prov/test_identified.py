"""Every activity, derivation, agent, usage and generation that PROV-DM identifies is named by
an IRI (no blank node) in the three places the library writes PROV: the ``prov`` export, the
enriched descriptors (``enrich``) and the Hub files (``publish``, a dry run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import rdflib
import yaml
from rdflib import RDF, BNode

from croissant_lineage.croissant.jsonld import to_graph
from croissant_lineage.enrich import enrich_family
from croissant_lineage.hub.publish import publish
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.prov import write_prov

REPO = Path(__file__).resolve().parents[2]
TOY = REPO / "examples" / "toy" / "family.json"
TOY_CARD = REPO / "tests" / "fixtures" / "hub" / "toy-pro-card.md"
PROV = rdflib.Namespace("http://www.w3.org/ns/prov#")

#: Classes of the PROV-DM records that carry an identifier (and their PROV-O subclasses).
IDENTIFIED = {PROV[c] for c in (
    "Activity", "Agent", "SoftwareAgent", "Person", "Organization", "Derivation", "Revision", "Quotation",
    "PrimarySource", "Usage", "Generation", "Association", "Attribution", "Invalidation", "Start", "End",
    "Communication", "Delegation", "Influence",
)}
#: Properties whose object is such a record (the activity, agent or qualified influence).
TO_RECORD = {PROV[p] for p in (
    "wasGeneratedBy", "wasAssociatedWith", "wasAttributedTo", "hadActivity", "activity", "agent",
    "actedOnBehalfOf", "wasInformedBy", "qualifiedDerivation", "qualifiedRevision", "qualifiedQuotation",
    "qualifiedPrimarySource", "qualifiedUsage", "qualifiedGeneration", "qualifiedAssociation",
    "qualifiedAttribution", "qualifiedInfluence", "qualifiedStart", "qualifiedEnd", "qualifiedCommunication",
    "qualifiedDelegation", "qualifiedInvalidation",
)}
#: Properties whose subject is such a record (an activity's or an influence's own properties).
FROM_RECORD = {PROV[p] for p in (
    "used", "wasAssociatedWith", "startedAtTime", "endedAtTime", "hadActivity", "entity", "hadPlan", "hadRole",
)}


def unnamed(graph: rdflib.Graph) -> set[tuple[str, str]]:
    """(blank node, why it is a PROV record) for every blank node in a record's place."""
    found = set()
    for s, p, o in graph:
        if p == RDF.type and o in IDENTIFIED and isinstance(s, BNode):
            found.add((str(s), f"a {o}"))
        if p in TO_RECORD and isinstance(o, BNode):
            found.add((str(o), f"object of {p}"))
        if p in FROM_RECORD and isinstance(s, BNode):
            found.add((str(s), f"subject of {p}"))
    return found


def test_the_check_sees_a_blank_activity() -> None:
    graph = rdflib.Graph()
    graph.add((rdflib.URIRef("https://x/e"), PROV.wasGeneratedBy, BNode("a")))
    graph.add((BNode("d"), RDF.type, PROV.Derivation))
    assert {why for _, why in unnamed(graph)} == {f"object of {PROV.wasGeneratedBy}", f"a {PROV.Derivation}"}


def _descriptor_graph(path: Path) -> rdflib.Graph:
    return to_graph(json.loads(path.read_text(encoding="utf-8")), path=path)


def _toy_findings(tmp_path: Path) -> Path:
    path = tmp_path / "findings.yaml"
    path.write_text(yaml.safe_dump([
        {"id": "F-1", "item": "toy-pro:101", "target": "key", "kind": "wrong_key", "proposed": "Sable",
         "source": {"name": "Invented review", "kind": "community_review"}, "status": "submitted"},
    ]), encoding="utf-8")
    return path


def test_no_blank_node_in_the_export_the_enriched_descriptors_and_the_hub_files(
    toy_lineage: Lineage, tmp_path: Path
) -> None:
    lineage_dir = toy_lineage.write(tmp_path / "lineage")
    findings = _toy_findings(tmp_path)
    records = 0
    for fmt in ("turtle", "nt", "json-ld"):  # 1. the prov export
        out = write_prov(lineage_dir, tmp_path / f"toy.{fmt}", findings=findings, fmt=fmt, time="2025-01-01T00:00:00Z")
        graph = rdflib.Graph().parse(out.path, format=fmt)
        assert not any(isinstance(t, BNode) for triple in graph for t in triple), fmt
        assert unnamed(graph) == set()
    enriched = enrich_family(lineage_dir, TOY, tmp_path / "enriched", findings, time="2025-01-01T00:00:00Z")
    assert len(enriched.descriptors) >= 5
    for d in enriched.descriptors:  # 2. every enriched descriptor
        graph = _descriptor_graph(Path(d.path))
        assert unnamed(graph) == set(), d.path
        records += sum(1 for _ in graph.subjects(RDF.type, PROV.Activity))
    assert records > len(enriched.descriptors)  # the enrichments and the dataset-level activities were looked at
    pro = next(d for d in enriched.descriptors if d.datasets == ["toy-pro"])
    hub = tmp_path / "hub"  # 3. the Hub files of a dry run
    plan = publish(pro.path, lineage_dir, hub, repo_id="me/toy-pro", base_card=TOY_CARD, findings=findings)
    assert "croissant.json" in [f.path for f in plan.files]
    graph = _descriptor_graph(hub / "croissant.json")
    assert any(graph.subjects(RDF.type, PROV.Activity))
    assert unnamed(graph) == set()


def test_no_blank_node_in_the_enriched_mmlu_descriptors(mmlu_enriched: Any) -> None:
    """Every descriptor of the MMLU family, enriched: its dataset-, RecordSet- and Field-level
    derivations, their activities and the enrichment are all named."""
    assert len(mmlu_enriched.descriptors) >= 10
    for d in mmlu_enriched.descriptors:
        graph = _descriptor_graph(Path(d.path))
        assert any(graph.subjects(RDF.type, PROV.Activity)), d.path
        assert unnamed(graph) == set(), d.path

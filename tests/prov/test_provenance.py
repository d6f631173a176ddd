"""The PROV-O graph: compared as graphs (rdflib.compare), never as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rdflib
from rdflib import RDF, Literal, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic

from croissant_lineage.cli import main
from croissant_lineage.croissant.jsonld import PROV_NS, read_graph
from croissant_lineage.enrich import enrich_family
from croissant_lineage.errors import InputError, OutputExistsError
from croissant_lineage.findings.files import save_findings
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.lineage.schema import item_iri
from croissant_lineage.prov import (
    AGENT_IRI,
    PROV_FILE_COMMENT,
    build_graph,
    family_graph,
    is_prov_file,
    resolve_time,
    serialize,
    write_prov,
)
from croissant_lineage.prov.vocab import FAMILY_ROOT
from croissant_lineage.workflows import link

PROV = rdflib.Namespace(PROV_NS)
CL = rdflib.Namespace("https://w3id.org/croissant-lineage/ns#")
TOY = Path(__file__).resolve().parents[2] / "examples" / "toy"
BASE = "https://example.org/toy/base"
PRO = "https://example.org/toy/pro"


@pytest.fixture(scope="module")
def toy(toy_lineage: Lineage) -> Lineage:
    return toy_lineage


def _finding() -> Finding:
    return Finding(
        item="toy-pro:101",
        target="key",
        kind="wrong_key",
        source=Source("invented review", "https://example.org/review", "person"),
        proposed="x",
        status="submitted",
        status_date="2025-02-03",
    )


def _cbd(graph: rdflib.Graph, iri: str) -> rdflib.Graph:
    """The dataset's concise bounded description, without its item members, following the
    activities and derivations named under the family (as a CBD follows blank nodes)."""
    out = rdflib.Graph()
    todo, seen = [URIRef(iri)], set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        for t in graph.cbd(node):
            if t[1] == PROV.hadMember:
                continue
            out.add(t)
            if isinstance(t[2], URIRef) and str(t[2]).startswith(FAMILY_ROOT):
                todo.append(t[2])
    return out


def test_item_derivations_are_qualified(toy: Lineage) -> None:
    g = build_graph(toy, [_finding()])
    child, parent = URIRef(item_iri(PRO, "101")), URIRef(item_iri(BASE, "astronomy/test/0"))
    assert (child, PROV.wasDerivedFrom, parent) in g
    (d,) = list(g.objects(child, PROV.qualifiedDerivation))
    assert (d, RDF.type, PROV.Derivation) in g and (d, PROV.entity, parent) in g
    assert g.value(d, CL.optionsAdded) == Literal(2) and g.value(d, CL.keyInherited) == Literal(True)
    activity = g.value(d, PROV.hadActivity)
    assert (activity, RDF.type, PROV.Activity) in g and (activity, RDF.type, CL.OptionExpansion) in g
    assert (URIRef(PRO), PROV.wasGeneratedBy, activity) in g  # the dataset-level activity
    assert (URIRef(AGENT_IRI), RDF.type, PROV.SoftwareAgent) in g
    edges = sum(1 for _ in g.triples((None, PROV.qualifiedDerivation, None)) if isinstance(_[0], URIRef) and "#" in _[0])
    assert edges == toy.edges.num_rows
    # snapshots are revisions
    v2 = URIRef(item_iri("https://example.org/toy/pro@v2", "101"))
    kinds = {g.value(q, RDF.type) for q in g.objects(v2, PROV.qualifiedDerivation)}
    assert kinds == {PROV.Revision}


def test_findings_carry_status_and_source(toy: Lineage) -> None:
    g = build_graph(toy, [_finding()])
    (node,) = list(g.subjects(RDF.type, CL.Finding))
    assert g.value(node, CL.status) == Literal("submitted")
    assert g.value(node, CL.statusDate) == Literal("2025-02-03")
    assert g.value(node, CL.item) == URIRef(item_iri(PRO, "101"))
    src = g.value(node, PROV.wasAttributedTo)
    assert src == URIRef("https://example.org/review") and (src, RDF.type, PROV.Agent) in g


def test_serialisations_round_trip_and_are_deterministic(toy: Lineage) -> None:
    g = build_graph(toy, [_finding()], time="2025-01-01T00:00:00Z")
    iso = to_isomorphic(g)
    for fmt, parse_as in (("turtle", "turtle"), ("nt", "nt"), ("json-ld", "json-ld")):
        data = serialize(g, fmt)
        assert data == serialize(build_graph(toy, [_finding()], time="2025-01-01T00:00:00Z"), fmt), fmt
        back = rdflib.Graph().parse(data=data.decode("utf-8"), format=parse_as)
        assert to_isomorphic(back) == iso, fmt
    with pytest.raises(InputError):
        serialize(g, "rdf/xml")


def test_enriched_descriptors_state_the_same_prov(toy: Lineage, tmp_path: Path) -> None:
    """rdflib's parse of each enriched descriptor holds the family graph's dataset triples."""
    family = build_graph(toy, items=False)
    result = enrich_family(toy, TOY / "family.json", tmp_path)
    for d in result.descriptors:
        parsed = read_graph(d.path)
        for name in d.datasets:
            iri = next(x["iri"] for x in toy.family.to_dict()["datasets"] if x["name"] == name)
            mine, theirs = _cbd(parsed, iri), _cbd(family, iri)
            assert len(mine) > 3
            assert isomorphic(mine, theirs), graph_diff(to_isomorphic(mine), to_isomorphic(theirs))


def test_real_family_dataset_level_matches_enriched(mmlu_lineage: Lineage, tmp_path: Path) -> None:
    import dataclasses

    from croissant_lineage.family.spec import load_family

    spec = load_family("mmlu")
    keep = ("mmlu", "mmlu-pro")  # two descriptors are enough here (test_enrich covers all 12)
    spec = dataclasses.replace(spec, datasets={k: v for k, v in spec.datasets.items() if k in keep})
    family = family_graph(mmlu_lineage.family)
    result = enrich_family(mmlu_lineage, spec, tmp_path)
    pro = next(d for d in result.descriptors if d.datasets == ["mmlu-pro"])
    iri = "https://huggingface.co/datasets/TIGER-Lab/MMLU-Pro"
    mine = _cbd(read_graph(pro.path), iri)
    assert isomorphic(mine, _cbd(family, iri))
    assert (URIRef(iri), PROV.wasDerivedFrom, URIRef("https://huggingface.co/datasets/cais/mmlu")) in mine
    mmlu = next(d for d in result.descriptors if d.datasets == ["mmlu"])
    documented = _cbd(read_graph(mmlu.path), "https://huggingface.co/datasets/cais/mmlu")
    assert len(list(documented.objects(None, CL.derivative))) == 2  # MMMLU, Global-MMLU


def test_write_prov_and_cli(toy: Lineage, tmp_path: Path) -> None:
    folder = toy.write(tmp_path / "lineage")
    findings = tmp_path / "findings.json"
    save_findings([_finding()], findings)
    result = write_prov(folder, tmp_path / "a.ttl", findings=findings)
    assert result.edges == toy.edges.num_rows and result.findings == 1
    assert main(["prov", "--lineage", str(folder), "--findings", str(findings), "--syntax", "nt",
                 "--out", str(tmp_path / "b.nt"), "-q"]) == 0
    a = rdflib.Graph().parse(tmp_path / "a.ttl", format="turtle")
    b = rdflib.Graph().parse(tmp_path / "b.nt", format="nt")
    assert isomorphic(a, b) and len(a) == result.triples
    assert main(["prov", "--lineage", str(tmp_path / "nowhere"), "--out", str(tmp_path / "c.ttl")]) == 2


def test_prov_files_carry_a_mark_and_replace_only_their_own(toy: Lineage, tmp_path: Path) -> None:
    folder = toy.write(tmp_path / "lineage")
    expected = build_graph(toy)
    for fmt, name in (("turtle", "a.ttl"), ("nt", "a.nt"), ("json-ld", "a.jsonld")):
        out = tmp_path / name
        write_prov(folder, out, fmt=fmt)
        assert is_prov_file(out), fmt
        assert isomorphic(rdflib.Graph().parse(out, format=fmt), expected), fmt  # the mark adds no triple
        write_prov(folder, out, fmt=fmt)  # its own file: replaced
    assert (tmp_path / "a.nt").read_bytes().startswith(PROV_FILE_COMMENT)
    assert json.loads((tmp_path / "a.jsonld").read_text())["generatedBy"] == "croissant-lineage"
    foreign = tmp_path / "notes.ttl"
    foreign.write_text("<https://example.org/a> <https://example.org/b> <https://example.org/c> .\n")
    before = foreign.read_bytes()
    with pytest.raises(OutputExistsError) as err:
        write_prov(folder, foreign)
    assert err.value.code == "CL-E007" and foreign.read_bytes() == before
    assert main(["prov", "--lineage", str(folder), "--out", str(foreign), "-q"]) == 2
    assert foreign.read_bytes() == before
    assert main(["prov", "--lineage", str(folder), "--out", str(foreign), "-q", "--force"]) == 0
    assert is_prov_file(foreign)
    with pytest.raises(OutputExistsError):
        write_prov(folder, tmp_path)  # a folder


def test_resolve_time() -> None:
    assert resolve_time(None) is None or isinstance(resolve_time(None), str)
    assert resolve_time("2025-01-01") == "2025-01-01T00:00:00Z"
    assert resolve_time(86400) == "1970-01-02T00:00:00Z"
    with pytest.raises(InputError):
        resolve_time("soon")
    assert json.dumps(resolve_time("2025-06-01T12:00:00+02:00")) == '"2025-06-01T10:00:00Z"'


@pytest.mark.slow
def test_serialisations_are_the_same_bytes_across_processes(tmp_path: Path) -> None:
    """Set order changes with hash randomisation: each format must not depend on it."""
    import os
    import subprocess
    import sys

    lineage_dir = tmp_path / "lineage"
    link(TOY / "family.json").write(lineage_dir)
    for fmt in ("nt", "turtle", "json-ld"):
        outs = []
        for seed in ("1", "2", "3"):
            out = tmp_path / f"{fmt}-{seed}"
            env = dict(os.environ, PYTHONHASHSEED=seed, SOURCE_DATE_EPOCH="1700000000")
            subprocess.run(
                [sys.executable, "-m", "croissant_lineage", "prov", "--lineage", str(lineage_dir),
                 "--syntax", fmt, "--out", str(out), "--quiet"],
                check=True, env=env,
            )
            outs.append(out.read_bytes())
        assert outs[0] == outs[1] == outs[2], fmt

"""``prov --syntax provjson``: W3C PROV-JSON written directly, read by the reference library
(``prov``) as the same records it reads out of the Turtle export."""

from __future__ import annotations

import json
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import croissant_lineage.prov.stream as stream
from croissant_lineage.cli import main
from croissant_lineage.errors import InputError
from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.prov import (
    build_graph,
    is_prov_file,
    serialize,
    serialize_lineage,
    write_prov,
)
from croissant_lineage.prov.provjson import MARK_PREFIX, MARK_PREFIX_NS
from tests.prov.test_prov_library import PROVN, mmlu_slice
from tests.prov.test_stream import TRICKY, families, finding

prov_model = pytest.importorskip("prov.model")

TIME = "2024-01-01T00:00:00Z"
#: Top-level keys of the file: ``prefix`` and PROV-JSON record types.
RECORD_TYPES = {
    "entity", "activity", "agent", "wasDerivedFrom", "hadMember", "used", "wasGeneratedBy",
    "wasAssociatedWith", "wasAttributedTo",
}


def _doc(data: bytes, fmt: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # prov: "attributes were not converted" (cl:DocumentedDerivation)
        if fmt == "provjson":
            return prov_model.ProvDocument.deserialize(content=data.decode("utf-8"), format="json")
        return prov_model.ProvDocument.deserialize(content=data.decode("utf-8"), format="rdf", rdf_format=fmt)


def _records(doc: Any) -> Counter[tuple[str, str | None]]:
    """Each record's type and identifier (IRI), counted."""
    return Counter((type(r).__name__, r.identifier.uri if r.identifier else None) for r in doc.get_records())


def same_records(provjson: bytes, turtle: bytes) -> Counter[str]:
    """Assert that ``prov`` reads the PROV-JSON as the records it reads out of the Turtle (by
    type and identifier, counts, and the whole documents equal) and writes it as PROV-N;
    returns the counts by type."""
    mine, theirs = _doc(provjson, "provjson"), _doc(turtle, "turtle")
    assert _records(mine) == _records(theirs)
    assert mine == theirs
    counts = Counter(type(r).__name__ for r in mine.get_records())
    provn = mine.get_provn()
    assert Counter(m.group(1) for m in re.finditer(r"^  (\w+)\(", provn, re.M)) == Counter(
        {PROVN[k]: n for k, n in counts.items()})
    return counts


def _finding() -> Finding:
    return Finding(
        id="f1", item="toy-pro:101", target="key", kind="wrong_key", status="proposed",
        source=Source(name="Toy audit", kind="paper"),
    )


def test_the_toy_family_gives_the_records_of_its_turtle(toy_lineage: Lineage) -> None:
    found = [_finding(), finding(TRICKY, name=TRICKY, evidence=(TRICKY, "second")), finding("y", url=None)]
    data = serialize_lineage(toy_lineage, found, fmt="provjson", time=TIME)
    counts = same_records(data, serialize_lineage(toy_lineage, found, fmt="turtle", time=TIME))
    assert counts["ProvDerivation"] == 2 * (toy_lineage.edges.num_rows + 7)  # qualified (by IRI) and plain
    assert counts["ProvActivity"] == 8 and counts["ProvAttribution"] == 3
    doc = json.loads(data)
    assert set(doc) - {"prefix"} <= RECORD_TYPES
    assert list(doc) == ["prefix", *sorted(set(doc) - {"prefix"})]  # the prefixes, then record types sorted
    assert MARK_PREFIX not in doc["prefix"]  # serialize_lineage: the bytes after the mark
    assert doc["prefix"]["toy"] == "https://w3id.org/croissant-lineage/family/toy/"
    assert doc["prefix"]["toy-pro"] == "https://example.org/toy/pro#"
    derivation = doc["wasDerivedFrom"]["toy:derivation/toy-pro/101#toy-base/astronomy/test/0"]
    assert derivation["prov:generatedEntity"] == "toy-pro:101"
    assert derivation["prov:usedEntity"] == "toy-base:astronomy/test/0"
    assert derivation["prov:activity"] == "toy:activity/toy-pro--option_expansion--toy-base"
    assert doc["activity"]["toy:activity/linking/20240101T000000Z"]["prov:endTime"].startswith("2024-01-01T00:00:00")
    assert all(k.startswith("_:id") for k in doc["hadMember"])  # relations without identifier


def test_write_prov_marks_and_streams_the_same_bytes_whatever_the_chunk(
    toy_lineage_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = []
    for chunk, block in ((None, None), (2_000, 7)):
        if chunk is not None:  # many sorted runs, merged a few lines at a time
            monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
            monkeypatch.setattr(stream, "BLOCK_LINES", block)
        out = tmp_path / f"{chunk}.provjson"
        result = write_prov(toy_lineage_path, out, fmt="provjson", time=0)
        assert result.format == "provjson" and result.triples == len(build_graph(Lineage.read(toy_lineage_path), time=0))
        assert is_prov_file(out)
        written.append(out.read_bytes())
    assert written[0] == written[1]
    doc = json.loads(written[0])
    assert next(iter(doc["prefix"].items())) == (MARK_PREFIX, MARK_PREFIX_NS)  # the mark: the first prefix
    turtle = write_prov(toy_lineage_path, tmp_path / "t.ttl", time=0)
    assert _doc(written[0], "provjson") == _doc(Path(turtle.path).read_bytes(), "turtle")


def test_a_graph_without_its_family_gives_the_same_records(toy_lineage: Lineage) -> None:
    """``serialize(graph, "provjson")`` knows no dataset names: other prefixes, same records."""
    graph = build_graph(toy_lineage, [_finding()], time=TIME)
    data = serialize(graph, "provjson")
    assert "toy-pro" not in json.loads(data)["prefix"]
    same_records(data, serialize(graph, "turtle"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(families())
def test_random_families_give_the_records_of_their_turtle(case: tuple[Lineage, list[Finding]]) -> None:
    lineage, found = case
    same_records(serialize_lineage(lineage, found, fmt="provjson", time=0),
                 serialize_lineage(lineage, found, fmt="turtle", time=0))


def test_an_unknown_syntax_is_refused_with_a_code(toy_lineage: Lineage) -> None:
    with pytest.raises(InputError) as err:
        serialize_lineage(toy_lineage, fmt="prov-json")
    assert err.value.code == "CL-E001"


def test_the_cli_writes_and_replaces_its_own_provjson(toy_lineage_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "toy.provjson"
    args = ["prov", "--lineage", str(toy_lineage_path), "--syntax", "provjson", "--time", TIME, "--out", str(out), "-q"]
    assert main(args) == 0
    first = out.read_bytes()
    assert main(args) == 0 and out.read_bytes() == first  # a re-run replaces it, same bytes
    other = tmp_path / "other.json"
    other.write_text("{}")
    assert main([*args[:-3], "--out", str(other), "-q"]) == 2 and other.read_text() == "{}"


# --- the real families ---------------------------------------------------------------


def test_the_humaneval_family_gives_the_records_of_its_turtle(humaneval_lineage_dir: Path, tmp_path: Path) -> None:
    lineage = Lineage.read(humaneval_lineage_dir, records=False)
    data = {}
    for fmt in ("provjson", "turtle"):
        out = write_prov(humaneval_lineage_dir, tmp_path / f"humaneval.{fmt}", fmt=fmt, time=TIME)
        data[fmt] = Path(out.path).read_bytes()
    counts = same_records(data["provjson"], data["turtle"])
    edges, derivations = lineage.edges.num_rows, len(lineage.family.derivations)
    assert counts["ProvDerivation"] == 2 * (edges + derivations) and edges > 900
    assert counts["ProvMembership"] == lineage.items.num_rows


def test_a_slice_of_the_mmlu_family_gives_the_records_of_its_turtle(mmlu_lineage_dir: Path) -> None:
    lineage = Lineage.read(mmlu_lineage_dir, records=False)
    part = mmlu_slice(lineage)
    counts = same_records(serialize_lineage(part, fmt="provjson", time=TIME), serialize_lineage(part, fmt="turtle", time=TIME))
    assert counts["ProvDerivation"] >= 2 * part.edges.num_rows > 0
    assert counts["ProvActivity"] >= len(set(part.edges["activity"].to_pylist()))


def test_any_iri_gets_a_prefix_and_the_records_stay_those_of_the_turtle() -> None:
    import rdflib

    graph = rdflib.Graph()
    prov = rdflib.Namespace("http://www.w3.org/ns/prov#")
    nodes = [rdflib.URIRef(u) for u in ("urn:x:a", "https://example.org/a/", "https://example.org/b#c#d",
                                        "https://example.org/%C3%A9t%C3%A9", "https://example.org/@v2#1")]
    for node in nodes:
        graph.add((node, rdflib.RDF.type, prov.Entity))
    graph.add((nodes[0], prov.wasDerivedFrom, nodes[1]))
    data = serialize(graph, "provjson")
    assert "" not in json.loads(data)["prefix"].values()
    same_records(data, serialize(graph, "turtle"))

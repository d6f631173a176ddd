"""The exports read by the reference Python PROV library (``prov``): RDF in, PROV-N and
PROV-JSON out, the same records back."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from croissant_lineage.findings.model import Finding, Source
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.prov import serialize_lineage, write_prov

prov_model = pytest.importorskip("prov.model")

#: ``prov --syntax`` -> rdflib's name for it.
RDF_FORMATS = {"turtle": "turtle", "nt": "nt", "json-ld": "json-ld"}
#: PROV-N keyword of each record type the exports hold.
PROVN = {
    "ProvEntity": "entity", "ProvActivity": "activity", "ProvAgent": "agent", "ProvDerivation": "wasDerivedFrom",
    "ProvMembership": "hadMember", "ProvUsage": "used", "ProvGeneration": "wasGeneratedBy",
    "ProvAssociation": "wasAssociatedWith", "ProvAttribution": "wasAttributedTo",
}


def _counts(doc: object) -> Counter[str]:
    return Counter(type(r).__name__ for r in doc.get_records())  # type: ignore[attr-defined]


def round_trip(data: bytes, fmt: str) -> Counter[str]:
    """Load an export with ``prov``, write PROV-N and PROV-JSON, read PROV-JSON back; returns
    the record counts by type after asserting they are the same at every step."""
    doc = prov_model.ProvDocument.deserialize(content=data.decode("utf-8"), format="rdf", rdf_format=RDF_FORMATS[fmt])
    counts = _counts(doc)
    provn = doc.get_provn()
    keywords = Counter(m.group(1) for m in re.finditer(r"^  (\w+)\(", provn, re.M))
    assert keywords == Counter({PROVN[k]: n for k, n in counts.items()})
    back = prov_model.ProvDocument.deserialize(content=doc.serialize(format="json"), format="json")
    assert _counts(back) == counts
    assert back == doc
    return counts


def _finding() -> Finding:
    return Finding(
        id="f1", item="toy-pro:101", target="key", kind="wrong_key", status="proposed",
        source=Source(name="Toy audit", kind="paper"),
    )


@pytest.mark.filterwarnings("ignore:The following attributes were not converted")
@pytest.mark.parametrize("fmt", list(RDF_FORMATS))
def test_the_toy_family_round_trips(toy_lineage: Lineage, fmt: str) -> None:
    data = serialize_lineage(toy_lineage, [_finding()], fmt=fmt, time="2024-01-01T00:00:00Z")
    counts = round_trip(data, fmt)
    edges = toy_lineage.edges.num_rows
    assert counts["ProvDerivation"] >= 2 * edges  # every item edge, qualified (with its IRI) and plain
    assert counts["ProvActivity"] == 6  # 5 derivation activities and the linking
    assert counts["ProvAgent"] == 2  # the library and the findings source
    assert counts["ProvAttribution"] == 1


def test_no_blank_node_names_an_activity_derivation_or_agent(toy_lineage: Lineage) -> None:
    nt = serialize_lineage(toy_lineage, [_finding()], fmt="nt", time="2024-01-01T00:00:00Z")
    assert b"_:" not in nt


@pytest.mark.filterwarnings("ignore:The following attributes were not converted")
def test_the_mmlu_family_round_trips(mmlu_lineage_dir: Path, tmp_path: Path) -> None:
    counts = {}
    for fmt in RDF_FORMATS:
        out = write_prov(mmlu_lineage_dir, tmp_path / f"mmlu.{fmt}", fmt=fmt, time="2024-01-01T00:00:00Z")
        data = Path(out.path).read_bytes()
        assert b"_:" not in data
        counts[fmt] = round_trip(data, fmt)
    assert counts["turtle"] == counts["nt"] == counts["json-ld"]
    assert counts["turtle"]["ProvDerivation"] >= 2 * out.edges

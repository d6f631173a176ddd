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
    assert counts["ProvActivity"] == 8  # 7 derivation activities and the linking
    assert counts["ProvAgent"] == 2  # the library and the findings source
    assert counts["ProvAttribution"] == 1


def test_no_blank_node_names_an_activity_derivation_or_agent(toy_lineage: Lineage) -> None:
    nt = serialize_lineage(toy_lineage, [_finding()], fmt="nt", time="2024-01-01T00:00:00Z")
    assert b"_:" not in nt


#: Items of each MMLU-family dataset that the reference library reads back (with every parent
#: their edges name): every dataset, derivation and activity of the family, in minutes, not the
#: hour that ``prov``'s RDF reader takes over all 1.3 million triples on this machine.
MMLU_SLICE = 150


def mmlu_slice(lineage: Lineage, per_dataset: int = MMLU_SLICE) -> Lineage:
    """The first ``per_dataset`` items of each dataset, the edges from them and their parents."""
    import pyarrow as pa
    import pyarrow.compute as pc

    items = lineage.items
    refs = pc.binary_join_element_wise(items["dataset"], items["item"], ":")
    rank = pa.array(_rank_in_dataset(items["dataset"].to_pylist()))
    kept = set(pc.filter(refs, pc.less(rank, per_dataset)).to_pylist())
    edges = lineage.edges
    children = pc.binary_join_element_wise(edges["child_dataset"], edges["child_item"], ":")
    edges = edges.filter(pc.is_in(children, pa.array(sorted(kept))))
    parents = pc.binary_join_element_wise(edges["parent_dataset"], edges["parent_item"], ":").to_pylist()
    kept |= set(parents)
    items = items.filter(pc.is_in(refs, pa.array(sorted(kept))))
    return Lineage(family=lineage.family, items=items, edges=edges, summary=lineage.summary)


def _rank_in_dataset(datasets: list[str]) -> list[int]:
    """Each row's position among the rows of its dataset."""
    seen: Counter[str] = Counter()
    ranks = []
    for name in datasets:
        ranks.append(seen[name])
        seen[name] += 1
    return ranks


@pytest.mark.filterwarnings("ignore:The following attributes were not converted")
def test_the_mmlu_family_round_trips(mmlu_lineage_dir: Path, tmp_path: Path) -> None:
    lineage = Lineage.read(mmlu_lineage_dir, records=False)
    for fmt in RDF_FORMATS:  # the whole family's exports: no blank node anywhere
        out = write_prov(mmlu_lineage_dir, tmp_path / f"mmlu.{fmt}", fmt=fmt, time="2024-01-01T00:00:00Z")
        assert b"_:" not in Path(out.path).read_bytes()
    part = mmlu_slice(lineage)
    assert set(part.items["dataset"].to_pylist()) == set(lineage.items["dataset"].to_pylist())  # every dataset
    counts = {fmt: round_trip(serialize_lineage(part, fmt=fmt, time="2024-01-01T00:00:00Z"), fmt)
              for fmt in RDF_FORMATS}
    assert counts["turtle"] == counts["nt"] == counts["json-ld"]
    assert counts["turtle"]["ProvDerivation"] >= 2 * part.edges.num_rows > 0
    assert counts["turtle"]["ProvActivity"] >= len(set(part.edges["activity"].to_pylist()))


@pytest.mark.filterwarnings("ignore:The following attributes were not converted")
def test_the_humaneval_family_round_trips(humaneval_lineage_dir: Path, tmp_path: Path) -> None:
    """The whole family (164 problems, HumanEval-X in six languages): every format, every record."""
    lineage = Lineage.read(humaneval_lineage_dir, records=False)
    counts = {}
    for fmt in RDF_FORMATS:
        out = write_prov(humaneval_lineage_dir, tmp_path / f"humaneval.{fmt}", fmt=fmt, time="2024-01-01T00:00:00Z")
        data = Path(out.path).read_bytes()
        assert b"_:" not in data
        counts[fmt] = round_trip(data, fmt)
    assert counts["turtle"] == counts["nt"] == counts["json-ld"]
    edges, derivations = lineage.edges.num_rows, len(lineage.family.derivations)
    assert edges > 900
    assert counts["turtle"]["ProvDerivation"] == 2 * (edges + derivations)  # plain and qualified, each with its IRI
    assert counts["turtle"]["ProvMembership"] == lineage.items.num_rows
    assert counts["turtle"]["ProvActivity"] == derivations + 1  # one per derivation, and the linking
    assert counts["turtle"]["ProvGeneration"] == counts["turtle"]["ProvUsage"] == derivations

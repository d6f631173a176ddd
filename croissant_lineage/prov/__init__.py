"""PROV-O: the provenance graph of a linked family and its serialisations.

* :mod:`.vocab`: namespaces, the mark, activity classes, the IRIs minted under a family, value objects, time;
* :mod:`.graph`: the JSON-LD nodes (shared with enrichment) and the dataset level as an rdflib graph;
* :mod:`.triples`: every triple as Arrow columns of N-Triples lines (no rdflib object per
  triple; the one builder of the item level), :func:`build_graph` those lines in rdflib;
  :mod:`.terms` their spelling;
* :mod:`.stream`: sorting them in bounded memory and writing N-Triples, Turtle, JSON-LD;
* :mod:`.provjson`: W3C PROV-JSON from the same sorted lines (the records ``prov`` reads);
* :mod:`.serialize`: formats, deterministic bytes, the file mark, :func:`write_prov`;
* :mod:`.constraints`: the PROV-CONSTRAINTS checks of a graph (N-Triples lines or rdflib).
"""

from croissant_lineage.prov.graph import (
    DatasetProv,
    ParentLink,
    dataset_nodes,
    enrichment_node,
    family_dataset_node,
    family_graph,
)
from croissant_lineage.prov.serialize import (
    FORMATS,
    PROV_FILE_COMMENT,
    ProvResult,
    is_prov_file,
    serialize,
    serialize_lineage,
    write_prov,
)
from croissant_lineage.prov.triples import build_graph
from croissant_lineage.prov.vocab import (
    AGENT_IRI,
    MARK,
    PROV_CONTEXT,
    activity_class,
    activity_iri,
    code,
    derivation_class,
    derivation_iri,
    family_iri,
    finding_iri,
    item_derivation_iri,
    resolve_time,
    schema_node_iri,
    text,
    unwrap,
)

__all__ = [
    "AGENT_IRI",
    "FORMATS",
    "MARK",
    "PROV_CONTEXT",
    "PROV_FILE_COMMENT",
    "DatasetProv",
    "ParentLink",
    "ProvResult",
    "activity_class",
    "activity_iri",
    "build_graph",
    "code",
    "dataset_nodes",
    "derivation_class",
    "derivation_iri",
    "enrichment_node",
    "family_dataset_node",
    "family_graph",
    "family_iri",
    "finding_iri",
    "is_prov_file",
    "item_derivation_iri",
    "resolve_time",
    "schema_node_iri",
    "serialize",
    "serialize_lineage",
    "text",
    "unwrap",
    "write_prov",
]

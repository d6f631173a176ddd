"""The family's PROV graph built triple by triple in rdflib: the plain statement of the export.

Kept as the oracle of :mod:`croissant_lineage.prov.triples`, which makes the same triples as
Arrow columns of N-Triples lines (and :func:`croissant_lineage.prov.triples.build_graph` parses
them into rdflib): per item and per edge an rdflib term and ``graph.add`` per triple, the
dataset level from :func:`croissant_lineage.prov.graph.header_graph` (shared).
``tests/prov/test_stream.py`` proves the streamed export equal to it (N-Triples to the byte on
the toy family, random families and a tenth of MMLU).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import pyarrow as pa
import rdflib
from rdflib import RDF, Literal, URIRef

from croissant_lineage.lineage.graph import LineageLike, as_lineage
from croissant_lineage.lineage.schema import item_iri
from croissant_lineage.prov.graph import family_iri_of, header_graph, parent_activities
from croissant_lineage.prov.vocab import (
    CL,
    PROV,
    SDO,
    activity_iri,
    agent_iri,
    derivation_class,
    finding_iri,
    item_derivation_iri,
)

__all__ = ["build_graph_reference"]


def _add_edges(
    graph: rdflib.Graph,
    edges: pa.Table,
    iris: Mapping[str, str],
    activities: Mapping[tuple[str, str], str],
    family: str,
) -> int:
    """Item-level derivations; returns the number of edges added.

    ``activities`` maps (child dataset, parent dataset) to the IRI of the
    dataset-level activity each item derivation points at; ``family`` is the family's IRI.
    """
    cols = {name: edges.column(name).to_pylist() for name in edges.column_names}
    cache: dict[tuple[type, Any], Literal] = {}

    def lit(value: Any) -> Literal:
        """Literals repeat (methods, scores, counts, booleans): build each once."""
        key = (type(value), value)
        found = cache.get(key)
        if found is None:
            found = cache[key] = Literal(value)
        return found

    n = 0
    add = graph.add
    for i in range(edges.num_rows):
        cds, pds = cols["child_dataset"][i], cols["parent_dataset"][i]
        if cds not in iris or pds not in iris:
            continue
        n += 1
        child = URIRef(item_iri(iris[cds], cols["child_item"][i]))
        parent = URIRef(item_iri(iris[pds], cols["parent_item"][i]))
        kind = cols["activity"][i]
        d = URIRef(item_derivation_iri(family, cds, cols["child_item"][i], pds, cols["parent_item"][i]))
        add((child, PROV.wasDerivedFrom, parent))
        add((child, PROV.qualifiedDerivation, d))
        add((d, RDF.type, PROV[derivation_class(kind).split(":")[1]]))
        add((d, PROV.entity, parent))
        add((d, PROV.hadActivity, URIRef(activities.get((cds, pds)) or activity_iri(family, kind, pds, cds))))
        add((d, CL.method, lit(cols["method"][i])))
        add((d, CL.score, lit(float(cols["score"][i]))))
        for col, prop, cast in (
            ("options_score", CL.optionsScore, float),
            ("options_copied", CL.optionsCopied, int),
            ("options_added", CL.optionsAdded, int),
            ("options_dropped", CL.optionsDropped, int),
            ("key_inherited", CL.keyInherited, bool),
            ("stem_changed", CL.stemChanged, bool),
            ("ambiguous", CL.ambiguous, bool),
        ):
            value = cols[col][i]
            if value is not None:
                add((d, prop, lit(cast(value))))
        option_map = cols["option_map"][i]
        if option_map is not None:
            add((d, CL.optionMap, lit(",".join(str(x) for x in option_map))))
        for alt in cols["alternatives"][i] or ():
            add((d, CL.alternative, URIRef(item_iri(iris[pds], alt))))
    return n


def _add_items(graph: rdflib.Graph, items: pa.Table, iris: Mapping[str, str]) -> None:
    datasets = items.column("dataset").to_pylist()
    ids = items.column("item").to_pylist()
    for ds, item in zip(datasets, ids, strict=True):
        if ds not in iris:
            continue
        node = URIRef(item_iri(iris[ds], item))
        graph.add((node, RDF.type, PROV.Entity))
        graph.add((URIRef(iris[ds]), PROV.hadMember, node))


def _add_findings(graph: rdflib.Graph, findings: Iterable[Any], iris: Mapping[str, str], family: str) -> None:
    from croissant_lineage.lineage.schema import split_ref

    for f in findings:
        ds, item = split_ref(f.item)
        node = URIRef(finding_iri(f.id))
        graph.add((node, RDF.type, PROV.Entity))
        graph.add((node, RDF.type, CL.Finding))
        graph.add((node, SDO.identifier, Literal(f.id)))
        if ds in iris:
            graph.add((node, CL.item, URIRef(item_iri(iris[ds], item))))
        graph.add((node, CL.itemRef, Literal(f.item)))
        graph.add((node, CL.target, Literal(f.target)))
        graph.add((node, CL.kind, Literal(f.kind)))
        graph.add((node, CL.status, Literal(f.status)))
        for attr, prop in (
            ("option_index", CL.optionIndex),
            ("proposed", CL.proposed),
            ("status_date", CL.statusDate),
            ("status_reason", CL.statusReason),
        ):
            value = getattr(f, attr, None)
            if value is not None:
                graph.add((node, prop, Literal(value)))
        for ev in getattr(f, "evidence", None) or ():
            graph.add((node, CL.evidence, Literal(ev)))
        src = getattr(f, "source", None)
        if src is not None:
            agent = URIRef(src.url if getattr(src, "url", None) else agent_iri(family, src.name))
            graph.add((node, PROV.wasAttributedTo, agent))
            graph.add((agent, RDF.type, PROV.Agent))
            graph.add((agent, SDO.name, Literal(src.name)))
            if getattr(src, "kind", None):
                graph.add((agent, CL.sourceKind, Literal(src.kind)))


def build_graph_reference(
    lineage: LineageLike,
    findings: Iterable[Any] | None = None,
    *,
    items: bool = True,
    time: str | datetime | int | None = None,
) -> rdflib.Graph:
    """The family's PROV-O graph, one ``graph.add`` per triple.

    Args:
        lineage: A :class:`croissant_lineage.lineage.model.Lineage` (family info, items, edges),
            or its lineage folder.
        findings: Findings (``croissant_lineage.findings.model.Finding``) to include.
        items: Include every item as a ``prov:Entity`` member of its dataset.
        time: Time of the linking activity (see :func:`resolve_time`); none by default.

    Returns:
        A new graph: datasets (``prov:Entity``, ``prov:Collection``) with their
        dataset-level derivations and activities (as in the enriched descriptors);
        items and item-level qualified derivations; the linking activity, associated
        with this library as ``prov:SoftwareAgent``; findings (``cl:Finding``) with
        status and source (``prov:wasAttributedTo``).
    """
    lineage = as_lineage(lineage, records=False)  # the graph holds no raw records
    family = lineage.family
    iris = family.iris()
    graph = header_graph(family, time)
    if items:
        _add_items(graph, lineage.items, iris)
    base = family_iri_of(family)
    _add_edges(graph, lineage.edges, iris, parent_activities(family), base)
    if findings is not None:
        _add_findings(graph, findings, iris, base)
    return graph

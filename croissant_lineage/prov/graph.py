"""The PROV-O picture of a family: datasets, items, derivations, activities, agents, findings.

Two outputs share one vocabulary and one set of builders, so they cannot drift apart:

* **JSON-LD nodes** (:func:`dataset_nodes`, :func:`enrichment_node`...) that
  :mod:`croissant_lineage.enrich` writes into Croissant descriptors;
* an **rdflib graph** (:func:`build_graph`) of the whole family, whose dataset-level
  part is parsed from those very nodes, and whose item level says, per edge::

      <child item> prov:wasDerivedFrom <parent item> ;
                   prov:qualifiedDerivation [
                       a prov:Derivation ;            # prov:Revision / prov:Quotation by activity
                       prov:entity <parent item> ;
                       prov:hadActivity <the dataset-level activity> ;
                       cl:method "exact" ; cl:score 100.0 ; cl:optionMap "0,1,2,3,-1,..." ;
                       cl:optionsCopied 4 ; cl:optionsAdded 6 ; cl:keyInherited true ... ] .

Identifiers: datasets and items are IRIs (the family spec's dataset IRI, and
:func:`croissant_lineage.lineage.schema.item_iri`); the library is a ``prov:SoftwareAgent``
with a versioned IRI in the ``cl:`` namespace; activities, qualified derivations and
agents without a URL get IRIs minted under the family's IRI (:func:`family_iri_of`; the
scheme is in :mod:`croissant_lineage.prov.vocab`). No blank node names an activity, a
derivation or an agent, so every one can be referred to from another document and
written in PROV-N.

Time is never read from the clock: activities carry a time only when one is given
(an argument, or ``SOURCE_DATE_EPOCH``; see :func:`resolve_time`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pyarrow as pa
import rdflib
from rdflib import RDF, XSD, Literal, URIRef

from croissant_lineage._version import __version__
from croissant_lineage.croissant.jsonld import to_graph
from croissant_lineage.lineage.graph import LineageLike, as_lineage
from croissant_lineage.lineage.info import DatasetInfo, DerivationInfo, FamilyInfo
from croissant_lineage.lineage.schema import item_iri
from croissant_lineage.prov.vocab import (
    AGENT_IRI,
    CL,
    MARK,
    PROV,
    PROV_CONTEXT,
    SDO,
    activity_class,
    activity_iri,
    agent_iri,
    code,
    derivation_class,
    derivation_iri,
    documented_iri,
    family_iri,
    finding_iri,
    item_derivation_iri,
    linking_iri,
    resolve_time,
    text,
)

__all__ = [
    "DatasetProv",
    "ParentLink",
    "agent_node",
    "build_graph",
    "dataset_nodes",
    "enrichment_node",
    "family_dataset_node",
    "family_graph",
    "family_iri_of",
    "header_graph",
    "parent_activities",
]


@dataclass(frozen=True)
class ParentLink:
    """One dataset-level derivation: this dataset <- ``iri``.

    Attributes:
        iri: The parent dataset's IRI (a URL).
        activity: Activity kind (see :data:`~croissant_lineage.lineage.schema.ACTIVITIES`).
        name: The parent's short name (used in labels), if known.
        note: What the derivation did, in words.
        activity_iri: A spec-declared activity's IRI (its class), and ``activity_label`` its
            label; None for the built-in kinds.
    """

    iri: str
    activity: str = "copy"
    name: str | None = None
    note: str = ""
    activity_iri: str | None = None
    activity_label: str | None = None


@dataclass(frozen=True)
class DatasetProv:
    """The dataset-level JSON-LD nodes of one descriptor's enrichment.

    Attributes:
        derived_from: Values of ``prov:wasDerivedFrom`` (parent references).
        qualified: Values of ``prov:qualifiedDerivation``.
        activities: Activity nodes (values of ``prov:wasGeneratedBy``), in parent order.
    """

    derived_from: list[dict[str, Any]]
    qualified: list[dict[str, Any]]
    activities: list[dict[str, Any]]


def agent_node() -> dict[str, Any]:
    """This library, version included, as a ``prov:SoftwareAgent``."""
    return {
        "@id": AGENT_IRI,
        "@type": ["prov:Agent", "prov:SoftwareAgent"],
        "sc:name": code("croissant-lineage"),
        "sc:softwareVersion": code(__version__),
    }


def _time_value(time: str) -> dict[str, str]:
    return {"@value": time, "@type": "xsd:dateTime"}


def family_iri_of(family: FamilyInfo) -> str:
    """The IRI of a family given as ``Lineage.family`` (from its name: :func:`family_iri`)."""
    return family_iri(str(family.name or "family"))


def dataset_nodes(child: str, parents: Sequence[ParentLink], *, family: str | None = None) -> DatasetProv:
    """JSON-LD nodes saying dataset ``child`` derives from ``parents``, each by its activity.

    Args:
        child: The child dataset's short name (in the minted IRIs).
        parents: Its derivations; a repeated parent is kept once.
        family: The IRI the nodes' IRIs are minted under; default: ``child`` alone is the
            family (``family_iri(child)``).

    Returns:
        One activity node per parent (IRI :func:`activity_iri`), typed
        ``prov:Activity`` and its ``cl:`` kind class, that ``prov:used`` the parent; one
        qualified derivation per parent (IRI :func:`derivation_iri`) pointing at the
        parent and that activity. Every node carries ``"@index": MARK``.
    """
    base = family if family is not None else family_iri(child)
    derived: list[dict[str, Any]] = []
    qualified: list[dict[str, Any]] = []
    activities: list[dict[str, Any]] = []
    seen: set[str] = set()
    for p in parents:
        pname = p.name or p.iri
        aid = activity_iri(base, p.activity, pname, child)
        if p.iri in seen:
            continue
        seen.add(p.iri)
        derived.append({"@index": MARK, "@id": p.iri})
        qualified.append(
            {
                "@index": MARK,
                "@id": derivation_iri(base, pname, child),
                "@type": derivation_class(p.activity),
                "prov:entity": {"@id": p.iri},
                "prov:hadActivity": {"@id": aid},
            }
        )
        act: dict[str, Any] = {
            "@index": MARK,
            "@id": aid,
            "@type": ["prov:Activity", p.activity_iri or activity_class(p.activity)],
            "cl:activityKind": code(p.activity),
            "prov:used": {"@id": p.iri},
        }
        _opt(act, "sc:name", p.activity_label, text)
        if p.note:
            act["sc:description"] = text(p.note)
        activities.append(act)
    return DatasetProv(derived, qualified, activities)


def enrichment_node(
    *,
    iri: str,
    time: str | None = None,
    used: Sequence[Mapping[str, Any]] = (),
    added_context_terms: Sequence[str] = (),
) -> dict[str, Any]:
    """The enrichment activity: this library wrote the PROV into the descriptor.

    Args:
        iri: The activity's IRI (:func:`~croissant_lineage.prov.vocab.enrichment_iri`).
        time: ``prov:endedAtTime`` (formatted by :func:`resolve_time`); omitted if None.
        used: Entities the enrichment read (``prov:used``), as JSON-LD nodes.
        added_context_terms: ``@context`` terms the enrichment added (kept in
            ``cl:addedContextTerms`` so that a later run can remove exactly those).

    Returns:
        The node (``"@index": MARK``, ``@id`` ``iri``, typed ``cl:Enrichment``: how
        :mod:`croissant_lineage.enrich.marks` finds it).
    """
    node: dict[str, Any] = {
        "@index": MARK,
        "@id": iri,
        "@type": ["prov:Activity", "cl:Enrichment"],
        "prov:wasAssociatedWith": agent_node(),
    }
    if used:
        node["prov:used"] = [dict(u) for u in used]
    if time is not None:
        node["prov:endedAtTime"] = _time_value(time)
    if added_context_terms:
        node["cl:addedContextTerms"] = list(added_context_terms)
    return node


def _opt(node: dict[str, Any], key: str, value: Any, wrap: Any = None) -> None:
    if value is None or value == "" or value == []:
        return
    if wrap is None:
        node[key] = value
    elif isinstance(value, list):
        node[key] = [wrap(v) for v in value]
    else:
        node[key] = wrap(value)


def family_dataset_node(
    info: DatasetInfo,
    derivations: Sequence[DerivationInfo],
    iris: Mapping[str, str],
    *,
    family: str,
) -> dict[str, Any]:
    """A family dataset as a PROV entity, with its dataset-level derivations.

    Args:
        info: The dataset (one of ``Lineage.family.datasets``: name, iri, title,
            date, languages, coverage, note).
        derivations: The family's derivations (``Lineage.family.derivations``); those
            whose child is this dataset become qualified derivations with their activity;
            documented-coverage ones whose parent is this dataset become
            ``cl:documentedDerivation`` nodes (there is no descriptor for that child).
        iris: Dataset name -> IRI (for parents and documented children).
        family: The family's IRI (:func:`family_iri_of`), under which activities and
            derivations are named.

    Returns:
        The JSON-LD node (``"@index": MARK``, ``@id`` the dataset IRI). The same node is
        written into enriched descriptors and parsed into :func:`build_graph`.
    """
    name = info.name
    node: dict[str, Any] = {
        "@index": MARK,
        "@id": info.iri,
        "@type": ["prov:Entity", "prov:Collection"],
        "sc:name": code(name),
    }
    _opt(node, "cl:title", info.title, text)
    _opt(node, "cl:date", info.date, code)
    _opt(node, "cl:languages", list(info.languages), code)
    _opt(node, "cl:coverage", info.coverage, code)
    _opt(node, "sc:description", info.note, text)
    parents = [r for r in derivations if r.child == name and r.parent in iris]
    if parents:
        node["prov:wasDerivedFrom"] = [{"@id": iris[r.parent]} for r in parents]
        qualified = []
        activities = []
        for r in parents:
            aid = activity_iri(family, r.activity, r.parent, name)
            q: dict[str, Any] = {
                "@id": derivation_iri(family, r.parent, name),
                "@type": derivation_class(r.activity),
                "prov:entity": {"@id": iris[r.parent], "sc:name": code(r.parent)},
                "prov:hadActivity": {"@id": aid},
            }
            _opt(q, "cl:coverage", r.coverage, code)
            _opt(q, "cl:linkMethod", r.method, code)
            _opt(q, "cl:threshold", r.threshold)
            _opt(q, "cl:languageCount", r.languages)
            _opt(q, "sc:description", r.note, text)
            qualified.append(q)
            act: dict[str, Any] = {
                "@id": aid,
                "@type": ["prov:Activity", r.activity_iri or activity_class(r.activity)],
                "cl:activityKind": code(r.activity),
                "prov:used": {"@id": iris[r.parent]},
            }
            _opt(act, "sc:name", r.activity_label, text)
            activities.append(act)
        node["prov:qualifiedDerivation"] = qualified
        node["prov:wasGeneratedBy"] = activities
    documented = [
        r for r in derivations
        if r.parent == name and r.coverage == "documented" and r.child in iris
    ]
    if documented:
        docs = []
        for r in documented:
            d: dict[str, Any] = {
                "@id": documented_iri(family, name, r.child),
                "@type": "cl:DocumentedDerivation",
                "cl:derivative": {"@id": iris[r.child], "sc:name": code(r.child)},
                "cl:activityKind": code(r.activity),
                "cl:coverage": code("documented"),
            }
            _opt(d, "cl:languageCount", r.languages)
            _opt(d, "sc:description", r.note, text)
            docs.append(d)
        node["cl:documentedDerivation"] = docs
    return node


def family_graph(family: FamilyInfo) -> rdflib.Graph:
    """The dataset level of a family: every dataset's :func:`family_dataset_node`, parsed.

    Args:
        family: ``Lineage.family`` (its datasets and derivations).
    """
    iris = family.iris()
    derivations = family.derivations
    base = family_iri_of(family)
    nodes = [family_dataset_node(d, derivations, iris, family=base) for d in family.datasets]
    return to_graph({"@context": dict(PROV_CONTEXT), "@graph": nodes})


def _parents_by_child(family: FamilyInfo) -> dict[str, list[ParentLink]]:
    iris = family.iris()
    out: dict[str, list[ParentLink]] = {}
    for r in family.derivations:
        if r.child not in iris or r.parent not in iris:
            continue
        out.setdefault(r.child, []).append(
            ParentLink(iris[r.parent], r.activity, r.parent, r.note or "", r.activity_iri, r.activity_label)
        )
    return out


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


def build_graph(
    lineage: LineageLike,
    findings: Iterable[Any] | None = None,
    *,
    items: bool = True,
    time: str | datetime | int | None = None,
) -> rdflib.Graph:
    """The family's PROV-O graph.

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


def parent_activities(family: FamilyInfo) -> dict[tuple[str, str], str]:
    """(child dataset, parent dataset) -> IRI of the dataset-level activity between them."""
    base = family_iri_of(family)
    return {
        (child, p.name or p.iri): activity_iri(base, p.activity, p.name or p.iri, child)
        for child, links in _parents_by_child(family).items()
        for p in links
    }


def header_graph(family: FamilyInfo, time: str | datetime | int | None = None) -> rdflib.Graph:
    """The part of :func:`build_graph` that does not grow with the items: the datasets
    (:func:`family_graph`), the linking activity (with ``time``) and this library as its agent."""
    graph = rdflib.Graph()
    graph.bind("prov", PROV)
    graph.bind("cl", CL)
    graph.bind("sc", SDO)
    graph += family_graph(family)
    stamp = resolve_time(time)
    linking = URIRef(linking_iri(family_iri_of(family), stamp))
    graph.add((linking, RDF.type, PROV.Activity))
    graph.add((linking, RDF.type, CL.Linking))
    graph.add((linking, PROV.wasAssociatedWith, URIRef(AGENT_IRI)))
    graph.add((URIRef(AGENT_IRI), RDF.type, PROV.Agent))
    graph.add((URIRef(AGENT_IRI), RDF.type, PROV.SoftwareAgent))
    graph.add((URIRef(AGENT_IRI), SDO.name, Literal("croissant-lineage")))
    graph.add((URIRef(AGENT_IRI), SDO.softwareVersion, Literal(__version__)))
    if stamp is not None:
        graph.add((linking, PROV.endedAtTime, Literal(stamp, datatype=XSD.dateTime)))
    return graph

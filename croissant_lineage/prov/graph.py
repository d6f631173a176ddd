"""The PROV-O picture of a family: datasets, items, derivations, activities, agents, findings.

The dataset level, in one set of builders that the enriched descriptors and the export share,
so they cannot drift apart:

* **JSON-LD nodes** (:func:`dataset_nodes`, :func:`enrichment_node`...) that
  :mod:`croissant_lineage.enrich` writes into Croissant descriptors;
* the **header graph** (:func:`header_graph`): those very nodes parsed, with the linking
  activity and this library as its agent, which :mod:`croissant_lineage.prov.triples`
  (the item level, the findings and :func:`~croissant_lineage.prov.triples.build_graph`)
  starts from. Per item edge the graph says::

      <child item> prov:wasDerivedFrom <parent item> ;
                   prov:qualifiedDerivation <F/derivation/<child dataset>/<child item>#<parent dataset>/<parent item>> .
      <that derivation> a prov:Derivation ;            # prov:Revision / prov:Quotation by activity
                   prov:entity <parent item> ;
                   prov:hadActivity <the dataset-level activity> ;
                   cl:method "exact" ; cl:score 100.0 ; cl:optionMap "0,1,2,3,-1,..." ;
                   cl:optionsCopied 4 ; cl:optionsAdded 6 ; cl:keyInherited true ... .

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

import rdflib
from rdflib import RDF, XSD, Literal, URIRef

from croissant_lineage._version import __version__
from croissant_lineage.croissant.jsonld import to_graph
from croissant_lineage.lineage.info import DatasetInfo, DerivationInfo, FamilyInfo
from croissant_lineage.prov.vocab import (
    AGENT_IRI,
    CL,
    MARK,
    PROV,
    PROV_CONTEXT,
    SDO,
    activity_class,
    activity_iris,
    code,
    derivation_class,
    derivation_iri,
    documented_iri,
    family_iri,
    linking_iri,
    resolve_time,
    text,
)

__all__ = [
    "DatasetProv",
    "ParentLink",
    "agent_node",
    "dataset_nodes",
    "derivation_activities",
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
        One activity node per parent (IRI from :func:`activity_iris`: a child of several
        parents has one activity, whose nodes JSON-LD merges), typed ``prov:Activity`` and
        its ``cl:`` kind class, that ``prov:used`` the parent; one qualified derivation per
        parent (IRI :func:`derivation_iri`) pointing at the parent and that activity. Every
        node carries ``"@index": MARK``.
    """
    base = family if family is not None else family_iri(child)
    derived: list[dict[str, Any]] = []
    qualified: list[dict[str, Any]] = []
    activities: list[dict[str, Any]] = []
    seen: set[str] = set()
    unique = list({p.iri: p for p in reversed(parents)}.values())[::-1]  # the first link of each parent
    aids = activity_iris(base, [(child, p.name or p.iri, p.activity) for p in unique])
    for p in parents:
        pname = p.name or p.iri
        aid = aids[(child, pname)]
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
        _add_activity(activities, act)
    return DatasetProv(derived, qualified, activities)


def _add_activity(activities: list[dict[str, Any]], node: dict[str, Any]) -> None:
    """Append an activity node, or merge it into the node of the same ``@id`` already there
    (the one activity of a dataset made from several parents): its values are added to that
    node's, each value once, in order."""
    same = next((a for a in activities if a["@id"] == node["@id"]), None)
    if same is None:
        activities.append(node)
        return
    for key, value in node.items():
        if key in ("@id", "@index"):
            continue
        mine = same.get(key)
        values = (mine if isinstance(mine, list) else [] if mine is None else [mine])
        for v in value if isinstance(value, list) else [value]:
            if v not in values:
                values.append(v)
        same[key] = values[0] if len(values) == 1 else values


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
        activities: list[dict[str, Any]] = []
        aids = derivation_activities(family, derivations, iris)
        for r in parents:
            aid = aids[(name, r.parent)]
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
            _add_activity(activities, act)
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


def parent_activities(family: FamilyInfo) -> dict[tuple[str, str], str]:
    """(child dataset, parent dataset) -> IRI of the dataset-level activity between them."""
    return derivation_activities(family_iri_of(family), family.derivations, family.iris())


def derivation_activities(
    family: str, derivations: Iterable[DerivationInfo], iris: Mapping[str, str]
) -> dict[tuple[str, str], str]:
    """(child, parent) -> IRI of the activity of each derivation between two datasets of
    ``iris`` (:func:`~croissant_lineage.prov.vocab.activity_iris`: one activity per child)."""
    return activity_iris(
        family, [(r.child, r.parent, r.activity) for r in derivations if r.child in iris and r.parent in iris]
    )


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

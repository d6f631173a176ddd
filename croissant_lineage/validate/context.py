"""What mlcroissant lets through: the JSON-LD context and PROV-O usage.

mlcroissant keeps unknown namespaced properties and validates none of them, so these
pass it silently: a prefix used but never declared in ``@context`` (``CLV201``); a
remote ``@context`` (``CLV202``); ``annotation`` / ``equivalentProperty`` used without a
mapping, which JSON-LD then reads as ``schema.org/annotation`` and every Croissant tool
ignores (``CLV203``); PROV-O properties on a kind of node PROV does not allow them on
(``CLV204``: outside PROV-O's domain), with a kind of value PROV does not allow (``CLV205``:
outside its range: a literal for a relation, a node of the wrong kind, a time that is no
date-time), or PROV names that PROV-O does not define (``CLV206``). Domain and range
mismatches are warnings: RDF readers read the statement as written and no record changes. The
official Croissant 1.1 examples write both: ``prov:wasAssociatedWith`` on the dataset beside
its activities, and plain strings as the values of ``prov:wasAssociatedWith`` and
``prov:atLocation``.

Two of those the official MLCommons Croissant 1.1 examples do themselves, and mlcroissant
accepts them: ``prov:isAssociatedWith`` and ``prov:locatedAt`` (``huggingface-squad_v2``;
PROV-O says ``prov:wasAssociatedWith`` and ``prov:atLocation``), and ``equivalentProperty``
used with no ``@context`` entry (``huggingface-data_provenance_initiative``). They are
warnings, ``CLV207`` and ``CLV208`` (errors with ``strict``), so a published example never
fails by default; any other unknown PROV name, or an ``annotation`` / ``equivalentProperty``
mapped to another IRI, stays an error.

Croissant nodes (Dataset, RecordSet, Field, FileObject, FileSet) are PROV entities;
Entity and Activity are disjoint in PROV-DM.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from croissant_lineage.croissant.descriptor import as_list
from croissant_lineage.croissant.jsonld import JsonLdContext, context_urls, pointer, walk
from croissant_lineage.croissant.namespaces import CROISSANT_NS, PROV_NS, SCHEMA_NS
from croissant_lineage.validate.codes import issue
from croissant_lineage.validate.report import Issue

__all__ = ["EXAMPLE_PROV_NAMES", "PROV_TERMS", "check_context"]

_CR = CROISSANT_NS
_SC = (SCHEMA_NS, SCHEMA_NS.replace("https:", "http:", 1))

#: Classes and properties PROV-O (and the PROV-DM attributes it uses) defines.
PROV_TERMS = frozenset(["Entity", "Activity", "Agent", "Collection", "EmptyCollection", "Bundle", "Person", "Organization", "SoftwareAgent", "Location", "Role", "Plan", "Influence", "EntityInfluence", "ActivityInfluence", "AgentInfluence", "Usage", "Generation", "Invalidation", "Start", "End", "Communication", "Association", "Attribution", "Delegation", "Derivation", "Revision", "Quotation", "PrimarySource", "InstantaneousEvent", "wasGeneratedBy", "wasDerivedFrom", "wasAttributedTo", "startedAtTime", "used", "wasInformedBy", "endedAtTime", "wasAssociatedWith", "actedOnBehalfOf", "alternateOf", "specializationOf", "generatedAtTime", "hadPrimarySource", "value", "wasQuotedFrom", "wasRevisionOf", "invalidatedAtTime", "wasInvalidatedBy", "hadMember", "wasStartedBy", "wasEndedBy", "invalidated", "influenced", "atLocation", "generated", "wasInfluencedBy", "qualifiedInfluence", "qualifiedGeneration", "qualifiedDerivation", "qualifiedPrimarySource", "qualifiedQuotation", "qualifiedRevision", "qualifiedAttribution", "qualifiedInvalidation", "qualifiedStart", "qualifiedUsage", "qualifiedCommunication", "qualifiedAssociation", "qualifiedEnd", "qualifiedDelegation", "influencer", "entity", "hadUsage", "hadGeneration", "activity", "agent", "hadPlan", "hadActivity", "atTime", "hadRole", "label", "type", "role", "location"])

# Domain: which kind of node a property belongs on.
_ON_ENTITY = frozenset(["wasGeneratedBy", "wasDerivedFrom", "wasAttributedTo", "alternateOf", "specializationOf", "generatedAtTime", "hadPrimarySource", "wasQuotedFrom", "wasRevisionOf", "invalidatedAtTime", "wasInvalidatedBy", "hadMember", "qualifiedGeneration", "qualifiedDerivation", "qualifiedPrimarySource", "qualifiedQuotation", "qualifiedRevision", "qualifiedAttribution", "qualifiedInvalidation"])
_ON_ACTIVITY = frozenset(["startedAtTime", "used", "wasInformedBy", "endedAtTime", "wasAssociatedWith", "wasStartedBy", "wasEndedBy", "invalidated", "generated", "qualifiedStart", "qualifiedUsage", "qualifiedCommunication", "qualifiedAssociation", "qualifiedEnd"])
_ON_AGENT = frozenset({"actedOnBehalfOf", "qualifiedDelegation"})

# Range: which kind of value a property takes.
_TO_ENTITY = frozenset(["wasDerivedFrom", "hadPrimarySource", "wasQuotedFrom", "wasRevisionOf", "alternateOf", "specializationOf", "used", "generated", "invalidated", "hadMember", "entity"])
_TO_ACTIVITY = frozenset(["wasGeneratedBy", "wasInvalidatedBy", "wasInformedBy", "hadActivity", "activity", "wasStartedBy", "wasEndedBy"])
_TO_AGENT = frozenset(["wasAttributedTo", "wasAssociatedWith", "actedOnBehalfOf", "agent"])
_TO_NODE = _TO_ENTITY | _TO_ACTIVITY | _TO_AGENT | frozenset(
    ["hadPlan", "hadRole", "atLocation", "hadUsage", "hadGeneration", "influencer", "wasInfluencedBy"]
) | frozenset(t for t in PROV_TERMS if t.startswith("qualified"))
_TIMES = frozenset(["generatedAtTime", "invalidatedAtTime", "startedAtTime", "endedAtTime", "atTime"])

_ENTITY_TYPES = frozenset(
    [f"{sc}{t}" for sc in _SC for t in ("Dataset", "FileObject", "CreativeWork", "MediaObject")]
    + [f"{_CR}{t}" for t in ("RecordSet", "Field", "FileObject", "FileSet")]
    + [f"{PROV_NS}{t}" for t in ("Entity", "Collection", "EmptyCollection", "Bundle", "Plan")]
)
_ACTIVITY_TYPES = frozenset({f"{PROV_NS}Activity"})
_AGENT_TYPES = frozenset(
    [f"{PROV_NS}{t}" for t in ("Agent", "Person", "Organization", "SoftwareAgent")]
    + [f"{sc}{t}" for sc in _SC for t in ("Person", "Organization")]
)
# Literal dataTypes that cannot hold a reference to a PROV node.
_LITERAL_TYPES = frozenset(
    [f"{sc}{t}" for sc in _SC for t in ("Integer", "Float", "Number", "Boolean", "Date", "DateTime", "Time")]
    + [f"{_CR}{t}" for t in ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float16", "Float32", "Float64", "Bool")]
)
_NUMERIC_TYPES = _LITERAL_TYPES - {f"{sc}{t}" for sc in _SC for t in ("Date", "DateTime", "Time")}
_JSON_KEYS = frozenset({"data", "examples"})

#: Names outside PROV-O that the official Croissant 1.1 examples use (mlcommons/croissant
#: ``datasets/1.1/huggingface-squad_v2``), with the PROV-O term they mean: ``CLV207``.
EXAMPLE_PROV_NAMES = {"isAssociatedWith": "wasAssociatedWith", "locatedAt": "atLocation"}


def _kind(types: set[str]) -> str | None:
    if types & _ACTIVITY_TYPES:
        return "activity"
    if types & _AGENT_TYPES:
        return "agent"
    if types & _ENTITY_TYPES:
        return "entity"
    return None


def _is_iso_time(value: Any) -> bool:
    if isinstance(value, dict) and "@value" in value:
        value = value["@value"]
    if not isinstance(value, str):
        return False
    try:
        _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


class _Checker:
    def __init__(self, doc: dict[str, Any], where: str):
        self.doc = doc
        self.where = where
        self.ctx = JsonLdContext(doc.get("@context"))
        self.issues: list[Issue] = []

    def at(self, path: tuple[Any, ...]) -> str:
        return f"{self.where}#{pointer(path)}"

    def add(self, code: str, message: str, path: tuple[Any, ...]) -> None:
        self.issues.append(issue(code, message, self.at(path)))

    def types(self, node: dict[str, Any], path: tuple[Any, ...], *, report: bool = False) -> set[str]:
        out: set[str] = set()
        for i, t in enumerate(as_list(node.get("@type"))):
            if not isinstance(t, str):
                continue
            exp = self.ctx.expand_iri(t, vocab=True)
            if exp.undeclared and report:
                self.add("CLV201", f"@type {t!r} uses prefix {exp.undeclared!r}, which @context does not declare",
                         (*path, "@type") if not isinstance(node.get("@type"), list) else (*path, "@type", i))
            if exp.iri:
                out.add(exp.iri)
                if report:
                    self.prov_name(exp.iri, t, (*path, "@type"))
        return out

    def prov_name(self, iri: str, written: str, path: tuple[Any, ...]) -> str | None:
        """The PROV local name of ``iri`` (None if not PROV); reports unknown names."""
        if not iri.startswith(PROV_NS):
            return None
        name = iri[len(PROV_NS):]
        if name in EXAMPLE_PROV_NAMES:
            self.add("CLV207", f"{written!r} is not a PROV-O term (the Croissant 1.1 examples use it); "
                     f"PROV-O says prov:{EXAMPLE_PROV_NAMES[name]}", path)
            return None
        if name not in PROV_TERMS:
            self.add("CLV206", f"{written!r} is not a PROV-O term", path)
            return None
        return name

    def run(self) -> list[Issue]:
        if self.ctx.remote:
            self.add("CLV202", f"remote @context {', '.join(self.ctx.remote)} is not fetched; inline it", ("@context",))
        for at, url in context_urls(self.doc):  # nested, scoped to a property or type, @import
            if url not in self.ctx.remote:
                self.issues.append(issue("CLV202", f"remote @context {url[:200]!r} is not fetched; inline it", f"{self.where}#{at}"))
        self.check_mapping("annotation", f"{_CR}annotation")
        self.check_mapping("equivalentProperty", f"{_CR}equivalentProperty")
        skip = frozenset(k for k in self.ctx.terms if self.ctx.type_of(k) == "@json") | _JSON_KEYS
        for path, node in walk(self.doc, skip_keys=skip):
            self.check_node(path, node)
        return self.issues

    def check_mapping(self, term: str, expected: str) -> None:
        used = [p for p, node in walk(self.doc, skip_keys=_JSON_KEYS) if term in node]
        if not used:
            return
        exp = self.ctx.expand_iri(term, vocab=True)
        if term == "equivalentProperty" and term not in self.ctx.terms:
            for p in used:
                self.add("CLV208", f"{term!r} is not in @context (as in the Croissant 1.1 examples): JSON-LD reads "
                         f"it as {exp.iri or 'another property'} and mlcroissant drops it; map it to {expected}",
                         (*p, term))
            return
        if term not in self.ctx.terms or exp.iri != expected:
            got = "not in @context" if term not in self.ctx.terms else f"mapped to {exp.iri}"
            for p in used:
                self.add("CLV203", f"{term!r} is {got}: JSON-LD reads it as another property and "
                         f"Croissant tools ignore it; map it to {expected}", (*p, term))

    def check_node(self, path: tuple[Any, ...], node: dict[str, Any]) -> None:
        if set(node) <= {"@id"} or "@value" in node:
            return
        kind = _kind(self.types(node, path, report=True))
        for key, value in node.items():
            if key.startswith("@"):
                continue
            exp = self.ctx.expand_iri(key, vocab=True)
            if exp.undeclared:
                self.add("CLV201", f"property {key!r} uses prefix {exp.undeclared!r}, which @context does not declare "
                         "(mlcroissant keeps it, unchecked, as a literal IRI)", (*path, key))
                continue
            coercion = self.ctx.type_of(key)
            if coercion in ("@id", "@vocab"):
                self.check_iri_values(key, value, (*path, key), vocab=coercion == "@vocab")
            if exp.iri == f"{_CR}equivalentProperty":
                self.check_equivalent(node, value, (*path, key))
            name = self.prov_name(exp.iri, key, (*path, key)) if exp.iri else None
            if name:
                self.check_prov(name, key, kind, value, coercion, (*path, key))

    def check_iri_values(self, key: str, value: Any, path: tuple[Any, ...], *, vocab: bool) -> None:
        for i, v in enumerate(as_list(value)):
            if not isinstance(v, str):
                continue
            exp = self.ctx.expand_iri(v, vocab=vocab)
            p = (*path, i) if isinstance(value, list) else path
            if exp.undeclared:
                self.add("CLV201", f"{key} value {v!r} uses prefix {exp.undeclared!r}, which @context does not declare", p)
            elif exp.iri:
                self.prov_name(exp.iri, v, p)

    def check_equivalent(self, node: dict[str, Any], value: Any, path: tuple[Any, ...]) -> None:
        data_types: set[str] = set()
        for t in as_list(node.get("dataType")):
            if isinstance(t, str) and (iri := self.ctx.expand_iri(t, vocab=True).iri):
                data_types.add(iri)
        for i, v in enumerate(as_list(value)):
            v = v.get("@id") if isinstance(v, dict) else v
            if not isinstance(v, str):
                continue
            p = (*path, i) if isinstance(value, list) else path
            exp = self.ctx.expand_iri(v, vocab=True)
            if exp.undeclared:
                self.add("CLV201", f"equivalentProperty {v!r} uses prefix {exp.undeclared!r}, which @context does not declare", p)
                continue
            name = self.prov_name(exp.iri, v, p) if exp.iri else None
            if not name:
                continue
            if name in _ON_ACTIVITY | _ON_AGENT:
                self.add("CLV204", f"equivalentProperty {v!r} relates an activity or agent, but the annotated "
                         "values are data values (entities)", p)
            elif name in _TO_NODE and data_types & _LITERAL_TYPES:
                self.add("CLV205", f"equivalentProperty {v!r} needs references to nodes, but the annotation's "
                         "dataType is a literal type", p)
            elif name in _TIMES and data_types & _NUMERIC_TYPES:
                self.add("CLV205", f"equivalentProperty {v!r} needs date-times, but the annotation's dataType is numeric", p)

    def check_prov(self, name: str, key: str, kind: str | None, value: Any, coercion: str | None,
                   path: tuple[Any, ...]) -> None:
        if kind in ("entity", "agent") and name in _ON_ACTIVITY:
            self.add("CLV204", f"{key!r} belongs on a prov:Activity, not on this {kind} node", path)
        elif kind == "activity" and name in _ON_ENTITY:
            self.add("CLV204", f"{key!r} belongs on an entity, not on a prov:Activity", path)
        elif kind in ("entity", "activity") and name in _ON_AGENT:
            self.add("CLV204", f"{key!r} belongs on a prov:Agent, not on this {kind} node", path)
        for i, v in enumerate(as_list(value)):
            p = (*path, i) if isinstance(value, list) else path
            if name in _TIMES:
                if not _is_iso_time(v):
                    self.add("CLV205", f"{key!r} needs an ISO 8601 date-time, got {v!r}"[:300], p)
                continue
            if name not in _TO_NODE:
                continue
            if isinstance(v, str):
                if coercion not in ("@id", "@vocab"):
                    self.add("CLV205", f"{key!r} value {v!r} is a plain string (a literal), not a reference: "
                             f"write {{\"@id\": {v!r}}}"[:300], p)
                continue
            if not isinstance(v, dict) or "@value" in v:
                self.add("CLV205", f"{key!r} needs a node or {{\"@id\": ...}}, got a literal", p)
                continue
            target = _kind(self.types(v, p))
            want = "entity" if name in _TO_ENTITY else "activity" if name in _TO_ACTIVITY else "agent" if name in _TO_AGENT else None
            if want and target and target != want and not (want == "entity" and target == "agent"):
                self.add("CLV205", f"{key!r} points at a {target} node; PROV wants a {want}", p)


def check_context(doc: dict[str, Any], where: str) -> list[Issue]:
    """Check a descriptor's ``@context`` and its PROV-O usage.

    Args:
        doc: The descriptor JSON object.
        where: The file name issues are reported against.

    Returns:
        Issues with codes ``CLV201``-``CLV208``, in document order.
    """
    return _Checker(doc, where).run()

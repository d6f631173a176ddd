"""W3C PROV-JSON written directly from the sorted N-Triples lines of a family's graph.

The records are those the reference ``prov`` library reads out of the RDF exports
(``ProvDocument.deserialize(format="rdf")``), made in one pass over the sorted lines
(:class:`~croissant_lineage.prov.stream.SortedLines`) with no graph in memory:

* a subject typed ``prov:Entity`` / ``prov:Activity`` / ``prov:Agent`` is an ``entity`` /
  ``activity`` / ``agent`` record; its other classes (``prov:Collection``, ``cl:Finding``,
  ``prov:SoftwareAgent``, ``cl:Translation``...) are its ``prov:type`` values, its literal and
  IRI values its attributes, ``prov:startedAtTime`` / ``prov:endedAtTime`` its
  ``prov:startTime`` / ``prov:endTime``;
* a qualified derivation node (``prov:Derivation``, ``prov:Revision``, ``prov:Quotation``,
  ``prov:PrimarySource``) is a ``wasDerivedFrom`` record named by its IRI: the entity whose
  ``prov:qualifiedDerivation`` it is (read from a second sorted stream, :func:`inverse_lines`,
  which lists them in the same subject order), ``prov:entity``, ``prov:hadActivity``,
  ``prov:hadGeneration`` and ``prov:hadUsage`` as its generated and used entity, activity,
  generation and usage; its values as attributes;
* an unqualified relation triple (``prov:wasDerivedFrom``, ``prov:hadMember``,
  ``prov:used``, ``prov:wasGeneratedBy``, ``prov:wasAssociatedWith``,
  ``prov:wasAttributedTo``...) is a relation record without identifier (a ``_:idN`` key);
* a node of no PROV class (``cl:DocumentedDerivation``) is no record, as in ``prov``.

Identifiers are the RDF export's IRIs as qualified names: ``cl``, ``prov``, ``schema`` and
``xsd``, the family's IRI (``<family name>:activity/linking``), each dataset's items
(``<dataset name>:<item id>``), and ``nsN`` for any other namespace, in order of first use.
Each record type is spooled to a temporary file as the lines go by, and the file is
assembled at the end: ``prefix`` first (the library's mark is its first member, see
:data:`MARK_PREFIX`), then the record types in sorted order, each record's keys sorted.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import ExitStack
from typing import IO, Any

import pyarrow as pa
import pyarrow.compute as pc

from croissant_lineage.croissant.namespaces import CL_NS, PROV_NS, SCHEMA_NS, XSD_NS
from croissant_lineage.prov.stream import SortedLines, _grouped
from croissant_lineage.prov.terms import literal_value
from croissant_lineage.prov.vocab import FAMILY_ROOT

__all__ = ["MARK_PREFIX", "MARK_PREFIX_NS", "inverse_lines", "write_provjson"]

#: The library's mark in a PROV-JSON file: the first member of ``prefix``, the namespace of
#: this library's agent IRIs. PROV-JSON allows no other top-level key than ``prefix``,
#: ``bundle`` and the record types (``prov`` refuses one), and an attribute would be a
#: record the RDF exports do not hold; a declared prefix is neither.
MARK_PREFIX = "croissant-lineage"
MARK_PREFIX_NS = f"{CL_NS}software/croissant-lineage/"

_RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
_QUALIFIED = f" <{PROV_NS}qualifiedDerivation> "
_FIXED = (("cl", CL_NS), ("prov", PROV_NS), ("schema", SCHEMA_NS), ("xsd", XSD_NS))
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")

#: PROV classes -> record type (the class itself is not a ``prov:type`` of the record).
_RECORD_CLASS = {
    f"<{PROV_NS}Entity>": "entity",
    f"<{PROV_NS}Activity>": "activity",
    f"<{PROV_NS}Agent>": "agent",
    f"<{PROV_NS}Derivation>": "wasDerivedFrom",
}
#: PROV classes that are a record type's subclass: a ``prov:type`` of that record.
_SUBCLASS = {
    f"<{PROV_NS}Collection>": "entity",
    f"<{PROV_NS}SoftwareAgent>": "agent",
    f"<{PROV_NS}Person>": "agent",
    f"<{PROV_NS}Organization>": "agent",
    f"<{PROV_NS}Revision>": "wasDerivedFrom",
    f"<{PROV_NS}Quotation>": "wasDerivedFrom",
    f"<{PROV_NS}PrimarySource>": "wasDerivedFrom",
}
#: Unqualified relation -> (record type, subject's attribute, object's attribute, prov:type).
_RELATIONS = {
    f"<{PROV_NS}wasDerivedFrom>": ("wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity", None),
    f"<{PROV_NS}wasRevisionOf>": ("wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity", "prov:Revision"),
    f"<{PROV_NS}wasQuotedFrom>": ("wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity", "prov:Quotation"),
    f"<{PROV_NS}hadPrimarySource>": ("wasDerivedFrom", "prov:generatedEntity", "prov:usedEntity",
                                     "prov:PrimarySource"),
    f"<{PROV_NS}hadMember>": ("hadMember", "prov:collection", "prov:entity", None),
    f"<{PROV_NS}used>": ("used", "prov:activity", "prov:entity", None),
    f"<{PROV_NS}wasGeneratedBy>": ("wasGeneratedBy", "prov:entity", "prov:activity", None),
    f"<{PROV_NS}wasInvalidatedBy>": ("wasInvalidatedBy", "prov:entity", "prov:activity", None),
    f"<{PROV_NS}wasAssociatedWith>": ("wasAssociatedWith", "prov:activity", "prov:agent", None),
    f"<{PROV_NS}wasAttributedTo>": ("wasAttributedTo", "prov:entity", "prov:agent", None),
    f"<{PROV_NS}wasInformedBy>": ("wasInformedBy", "prov:informed", "prov:informant", None),
    f"<{PROV_NS}actedOnBehalfOf>": ("actedOnBehalfOf", "prov:delegate", "prov:responsible", None),
    f"<{PROV_NS}specializationOf>": ("specializationOf", "prov:specificEntity", "prov:generalEntity", None),
    f"<{PROV_NS}alternateOf>": ("alternateOf", "prov:alternate1", "prov:alternate2", None),
}
#: Values of a qualified derivation node -> its formal attributes.
_DERIVATION_FORMAL = {
    f"<{PROV_NS}entity>": "prov:usedEntity",
    f"<{PROV_NS}hadActivity>": "prov:activity",
    f"<{PROV_NS}hadGeneration>": "prov:generation",
    f"<{PROV_NS}hadUsage>": "prov:usage",
}
_TIMES = {f"<{PROV_NS}startedAtTime>": "prov:startTime", f"<{PROV_NS}endedAtTime>": "prov:endTime"}
_SKIPPED = {f"<{PROV_NS}qualifiedDerivation>"}


def inverse_lines(lines: pa.Array) -> pa.Array | None:
    """``<derivation node> <entity>\\n`` for each ``<entity> prov:qualifiedDerivation <node>``
    line (None when there is none): sorted, they follow the node's lines in subject order."""
    lines = lines.cast(pa.string()) if lines.type != pa.string() else lines
    chosen = lines.filter(pc.match_substring(lines, _QUALIFIED))
    if not len(chosen):
        return None
    parts = pc.split_pattern(pc.utf8_slice_codeunits(chosen, 0, -3), " ", max_splits=2)
    return pc.binary_join_element_wise(pc.list_element(parts, 2), " ", pc.list_element(parts, 0), "\n", "")


class _Names:
    """IRIs as qualified names: fixed and given prefixes, ``nsN`` for the others."""

    def __init__(self, datasets: Mapping[str, str] | None, mark: bool) -> None:
        self.prefixes: dict[str, str] = {MARK_PREFIX: MARK_PREFIX_NS} if mark else {}
        self.prefixes.update(_FIXED)
        self._by_ns = {ns: p for p, ns in _FIXED}
        self._family: tuple[str, str] | None = None
        for name, ns in sorted((datasets or {}).items()):
            if _NAME.fullmatch(name) and name not in self.prefixes and ns not in self._by_ns:
                self._add(name, ns)
        self._count = 0

    def _add(self, prefix: str, ns: str) -> str:
        self.prefixes[prefix] = ns
        self._by_ns[ns] = prefix
        return prefix

    def qname(self, term: str) -> str:
        """``prefix:local`` of an N-Triples IRI term (``<...>``)."""
        iri = term[1:-1]
        if self._family is not None and iri.startswith(self._family[1]):
            return f"{self._family[0]}:{iri[len(self._family[1]):]}"
        cut = iri.rfind("#", 0, len(iri) - 1)
        if cut >= 0 and iri[:cut + 1] in self._by_ns:
            return f"{self._by_ns[iri[:cut + 1]]}:{iri[cut + 1:]}"
        for prefix, ns in _FIXED:
            if iri.startswith(ns) and len(iri) > len(ns):
                return f"{prefix}:{iri[len(ns):]}"
        if self._family is None and iri.startswith(FAMILY_ROOT):
            name = iri[len(FAMILY_ROOT):].split("/", 1)[0]
            prefix = name if _NAME.fullmatch(name) and name not in self.prefixes else "family"
            if prefix not in self.prefixes:
                self._family = (self._add(prefix, f"{FAMILY_ROOT}{name}/"), f"{FAMILY_ROOT}{name}/")
                return self.qname(term)
        cut = iri.rfind("#", 0, len(iri) - 1)
        if cut < 0:
            cut = iri.rfind("/", 0, len(iri) - 1)
        if cut < 0:  # urn:x: the scheme is the namespace
            cut = iri.find(":")
        ns, local = iri[:cut + 1], iri[cut + 1:]
        known = self._by_ns.get(ns)
        if known is None:
            self._count += 1
            while f"ns{self._count}" in self.prefixes:
                self._count += 1
            known = self._add(f"ns{self._count}", ns)
        return f"{known}:{local}"

    def value(self, obj: str) -> Any:
        """A PROV-JSON attribute value of an N-Triples object term."""
        if obj.startswith("<"):
            return {"$": self.qname(obj), "type": "xsd:QName"}
        lexical, datatype, lang = literal_value(obj)
        if lang:
            return {"$": lexical, "lang": lang}
        if datatype and datatype != f"{XSD_NS}string":
            return {"$": lexical, "type": self.qname(f"<{datatype}>")}
        return lexical


class _Sections:
    """One spool file per record type (in a temporary folder, removed on exit); records
    written as ``"key": {...}`` members."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._folder = self._stack.enter_context(tempfile.TemporaryDirectory(prefix="cl-provjson-"))
        self._files: dict[str, IO[bytes]] = {}
        self._anonymous = 0

    def __enter__(self) -> _Sections:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def add(self, kind: str, key: str | None, body: dict[str, Any]) -> None:
        if key is None:
            self._anonymous += 1
            key = f"_:id{self._anonymous}"
        fh = self._files.get(kind)
        if fh is None:
            fh = self._files[kind] = self._stack.enter_context(tempfile.TemporaryFile(dir=self._folder))  # noqa: SIM115
        else:
            fh.write(b",")
        member = json.dumps(key, ensure_ascii=False) + ": " + json.dumps(body, sort_keys=True, ensure_ascii=False)
        fh.write(b"\n    " + member.encode("utf-8"))

    def write(self, out: IO[bytes]) -> None:
        for kind in sorted(self._files):
            fh = self._files[kind]
            out.write(f',\n  "{kind}": {{'.encode())
            fh.seek(0)
            shutil.copyfileobj(fh, out)
            out.write(b"\n  }")


def _attribute(body: dict[str, Any], key: str, value: Any) -> None:
    if key in body:
        old = body[key]
        body[key] = [*old, value] if isinstance(old, list) else [old, value]
    else:
        body[key] = value


def _record(
    subject: str, pairs: list[tuple[str, str]], names: _Names, children: list[str], sections: _Sections
) -> None:
    """The records of one subject's triples."""
    kind: str | None = None
    types: list[str] = []
    for pred, obj in pairs:
        if pred == _RDF_TYPE:
            kind = kind or _RECORD_CLASS.get(obj) or _SUBCLASS.get(obj)
            if obj not in _RECORD_CLASS:
                types.append(obj)
    body: dict[str, Any] = {}
    if kind == "wasDerivedFrom" and children:
        body["prov:generatedEntity"] = names.qname(children[0])
    for obj in types:
        _attribute(body, "prov:type", names.value(obj))
    for pred, obj in pairs:
        relation = _RELATIONS.get(pred)
        if relation is not None:
            rtype, own, other, ptype = relation
            rel: dict[str, Any] = {own: names.qname(subject), other: names.qname(obj)}
            if ptype is not None:
                rel["prov:type"] = {"$": ptype, "type": "xsd:QName"}
            sections.add(rtype, None, rel)
        elif pred == _RDF_TYPE or pred in _SKIPPED or kind is None:
            continue
        elif kind == "wasDerivedFrom" and pred in _DERIVATION_FORMAL:
            body[_DERIVATION_FORMAL[pred]] = names.qname(obj)
        elif kind == "activity" and pred in _TIMES:
            body[_TIMES[pred]] = literal_value(obj)[0]
        else:
            _attribute(body, names.qname(pred), names.value(obj))
    if kind is not None:
        sections.add(kind, names.qname(subject), body)


def _children(inverse: SortedLines | None) -> Iterator[tuple[str, str]]:
    """(node, entity) pairs of the inverse stream, in subject order."""
    if inverse is None:
        return
    for line in inverse.lines():
        node, entity = line.decode("utf-8").rstrip("\n").split(" ", 1)
        yield node, entity


def write_provjson(
    lines: SortedLines,
    out: IO[bytes],
    *,
    inverse: SortedLines | None = None,
    datasets: Mapping[str, str] | None = None,
    mark: bool = True,
) -> None:
    """PROV-JSON of the sorted lines (see the module's description).

    Args:
        lines: The graph's sorted distinct N-Triples lines.
        out: Binary file to write.
        inverse: The sorted :func:`inverse_lines` of the same lines (the generated entity of
            each qualified derivation); without it, the records have none.
        datasets: Dataset name -> the namespace of its items (``<dataset IRI>#``): their prefixes.
        mark: Declare the library's prefix (:data:`MARK_PREFIX`) first.
    """
    names = _Names(datasets, mark)
    with _Sections() as sections:
        children = _children(inverse)
        pending = next(children, None)
        for subject, pairs in _grouped(lines.lines()):
            mine: list[str] = []
            while pending is not None and pending[0] <= subject:
                if pending[0] == subject:
                    mine.append(pending[1])
                pending = next(children, None)
            _record(subject, pairs, names, mine, sections)
        prefixes = ",".join(
            f"\n    {json.dumps(p)}: {json.dumps(ns, ensure_ascii=False)}" for p, ns in names.prefixes.items()
        )
        out.write(('{\n  "prefix": {' + prefixes + "\n  }").encode("utf-8"))
        sections.write(out)
        out.write(b"\n}\n")

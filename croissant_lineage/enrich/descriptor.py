"""Writing PROV-O into one Croissant descriptor (or file), losslessly.

:func:`enrich_descriptor` adds dataset-level provenance to any descriptor;
:func:`croissant_lineage.enrich.family.enrich_family` adds a family's lineage at every
level (RecordSet, Field, value) with the same building blocks. Both follow the same rules:

* **Add, never rewrite.** Everything in the input stays as it was, in its order. New
  values go under keys the input does not have; a key the input already has is
  extended only when its value is a non-empty list (a ``recordSet`` list, say). When
  the input already uses ``prov:wasDerivedFrom`` with a single value, the library's
  values go under the same property spelt as a full IRI, which JSON-LD merges
  (:func:`add_values`); new ``@context`` terms must not clash (:func:`ensure_context`).
* **Marked.** Every JSON object the library adds is marked (see
  :mod:`croissant_lineage.enrich.marks`); enriching an enriched descriptor first strips,
  then adds: the same inputs give the same bytes.
* **No clock.** The enrichment activity records a time only when given one (the
  ``time`` argument, else ``SOURCE_DATE_EPOCH``; see
  :func:`croissant_lineage.prov.vocab.resolve_time`).
* **Atomic.** Files are written through :mod:`croissant_lineage._io`.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from croissant_lineage._io import (
    atomic_write_json,
    dumps_json,
    read_json,
)
from croissant_lineage._results import Result
from croissant_lineage.croissant.descriptor import (
    check_croissant,
    ensure_replaceable,
)
from croissant_lineage.croissant.jsonld import context_object, term_meaning
from croissant_lineage.croissant.mlc import MlcroissantIssues, mlcroissant_issues
from croissant_lineage.croissant.namespaces import CL_NS, CROISSANT_NS, PROV_NS, XSD_NS
from croissant_lineage.enrich.marks import is_our_descriptor, seal, strip_enrichment
from croissant_lineage.errors import DescriptorError, InputError
from croissant_lineage.lineage.schema import ACTIVITIES
from croissant_lineage.prov.graph import (
    ParentLink,
    dataset_nodes,
    enrichment_node,
)
from croissant_lineage.prov.vocab import (
    PROV_CONTEXT,
    code,
    enrichment_iri,
    family_iri,
    resolve_time,
)

__all__ = [
    "CROISSANT_TERMS",
    "EnrichResult",
    "MlcroissantIssues",
    "add_values",
    "content_sha256",
    "enrich_descriptor",
    "enrich_file",
    "ensure_context",
    "full_iri",
    "mlcroissant_issues",
    "parent_link",
    "used_descriptor",
]


#: Croissant terms the family enrichment uses, as the Croissant 1.1 context defines them.
CROISSANT_TERMS: dict[str, Any] = {
    "cr": CROISSANT_NS,
    "annotation": "cr:annotation",
    "arrayShape": "cr:arrayShape",
    "column": "cr:column",
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "equivalentProperty": "cr:equivalentProperty",
    "extract": "cr:extract",
    "field": "cr:field",
    "fileObject": "cr:fileObject",
    "isArray": "cr:isArray",
    "key": "cr:key",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "source": "cr:source",
}


_PREFIXES = {"cr": CROISSANT_NS, **PROV_CONTEXT}


def ensure_context(
    doc: dict[str, Any], terms: Mapping[str, Any], *, path: str | Path | None = None
) -> list[str]:
    """Add the ``terms`` the ``@context`` lacks; check the ones it has mean the same.

    Args:
        doc: The descriptor, changed in place (new terms go at the end of its inline
            context object; the last object when the context is a list).
        terms: Term -> definition.
        path: For error messages.

    Returns:
        The terms added, in order.

    Raises:
        DescriptorError: a term is defined with another meaning, or the context is a URL.
    """
    ctx = context_object(doc, path)
    added: list[str] = []
    for term, definition in terms.items():
        if term in ctx:
            if term_meaning(ctx[term], ctx, _PREFIXES) != term_meaning(definition, ctx, _PREFIXES):
                raise DescriptorError(
                    f"@context defines {term!r} as {ctx[term]!r}, not {definition!r}",
                    path=path,
                    hint="rename that term in the descriptor; this library needs "
                    f"{term!r} = {definition!r}",
                )
            continue
        ctx[term] = copy.deepcopy(definition)
        added.append(term)
    return added


def add_values(
    node: dict[str, Any],
    key: str,
    values: Sequence[dict[str, Any]],
    *,
    iri: str | None = None,
    path: str | Path | None = None,
) -> None:
    """Add marked ``values`` under property ``key`` of ``node`` without rewriting it.

    Where they go: under ``key`` if ``node`` lacks it; appended when ``node[key]`` is a
    non-empty list; else under ``iri`` (the same property as a full IRI) if ``node``
    lacks that.

    Raises:
        DescriptorError: both spellings are taken by values that cannot be extended.
    """
    if not values:
        return
    for k in (key, iri):
        if k is None:
            continue
        if k not in node:
            node[k] = list(values)
            return
        if isinstance(node[k], list) and node[k]:
            node[k].extend(values)
            return
    raise DescriptorError(
        f"cannot add to {key!r}: the descriptor already holds a single value there "
        + (f"and under {iri!r}" if iri else ""),
        path=path,
    )


def content_sha256(doc: Any) -> str:
    """SHA-256 of a document's deterministic JSON (:func:`~croissant_lineage._io.dumps_json`)."""
    return hashlib.sha256(dumps_json(doc).encode("utf-8")).hexdigest()


def used_descriptor(doc: dict[str, Any]) -> dict[str, Any]:
    node: dict[str, Any] = {"@type": "prov:Entity", "sc:sha256": content_sha256(doc)}
    name = doc.get("name")
    if isinstance(name, str):
        node["sc:name"] = code(name)
    return node


def _label(doc: Mapping[str, Any]) -> str:
    for key in ("name", "@id", "url"):
        value = doc.get(key)
        if isinstance(value, str) and value:
            return value
    return "dataset"


@dataclass
class _Additions:
    """What an enrichment adds to a descriptor's root, beside the dataset-level PROV."""

    root: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    terms: dict[str, Any] = field(default_factory=dict)
    used: list[dict[str, Any]] = field(default_factory=list)


def _enrich(
    doc: dict[str, Any],
    parents: Sequence[ParentLink],
    *,
    time: str | datetime | int | None,
    extra: _Additions | None = None,
    path: str | Path | None = None,
) -> dict[str, Any]:
    check_croissant(doc, Path(path) if path else None)
    base = strip_enrichment(doc)
    out = copy.deepcopy(base)
    extra = extra or _Additions()
    terms = {**PROV_CONTEXT, **extra.terms}
    added_terms = ensure_context(out, terms, path=path)
    label = _label(base)
    family = family_iri(label)  # a descriptor enriched alone is a family of its own
    stamp = resolve_time(time)
    nodes = dataset_nodes(label, parents, family=family)
    enrichment = enrichment_node(
        iri=enrichment_iri(family, label, stamp),
        time=stamp,
        used=[used_descriptor(base), *extra.used],
        added_context_terms=added_terms,
    )
    add_values(out, "prov:wasDerivedFrom", nodes.derived_from, iri=PROV_NS + "wasDerivedFrom", path=path)
    add_values(
        out, "prov:qualifiedDerivation", nodes.qualified, iri=PROV_NS + "qualifiedDerivation", path=path
    )
    add_values(
        out,
        "prov:wasGeneratedBy",
        [*nodes.activities, enrichment],
        iri=PROV_NS + "wasGeneratedBy",
        path=path,
    )
    for key, values in extra.root.items():
        add_values(out, key, values, iri=full_iri(key), path=path)
    seal(out, base)
    return out


def full_iri(key: str) -> str | None:
    prefix, sep, rest = key.partition(":")
    base = _PREFIXES.get(prefix)
    return base + rest if sep and base else None


def enrich_descriptor(
    doc: dict[str, Any],
    *,
    derived_from: Sequence[str | ParentLink],
    activity: str = "copy",
    note: str = "",
    time: str | datetime | int | None = None,
) -> dict[str, Any]:
    """Add dataset-level PROV-O to a Croissant descriptor.

    The root node gets ``prov:wasDerivedFrom`` each parent, a
    ``prov:qualifiedDerivation`` per parent (``prov:entity`` + ``prov:hadActivity``),
    and ``prov:wasGeneratedBy`` the derivation activities and the enrichment activity
    (associated with this library and version as ``prov:SoftwareAgent``; it
    ``prov:used`` the input descriptor, identified by the SHA-256 of its content).

    Args:
        doc: The descriptor as parsed JSON (not modified).
        derived_from: Parent dataset IRIs (URLs), or :class:`ParentLink` s.
        activity: Activity kind for parents given as IRIs (see
            :data:`~croissant_lineage.lineage.schema.ACTIVITIES`).
        note: What the derivation did, in words (for parents given as IRIs).
        time: When the enrichment ran (see :func:`~croissant_lineage.prov.vocab.resolve_time`).

    Returns:
        A new document: the input (minus earlier additions of this library) with the
        PROV added after its own keys.

    Raises:
        DescriptorError: not a Croissant descriptor, or its @context conflicts.
        InputError: unknown activity, no parent, or unreadable time.
    """
    if activity not in ACTIVITIES:
        raise InputError(f"unknown activity {activity!r}", hint=f"one of: {', '.join(ACTIVITIES)}")
    if not derived_from:
        raise InputError("no parent dataset given", hint="give at least one derived_from IRI")
    parents = [
        p if isinstance(p, ParentLink) else ParentLink(_check_iri(p), activity, None, note)
        for p in derived_from
    ]
    return _enrich(doc, parents, time=time)


def _check_iri(value: str) -> str:
    if "://" not in value and not value.startswith("urn:"):
        raise InputError(f"parent {value!r} is not an IRI", hint="give a URL or a descriptor file")
    return value


def parent_link(ref: str, *, activity: str = "copy") -> ParentLink:
    """A parent given on the command line: a URL, or the path of a Croissant descriptor.

    A descriptor names itself by its ``@id`` when that is an absolute IRI, else by
    its ``url``.

    Raises:
        InputError: neither a URL nor a readable descriptor.
        DescriptorError: a descriptor with no IRI to name it by.
    """
    if "://" in ref or ref.startswith("urn:"):
        return ParentLink(ref, activity)
    path = Path(ref)
    if not path.is_file():
        raise InputError("parent is neither a URL nor a file", path=ref)
    doc = read_json(path)
    check_croissant(doc, path)
    for key in ("@id", "url"):
        value = doc.get(key)
        if isinstance(value, str) and "://" in value:
            name = doc.get("name")
            return ParentLink(value, activity, name if isinstance(name, str) else None)
    raise DescriptorError("descriptor has no absolute @id or url to name it by", path=path)


@dataclass(frozen=True)
class EnrichResult(Result):
    """What :func:`enrich_file` did.

    Attributes:
        path: The enriched descriptor written.
        parents: Parent IRIs, in order.
        replaced: The input was already enriched; its earlier additions were replaced.
        issues: mlcroissant's issue counts before and after (when validated).
    """

    path: str
    parents: list[str]
    replaced: bool
    issues: dict[str, MlcroissantIssues] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: path, parents, replaced, and mlcroissant's counts when validated."""
        out: dict[str, Any] = {"path": self.path, "parents": list(self.parents), "replaced": self.replaced}
        if self.issues is not None:
            out["issues"] = {k: {"errors": v.errors, "warnings": v.warnings} for k, v in self.issues.items()}
        return out


def enrich_file(
    path: str | Path,
    out: str | Path,
    *,
    derived_from: Sequence[str],
    activity: str = "copy",
    note: str = "",
    time: str | datetime | int | None = None,
    validate: bool = False,
    force: bool = False,
) -> EnrichResult:
    """Enrich a descriptor file with dataset-level PROV-O and write it atomically.

    Args:
        path: The input descriptor.
        out: The output file: ``path`` itself (enrichment only adds), a new file, or a
            descriptor this library wrote (enriched, or made by ``describe``).
        derived_from: Parents: URLs, or paths of their Croissant descriptors.
        activity: Activity kind (see :data:`~croissant_lineage.lineage.schema.ACTIVITIES`).
        note: What the derivation did, in words.
        time: When (see :func:`~croissant_lineage.prov.vocab.resolve_time`).
        validate: Check with mlcroissant that the output has no more errors or
            warnings than the input.
        force: Replace ``out`` even when this library did not write it.

    Returns:
        An :class:`EnrichResult`.

    Raises:
        InputError, DescriptorError: unreadable input or parent.
        DescriptorError: with ``validate``, mlcroissant finds more issues after.
        OutputExistsError: ``out`` is a folder, or another file this library did not
            write (and not ``force``). Nothing is written.
    """
    doc = read_json(path)
    if activity not in ACTIVITIES:
        raise InputError(f"unknown activity {activity!r}", hint=f"one of: {', '.join(ACTIVITIES)}")
    parents = [parent_link(p, activity=activity) for p in derived_from]
    parents = [ParentLink(p.iri, p.activity, p.name, note, p.activity_iri, p.activity_label) for p in parents]
    enriched = _enrich(doc, parents, time=time, path=path)
    if Path(out).resolve() != Path(path).resolve():
        ensure_replaceable(out, force=force, ours=is_our_descriptor)
    issues = None
    if validate:
        before, after = mlcroissant_issues(doc), mlcroissant_issues(enriched)
        issues = {"before": before, "after": after}
        if after.errors > before.errors or after.warnings > before.warnings:
            raise DescriptorError(
                f"mlcroissant reports more issues after enrichment ({after}) than before ({before})",
                path=path,
            )
    atomic_write_json(out, enriched)
    replaced = strip_enrichment(doc) != doc
    return EnrichResult(str(out), [p.iri for p in parents], replaced, issues)


# Keys whose CURIEs :func:`full_iri` must expand.
assert _PREFIXES["cl"] == CL_NS and _PREFIXES["xsd"] == XSD_NS

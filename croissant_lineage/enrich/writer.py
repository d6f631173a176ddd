"""Writing PROV-O into Croissant descriptors, losslessly.

:func:`enrich_descriptor` adds dataset-level provenance to any descriptor;
:func:`croissant_lineage.family_enrich.enrich_family` adds the family's lineage at every
level (RecordSet, Field, value). Both follow the same rules:

* **Add, never rewrite.** Everything in the input stays as it was, in its order. New
  values go under keys the input does not have; a key the input already has is
  extended only when its value is a non-empty list (a ``recordSet`` list, say). When
  the input already uses ``prov:wasDerivedFrom`` with a single value, the library's
  values go under the same property spelt as a full IRI, which JSON-LD merges.
* **Marked.** Every JSON object the library adds carries ``"@index":
  "croissant-lineage"`` (a JSON-LD keyword: kept by JSON-LD processors, no triple).
  The ``@context`` terms it adds are listed in the enrichment activity's
  ``cl:addedContextTerms``. :func:`strip_enrichment` removes exactly these, so
  ``strip_enrichment(enrich_descriptor(doc, ...)) == doc``; enriching an enriched
  descriptor first strips, then adds: the same inputs give the same bytes.
* **No clock.** The enrichment activity records a time only when given one (the
  ``time`` argument, else ``SOURCE_DATE_EPOCH``; see
  :func:`croissant_lineage.prov.graph.resolve_time`).
* **Atomic.** Files are written through :mod:`croissant_lineage._io`.
"""

from __future__ import annotations

import copy
import hashlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from croissant_lineage._io import (
    atomic_write_bytes,
    atomic_write_json,
    dumps_json,
    parquet_bytes,
    read_json,
)
from croissant_lineage.croissant.descriptor import (
    CL_NS,
    check_croissant,
    ensure_replaceable,
    is_generated,
    is_generated_file,
)
from croissant_lineage.croissant.jsonld import PROV_NS, XSD_NS, inline_contexts
from croissant_lineage.errors import DescriptorError, InputError, OutputExistsError
from croissant_lineage.lineage.schema import ACTIVITIES
from croissant_lineage.prov.graph import (
    MARK,
    PROV_CONTEXT,
    ParentLink,
    code,
    dataset_nodes,
    enrichment_node,
    resolve_time,
)

__all__ = [
    "CROISSANT_TERMS",
    "EnrichResult",
    "MlcroissantIssues",
    "add_values",
    "enrich_descriptor",
    "enrich_file",
    "ensure_context",
    "is_ours",
    "mlcroissant_issues",
    "parent_link",
    "strip_enrichment",
]

#: Croissant terms the family enrichment uses, as the Croissant 1.1 context defines them.
CROISSANT_TERMS: dict[str, Any] = {
    "cr": "http://mlcommons.org/croissant/",
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

_PREFIXES = {"cr": "http://mlcommons.org/croissant/", **PROV_CONTEXT}


def is_ours(value: Any) -> bool:
    """True for a JSON object this library added (``"@index": "croissant-lineage"``)."""
    return isinstance(value, dict) and value.get("@index") == MARK


def _written_by_us(doc: Any) -> bool:
    """A descriptor this library wrote: enriched (some node marked), or made by ``describe``."""
    if is_generated(doc):
        return True
    stack = [doc]
    while stack:
        cur = stack.pop()
        if is_ours(cur):
            return True
        if isinstance(cur, dict):
            stack.extend(v for k, v in cur.items() if k != "@context")
        elif isinstance(cur, list):
            stack.extend(cur)
    return False


def _is_our_descriptor(path: Path) -> bool:
    return is_generated_file(path, _written_by_us)


def _expand(term_value: Any, ctx: Mapping[str, Any]) -> Any:
    """A term definition reduced to (IRI, type) with prefixes expanded, for comparison."""
    if isinstance(term_value, dict):
        iri, typ = term_value.get("@id"), term_value.get("@type")
    else:
        iri, typ = term_value, None
    if isinstance(iri, str) and ":" in iri and "://" not in iri:
        prefix, _, rest = iri.partition(":")
        base = ctx.get(prefix, _PREFIXES.get(prefix))
        if isinstance(base, str):
            iri = base + rest
    return iri, typ


def _context_dict(doc: dict[str, Any], path: str | Path | None = None) -> dict[str, Any]:
    ctx = doc.get("@context")
    if isinstance(ctx, dict):
        return ctx
    if isinstance(ctx, list) and ctx and isinstance(ctx[-1], dict):
        return ctx[-1]
    raise DescriptorError(
        "the @context is a URL, not an inline object: terms cannot be added to it",
        path=path,
        hint="inline the context (every Croissant example does)",
    )


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
    ctx = _context_dict(doc, path)
    added: list[str] = []
    for term, definition in terms.items():
        if term in ctx:
            if _expand(ctx[term], ctx) != _expand(definition, ctx):
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


def _added_terms(doc: Any) -> list[str]:
    terms: list[str] = []
    stack = [doc]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if is_ours(cur) and isinstance(cur.get("cl:addedContextTerms"), list):
                terms.extend(t for t in cur["cl:addedContextTerms"] if isinstance(t, str))
            stack.extend(v for k, v in cur.items() if k != "@context")
        elif isinstance(cur, list):
            stack.extend(cur)
    return terms


def _strip(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip(v) for v in node if not is_ours(v)]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if is_ours(v):
            continue
        if isinstance(v, list):
            kept = [x for x in v if not is_ours(x)]
            if len(kept) < len(v) and not kept:
                continue
            out[k] = [_strip(x) for x in kept]
        else:
            out[k] = _strip(v) if k != "@context" else copy.deepcopy(v)
    return out


def strip_enrichment(doc: dict[str, Any]) -> dict[str, Any]:
    """The descriptor without this library's additions (the inverse of enrichment).

    Returns:
        A new document: every marked node removed (and a key left empty by that
        removal), and the ``@context`` terms the enrichment recorded as added.
    """
    terms = _added_terms(doc)
    out = _strip(doc)
    if terms and isinstance(out, dict):
        ctx = out.get("@context")
        target = ctx if isinstance(ctx, dict) else (ctx[-1] if isinstance(ctx, list) and ctx else None)
        if isinstance(target, dict):
            for t in terms:
                target.pop(t, None)
    return dict(out)


def content_sha256(doc: Any) -> str:
    """SHA-256 of a document's deterministic JSON (:func:`~croissant_lineage._io.dumps_json`)."""
    return hashlib.sha256(dumps_json(doc).encode("utf-8")).hexdigest()


def _used_descriptor(doc: dict[str, Any]) -> dict[str, Any]:
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
    nodes = dataset_nodes(_label(base), parents)
    enrichment = enrichment_node(
        time=resolve_time(time),
        used=[_used_descriptor(base), *extra.used],
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
        add_values(out, key, values, iri=_full_iri(key), path=path)
    return out


def _full_iri(key: str) -> str | None:
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
        time: When the enrichment ran (see :func:`~croissant_lineage.prov.graph.resolve_time`).

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
class EnrichResult:
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
        time: When (see :func:`~croissant_lineage.prov.graph.resolve_time`).
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
    parents = [ParentLink(p.iri, p.activity, p.name, note) for p in parents]
    enriched = _enrich(doc, parents, time=time, path=path)
    if Path(out).resolve() != Path(path).resolve():
        ensure_replaceable(out, force=force, ours=_is_our_descriptor)
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


@dataclass(frozen=True)
class MlcroissantIssues:
    """mlcroissant's validation result for one document.

    Attributes:
        errors: Number of errors.
        warnings: Number of warnings.
        messages: The messages, errors first, each sorted.
    """

    errors: int
    warnings: int
    messages: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.errors} errors, {self.warnings} warnings"


def mlcroissant_issues(doc: dict[str, Any]) -> MlcroissantIssues:
    """Validate a descriptor with mlcroissant, offline, and count its issues.

    Remote ``@context`` URLs are replaced by local copies first (mlcroissant would
    fetch them); mlcroissant reads no data file to validate. When mlcroissant itself
    fails on the document, that counts as one error (its message says so).
    """
    import mlcroissant as mlc

    ctx = mlc.Context()
    absl = logging.getLogger("absl")
    level = absl.level
    absl.setLevel(logging.ERROR)
    crash: list[str] = []
    try:
        mlc.Metadata.from_json(ctx=ctx, json_=inline_contexts(copy.deepcopy(doc)))
    except mlc.ValidationError:
        pass  # the issues are in ctx.issues, counted below
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        # mlcroissant 1.1.1 crashes on some valid JSON-LD (e.g. a name without a
        # default @language): that is a failed validation, reported as one error.
        crash.append(f"mlcroissant could not read the descriptor: {type(exc).__name__}: {exc}")
    finally:
        absl.setLevel(level)
    errors, warnings = sorted(ctx.issues.errors) + crash, sorted(ctx.issues.warnings)
    return MlcroissantIssues(len(errors), len(warnings), tuple(errors + warnings))


# Keys whose CURIEs :func:`_full_iri` must expand.
assert _PREFIXES["cl"] == CL_NS and _PREFIXES["xsd"] == XSD_NS


# --------------------------------------------------------------------------- family

_CR_NS = "http://mlcommons.org/croissant/"
_SDO_NS = "https://schema.org/"

#: Everything the family enrichment's nodes need from @context.
FAMILY_TERMS: dict[str, Any] = {"@vocab": _SDO_NS, **PROV_CONTEXT, **CROISSANT_TERMS}

#: Family roles whose fields derive field by field (ids are each dataset's own).
DERIVED_ROLES = ("subject", "stem", "options", "key")


@dataclass(frozen=True)
class EnrichedDescriptor:
    """One descriptor written by :func:`enrich_family`.

    Attributes:
        path: The enriched descriptor.
        datasets: The family datasets it holds.
        files: File kind (``items``, ``lineage``, ``findings``) -> data file written beside it.
        items, edges, findings: Rows in its items, lineage and findings files.
    """

    path: str
    datasets: list[str]
    files: dict[str, str]
    items: int
    edges: int
    findings: int


@dataclass(frozen=True)
class FamilyEnrichResult:
    """What :func:`enrich_family` wrote.

    Attributes:
        out_dir: The output folder.
        descriptors: One entry per enriched descriptor, in family order.
    """

    out_dir: str
    descriptors: list[EnrichedDescriptor]

    @property
    def edges(self) -> int:
        """Edges written over all lineage files (= the lineage's edges among these datasets)."""
        return sum(d.edges for d in self.descriptors)

    def to_dict(self) -> dict[str, Any]:
        return {
            "out_dir": self.out_dir,
            "edges": self.edges,
            "descriptors": [
                {
                    "path": d.path,
                    "datasets": d.datasets,
                    "files": d.files,
                    "items": d.items,
                    "edges": d.edges,
                    "findings": d.findings,
                }
                for d in self.descriptors
            ],
        }


def _role_fields(expr: Any) -> list[str]:
    """Field names behind a role expression; none for templates (``{subject}/{_row}``)."""
    if isinstance(expr, str):
        return [] if "{" in expr else [expr]
    if isinstance(expr, list):
        return [e for e in expr if isinstance(e, str)]
    if isinstance(expr, dict) and isinstance(expr.get("field"), str):
        return [expr["field"]]
    return []


def _find_record_set(doc: dict[str, Any], name: str, path: Path) -> dict[str, Any]:
    for key in ("recordSet", _CR_NS + "recordSet"):
        for node in doc.get(key) or []:
            if isinstance(node, dict) and not is_ours(node) and name in (node.get("@id"), node.get("name")):
                return node
    raise DescriptorError(f"no RecordSet {name!r}", path=path, hint="check the family spec's record_set")


def _find_field(rs: dict[str, Any], name: str) -> dict[str, Any] | None:
    rs_id = rs.get("@id") or rs.get("name")
    for node in rs.get("field") or []:
        if (
            isinstance(node, dict)
            and not is_ours(node)
            and (node.get("@id") in (name, f"{rs_id}/{name}") or node.get("name") == name)
        ):
            return node
    return None


def _qualified(child_label: str, parent_label: str, parent_iri: str, activity: str, aid: str) -> dict[str, Any]:
    from croissant_lineage.prov.graph import derivation_class, derivation_id

    return {
        "@index": MARK,
        "@id": derivation_id(parent_label, child_label),
        "@type": derivation_class(activity),
        "prov:entity": {"@id": parent_iri},
        "prov:hadActivity": {"@id": aid},
    }


def _schema_level(
    rs: dict[str, Any], child: Any, parent: Any, activity: str, path: Path
) -> None:
    """RecordSet- and Field-level derivations of ``child`` (a DatasetSpec) from ``parent``."""
    from croissant_lineage.prov.graph import activity_id, schema_node_iri

    aid = activity_id(activity, parent.name, child.name)
    rs_iri = schema_node_iri(parent.iri, parent.record_set)
    _add_derived_from(rs, [rs_iri], path)
    add_values(
        rs,
        "prov:qualifiedDerivation",
        [_qualified(f"{child.name}/{child.record_set}", f"{parent.name}/{parent.record_set}", rs_iri, activity, aid)],
        iri=PROV_NS + "qualifiedDerivation",
        path=path,
    )
    for role in DERIVED_ROLES:
        mine, theirs = _role_fields(child.roles.get(role)), _role_fields(parent.roles.get(role))
        if not mine or not theirs:
            continue
        for cf in mine:
            fnode = _find_field(rs, cf)
            if fnode is None:
                continue
            iris = [schema_node_iri(parent.iri, f"{parent.record_set}/{pf}") for pf in theirs]
            _add_derived_from(fnode, iris, path)
            add_values(
                fnode,
                "prov:qualifiedDerivation",
                [
                    _qualified(f"{child.name}/{child.record_set}/{cf}", f"{parent.name}/{parent.record_set}/{pf}", i, activity, aid)
                    for pf, i in zip(theirs, iris, strict=True)
                ],
                iri=PROV_NS + "qualifiedDerivation",
                path=path,
            )


def _add_derived_from(node: dict[str, Any], iris: Sequence[str], path: Path) -> None:
    """Add marked ``prov:wasDerivedFrom`` references to ``iris`` (see :func:`add_values`)."""
    add_values(node, "prov:wasDerivedFrom", [{"@index": MARK, "@id": i} for i in iris],
               iri=PROV_NS + "wasDerivedFrom", path=path)


def _annotation(rs: dict[str, Any]) -> dict[str, Any]:
    rs_id = rs.get("@id") or rs.get("name")
    return {
        "@index": MARK,
        "@type": "cr:Field",
        "@id": f"{rs_id}/cl_was_derived_from",
        "name": "cl_was_derived_from",
        "description": "Value-level provenance (PROV-O): the item each record was derived from, "
        "as an IRI. The values are in the lineage RecordSet (lineage/parent_iri), one per "
        "edge whose child is the record's item.",
        "equivalentProperty": "prov:wasDerivedFrom",
        "dataType": "sc:URL",
        "source": {"field": {"@id": "lineage/parent_iri"}},
    }


def _load_findings_arg(findings: Any) -> list[Any]:
    if findings is None:
        return []
    if isinstance(findings, (str, Path)):
        from croissant_lineage.findings.files import load_findings

        return list(load_findings(findings))
    return list(findings)


def enrich_family(
    lineage: Any,
    family_spec: Any,
    out_dir: str | Path,
    findings: Any = None,
    *,
    time: str | datetime | int | None = None,
    force: bool = False,
    progress: bool = False,
) -> FamilyEnrichResult:
    """Write a family's enriched descriptors and their lineage files into ``out_dir``.

    For each descriptor of the family spec that holds item data, writes
    ``<stem>.json`` (the descriptor, enriched; ``<stem>`` is its dataset's name, or
    the descriptor's file stem when it holds several datasets) and beside it ``<stem>.items.parquet``,
    ``<stem>.lineage.parquet`` and ``<stem>.findings.parquet``, declared as the
    RecordSets ``lineage_items``, ``lineage`` and ``findings`` (see
    :mod:`croissant_lineage.enrich.files`). The descriptor gains:

    * dataset level: ``prov:wasDerivedFrom`` the parent datasets and
      ``prov:wasGeneratedBy`` their activities and the enrichment activity; one
      ``cl:familyDataset`` node per family dataset (its IRI, qualified derivations with
      activity, link method and threshold; documented-coverage children);
    * RecordSet and Field level: the items RecordSet and its subject, stem, options and
      key fields ``prov:wasDerivedFrom`` the parent's (with qualified derivations
      naming the activity);
    * value level: an ``annotation`` field on the items RecordSet whose
      ``equivalentProperty`` is ``prov:wasDerivedFrom``, and the ``lineage`` RecordSet
      that mlcroissant's ``records()`` reads.

    Args:
        lineage: A :class:`~croissant_lineage.lineage.model.Lineage`, or its folder.
        family_spec: A :class:`~croissant_lineage.family.spec.FamilySpec`, or a name/path.
        out_dir: Output folder (created).
        findings: Findings (``Finding`` objects) or a findings file; None for none.
        time: When (see :func:`~croissant_lineage.prov.graph.resolve_time`).
        force: Replace files in ``out_dir`` that this library did not write.
        progress: Show a progress bar over the descriptors (tqdm).

    Returns:
        A :class:`FamilyEnrichResult`.

    Raises:
        InputError, DescriptorError, SpecError: unreadable inputs or conflicts.
        OutputExistsError: an output file exists and was not written by this library
            (a descriptor without its marks, a Parquet file without its columns), and
            not ``force``; checked before anything is written.
    """
    from croissant_lineage.enrich.files import (
        FILE_KINDS,
        RECORD_SETS,
        is_lineage_file,
        items_table,
        lineage_table,
        record_set_node,
    )
    from croissant_lineage.family.spec import FamilySpec, load_family
    from croissant_lineage.findings.parquet import findings_table
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.prov.graph import activity_id, family_dataset_node

    spec = family_spec if isinstance(family_spec, FamilySpec) else load_family(family_spec)
    lin = lineage if isinstance(lineage, Lineage) else Lineage.read(lineage)
    found = _load_findings_arg(findings)
    out = Path(out_dir)
    stamp = resolve_time(time)
    info = {d["name"]: d for d in lin.family.get("datasets", [])}
    iris = {name: d["iri"] for name, d in info.items()}
    derivations = list(lin.family.get("derivations", []))
    groups: dict[Path, list[Any]] = {}
    for d in spec.datasets.values():
        if d.descriptor is not None:
            groups.setdefault(d.descriptor, []).append(d)
    written: list[EnrichedDescriptor] = []
    stems = _output_stems(groups)
    if out.exists() and not out.is_dir():
        raise OutputExistsError("exists and is not a folder", path=out, hint="give a folder for --family outputs")
    for stem in stems.values():
        ensure_replaceable(out / f"{stem}.json", force=force, ours=_is_our_descriptor)
        for kind in FILE_KINDS:
            ensure_replaceable(out / f"{stem}.{kind}.parquet", force=force, ours=partial(is_lineage_file, kind=kind))
    for desc_path, members in tqdm(groups.items(), desc="enrich", unit="descriptor", disable=not progress):
        names = [d.name for d in members]
        doc = read_json(desc_path)
        check_croissant(doc, desc_path)
        base = strip_enrichment(doc)
        doc_out = copy.deepcopy(base)
        added_terms = ensure_context(doc_out, FAMILY_TERMS, path=desc_path)
        stem = stems[desc_path]
        tables = {
            "items": items_table(lin.items, lin.duplicates, iris, names),
            "lineage": lineage_table(lin.edges, iris, names),
            "findings": findings_table(found, iris, names),
        }
        file_nodes, files = [], {}
        for kind, table in tables.items():
            data = parquet_bytes(table)
            file_name = f"{stem}.{kind}.parquet"
            atomic_write_bytes(out / file_name, data)
            files[kind] = file_name
            fid = f"cl-{kind}-file"
            file_nodes.append(
                {
                    "@index": MARK,
                    "@type": "cr:FileObject",
                    "@id": fid,
                    "name": fid,
                    "description": f"croissant-lineage {kind} table (Parquet).",
                    "contentUrl": file_name,
                    "encodingFormat": "application/x-parquet",
                    "sha256": hashlib.sha256(data).hexdigest(),
                }
            )
        rs_nodes = [
            record_set_node(rs_id, f"cl-{rs_spec.kind}-file", MARK)
            for rs_id, rs_spec in RECORD_SETS.items()
        ]
        _check_free_ids(doc_out, [n["@id"] for n in file_nodes + rs_nodes], desc_path)
        add_values(doc_out, "distribution", file_nodes, iri=_SDO_NS + "distribution", path=desc_path)
        for d in members:
            if d.record_set is None:
                continue
            rs = _find_record_set(doc_out, d.record_set, desc_path)
            add_values(rs, "annotation", [_annotation(rs)], iri=_CR_NS + "annotation", path=desc_path)
            for r in spec.derivations:
                parent = spec.datasets.get(r.parent)
                if r.child == d.name and parent is not None and parent.has_items and parent.record_set:
                    _schema_level(rs, d, parent, r.activity, desc_path)
        add_values(doc_out, "recordSet", rs_nodes, iri=_CR_NS + "recordSet", path=desc_path)
        family_nodes = [family_dataset_node(info[n], derivations, iris) for n in names if n in info]
        parents = [r for r in derivations if r["child"] in names and r["parent"] in iris]
        parent_refs = list(dict.fromkeys(iris[r["parent"]] for r in parents))
        used = [_used_descriptor(base), _used_lineage(lin, names, tables["lineage"].num_rows)]
        if found:
            used.append({"@type": ["prov:Entity", "cl:FindingsSet"], "cl:findings": tables["findings"].num_rows})
        enrichment = enrichment_node(time=stamp, used=used, added_context_terms=added_terms)
        _add_derived_from(doc_out, parent_refs, desc_path)
        generated = [
            {"@index": MARK, "@id": activity_id(r["activity"], r["parent"], r["child"])} for r in parents
        ]
        add_values(doc_out, "prov:wasGeneratedBy", [*generated, enrichment], iri=PROV_NS + "wasGeneratedBy", path=desc_path)
        add_values(doc_out, "cl:familyDataset", family_nodes, iri=CL_NS + "familyDataset", path=desc_path)
        target = out / f"{stem}.json"
        atomic_write_json(target, doc_out)
        written.append(
            EnrichedDescriptor(
                str(target),
                names,
                {k: str(out / v) for k, v in files.items()},
                tables["items"].num_rows,
                tables["lineage"].num_rows,
                tables["findings"].num_rows,
            )
        )
    return FamilyEnrichResult(str(out), written)


def _output_stems(groups: Mapping[Path, Sequence[Any]]) -> dict[Path, str]:
    """Output file stem per descriptor: its dataset's name, or (several datasets) its own
    file stem, prefixed with its folder's name when that is not unique."""
    stems: dict[Path, str] = {}
    for path, members in groups.items():
        stems[path] = members[0].name if len(members) == 1 else path.stem
    taken: dict[str, int] = {}
    for s in stems.values():
        taken[s] = taken.get(s, 0) + 1
    for path, s in list(stems.items()):
        if taken[s] > 1 or (len(groups[path]) > 1 and any(
            s == m.name for ms in groups.values() for m in ms
        )):
            stems[path] = f"{path.parent.name}-{s}"
    if len(set(stems.values())) < len(stems):
        raise InputError("descriptors of the family give clashing output names", hint="rename them")
    return stems


def _used_lineage(lin: Any, names: Sequence[str], edges: int) -> dict[str, Any]:
    node: dict[str, Any] = {"@type": ["prov:Entity", "cl:Lineage"], "cl:edges": edges}
    family = lin.family.get("name")
    if isinstance(family, str):
        node["sc:name"] = code(family)
    return node


def _check_free_ids(doc: dict[str, Any], ids: Sequence[str], path: Path) -> None:
    taken: set[str] = set()
    for key in ("distribution", "recordSet", _SDO_NS + "distribution", _CR_NS + "recordSet"):
        for node in doc.get(key) or []:
            if isinstance(node, dict):
                taken.update(v for v in (node.get("@id"), node.get("name")) if isinstance(v, str))
    clash = sorted(set(ids) & taken)
    if clash:
        raise DescriptorError(
            f"the descriptor already has {clash[0]!r}, which the enrichment needs",
            path=path,
            hint="rename that RecordSet or FileObject",
        )

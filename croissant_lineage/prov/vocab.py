"""The PROV-O vocabulary of the library: namespaces, the mark, activity classes, minted IRIs, values.

Everything :mod:`croissant_lineage.prov.graph` (the nodes and the graph) and
:mod:`croissant_lineage.enrich` (the descriptors) must spell the same way is declared here
once: the ``cl:`` classes of activity kinds and PROV's derivation subclasses, the IRIs the
library mints for a family's activities, derivations and agents (:func:`family_iri` and
the functions after it: no blank node), the IRIs of findings and schema nodes, JSON-LD
value objects, and the time format (:func:`resolve_time`: never the clock).

The minted IRIs depend on names and kinds only (family, datasets, record sets, fields,
activity kinds, item ids, and the recorded time where an activity has one), never on a
path or the machine: the same inputs give the same IRIs anywhere. Under the family's IRI
``F`` (``https://w3id.org/croissant-lineage/family/<family name>``):

* ``F/activity/<child>--<kind>--<parent>``: a dataset-level activity; a dataset made from
  several parents is made by one activity, ``F/activity/<child>--<kind>--<parent>--<kind>--<parent>...``
  (parents by name: one generation per entity, PROV-CONSTRAINTS);
* ``F/derivation/<child>--<parent>``: its qualified derivation (RecordSets and Fields:
  ``<child>/<record set>[/<field>]--<parent>/...``);
* ``F/derivation/<child>--documented--<parent>``: a documented derivation;
* ``F/derivation/<child dataset>/<child item>#<parent dataset>/<parent item>``: an item
  derivation (item ids percent-encoded as in item IRIs, so ``#`` occurs once);
* ``F/activity/linking[/<time>]``, ``F/activity/enrichment/<descriptor>[/<time>]``: the
  library's own activities (the time, ``20231114T221320Z``, in the IRI when one is
  recorded: two runs at two times are two activities);
* ``F/agent/<source name>``: a findings source that has no URL of its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

import rdflib

from croissant_lineage._version import __version__
from croissant_lineage.croissant.namespaces import CL_NS, MARK, PROV_NS, SCHEMA_NS, XSD_NS
from croissant_lineage.errors import InputError
from croissant_lineage.lineage.schema import ACTIVITIES

__all__ = [
    "AGENT_IRI",
    "CL",
    "FAMILY_ROOT",
    "MARK",
    "PROV",
    "PROV_CONTEXT",
    "SDO",
    "activity_class",
    "activity_iri",
    "activity_iris",
    "agent_iri",
    "code",
    "derivation_class",
    "derivation_iri",
    "documented_iri",
    "enrichment_iri",
    "family_iri",
    "finding_iri",
    "item_derivation_iri",
    "linking_iri",
    "resolve_time",
    "schema_node_iri",
    "slug",
    "text",
    "unwrap",
]


PROV = rdflib.Namespace(PROV_NS)


CL = rdflib.Namespace(CL_NS)


SDO = rdflib.Namespace(SCHEMA_NS)




#: The library as a PROV agent (one IRI per version).
AGENT_IRI = f"{CL_NS}software/croissant-lineage/{__version__}"


#: Prefixes and terms the PROV nodes use; enrichment adds the missing ones to @context.
PROV_CONTEXT: dict[str, str] = {
    "prov": PROV_NS,
    "cl": CL_NS,
    "xsd": XSD_NS,
    "sc": SCHEMA_NS,
}


_ACTIVITY_CLASS = {
    "copy": "Copy",
    "filter": "Filter",
    "option_expansion": "OptionExpansion",
    "re_release": "ReRelease",
    "re_annotation": "ReAnnotation",
    "translation": "Translation",
    "snapshot": "Snapshot",
    "code_translation": "CodeTranslation",
    "perturbation": "Perturbation",
    "templated_variants": "TemplatedVariants",
    "paraphrase": "Paraphrase",
    "format_conversion": "FormatConversion",
    "test_augmentation": "TestAugmentation",
}


# PROV's own subclasses of Derivation, where one says more than "derived".
_DERIVATION_CLASS = {
    "re_release": "Revision",
    "snapshot": "Revision",
    "copy": "Quotation",
    "format_conversion": "Quotation",
}


def activity_class(kind: str) -> str:
    """``cl:`` class of an activity kind (``option_expansion`` -> ``cl:OptionExpansion``).

    Unknown kinds (outside :data:`~croissant_lineage.lineage.schema.ACTIVITIES`) map to
    ``cl:Activity``.
    """
    return f"cl:{_ACTIVITY_CLASS.get(kind, 'Activity')}"


def derivation_class(kind: str) -> str:
    """PROV class of a qualified derivation made by an activity kind.

    ``prov:Revision`` for re-releases and snapshots, ``prov:Quotation`` for copies and
    format conversions (the same contents under new field names), ``prov:Derivation``
    otherwise.
    """
    return f"prov:{_DERIVATION_CLASS.get(kind, 'Derivation')}"


def slug(text: str) -> str:
    """``text`` as a label part: runs of other characters than ``A-Za-z0-9._-`` become ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


#: Root of the IRIs of families: ``<root><family name>``, and under it what the library mints.
FAMILY_ROOT = CL_NS.split("#", 1)[0].rsplit("/", 1)[0] + "/family/"


def family_iri(name: str) -> str:
    """IRI of a family (``https://w3id.org/croissant-lineage/family/mmlu``), from its name."""
    return FAMILY_ROOT + slug(name)


def _path(text: str) -> str:
    """``text`` as IRI path segments: each ``/``-separated part a :func:`slug`."""
    return "/".join(slug(part) for part in text.split("/") if part) or "x"


def activity_iri(family: str, kind: str, parent: str, child: str) -> str:
    """IRI of the activity that made ``child`` from ``parent``: ``<family>/activity/<child>--<kind>--<parent>``.

    Args:
        family: The family's IRI (:func:`family_iri`).
        kind: Activity kind.
        parent: The parent dataset's short name (or IRI).
        child: The child dataset's short name (or IRI).
    """
    return f"{family}/activity/{_path(child)}--{slug(kind)}--{_path(parent)}"


def activity_iris(family: str, derivations: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], str]:
    """IRI of the activity behind each dataset-level derivation: (child, parent) -> IRI.

    A dataset is generated by one activity (PROV-CONSTRAINTS: *generation-uniqueness*): a
    child with one parent gets :func:`activity_iri`; a child with several parents gets one
    activity that used them all, ``<family>/activity/<child>--<kind>--<parent>--<kind>--<parent>...``
    (its parents sorted by name), which every one of its derivations names.

    Args:
        family: The family's IRI (:func:`family_iri`).
        derivations: ``(child, parent, kind)`` of each derivation (names or IRIs); a
            repeated (child, parent) keeps its first kind.
    """
    parents: dict[str, dict[str, str]] = {}
    for child, parent, kind in derivations:
        parents.setdefault(child, {}).setdefault(parent, kind)
    out: dict[tuple[str, str], str] = {}
    for child, kinds in parents.items():
        if len(kinds) == 1:
            ((parent, kind),) = kinds.items()
            out[(child, parent)] = activity_iri(family, kind, parent, child)
            continue
        tail = "--".join(f"{slug(kinds[p])}--{_path(p)}" for p in sorted(kinds))
        shared = f"{family}/activity/{_path(child)}--{tail}"
        out.update({(child, p): shared for p in kinds})
    return out


def derivation_iri(family: str, parent: str, child: str) -> str:
    """IRI of the qualified derivation ``child <- parent``: ``<family>/derivation/<child>--<parent>``
    (``child`` and ``parent`` may be ``dataset/record set[/field]`` paths)."""
    return f"{family}/derivation/{_path(child)}--{_path(parent)}"


def documented_iri(family: str, parent: str, child: str) -> str:
    """IRI of a documented derivation (a child without items here): ``<family>/derivation/<child>--documented--<parent>``."""
    return f"{family}/derivation/{_path(child)}--documented--{_path(parent)}"


def item_derivation_iri(family: str, child_dataset: str, child_item: str, parent_dataset: str, parent_item: str) -> str:
    """IRI of an item derivation: ``<family>/derivation/<child dataset>/<child item>#<parent dataset>/<parent item>``.

    Item ids are percent-encoded as :func:`~croissant_lineage.lineage.schema.item_iri`
    does (``#`` among them), dataset names hold no ``/`` nor ``#``: distinct edges get
    distinct IRIs.
    """
    return (
        f"{family}/derivation/{child_dataset}/{quote(child_item, safe=_ITEM_SAFE)}"
        f"#{parent_dataset}/{quote(parent_item, safe=_ITEM_SAFE)}"
    )


_ITEM_SAFE = "/:@-._~"


def _stamped(base: str, time: str | None) -> str:
    """``base``, then ``/<time>`` in ISO 8601's basic format (``20231114T221320Z``: no ``:``,
    which would end a PROV-N prefix)."""
    return base if time is None else f"{base}/{time.replace('-', '').replace(':', '')}"


def linking_iri(family: str, time: str | None = None) -> str:
    """IRI of the linking activity: ``<family>/activity/linking``, ``/<time>`` when one is recorded."""
    return _stamped(f"{family}/activity/linking", time)


def enrichment_iri(family: str, descriptor: str, time: str | None = None) -> str:
    """IRI of the enrichment of one descriptor (its name or label):
    ``<family>/activity/enrichment/<descriptor>``, ``/<time>`` when one is recorded."""
    return _stamped(f"{family}/activity/enrichment/{_path(descriptor)}", time)


def agent_iri(family: str, name: str) -> str:
    """IRI of an agent known by name only (a findings source without a URL): ``<family>/agent/<name>``."""
    return f"{family}/agent/{slug(name)}"


def finding_iri(finding_id: str) -> str:
    """IRI of a finding: ``cl:finding/<id>``."""
    return f"{CL_NS}finding/{slug(finding_id)}"


def schema_node_iri(dataset_iri: str, node_id: str) -> str:
    """IRI of a RecordSet or Field of a family dataset's descriptor (a convention).

    Croissant gives RecordSets and Fields relative ``@id`` s (``default/options``);
    across descriptors they are named by the dataset's IRI (fragment dropped) as a
    folder: ``https://huggingface.co/datasets/cais/mmlu/test/option_a``.
    """
    root = dataset_iri.split("#", 1)[0].rstrip("/")
    return f"{root}/{quote(node_id, safe=_ITEM_SAFE)}"


def resolve_time(time: str | datetime | int | None = None) -> str | None:
    """The time to record, as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC), never the clock.

    Args:
        time: A datetime (naive = UTC), an ISO 8601 string, or seconds since the epoch.
            None: ``SOURCE_DATE_EPOCH`` when set (the reproducible-builds convention),
            else no time.

    Returns:
        The formatted time, or None when there is none to record.

    Raises:
        InputError: ``time`` (or ``SOURCE_DATE_EPOCH``) cannot be read as a time.
    """
    if time is None:
        env = os.environ.get("SOURCE_DATE_EPOCH")
        if not env:
            return None
        try:
            time = int(env)
        except ValueError:
            raise InputError(f"SOURCE_DATE_EPOCH={env!r} is not an integer") from None
    if isinstance(time, int):
        moment = datetime.fromtimestamp(time, tz=timezone.utc)
    elif isinstance(time, datetime):
        moment = time
    else:
        try:
            moment = datetime.fromisoformat(str(time).replace("Z", "+00:00"))
        except ValueError:
            raise InputError(
                f"time {time!r} is not ISO 8601", hint="e.g. 2025-01-31T12:00:00Z"
            ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def code(value: str) -> dict[str, str]:
    """A string as a JSON-LD value object: a plain literal whatever the document's
    default ``@language`` (Croissant sets ``"en"``), so codes and names stay codes."""
    return {"@value": value}


def text(value: str) -> dict[str, str]:
    """English text as a JSON-LD value object tagged ``en`` whatever the document's default."""
    return {"@value": value, "@language": "en"}


def unwrap(value: Any) -> Any:
    """The plain value of a JSON-LD value object (or list of them); other values as they are."""
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    if isinstance(value, dict) and "@value" in value:
        return value["@value"]
    return value


assert set(_ACTIVITY_CLASS) == set(ACTIVITIES)

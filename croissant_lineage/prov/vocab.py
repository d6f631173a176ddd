"""The PROV-O vocabulary of the library: namespaces, the mark, activity classes, labels, values.

Everything :mod:`croissant_lineage.prov.graph` (the nodes and the graph) and
:mod:`croissant_lineage.enrich` (the descriptors) must spell the same way is declared here
once: the ``cl:`` classes of activity kinds and PROV's derivation subclasses, the stable
blank-node labels of activities and derivations, the IRIs of findings and schema nodes,
JSON-LD value objects, and the time format (:func:`resolve_time`: never the clock).
"""

from __future__ import annotations

import os
import re
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
    "MARK",
    "PROV",
    "PROV_CONTEXT",
    "SDO",
    "activity_class",
    "activity_id",
    "code",
    "derivation_class",
    "derivation_id",
    "finding_iri",
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
}


# PROV's own subclasses of Derivation, where one says more than "derived".
_DERIVATION_CLASS = {
    "re_release": "Revision",
    "snapshot": "Revision",
    "copy": "Quotation",
}


def activity_class(kind: str) -> str:
    """``cl:`` class of an activity kind (``option_expansion`` -> ``cl:OptionExpansion``).

    Unknown kinds (outside :data:`~croissant_lineage.lineage.schema.ACTIVITIES`) map to
    ``cl:Activity``.
    """
    return f"cl:{_ACTIVITY_CLASS.get(kind, 'Activity')}"


def derivation_class(kind: str) -> str:
    """PROV class of a qualified derivation made by an activity kind.

    ``prov:Revision`` for re-releases and snapshots, ``prov:Quotation`` for copies,
    ``prov:Derivation`` otherwise.
    """
    return f"prov:{_DERIVATION_CLASS.get(kind, 'Derivation')}"


def slug(text: str) -> str:
    """``text`` as a label part: runs of other characters than ``A-Za-z0-9._-`` become ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def activity_id(kind: str, parent: str, child: str) -> str:
    """Blank-node label of the activity that made ``child`` from ``parent`` (stable).

    Args:
        kind: Activity kind.
        parent: The parent dataset's short name (or IRI).
        child: The child dataset's short name (or IRI).
    """
    return f"_:cl-{slug(child)}--{slug(kind)}--{slug(parent)}"


def derivation_id(parent: str, child: str) -> str:
    """Blank-node label of the qualified derivation ``child <- parent`` (stable)."""
    return f"_:cl-{slug(child)}--derivation--{slug(parent)}"


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
    return f"{root}/{quote(node_id, safe='/:@-._~')}"


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

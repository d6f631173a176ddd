"""Writing lineage back into Croissant descriptors: marks, one descriptor, a family, the files beside it.

* :mod:`.marks`: which nodes this library added, and :func:`strip_enrichment`;
* :mod:`.descriptor`: dataset-level PROV-O in one descriptor (:func:`enrich_descriptor`,
  :func:`enrich_file`);
* :mod:`.family`: a whole family, at every level (:func:`enrich_family`);
* :mod:`.files`: the lineage files written beside the enriched descriptors;
* :mod:`.index`: the reference index beside them (one item's rows read by ref).

The names below are imported on first use (PEP 562): importing a submodule (``.files``,
``.index``, what ``resolve`` reads) loads neither rdflib nor the PROV-O layer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from croissant_lineage.croissant.mlc import MlcroissantIssues, mlcroissant_issues
    from croissant_lineage.enrich.descriptor import (
        EnrichResult,
        add_values,
        enrich_descriptor,
        enrich_file,
        ensure_context,
        parent_link,
    )
    from croissant_lineage.enrich.family import (
        EnrichedDescriptor,
        FamilyEnrichResult,
        enrich_family,
    )
    from croissant_lineage.enrich.marks import is_ours, strip_enrichment

#: Name -> the module that provides it.
_WHERE = {
    "MlcroissantIssues": "croissant_lineage.croissant.mlc",
    "mlcroissant_issues": "croissant_lineage.croissant.mlc",
    **dict.fromkeys(("EnrichResult", "add_values", "enrich_descriptor", "enrich_file", "ensure_context",
                     "parent_link"), "croissant_lineage.enrich.descriptor"),
    **dict.fromkeys(("EnrichedDescriptor", "FamilyEnrichResult", "enrich_family"), "croissant_lineage.enrich.family"),
    **dict.fromkeys(("is_ours", "strip_enrichment"), "croissant_lineage.enrich.marks"),
}

__all__ = [
    "EnrichResult",
    "EnrichedDescriptor",
    "FamilyEnrichResult",
    "MlcroissantIssues",
    "add_values",
    "enrich_descriptor",
    "enrich_family",
    "enrich_file",
    "ensure_context",
    "is_ours",
    "mlcroissant_issues",
    "parent_link",
    "strip_enrichment",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value  # (once: later look-ups do not come here)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

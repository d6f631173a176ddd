"""Writing lineage back into Croissant descriptors: marks, one descriptor, a family, the files beside it.

* :mod:`.marks`: which nodes this library added, and :func:`strip_enrichment`;
* :mod:`.descriptor`: dataset-level PROV-O in one descriptor (:func:`enrich_descriptor`,
  :func:`enrich_file`);
* :mod:`.family`: a whole family, at every level (:func:`enrich_family`);
* :mod:`.files`: the lineage files written beside the enriched descriptors.
"""

from croissant_lineage.croissant.mlc import MlcroissantIssues, mlcroissant_issues
from croissant_lineage.enrich.descriptor import (
    EnrichResult,
    add_values,
    enrich_descriptor,
    enrich_file,
    ensure_context,
    parent_link,
)
from croissant_lineage.enrich.family import EnrichedDescriptor, FamilyEnrichResult, enrich_family
from croissant_lineage.enrich.marks import is_ours, strip_enrichment

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

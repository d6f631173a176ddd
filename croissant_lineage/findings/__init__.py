"""Audit findings: the model, files, Parquet, importers, routing, corrections, carry-forward, report.

The finding model (:mod:`~croissant_lineage.findings.model`) and findings files
(:mod:`~croissant_lineage.findings.files`) are re-exported here, so
``from croissant_lineage.findings import Finding, load_findings`` works.
"""

from croissant_lineage.findings.files import (
    dates_to_text,
    entry_validator,
    findings_from_document,
    findings_to_document,
    load_findings,
    save_findings,
)
from croissant_lineage.findings.model import (
    CONFIRMED,
    KEY_KINDS,
    KINDS,
    STATUSES,
    TARGETS,
    Finding,
    Source,
    StatusChange,
    finding_id,
)

__all__ = [
    "CONFIRMED",
    "KEY_KINDS",
    "KINDS",
    "STATUSES",
    "TARGETS",
    "Finding",
    "Source",
    "StatusChange",
    "dates_to_text",
    "entry_validator",
    "finding_id",
    "findings_from_document",
    "findings_to_document",
    "load_findings",
    "save_findings",
]

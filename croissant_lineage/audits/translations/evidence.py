"""Evidence of an item that survives translation, and the agreement score of two items'
evidence: :mod:`croissant_lineage.linking.evidence` (linking uses it to check index
joins), under the audit's names."""

from __future__ import annotations

from croissant_lineage.linking.evidence import (
    MIN_EVIDENCE_WEIGHT,
    Evidence,
    NumberReader,
    evidence_score,
    extract_evidence,
    number_reader,
)

__all__ = ["MIN_EVIDENCE_WEIGHT", "Evidence", "NumberReader", "evidence_score", "extract_evidence", "number_reader"]

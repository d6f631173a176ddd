"""Witnessing a snapshot: admission, contested items and tallies, on an item table or a linked family."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from croissant_lineage.audits.witnesses.admission import admit
from croissant_lineage.audits.witnesses.archives import ArchiveLimits
from croissant_lineage.audits.witnesses.contested import (
    ClaimRouting,
    ContestedClaim,
    claims_from_findings,
    contested_items,
)
from croissant_lineage.audits.witnesses.report import WitnessReport
from croissant_lineage.audits.witnesses.tallies import tally
from croissant_lineage.lineage.model import Lineage

__all__ = ["witness", "witness_lineage"]


def witness(
    items: pa.Table,
    archives: Sequence[str | Path],
    claims: Iterable[ContestedClaim | Sequence[str]],
    *,
    limits: ArchiveLimits | None = None,
    progress: bool = False,
) -> WitnessReport:
    """Admit archives against a snapshot and tally the picks on the contested items.

    Args:
        items: The snapshot's items (one dataset).
        archives: Prediction archives (zip files).
        claims: ``(finding_id, item_ref, proposed_text)`` claims on the snapshot's items.
        limits: Size limits for reading archives.
        progress: Show a progress bar over the archives.

    Returns:
        The :class:`WitnessReport`.

    Raises:
        DataError: ``items`` is not one dataset's item table.
        InputError, UnsafePathError, SizeLimitError: an archive is refused.
    """
    return tally(admit(items, archives, limits=limits, progress=progress), contested_items(items, claims))


def witness_lineage(
    lineage: Lineage,
    archives: Sequence[str | Path],
    *,
    dataset: str,
    findings: Sequence[Any] | None = None,
    limits: ArchiveLimits | None = None,
    progress: bool = False,
) -> WitnessReport:
    """Witness one snapshot of a linked family with prediction archives and findings.

    Findings on the snapshot's own items are used directly; findings on other datasets
    are routed through the lineage's edges (see :func:`claims_from_findings`).

    Args:
        lineage: The linked family; it must hold the snapshot's items (and, to route
            findings made on other datasets, the items and edges on the way).
        archives: Prediction archives (zip files), read in the order given.
        dataset: The snapshot to judge (an MMLU-Pro snapshot dataset of the family).
        findings: Findings (e.g. :class:`croissant_lineage.findings.model.Finding`);
            without them the report has the admission only.
        limits: Size limits for reading archives.
        progress: Show a progress bar over the archives.

    Returns:
        The :class:`WitnessReport`.

    Raises:
        InputError: the lineage holds no items of ``dataset``; an archive is refused.
        UnsafePathError, SizeLimitError, DataError: refused inputs.
    """
    items = lineage.items_of(dataset, required=True)
    routing = ClaimRouting()
    if findings is not None:
        off_snapshot = any(f.item.partition(":")[0] != dataset for f in findings)
        routing = claims_from_findings(
            findings,
            dataset=dataset,
            items=lineage.items if off_snapshot else None,
            edges=lineage.edges if off_snapshot else None,
        )
    report = witness(items, archives, routing.claims, limits=limits, progress=progress)
    report.unrouted = routing.unrouted
    return report

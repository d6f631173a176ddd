"""Importers: published audit annotations as :class:`~croissant_lineage.findings.model.Finding`\\ s.

* :func:`import_redux`: MMLU-Redux annotations (raw files or the 2.0 excerpt), attached
  to the MMLU items they annotate through the lineage;
* :func:`import_mmlu_pro_errata`: a community errata list of MMLU-Pro items.

Each returns an :class:`ImportResult` (the findings, counts per label and kind, and
what could not be attached).
"""

from __future__ import annotations

from croissant_lineage.findings.importers._common import ImportResult, Unattached
from croissant_lineage.findings.importers.errata import import_mmlu_pro_errata
from croissant_lineage.findings.importers.redux import import_redux, normalize_label, resolve_answer

__all__ = [
    "ImportResult",
    "Unattached",
    "import_mmlu_pro_errata",
    "import_redux",
    "normalize_label",
    "resolve_answer",
]

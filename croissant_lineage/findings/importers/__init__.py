"""Importers: published audit annotations as :class:`~croissant_lineage.findings.model.Finding`\\ s.

One module per source, each declaring its ``IMPORTER`` (see
:mod:`~croissant_lineage.findings.importers._registry`); the registry finds them, and
``croissant-lineage findings import NAME`` is generated from it:

* ``redux`` (:func:`import_redux`): MMLU-Redux annotations (raw files or the 2.0
  excerpt), attached to the MMLU items they annotate through the lineage;
* ``errata`` (:func:`import_mmlu_pro_errata`): a community errata list of MMLU-Pro items.

Each returns an :class:`ImportResult` (the findings, counts per label and kind, and
what could not be attached). A new source is one new module here that defines
``IMPORTER``; code outside the package calls :func:`register_importer`.
"""

from __future__ import annotations

from croissant_lineage.findings.importers._common import ImportResult, Unattached
from croissant_lineage.findings.importers._registry import (
    Importer,
    ImporterArgument,
    get_importer,
    importers,
    register_importer,
    unregister_importer,
)
from croissant_lineage.findings.importers.errata import import_mmlu_pro_errata
from croissant_lineage.findings.importers.redux import import_redux, normalize_label, resolve_answer

__all__ = [
    "ImportResult",
    "Importer",
    "ImporterArgument",
    "Unattached",
    "get_importer",
    "import_mmlu_pro_errata",
    "import_redux",
    "importers",
    "normalize_label",
    "register_importer",
    "resolve_answer",
    "unregister_importer",
]

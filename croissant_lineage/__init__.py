"""croissant_lineage: item-level lineage for benchmark families described with Croissant.

Read benchmarks' Croissant descriptors, reconstruct which item came from which (with
the evidence), route audit findings along that lineage, and write it all back as
W3C PROV-O in enriched Croissant JSON-LD.

Example:
    >>> import croissant_lineage as cl
    >>> fam = cl.load_family("mmlu")
    >>> lineage = cl.link(fam, data_dir="../shared/data")        # doctest: +SKIP
    >>> cl.family_of(lineage, "mmlu-pro:3542").ancestors           # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from .croissant import Descriptor, read_descriptor
from .describe import DescribeOptions, describe
from .errors import (
    DataError,
    DescriptorError,
    FindingsError,
    InputError,
    LineageError,
    OutputExistsError,
    SpecError,
    UnsafePathError,
)
from .family import DatasetSpec, Derivation, FamilySpec, LinkRule, load_family
from .graph import Edge, Family, ItemRecord, LineageGraph, Relative, family_of
from .hub import descriptor_for
from .items import load_items
from .lineage import Lineage
from .linking import link
from .normalize import normalize_option, normalize_stem
from .options import OptionDiff, diff_options

# Functions named like their own module are imported eagerly: a lazy attribute would be
# shadowed by the submodule once anything imports it.
from .publish import publish
from .resolve import resolve
from .validate import validate

if TYPE_CHECKING:
    from .archives import ArchiveLimits, Prediction, inspect_archive, iter_archive, list_archives
    from .carry import CarriedFinding, carry_forward, carry_through
    from .contested import ContestedItem, contested_items
    from .corrections import Corrections, apply_corrections
    from .display import to_html
    from .enrich import (
        EnrichResult,
        enrich_descriptor,
        enrich_family,
        enrich_file,
        strip_enrichment,
    )
    from .findings import Finding, Source, StatusChange, finding_id, load_findings, save_findings
    from .history import (
        HistoryReport,
        Revision,
        SnapshotDiff,
        Version,
        compare_snapshots,
        family_snapshots,
        item_history,
        revision_pairs,
        snapshot_history,
    )
    from .importers import ImportResult, import_mmlu_pro_errata, import_redux
    from .jsonld import read_graph, to_graph
    from .picture import FamilyPicture, family_picture
    from .plots import join_verification_plot, snapshot_changes_plot, witness_picks_plot
    from .provenance import ParentLink, ProvResult, build_graph, family_graph, write_prov
    from .publish import PublishPlan
    from .report import FamilyReport, Figure, family_report
    from .resolve import Resolver
    from .routing import Queue, QueueRow, route
    from .synthetic import SyntheticFamily, generate_family
    from .translations import (
        ItemVerification,
        TranslationReport,
        detect_shift,
        family_translations,
        verify_translations,
    )
    from .validate import Issue, Report, codes_table, validate
    from .witnesses import (
        WitnessEvidence,
        WitnessReport,
        admit,
        tally,
        with_witness_evidence,
        witness,
        witness_family,
    )

_LAZY: dict[str, str] = {
    "Finding": "findings",
    "Source": "findings",
    "StatusChange": "findings",
    "load_findings": "findings",
    "save_findings": "findings",
    "finding_id": "findings",
    "ImportResult": "importers",
    "import_redux": "importers",
    "import_mmlu_pro_errata": "importers",
    "Queue": "routing",
    "QueueRow": "routing",
    "route": "routing",
    "Corrections": "corrections",
    "apply_corrections": "corrections",
    "FamilyReport": "report",
    "Figure": "report",
    "family_report": "report",
    "WitnessReport": "witnesses",
    "WitnessEvidence": "witnesses",
    "admit": "witnesses",
    "tally": "witnesses",
    "witness": "witnesses",
    "witness_family": "witnesses",
    "with_witness_evidence": "witnesses",
    "ArchiveLimits": "archives",
    "Prediction": "archives",
    "iter_archive": "archives",
    "inspect_archive": "archives",
    "list_archives": "archives",
    "ContestedItem": "contested",
    "contested_items": "contested",
    "SnapshotDiff": "history",
    "HistoryReport": "history",
    "Revision": "history",
    "Version": "history",
    "compare_snapshots": "history",
    "item_history": "history",
    "family_snapshots": "history",
    "snapshot_history": "history",
    "revision_pairs": "history",
    "TranslationReport": "translations",
    "ItemVerification": "translations",
    "verify_translations": "translations",
    "family_translations": "translations",
    "detect_shift": "translations",
    "CarriedFinding": "carry",
    "carry_forward": "carry",
    "carry_through": "carry",
    "Issue": "validate",
    "Report": "validate",
    "codes_table": "validate",
    "PublishPlan": "publish",
    "FamilyPicture": "picture",
    "family_picture": "picture",
    "to_html": "display",
    "witness_picks_plot": "plots",
    "snapshot_changes_plot": "plots",
    "join_verification_plot": "plots",
    "EnrichResult": "enrich",
    "enrich_descriptor": "enrich",
    "enrich_file": "enrich",
    "enrich_family": "enrich",
    "strip_enrichment": "enrich",
    "FamilyEnrichResult": "enrich",
    "mlcroissant_issues": "enrich",
    "ParentLink": "provenance",
    "ProvResult": "provenance",
    "read_graph": "jsonld",
    "to_graph": "jsonld",
    "Resolver": "resolve",
    "build_graph": "provenance",
    "family_graph": "provenance",
    "write_prov": "provenance",
    "SyntheticFamily": "synthetic",
    "generate_family": "synthetic",
}


def __getattr__(name: str) -> Any:
    """Import the heavier parts (rdflib, matplotlib, mlcroissant...) on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ArchiveLimits",
    "CarriedFinding",
    "ContestedItem",
    "Corrections",
    "DataError",
    "DatasetSpec",
    "Derivation",
    "DescribeOptions",
    "Descriptor",
    "DescriptorError",
    "Edge",
    "EnrichResult",
    "Family",
    "FamilyEnrichResult",
    "FamilyPicture",
    "FamilyReport",
    "FamilySpec",
    "Figure",
    "Finding",
    "FindingsError",
    "HistoryReport",
    "ImportResult",
    "InputError",
    "Issue",
    "ItemRecord",
    "ItemVerification",
    "Lineage",
    "LineageError",
    "LineageGraph",
    "LinkRule",
    "OptionDiff",
    "OutputExistsError",
    "ParentLink",
    "Prediction",
    "ProvResult",
    "PublishPlan",
    "Queue",
    "QueueRow",
    "Relative",
    "Report",
    "Resolver",
    "Revision",
    "SnapshotDiff",
    "Source",
    "SpecError",
    "StatusChange",
    "SyntheticFamily",
    "TranslationReport",
    "UnsafePathError",
    "Version",
    "WitnessEvidence",
    "WitnessReport",
    "__version__",
    "admit",
    "apply_corrections",
    "build_graph",
    "carry_forward",
    "carry_through",
    "codes_table",
    "compare_snapshots",
    "contested_items",
    "describe",
    "descriptor_for",
    "detect_shift",
    "diff_options",
    "enrich_descriptor",
    "enrich_family",
    "enrich_file",
    "family_graph",
    "family_of",
    "family_picture",
    "family_report",
    "family_snapshots",
    "family_translations",
    "finding_id",
    "generate_family",
    "import_mmlu_pro_errata",
    "import_redux",
    "inspect_archive",
    "item_history",
    "iter_archive",
    "join_verification_plot",
    "link",
    "list_archives",
    "load_family",
    "load_findings",
    "load_items",
    "mlcroissant_issues",
    "normalize_option",
    "normalize_stem",
    "publish",
    "read_descriptor",
    "read_graph",
    "resolve",
    "revision_pairs",
    "route",
    "save_findings",
    "snapshot_changes_plot",
    "snapshot_history",
    "strip_enrichment",
    "tally",
    "to_graph",
    "to_html",
    "validate",
    "verify_translations",
    "with_witness_evidence",
    "witness",
    "witness_family",
    "witness_picks_plot",
    "write_prov",
]

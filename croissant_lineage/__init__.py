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

from croissant_lineage._version import __version__
from croissant_lineage.croissant.describe import DescribeOptions, describe
from croissant_lineage.croissant.descriptor import Descriptor, read_descriptor
from croissant_lineage.croissant.hub import descriptor_for
from croissant_lineage.errors import (
    DataError,
    DescriptorError,
    FindingsError,
    InputError,
    LineageError,
    OutputExistsError,
    SpecError,
    UnsafePathError,
)
from croissant_lineage.family.spec import DatasetSpec, Derivation, FamilySpec, LinkRule, load_family

# Functions named like their own module are imported eagerly: a lazy attribute would be
# shadowed by the submodule once anything imports it.
from croissant_lineage.hub.publish import publish
from croissant_lineage.lineage.graph import (
    Edge,
    Family,
    ItemRecord,
    LineageGraph,
    Relative,
    family_of,
)
from croissant_lineage.lineage.items import load_items
from croissant_lineage.lineage.model import Lineage
from croissant_lineage.linking.linker import link
from croissant_lineage.linking.normalize import normalize_option, normalize_stem
from croissant_lineage.linking.options import OptionDiff, diff_options
from croissant_lineage.resolve import resolve
from croissant_lineage.validate import validate

if TYPE_CHECKING:
    from croissant_lineage.audits.history import (
        HistoryReport,
        Version,
        item_history,
        revision_pairs,
    )
    from croissant_lineage.audits.translations import (
        ItemVerification,
        TranslationReport,
        detect_shift,
        verify_translations,
    )
    from croissant_lineage.audits.witnesses import (
        ArchiveLimits,
        ContestedItem,
        Prediction,
        WitnessEvidence,
        WitnessReport,
        admit,
        contested_items,
        inspect_archive,
        iter_archive,
        list_archives,
        tally,
        with_witness_evidence,
        witness,
    )
    from croissant_lineage.croissant.jsonld import read_graph, to_graph
    from croissant_lineage.enrich.descriptor import EnrichResult, enrich_descriptor, enrich_file
    from croissant_lineage.enrich.family import enrich_family
    from croissant_lineage.enrich.marks import strip_enrichment
    from croissant_lineage.findings.carry import CarriedFinding, carry_forward, carry_through
    from croissant_lineage.findings.corrections import Corrections, apply_corrections
    from croissant_lineage.findings.files import load_findings, save_findings
    from croissant_lineage.findings.importers import (
        ImportResult,
        import_mmlu_pro_errata,
        import_redux,
    )
    from croissant_lineage.findings.model import Finding, Source, StatusChange, finding_id
    from croissant_lineage.findings.report import FamilyReport, Figure, family_report
    from croissant_lineage.findings.routing import Queue, QueueRow, route
    from croissant_lineage.hub.publish import PublishPlan
    from croissant_lineage.linking.snapshotdiff import Revision, SnapshotDiff, compare_snapshots
    from croissant_lineage.prov.graph import ParentLink, build_graph, family_graph
    from croissant_lineage.prov.serialize import ProvResult, write_prov
    from croissant_lineage.render.html import to_html
    from croissant_lineage.render.picture import FamilyPicture, family_picture
    from croissant_lineage.render.plots import (
        join_verification_plot,
        snapshot_changes_plot,
        witness_picks_plot,
    )
    from croissant_lineage.resolve import Resolver
    from croissant_lineage.testing.synthetic import SyntheticFamily, generate_family
    from croissant_lineage.validate import Issue, Report, codes_table, validate
    from croissant_lineage.workflows import (
        family_snapshots,
        family_translations,
        snapshot_history,
        witness_family,
    )

_LAZY: dict[str, str] = {
    "Finding": "findings.model",
    "Source": "findings.model",
    "StatusChange": "findings.model",
    "load_findings": "findings.files",
    "save_findings": "findings.files",
    "finding_id": "findings.model",
    "ImportResult": "findings.importers",
    "import_redux": "findings.importers",
    "import_mmlu_pro_errata": "findings.importers",
    "Queue": "findings.routing",
    "QueueRow": "findings.routing",
    "route": "findings.routing",
    "Corrections": "findings.corrections",
    "apply_corrections": "findings.corrections",
    "FamilyReport": "findings.report",
    "Figure": "findings.report",
    "family_report": "findings.report",
    "WitnessReport": "audits.witnesses",
    "WitnessEvidence": "audits.witnesses",
    "admit": "audits.witnesses",
    "tally": "audits.witnesses",
    "witness": "audits.witnesses",
    "witness_family": "workflows",
    "with_witness_evidence": "audits.witnesses",
    "ArchiveLimits": "audits.witnesses",
    "Prediction": "audits.witnesses",
    "iter_archive": "audits.witnesses",
    "inspect_archive": "audits.witnesses",
    "list_archives": "audits.witnesses",
    "ContestedItem": "audits.witnesses",
    "contested_items": "audits.witnesses",
    "SnapshotDiff": "linking.snapshotdiff",
    "HistoryReport": "audits.history",
    "Revision": "linking.snapshotdiff",
    "Version": "audits.history",
    "compare_snapshots": "linking.snapshotdiff",
    "item_history": "audits.history",
    "family_snapshots": "workflows",
    "snapshot_history": "workflows",
    "revision_pairs": "audits.history",
    "TranslationReport": "audits.translations",
    "ItemVerification": "audits.translations",
    "verify_translations": "audits.translations",
    "family_translations": "workflows",
    "detect_shift": "audits.translations",
    "CarriedFinding": "findings.carry",
    "carry_forward": "findings.carry",
    "carry_through": "findings.carry",
    "Issue": "validate",
    "Report": "validate",
    "codes_table": "validate",
    "PublishPlan": "hub.publish",
    "FamilyPicture": "render.picture",
    "family_picture": "render.picture",
    "to_html": "render.html",
    "witness_picks_plot": "render.plots",
    "snapshot_changes_plot": "render.plots",
    "join_verification_plot": "render.plots",
    "EnrichResult": "enrich.descriptor",
    "enrich_descriptor": "enrich.descriptor",
    "enrich_file": "enrich.descriptor",
    "enrich_family": "enrich.family",
    "strip_enrichment": "enrich.marks",
    "FamilyEnrichResult": "enrich.family",
    "mlcroissant_issues": "croissant.mlc",
    "ParentLink": "prov.graph",
    "ProvResult": "prov.serialize",
    "read_graph": "croissant.jsonld",
    "to_graph": "croissant.jsonld",
    "Resolver": "resolve",
    "build_graph": "prov.graph",
    "family_graph": "prov.graph",
    "write_prov": "prov.serialize",
    "SyntheticFamily": "testing.synthetic",
    "generate_family": "testing.synthetic",
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

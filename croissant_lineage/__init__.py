"""croissant_lineage: item-level lineage for benchmark families described with Croissant.

Read benchmarks' Croissant descriptors, reconstruct which item came from which (with
the evidence), route audit findings along that lineage, and write it all back as
W3C PROV-O in enriched Croissant JSON-LD.

Example:
    >>> import croissant_lineage as cl
    >>> fam = cl.load_family("mmlu")
    >>> lineage = cl.link(fam, data_dir="../shared/data")           # doctest: +SKIP
    >>> cl.relatives_of(lineage, "mmlu-pro:3542").ancestors           # doctest: +SKIP

The public API is declared once, in :data:`_API` (module -> names). ``__all__``, the lazy
loading below and ``dir()`` derive from it; the ``TYPE_CHECKING`` imports repeat it for type
checkers, and ``tests/test_public_api.py`` fails when the two drift. Everything is imported
on first use: ``import croissant_lineage`` loads neither rdflib, nor pyarrow, nor any stage.
Two functions are named like their own module (``resolve``, ``validate``): the package's
module type keeps a submodule import from replacing them (:class:`_Package`). Old names of
version 1 stay one release as deprecated aliases.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from typing import TYPE_CHECKING, Any

from croissant_lineage import _results
from croissant_lineage._version import __version__

#: The public API: module (below ``croissant_lineage``) -> the names it provides.
_API: dict[str, tuple[str, ...]] = {
    "audits.history": (
        "HistoryReport",
        "Version",
        "item_history",
        "revision_pairs",
    ),
    "audits.translations": (
        "ItemVerification",
        "TranslationReport",
        "detect_shift",
        "verify_translations",
    ),
    "audits.witnesses": (
        "ArchiveLimits",
        "ContestedItem",
        "Prediction",
        "WitnessEvidence",
        "WitnessReport",
        "admit",
        "claims_from_findings",
        "contested_items",
        "inspect_archive",
        "iter_archive",
        "list_archives",
        "tally",
        "with_witness_evidence",
        "witness",
    ),
    "croissant.describe": (
        "DescribeOptions",
        "describe",
    ),
    "croissant.descriptor": (
        "Descriptor",
        "read_descriptor",
    ),
    "croissant.hub": ("descriptor_for",),
    "croissant.jsonld": (
        "read_graph",
        "to_graph",
    ),
    "croissant.mlc": ("mlcroissant_issues",),
    "discovery.family": ("FamilyDiscovery", "discover_family"),
    "discovery.propose": ("Discovery", "Proposal", "discover"),
    "discovery.roles": ("RoleGuess", "infer_roles"),
    "enrich.descriptor": (
        "EnrichResult",
        "enrich_descriptor",
        "enrich_file",
    ),
    "enrich.family": ("FamilyEnrichResult",),
    "enrich.marks": ("strip_enrichment",),
    "errors": (
        "ArgumentError",
        "DataError",
        "DescriptorError",
        "FindingsError",
        "InputError",
        "LineageError",
        "OutputError",
        "OutputExistsError",
        "PipelineError",
        "SpecError",
        "UnsafePathError",
    ),
    "family.spec": (
        "DatasetSpec",
        "Derivation",
        "FamilySpec",
        "LinkRule",
        "load_family",
    ),
    "findings.carry": (
        "CarriedFinding",
        "carry_forward",
        "carry_through",
    ),
    "findings.corrections": (
        "Corrections",
        "apply_corrections",
    ),
    "findings.files": (
        "load_findings",
        "save_findings",
    ),
    "findings.importers": (
        "ImportResult",
        "import_mmlu_pro_errata",
        "import_redux",
    ),
    "findings.model": (
        "Finding",
        "Source",
        "StatusChange",
        "finding_id",
    ),
    "findings.report": (
        "FamilyReport",
        "Metric",
        "family_report",
    ),
    "findings.routing": (
        "Queue",
        "QueueRow",
        "route",
        "route_item",
    ),
    "hub.publish": (
        "PublishPlan",
        "publish",
    ),
    "lineage.graph": (
        "Edge",
        "ItemRecord",
        "LineageGraph",
        "Relative",
        "Relatives",
        "relatives_of",
    ),
    "lineage.hf": ("to_hf_dataset",),
    "lineage.items": ("load_items",),
    "lineage.model": ("Lineage",),
    "linking.normalize": (
        "normalize_option",
        "normalize_stem",
    ),
    "linking.options": (
        "OptionDiff",
        "diff_options",
    ),
    "linking.snapshotdiff": (
        "Revision",
        "SnapshotDiff",
        "compare_snapshots",
    ),
    "prov.graph": (
        "ParentLink",
        "family_graph",
    ),
    "prov.serialize": (
        "ProvResult",
        "write_prov",
    ),
    "prov.triples": ("build_graph",),
    "render.html": ("to_html",),
    "render.picture": (
        "FamilyPicture",
        "family_picture",
    ),
    "render.plots": (
        "join_verification_plot",
        "snapshot_changes_plot",
        "witness_picks_plot",
    ),
    "resolve": (
        "Resolver",
        "resolve",
    ),
    "testing.synthetic": (
        "SyntheticFamily",
        "generate_family",
    ),
    "validate": (
        "Issue",
        "ValidationReport",
        "codes_table",
        "validate",
    ),
    "workflows": (
        "compare_family_snapshots",
        "enrich_family",
        "link",
        "load_datasets",
        "snapshot_history",
        "verify_family_translations",
        "witness_family",
    ),
}

#: Version 1 names -> their version 2 names (deprecated; removed in the next release).
_DEPRECATED: dict[str, str] = {
    "Family": "Relatives",
    "Figure": "Metric",
    "Report": "ValidationReport",
    "family_of": "relatives_of",
    "family_snapshots": "compare_family_snapshots",
    "family_translations": "verify_family_translations",
}

_MODULE_OF: dict[str, str] = {name: module for module, names in _API.items() for name in names}

__all__ = sorted([*_MODULE_OF, "__version__"])

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
        claims_from_findings,
        contested_items,
        inspect_archive,
        iter_archive,
        list_archives,
        tally,
        with_witness_evidence,
        witness,
    )
    from croissant_lineage.croissant.describe import DescribeOptions, describe
    from croissant_lineage.croissant.descriptor import Descriptor, read_descriptor
    from croissant_lineage.croissant.hub import descriptor_for
    from croissant_lineage.croissant.jsonld import read_graph, to_graph
    from croissant_lineage.croissant.mlc import mlcroissant_issues
    from croissant_lineage.discovery.family import FamilyDiscovery, discover_family
    from croissant_lineage.discovery.propose import Discovery, Proposal, discover
    from croissant_lineage.discovery.roles import RoleGuess, infer_roles
    from croissant_lineage.enrich.descriptor import EnrichResult, enrich_descriptor, enrich_file
    from croissant_lineage.enrich.family import FamilyEnrichResult
    from croissant_lineage.enrich.marks import strip_enrichment
    from croissant_lineage.errors import (
        ArgumentError,
        DataError,
        DescriptorError,
        FindingsError,
        InputError,
        LineageError,
        OutputError,
        OutputExistsError,
        PipelineError,
        SpecError,
        UnsafePathError,
    )
    from croissant_lineage.family.spec import (
        DatasetSpec,
        Derivation,
        FamilySpec,
        LinkRule,
        load_family,
    )
    from croissant_lineage.findings.carry import CarriedFinding, carry_forward, carry_through
    from croissant_lineage.findings.corrections import Corrections, apply_corrections
    from croissant_lineage.findings.files import load_findings, save_findings
    from croissant_lineage.findings.importers import (
        ImportResult,
        import_mmlu_pro_errata,
        import_redux,
    )
    from croissant_lineage.findings.model import Finding, Source, StatusChange, finding_id
    from croissant_lineage.findings.report import FamilyReport, Metric, family_report
    from croissant_lineage.findings.routing import Queue, QueueRow, route, route_item
    from croissant_lineage.hub.publish import PublishPlan, publish
    from croissant_lineage.lineage.graph import (
        Edge,
        ItemRecord,
        LineageGraph,
        Relative,
        Relatives,
        relatives_of,
    )
    from croissant_lineage.lineage.hf import to_hf_dataset
    from croissant_lineage.lineage.items import load_items
    from croissant_lineage.lineage.model import Lineage
    from croissant_lineage.linking.normalize import normalize_option, normalize_stem
    from croissant_lineage.linking.options import OptionDiff, diff_options
    from croissant_lineage.linking.snapshotdiff import Revision, SnapshotDiff, compare_snapshots
    from croissant_lineage.prov.graph import ParentLink, family_graph
    from croissant_lineage.prov.serialize import ProvResult, write_prov
    from croissant_lineage.prov.triples import build_graph
    from croissant_lineage.render.html import to_html
    from croissant_lineage.render.picture import FamilyPicture, family_picture
    from croissant_lineage.render.plots import (
        join_verification_plot,
        snapshot_changes_plot,
        witness_picks_plot,
    )
    from croissant_lineage.resolve import Resolver, resolve
    from croissant_lineage.testing.synthetic import SyntheticFamily, generate_family
    from croissant_lineage.validate import Issue, ValidationReport, codes_table, validate
    from croissant_lineage.workflows import (
        compare_family_snapshots,
        enrich_family,
        link,
        load_datasets,
        snapshot_history,
        verify_family_translations,
        witness_family,
    )


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (rdflib, matplotlib... load only when needed)."""
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        warnings.warn(
            f"croissant_lineage.{name} is deprecated; use croissant_lineage.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return __getattr__(new)
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


class _Package(types.ModuleType):
    """The package's module type: importing a submodule named like a public function
    (``croissant_lineage.resolve``, ``croissant_lineage.validate``) leaves the package's
    name to the function, which :func:`__getattr__` imports on first use."""

    def __setattr__(self, name: str, value: Any) -> None:
        if (
            isinstance(value, types.ModuleType)
            and value.__name__ == f"{__name__}.{name}"
            and name in _MODULE_OF
        ):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

# The presentation sits on top: it is attached from here (the package, above every stage),
# imported the first time a result is shown, never pulled up from below.
_results.add_renderer_source(lambda: importlib.import_module(f"{__name__}.render"))

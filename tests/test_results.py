"""The result protocol: every public result type has ``to_dict``, ``__str__`` and
``_repr_html_``, the last two from the registry of :mod:`croissant_lineage._results`;
and the layers below ``render/`` never import it."""

from __future__ import annotations

import ast
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

import croissant_lineage as cl
from croissant_lineage._results import Result, html_renderer

PACKAGE = Path(cl.__file__).resolve().parent
TOY = PACKAGE.parent / "examples" / "toy"

#: What the public functions return: each one is a Result.
RESULT_TYPES = {
    "Corrections", "Discovery", "EnrichResult", "FamilyDiscovery", "FamilyEnrichResult", "FamilyPicture", "FamilyReport", "Relatives",
    "Finding", "HistoryReport", "ImportResult", "Lineage", "ProvResult", "PublishPlan", "Queue",
    "ValidationReport", "SnapshotDiff", "SyntheticFamily", "TranslationReport", "WitnessReport",
}

#: Public classes that are not results: rows of a result, inputs, options and services.
NOT_RESULTS = {
    # rows and records held by a result
    "CarriedFinding", "ContestedItem", "Edge", "Metric", "Issue", "ItemRecord", "ItemVerification",
    "OptionDiff", "ParentLink", "Prediction", "Proposal", "QueueRow", "Relative", "Revision", "RoleGuess", "Source",
    "StatusChange", "Version", "WitnessEvidence",
    # inputs, options, services
    "ArchiveLimits", "DatasetSpec", "Derivation", "DescribeOptions", "Descriptor", "FamilySpec",
    "LineageGraph", "LinkRule", "Resolver",
}

#: Result types whose text view is a ``__str__`` on the class: none, every text view is a
#: renderer registered in ``render/text.py`` (the test below keeps it so).
STR_ON_THE_CLASS: set[str] = set()

#: Renderers with a table of their own (the other results show their text view).
WITH_HTML_VIEW = {
    "FamilyPicture", "FamilyReport", "Finding", "HistoryReport", "ImportResult", "Lineage", "Relatives",
    "Queue", "ValidationReport", "SnapshotDiff", "TranslationReport", "WitnessReport",
}


def _public_classes() -> dict[str, type]:
    out = {}
    for name in cl.__all__:
        obj = getattr(cl, name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            out[name] = obj
    return out


def test_every_public_class_is_classified() -> None:
    classes = set(_public_classes())
    assert not RESULT_TYPES & NOT_RESULTS
    assert classes - RESULT_TYPES - NOT_RESULTS == set(), "a new public class: is it a result?"
    assert classes >= RESULT_TYPES, "a result type is no longer public"


@pytest.mark.parametrize("name", sorted(RESULT_TYPES))
def test_result_types_have_the_three_views(name: str) -> None:
    cls = _public_classes()[name]
    assert issubclass(cls, Result), f"{name} must inherit croissant_lineage._results.Result"
    assert cls.to_dict is not Result.to_dict, f"{name} has no to_dict()"
    assert cls._repr_html_ is Result._repr_html_, f"{name}._repr_html_ must come from the registry"
    if name in STR_ON_THE_CLASS:
        assert cls.__str__ is not Result.__str__, f"{name}: remove it from STR_ON_THE_CLASS"
    else:
        assert cls.__str__ is Result.__str__, f"{name}.__str__ must come from the registry"


def test_html_views_are_registered_by_type() -> None:
    import croissant_lineage.render.picture  # noqa: F401  (registers FamilyPicture's view)

    for name in WITH_HTML_VIEW:
        cls = _public_classes()[name]
        probe = cls.__new__(cls)  # a bare instance: only its type matters to the registry
        assert html_renderer(probe) is not None, name


# ----------------------------------------------------------------------------- instances


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One instance of each result type that the toy family gives cheaply."""
    from croissant_lineage.findings.importers import ImportResult

    tmp = tmp_path_factory.mktemp("results")
    spec = cl.load_family(TOY / "family.json")
    lineage = cl.link(spec)
    graph = cl.LineageGraph(lineage)
    findings = cl.load_findings([TOY / "findings.yaml"])
    history = cl.snapshot_history(spec, lineage=lineage, item="toy-pro:105")
    lineage.write(tmp / "lineage")
    return {
        "Lineage": lineage,
        "Relatives": cl.relatives_of(graph, "toy-pro:101"),
        "Queue": cl.route(graph, findings[0]),
        "FamilyReport": cl.family_report(graph, findings),
        "Finding": findings[0],
        "ImportResult": ImportResult("toy", list(findings), {"wrong_key": 2}, {"wrong_key": 2}),
        "Corrections": cl.apply_corrections(graph, findings, dataset="toy-pro"),
        "HistoryReport": history,
        "SnapshotDiff": history.diffs[0],
        "TranslationReport": cl.verify_translations(lineage),
        "ValidationReport": cl.validate(TOY / "toy-base" / "croissant.json"),
        "ProvResult": cl.write_prov(tmp / "lineage", tmp / "toy.ttl", time=0),
        "EnrichResult": cl.enrich_file(
            TOY / "toy-base" / "croissant.json", tmp / "enriched.json", derived_from=["https://example.org/parent"]
        ),
        "FamilyPicture": cl.family_picture(graph, "toy-pro:101"),
    }


def test_instances_give_json_ready_deterministic_dicts_and_both_views(instances: dict[str, Any]) -> None:
    for name, obj in instances.items():
        assert type(obj).__name__ == name
        first = json.dumps(obj.to_dict(), ensure_ascii=False)
        assert json.dumps(obj.to_dict(), ensure_ascii=False) == first, name
        assert isinstance(str(obj), str) and str(obj), name
        page = obj._repr_html_()
        assert page.startswith("<") and page == cl.to_html(obj), name


def test_lineage_repr_is_short_and_its_views_count(instances: dict[str, Any]) -> None:
    lineage = instances["Lineage"]
    assert repr(lineage) == "Lineage(items=65, edges=41, duplicate_groups=2, unmatched=0)"
    assert lineage.to_dict() == lineage.summary.to_dict()
    frame = lineage.to_pandas()
    assert len(frame) == lineage.edges.num_rows and list(frame.columns) == lineage.edges.column_names
    page = lineage._repr_html_()
    assert "Lineage of toy" in page and "exact 9, fuzzy 1" in page and "41 edges" in page


# ----------------------------------------------------------------------------- layers


def _imports(path: Path) -> set[str]:
    """Absolute names of the modules ``path`` imports (relative imports resolved)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def test_nothing_below_render_imports_it() -> None:
    above = {"render", "cli"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in above or rel == Path("__init__.py"):  # the public facade re-exports render
            continue
        bad = sorted(m for m in _imports(path) if m == "croissant_lineage.render" or m.startswith("croissant_lineage.render."))
        offenders += [f"{rel}: {m}" for m in bad]
    assert offenders == []


def test_importing_render_registers_views_without_matplotlib_or_mlcroissant() -> None:
    import subprocess
    import sys

    code = (
        "import sys, croissant_lineage.render\n"
        "from croissant_lineage._results import html_renderer\n"
        "from croissant_lineage.lineage.model import Lineage\n"
        "from croissant_lineage.lineage.schema import EDGES_SCHEMA, ITEMS_SCHEMA\n"
        "assert html_renderer(Lineage({}, ITEMS_SCHEMA.empty_table(), EDGES_SCHEMA.empty_table())) is not None\n"
        "print(sorted(m for m in ('matplotlib', 'mlcroissant') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"

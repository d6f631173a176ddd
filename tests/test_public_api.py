"""The public API, pinned: declared once, every exported name resolves, callables stay callables."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
import warnings
from pathlib import Path

import croissant_lineage as cl

FUNCTIONS = {
    "link", "relatives_of", "load_family", "load_items", "describe", "read_descriptor", "descriptor_for",
    "route", "apply_corrections", "family_report", "load_findings", "save_findings", "import_redux",
    "import_mmlu_pro_errata", "witness", "witness_family", "compare_snapshots", "item_history",
    "verify_translations", "verify_family_translations", "compare_family_snapshots", "carry_forward", "validate", "publish", "family_picture", "to_html",
    "enrich_descriptor", "enrich_family", "resolve", "family_graph", "generate_family",
}


def test_every_exported_name_resolves() -> None:
    for name in cl.__all__:
        assert getattr(cl, name) is not None, name


def test_functions_are_not_shadowed_by_their_modules() -> None:
    # Importing submodules named like functions must not replace the functions.
    import croissant_lineage.hub.publish
    import croissant_lineage.resolve
    import croissant_lineage.validate.card  # noqa: F401

    assert set(cl.__all__) >= FUNCTIONS
    for name in FUNCTIONS:
        assert inspect.isfunction(getattr(cl, name)), name


def test_import_does_not_load_heavy_optional_parts() -> None:
    code = "import sys, croissant_lineage; print(' '.join(m for m in ('matplotlib', 'mlcroissant') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_api_is_declared_once_and_type_checking_imports_follow_it() -> None:
    """``__all__`` derives from ``_API``; the TYPE_CHECKING imports must say the same."""
    declared = {(f"croissant_lineage.{m}", n) for m, names in cl._API.items() for n in names}
    assert sorted(cl.__all__) == sorted({n for _, n in declared} | {"__version__"})
    tree = ast.parse(Path(cl.__file__).read_text(encoding="utf-8"))
    guard = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    imported = {(node.module, a.name) for node in guard.body if isinstance(node, ast.ImportFrom) for a in node.names}
    assert imported == declared
    for module, name in sorted(declared):
        assert getattr(cl, name) is getattr(__import__(module, fromlist=[name]), name), name


def test_version_1_names_are_deprecated_aliases() -> None:
    for old, new in cl._DEPRECATED.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(cl, old) is getattr(cl, new)
        assert [w.category for w in caught] == [DeprecationWarning], old
        assert old not in cl.__all__

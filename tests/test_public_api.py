"""The public API, pinned: every exported name resolves, and callables stay callables."""

from __future__ import annotations

import inspect
import subprocess
import sys

import croissant_lineage as cl

FUNCTIONS = {
    "link", "family_of", "load_family", "load_items", "describe", "read_descriptor", "descriptor_for",
    "route", "apply_corrections", "family_report", "load_findings", "save_findings", "import_redux",
    "import_mmlu_pro_errata", "witness", "witness_family", "compare_snapshots", "item_history",
    "verify_translations", "carry_forward", "validate", "publish", "family_picture", "to_html",
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

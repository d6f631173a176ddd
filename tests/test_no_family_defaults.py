"""No family is a default in general code: every command flag and every public function that
needs a family has it named (or reads it from the lineage folder). The one exception is an
importer of a source that annotates one shipped family (MMLU-Redux, the MMLU-Pro errata): its
default is the family its source annotates."""

from __future__ import annotations

import argparse
import inspect

import croissant_lineage as cl
from croissant_lineage.cli import build_parser
from croissant_lineage.cli.flags import parsers
from croissant_lineage.family.shipped import builtin_families
from croissant_lineage.family.spec import load_family

#: Public functions whose defaults may name a shipped family: importers of that family's sources.
SOURCE_IMPORTERS = {"import_redux", "import_mmlu_pro_errata"}


def shipped_names() -> set[str]:
    """The shipped families' names and their datasets' names."""
    names = set(builtin_families())
    for family in builtin_families():
        names |= set(load_family(family).datasets)
    return names


def _names_a_family(value: object, names: set[str]) -> bool:
    return isinstance(value, str) and value in names


def test_no_flag_defaults_to_a_shipped_family_or_dataset() -> None:
    names = shipped_names()
    assert {"mmlu", "mmlu-pro", "humaneval"} <= names
    found = []
    for command, parser in parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) or action.default is argparse.SUPPRESS:
                continue
            if _names_a_family(action.default, names) and not command.startswith("findings import"):
                found.append((command, action.option_strings or action.dest, action.default))
    assert found == []


def test_no_public_function_defaults_to_a_shipped_family_or_dataset() -> None:
    names = shipped_names()
    found = []
    for name in cl.__all__:
        obj = getattr(cl, name)
        if not inspect.isfunction(obj) or name in SOURCE_IMPORTERS:
            continue
        for p in inspect.signature(obj).parameters.values():
            if _names_a_family(p.default, names):
                found.append((name, p.name, p.default))
    assert found == []


def test_the_importers_that_default_to_a_family_import_for_it() -> None:
    for name in SOURCE_IMPORTERS:
        defaults = {p.default for p in inspect.signature(getattr(cl, name)).parameters.values()}
        assert "mmlu" in defaults, name

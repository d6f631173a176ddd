"""The printed family of an item says what its key is and what each edge did, in the item's shape."""

from __future__ import annotations

from croissant_lineage.lineage.graph import relatives_of
from croissant_lineage.lineage.model import Lineage


def test_a_number_key_is_shown_by_kind_and_text_and_no_options_are_named(toy_lineage: Lineage) -> None:
    text = str(relatives_of(toy_lineage, "toy-math-perturbed:v2"))
    lines = text.splitlines()
    assert lines[2] == "  key (number): '200'"
    [edge] = [line for line in lines if line.startswith("  toy-math:")]
    assert "key recomputed" in edge and "stem edited" in edge and "options" not in edge


def test_a_code_item_names_its_tests_key_and_translated_contents(toy_lineage: Lineage) -> None:
    lines = str(relatives_of(toy_lineage, "toy-code-js:JS/0")).splitlines()
    assert lines[2] == "  key (tests): a reference solution, graded by its tests"
    [edge] = [line for line in lines if line.startswith("  toy-code:")]
    assert "tests translated" in edge and "solution translated" in edge


def test_an_option_key_keeps_its_letter_text_and_option_counts(toy_lineage: Lineage) -> None:
    lines = str(relatives_of(toy_lineage, "toy-pro:105")).splitlines()
    assert lines[2] == "  key B: '2:30'; 6 options"
    assert any("options copied 4, added 2, dropped 0" in line for line in lines)

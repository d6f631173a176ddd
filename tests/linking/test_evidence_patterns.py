"""The evidence's word patterns find what their plain statement finds.

``_CAPITALISED`` and ``_FORMULA`` look behind their first letter instead of before it (Python's
engine then skips to the characters of the leading class: twice as fast); the statements
below are the patterns as first written. Hypothesis draws texts of letters, digits, spaces
and punctuation around the word boundaries; the real-data test runs every MMLU-family text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.linking import evidence
from tests.helpers import family_item_tables

STATED = {
    "_CAPITALISED": re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Za-z]+(?![A-Za-z0-9])"),
    "_FORMULA": re.compile(r"(?<![A-Za-z0-9])[A-Za-z]+[0-9][A-Za-z0-9]*"),
}

_TEXT = st.text(alphabet=st.sampled_from([*"aAbBzZIVX019 _.-\n\t(é", "É", "实"]), max_size=30)


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


@pytest.mark.parametrize("name", sorted(STATED))
@settings(max_examples=500)
@given(text=_TEXT)
def test_same_matches_as_stated(name: str, text: str) -> None:
    assert _spans(getattr(evidence, name), text) == _spans(STATED[name], text)


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("_CAPITALISED", "Paris", ["Paris"]),
        ("_CAPITALISED", "aParis 3Paris _Paris é Paris", ["Paris", "Paris"]),  # after '_' and 'é' too
        ("_CAPITALISED", "Paris2 Pa P", ["Pa"]),
        ("_FORMULA", "H2O x1 aH2 1x2 é3 _b4", ["H2O", "x1", "aH2", "b4"]),
    ],
)
def test_examples(name: str, text: str, found: list[str]) -> None:
    assert getattr(evidence, name).findall(text) == found == STATED[name].findall(text)


@pytest.mark.realdata
@pytest.mark.slow  # ~20 s: every text of the MMLU family
def test_every_family_text(shared_data: Path) -> None:
    checked = 0
    for ds, table in family_item_tables(shared_data):
        for stem, options in zip(table.column("stem").to_pylist(), table.column("options").to_pylist(), strict=True):
            text = evidence._joined(stem, options)
            for name, stated in STATED.items():
                assert _spans(getattr(evidence, name), text) == _spans(stated, text), (ds.name, name, text[:80])
            checked += 1
    assert checked > 90_000

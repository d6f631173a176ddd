"""Roman numerals in evidence: the look-ahead pattern finds what the plain one did.

:data:`croissant_lineage.linking.evidence._ROMAN` gained a look-ahead (two numeral letters)
and :func:`~croissant_lineage.linking.evidence._roman_numbers` a pre-check, so that the
empty and one-letter matches the plain pattern allows at every word boundary (and the
function drops) are never made. The plain pattern is kept here as the reference.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.linking.evidence import _ROMAN_UNITS, _roman_numbers

_PLAIN = re.compile(r"(?<![A-Za-z0-9])(X{0,3})(IX|IV|V?I{0,3})(?![A-Za-z0-9])")


def _reference(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in _PLAIN.finditer(text):
        if len(m.group()) >= 2:
            out[m.group()] = 10 * len(m.group(1)) + _ROMAN_UNITS[m.group(2)]
    return out


@given(st.text(alphabet=st.sampled_from("XIVLCxiv aB1.-\n\u00e9"), max_size=24))
def test_roman_numbers_are_the_plain_patterns(text: str) -> None:
    assert _roman_numbers(text) == _reference(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Henry VIII and the XIX century", {"VIII": 8, "XIX": 19}),
        ("I am V", {}),
        ("IIII", {}),
        ("XXXIX.", {"XXXIX": 39}),
        ("aXI XIb II", {"II": 2}),
        ("", {}),
    ],
)
def test_roman_numbers_cases(text: str, expected: dict[str, int]) -> None:
    assert _roman_numbers(text) == expected == _reference(text)

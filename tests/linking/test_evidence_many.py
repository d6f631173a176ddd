"""Evidence of many items at once equals the evidence of each.

:func:`croissant_lineage.linking.evidence.extract_evidence_many` runs only the patterns a
text can match, told by column tests (Arrow's RE2 kernels); :func:`extract_evidence` runs
all of them on one item and stays the statement of the rules. Hypothesis draws texts
around the tests' edges (digits that are not ASCII, spelled-out numbers that become
digits, LaTeX, letter-digit formulas, Roman numerals, scale words), and the real-data test
checks every item of every MMLU-family dataset in its declared language.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.family.spec import load_family, rules_for
from croissant_lineage.linking.evidence import (
    NumberReader,
    extract_evidence,
    extract_evidence_many,
    number_reader,
)
from tests.helpers import family_item_tables

_WORDS = st.sampled_from(
    [
        "two", "thousand", "dos mil", "vingt", "1,7 millones", "\\frac", "H2O", "x1", "A4", "XIX", "Henry VIII",
        "IV", "3万", "1 000", "0,50", "\u0663\u0664", "\uff11\uff12", "\u00b2", "$3k", "1960", "NASA", "The", "Paris",
        ".", "\n", " ", "é", "Ⅻ", "million", "seventy-two", "first", "a", "1.5", "12:05",
    ]
)
_TEXT = st.one_of(st.lists(_WORDS, max_size=8).map(" ".join), st.text(max_size=12))
_ITEM = st.tuples(st.one_of(st.none(), _TEXT), st.one_of(st.none(), st.lists(_TEXT, max_size=4)))
_READERS = [
    number_reader(None), number_reader("en"), number_reader("es"), number_reader("fr"), number_reader("ja"),
    number_reader("zh-CN", (("万", 4), ("亿", 8))), number_reader("ru"),
]


@settings(max_examples=200)
@given(st.lists(_ITEM, max_size=8), st.sampled_from(_READERS))
def test_many_is_each(items: list[tuple[str | None, list[str] | None]], reader: NumberReader) -> None:
    assert extract_evidence_many(items, reader=reader) == [extract_evidence(s, o, reader=reader) for s, o in items]


def test_no_reader_and_no_items() -> None:
    assert extract_evidence_many([]) == []
    assert extract_evidence_many([("H2O at 1,000 K", ["XIX"])]) == [extract_evidence("H2O at 1,000 K", ["XIX"])]


@pytest.mark.realdata
@pytest.mark.slow  # ~40 s: every item of the MMLU family, in its declared language
def test_every_family_item(shared_data: Path) -> None:
    spec = load_family("mmlu")
    checked = 0
    for ds, table in family_item_tables(shared_data):
        items = list(zip(table.column("stem").to_pylist(), table.column("options").to_pylist(), strict=True))
        lang = ds.languages[0] if ds.languages else None
        rules = rules_for(spec.language_rules, lang)
        reader = number_reader(lang, rules.scale_words if rules else ())
        assert extract_evidence_many(items, reader=reader) == [
            extract_evidence(s, o, reader=reader) for s, o in items
        ], ds.name
        checked += len(items)
    assert checked > 90_000

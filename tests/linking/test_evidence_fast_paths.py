"""The evidence's faster spellings give what their plain statement gives.

* ``_written(number)`` (is a number of the text whose spelled-out numbers were read written
  in digits in the original?) puts the number's literal first and looks behind the digit
  before it from the literal's end; stated: ``(?<!\\d)NUMBER(?!\\d)``.
* ``_latin_share`` counts the letters left once the other characters are deleted; stated:
  ``len(findall)`` of one letter at a time.

Hypothesis draws numbers as :data:`~croissant_lineage.linking.evidence._NUMBER` finds them
(separators, non-ASCII digits) inside texts of digits, separators and letters; the
real-data test runs every MMLU-family text in its declared language (every number of the
text with its spelled-out numbers read, searched in the text as written).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from croissant_lineage.family.spec import load_family, rules_for
from croissant_lineage.linking import evidence
from croissant_lineage.linking.evidence import number_reader
from tests.helpers import family_item_tables

_LETTER = re.compile(r"[^\W\d_]")
_LATIN_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]")


def _stated_written(number: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\d)" + re.escape(number) + r"(?!\d)")


def _stated_share(sample: str) -> float:
    if sample.isascii():
        return 1.0
    letters = len(_LETTER.findall(sample))
    return len(_LATIN_LETTER.findall(sample)) / letters if letters else 1.0


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


_DIGITY = st.text(alphabet=st.sampled_from([*"0123456789 ,.x-", "\u00a0", "\u202f", "\u0663", "\uff11", "\n"]), max_size=24)


@settings(max_examples=500)
@given(source=_DIGITY, text=_DIGITY)
@example(source="1000", text="21000 1000")
@example(source="5", text="5")
@example(source="1 000", text="x1 0001 000")
@example(source="\u0663", text="\u0663\u0663 \u0663")
def test_written_finds_what_its_statement_finds(source: str, text: str) -> None:
    for number in evidence._NUMBER.findall(source):
        assert _spans(evidence._written(number), text) == _spans(_stated_written(number), text)
        assert _spans(evidence._written(number), source) == _spans(_stated_written(number), source)


@pytest.mark.parametrize(
    ("number", "text", "found"),
    [("1000", "21000 1000", True), ("1000", "21000 10000", False), ("12", "12", True), ("1.5", "1x5 21.5", False)],
)
def test_written_examples(number: str, text: str, found: bool) -> None:
    assert (evidence._written(number).search(text) is not None) is found


_SCRIPTS = st.text(alphabet=st.sampled_from([*"aZ_1 .é", "ß", "Ā", "ḁ", "ɏ", "ɐ", "实", "ж", "α", "٣", "ǅ", "\u0301"]))


@settings(max_examples=500)
@given(sample=st.one_of(_SCRIPTS, st.text(max_size=40)))
@example(sample="实质GDP")
@example(sample="1_2 é")
def test_latin_share_is_its_statement(sample: str) -> None:
    assert evidence._latin_share(sample) == _stated_share(sample)


@pytest.mark.realdata
@pytest.mark.slow  # ~30 s: every text of the MMLU family, spelled-out numbers read
def test_every_family_text(shared_data: Path) -> None:
    spec = load_family("mmlu")
    checked = numbers = 0
    for ds, table in family_item_tables(shared_data):
        lang = ds.languages[0] if ds.languages else None
        rules = rules_for(spec.language_rules, lang)
        reader = number_reader(lang, rules.scale_words if rules else ())
        for stem, options in zip(table.column("stem").to_pylist(), table.column("options").to_pylist(), strict=True):
            text = evidence._joined(stem, options)
            sample = text[: evidence._SCRIPT_SAMPLE]
            assert evidence._latin_share(sample) == _stated_share(sample), (ds.name, text[:80])
            for number in dict.fromkeys(evidence._NUMBER.findall(reader.prepare(text))):
                written = evidence._written(number).search(text)
                stated = _stated_written(number).search(text)
                assert (written and written.span()) == (stated and stated.span()), (ds.name, number, text[:80])
                numbers += 1
            checked += 1
    assert checked > 90_000
    assert numbers > 50_000


def test_readings_are_cached_per_reader() -> None:
    en, fr = number_reader("en"), number_reader("fr")
    assert evidence._readings_of(en) is evidence._readings_of(number_reader("en"))
    assert evidence._readings_of(en) is not evidence._readings_of(fr)
    # the same number read by each reader, in either order: no reader's answer leaks to the other
    assert evidence._readings(fr, "1,500") == ("1.5", "1500") and evidence._readings(en, "1,500") == ("1500",)
    assert en.readings("1,500") == ["1500"] and fr.readings("1,500") == ["1.5", "1500"]
    assert evidence._number_tokens("1,500 and 2 000", fr) == {"n:1.5~1500", "n:2000~*2"}

"""The column test of the texts ``alpha2digit`` may change.

:func:`croissant_lineage.linking.spelled_numbers.may_change` lets
:func:`~croissant_lineage.linking.evidence.extract_evidence_many` skip ``alpha2digit`` on
a text: it must be true for every text ``alpha2digit`` changes. Hypothesis draws texts of
number words (with case, plurals, hyphens, apostrophes, digits and letters around them)
and other words; ``test_evidence_many`` checks the evidence of every MMLU-family item.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from text_to_num import alpha2digit

from croissant_lineage.linking.evidence import number_reader
from croissant_lineage.linking.spelled_numbers import BELOW_THRESHOLD, VOCABULARY, may_change

#: Number words written out here, not taken from the module (a word it drops must fail).
_EN = [
    "zero", "o", "nought", "one", "first", "oneth", "two", "second", "three", "third", "four", "fourth",
    "five", "fifth", "six", "sixth", "seven", "seventh", "eight", "eighth", "nine", "ninth", "ten", "tenth",
    "eleven", "eleventh", "twelve", "twelfth", "thirteen", "thirteenth", "fourteen", "fourteenth", "fifteen",
    "fifteenth", "sixteen", "sixteenth", "seventeen", "seventeenth", "eighteen", "eighteenth", "nineteen",
    "nineteenth", "twenty", "twentieth", "thirty", "thirtieth", "fourty", "forty", "fortieth", "fourtieth",
    "fifty", "fiftieth", "sixty", "sixteeth", "seventy", "seventieth", "eighty", "eightieth", "ninety",
    "ninetieth", "hundred", "hundredth", "thousand", "thousandth", "million", "millionth", "billion",
    "billionth",
]
_OTHER = ["and", "point", "a", "half", "dozen", "minus", "plus", "someone", "often", "Tension", "X", "1st", "2", "3,5",
          "é", "İ", "ß", "_", "Ⅻ", "二", "couple", "once", "seconds", "thirds"]
_SEPARATORS = [" ", "  ", "-", "'", "\n", ", ", ".", "_", "5", "a", "é", "\u0301", "(", ""]
_WORD = st.one_of(
    st.sampled_from(_EN).flatmap(lambda w: st.sampled_from([w, w.upper(), w.title(), w + "s", w + "th", "x" + w])),
    st.sampled_from(_OTHER),
)
_TEXT = st.lists(st.tuples(_WORD, st.sampled_from(_SEPARATORS)), max_size=6).map(lambda ws: "".join(a + b for a, b in ws))


def _gate(texts: list[str]) -> list[bool]:
    found = may_change(pa.array(texts, pa.string()), "en")
    assert found is not None
    return found.to_pylist()


@settings(max_examples=400)
@given(st.lists(_TEXT, min_size=1, max_size=8))
def test_what_the_gate_passes_over_is_unchanged(texts: list[str]) -> None:
    for text, may in zip(texts, _gate(texts), strict=True):
        if not may:
            assert alpha2digit(text, "en") == text


#: The number words below alpha2digit's threshold (3), written out here too.
_BELOW = ["zero", "o", "one", "first", "two", "second"]


@pytest.mark.parametrize("word", _EN)
def test_every_word_opens_the_gate(word: str) -> None:
    texts = [f"about {word} items", f"{word.upper()}-fold", f"({word}s)", word]
    assert _gate(texts) == [word not in _BELOW] * 4  # a word below the threshold alone: passed over
    with_another = [f"{word} two", f"one, {word.upper()}s", f"{word}\n\nx ({word})", f"o-{word}"]
    assert _gate(with_another) == [True] * 4


@pytest.mark.parametrize("word", _BELOW)
def test_a_word_below_the_threshold_alone_is_left_as_written(word: str) -> None:
    alone = [f"about {word} items", f"The {word.title()}.", f"{word} or 3", f"({word}s)", f"x_{word}"]
    assert [alpha2digit(t, "en") for t in alone] == alone  # what the gate relies on
    assert _gate(alone) == [False] * len(alone)
    joined = [f"{word} three", f"{word}, one", f"{word}\ttwo", f"{word} hundred"]
    assert alpha2digit(f"{word} hundred", "en") != f"{word} hundred"
    assert _gate(joined) == [True] * len(joined)


def test_the_words_below_the_threshold_are_the_words() -> None:
    assert sorted(BELOW_THRESHOLD["en"]) == sorted(_BELOW)


def test_the_words_changed_in_sentences_open_the_gate() -> None:
    texts = ["Twenty-five percent", "the twentieth century", "zero point five", "o two", "Fourteen", "2 million"]
    assert all(alpha2digit(t, "en") != t for t in texts)
    assert _gate(texts) == [True] * len(texts)


def test_words_inside_other_words_do_not() -> None:
    texts = ["someone often wrote", "Tension is done", "the 5ten plan", "x_three", "", "onerous", "hundreds_", "éten"]
    assert _gate(texts) == [False, False, False, True, False, False, True, True]  # "éten": found, never read


def test_the_vocabulary_is_the_words() -> None:
    assert sorted(VOCABULARY["en"]) == sorted(_EN)


def test_languages_without_a_vocabulary_are_not_told() -> None:
    assert may_change(pa.array(["dos mil"], pa.string()), "es") is None


def test_prepare_many_is_prepare_each() -> None:
    texts = ["twenty one apples", "someone", "one", "Minus five", "dos mil", ""]
    for lang in ("en", "es", "ja", None):
        reader = number_reader(lang)
        assert reader.prepare_many(texts, pa.array(texts, pa.string())) == [reader.prepare(t) for t in texts]

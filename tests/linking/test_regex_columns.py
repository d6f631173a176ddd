"""Python patterns as Arrow (RE2) kernels give Python's answers.

:func:`croissant_lineage.linking.regex_columns.search_column` must say, row for row, what
``pattern.search(text) is not None`` says: for ftfy's badness heuristic (the pre-check that
lets the columnar normaliser skip ftfy), the normaliser's white space and damage patterns,
and the constructs the translation supports; constructs RE2 cannot say the same way are
refused. Hypothesis draws texts from the characters the patterns are about; every stem and
option of the MMLU family is checked in ``test_normalize_columns.py`` (one load of the data).
"""

from __future__ import annotations

import re

import pyarrow as pa
import pytest
from ftfy.badness import BADNESS_RE, MOJIBAKE_CATEGORIES
from hypothesis import given, settings
from hypothesis import strategies as st

from croissant_lineage.linking.regex_columns import (
    char_class_ranges,
    class_pattern,
    re2_pattern,
    search_column,
)

#: The characters ftfy's heuristic is written in (its categories, ranges expanded), and
#: the ASCII and white space it looks at.
_FTFY_CHARS = sorted(
    {
        chr(c)
        for chars in MOJIBAKE_CATEGORIES.values()
        for lo, hi in re.findall(r"(.)(?:-(.))?", chars)
        for c in range(ord(lo), ord(hi or lo) + 1)
    }
    | set("ÂÃÎÐØÙ€œŠš¢£Ÿž\xa0\xad®©°·»–—´²³√≈‚Äâó вЂГВРСβΆΒΓΞΟā.,?!aZ_0 \t\n\u2003\u3000")
)
_FTFY_TEXT = st.text(alphabet=st.sampled_from(_FTFY_CHARS), max_size=12)
_ANY_TEXT = st.text(max_size=12)  # every code point but surrogates (never in Arrow strings)


def _python(pattern: re.Pattern[str], texts: list[str | None]) -> list[bool | None]:
    return [None if t is None else pattern.search(t) is not None for t in texts]


def _arrow(pattern: re.Pattern[str], texts: list[str | None]) -> list[bool | None]:
    return search_column(pa.array(texts, pa.string()), pattern).to_pylist()


@settings(max_examples=300)
@given(st.lists(st.one_of(st.none(), _FTFY_TEXT, _ANY_TEXT), max_size=20))
def test_ftfy_badness_is_python_s(texts: list[str | None]) -> None:
    assert _arrow(BADNESS_RE, texts) == _python(BADNESS_RE, texts)


_PATTERNS = [
    re.compile(r"\s+"),
    re.compile(r"\w\W\d\D\S"),
    re.compile(r"^\d{1,2}-|\d\.0|\d:0\d|\d,\d{3}"),
    re.compile(r"a.b"),
    re.compile(r"a.b", re.DOTALL),
    re.compile(r"[^A-Za-z]x"),
    re.compile(r"(?:ab|c)?[é-ü]{2,3}"),
    re.compile(r"[^\s\d]\Z|\A\s", re.ASCII),
]


@pytest.mark.parametrize("pattern", _PATTERNS, ids=lambda p: p.pattern)
@given(st.lists(st.one_of(_ANY_TEXT, st.text(alphabet=st.sampled_from("abcxAé ü\n\t\u3000\u2028_1٣²-.:,0"), max_size=10))))
def test_translated_patterns_are_python_s(pattern: re.Pattern[str], texts: list[str]) -> None:
    assert _arrow(pattern, texts) == _python(pattern, texts)


@pytest.mark.parametrize(
    "pattern",
    [r"a(?=b)", r"(?<!a)b", r"(a)\1", r"a$", r"a+?", r"(?i:a)b", r"\ba"],
)
def test_what_re2_cannot_say_is_refused(pattern: str) -> None:
    with pytest.raises(ValueError):
        re2_pattern(re.compile(pattern))


@pytest.mark.parametrize("flags", [re.IGNORECASE, re.MULTILINE])
def test_flags_re2_cannot_keep_are_refused(flags: int) -> None:
    with pytest.raises(ValueError):
        re2_pattern(re.compile("a", flags))


def test_classes_leave_out_surrogates_and_spell_code_points() -> None:
    assert class_pattern([(0xD000, 0xE000)]) == "[\\x{d000}-\\x{d7ff}\\x{e000}]"
    assert class_pattern([(ord("a"), ord("c")), (ord("b"), ord("e"))]) == "[a-e]"
    digits = char_class_ranges(str.isdigit)
    assert (ord("0"), ord("9")) in digits and any(lo <= 0xB2 <= hi for lo, hi in digits)  # ² is a digit
    assert all(chr(c).isdigit() for lo, hi in digits for c in range(lo, hi + 1))

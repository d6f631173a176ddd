from __future__ import annotations

import pytest

from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_option_cased,
    normalize_stem,
    repair_text,
    was_repaired,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("What  is\nX?", "what is x?"),
        ("It’s “quoted”", "it's \"quoted\""),
        ("A\u0085B", "a b"),  # NEL inside a field is white space
        ("tab\tand\u00a0nbsp ", "tab and nbsp"),
        ("the ÕcodeÕ", "the 'code'"),  # Mac Roman apostrophe read as Latin-1
        ("ﬁne", "fine"),  # NFKC ligature
        ("en–dash — em", "en-dash - em"),
    ],
)
def test_normalize_stem_unifies_presentation(a: str, b: str) -> None:
    assert normalize_stem(a) == normalize_stem(b)


def test_normalize_stem_keeps_content() -> None:
    assert normalize_stem("x = 1") != normalize_stem("x = 2")
    assert normalize_stem(None) == ""


@pytest.mark.parametrize(
    ("damaged", "original"),
    [
        ("1.0/2", "1/2"),
        ("3/4.0", "3/4"),
        ("1:04", "1:4"),
        ("$1,000", "$1000"),
        ("2-Jan", "1/2"),
        ("12-Mar", "3/12"),
        ("Yes.", "yes"),
    ],
)
def test_normalize_option_undoes_spreadsheet_damage(damaged: str, original: str) -> None:
    assert normalize_option(damaged) == normalize_option(original)


@pytest.mark.parametrize(("a", "b"), [("1.5/2", "1/2"), ("10:45", "1:45"), ("1,2", "12"), ("2-Jan-2020", "1/2")])
def test_normalize_option_does_not_over_merge(a: str, b: str) -> None:
    assert normalize_option(a) != normalize_option(b)


@pytest.mark.parametrize(
    ("mojibake", "original"),
    [
        ("45\u00c2\u00b0", "45\u00b0"),  # Â: 0xC2, the first UTF-8 lead byte (°, £, ½ ... read as Latin-1)
        ("a \u00c2\u00a35 note", "a \u00a35 note"),
        ("\u00c2\u00bd of the cells", "\u00bd of the cells"),
        ("\u00c3\u00a9t\u00c3\u00a9", "\u00e9t\u00e9"),  # Ã: 0xC3
        ("5\u00e2\u20ac\u00b2", "5\u2032"),  # â: 0xE2, a three-byte character
        ("\u00f0\u0178\u02dc\u20ac smile", "\U0001f600 smile"),  # ð: 0xF0, a four-byte character
    ],
)
def test_utf8_read_as_latin1_keys_as_the_original(mojibake: str, original: str) -> None:
    assert normalize_stem(mojibake) == normalize_stem(original)
    assert normalize_option(mojibake) == normalize_option(original)
    assert normalize_option_cased(mojibake) == normalize_option_cased(original)
    assert repair_text(mojibake) == original and was_repaired(mojibake)

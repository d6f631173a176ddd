"""The normalisers' rules (:mod:`croissant_lineage.linking.normalize`), one at a time.

Each case asserts the exact key of one input that one rule alone decides, on the ASCII
fast path and on the Unicode path (a non-ASCII letter elsewhere in the text sends it
there), for the case-preserving and the case-folded option keys.
"""

from __future__ import annotations

import pytest

from croissant_lineage.linking.normalize import (
    normalize_option,
    normalize_option_cased,
    normalize_stem,
    repair_text,
    was_repaired,
)

E = "\u00e9"  # a non-ASCII letter that no rule touches: the Unicode path


@pytest.mark.parametrize(
    ("text", "cased"),
    [
        (None, ""),
        ("", ""),
        ("Bb", "Bb"),  # case kept
        ("  a \t b  ", "a b"),
        ("`x`", "'x'"),
        ("Paris.", "Paris"),
        ("Paris . ", "Paris"),
        ("3.5", "3.5"),
        ("No digits, here.", "No digits, here"),
        ("Box X", "Box X"),  # only dots and spaces are trimmed, before and after the patterns
        ("10 X", "10 X"),
        (".5", ".5"),  # nor is anything trimmed at the start
        # date damage: day-month back to month/day
        ("2-Jan", "1/2"),
        ("02-jan", "1/2"),
        ("12-Dec", "12/12"),
        ("31-Oct", "10/31"),
        ("123-Jan", "123-Jan"),
        ("2-Janu", "2-Janu"),
        ("x 2-Jan", "x 2-Jan"),
        # float fractions
        ("1.0/2", "1/2"),
        ("11.0 / 2", "11 / 2"),
        ("1.05/2", "1.05/2"),
        ("2.1.0/2", "2.1.0/2"),
        ("1/2.0", "1/2"),
        ("1/2.05", "1/2.05"),
        ("1/2.0.1", "1/2.0.1"),
        ("1.0/2.0", "1/2"),
        # clock damage
        ("1:04", "1:4"),
        ("12:05 pm", "12:5 pm"),
        ("1:40", "1:40"),
        ("1:045", "1:045"),
        ("123:04", "123:04"),
        ("1:2:04", "1:2:04"),
        # thousands separators
        ("$1,000", "$1000"),
        ("1,000,000", "1000000"),
        ("1,00", "1,00"),
        ("1,0000", "1,0000"),
        ("a, 100", "a, 100"),
        ("1,000.", "1000"),
        # the Unicode path: the same rules after presentation
        (f"{E}  \u201cA\u201d\u00a0b ", f"{E} \"A\" b"),
        (f"\uff12-Jan {E}", f"2-Jan {E}"),
        (f"1\u2009000 {E}.", f"1 000 {E}"),
        (f"{E} 1:04", f"{E} 1:4"),
        ("\uff12-Jan", "1/2"),
    ],
)
def test_normalize_option_cased_rule_by_rule(text: str | None, cased: str) -> None:
    assert normalize_option_cased(text) == cased
    assert normalize_option(text) == cased.casefold()
    # a key is its own key
    assert normalize_option_cased(cased) == cased


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Stra\u00dfe", "strasse"),
        ("\u0130", "i\u0307"),
        ("ABC", "abc"),
        ("\uff21\uff22", "ab"),
    ],
)
def test_normalize_option_folds_case(text: str, folded: str) -> None:
    assert normalize_option(text) == folded
    assert normalize_option(folded) == folded


def test_option_keys_settle_to_a_fixed_point() -> None:
    # case folding turns "\x80À" into text that ftfy repairs again: the key of a key is the key
    for text in ["\x80\u00c0", "\x80\u00c0 x", "A\x80\u00c0"]:
        key = normalize_option(text)
        assert normalize_option(key) == key
        stem = normalize_stem(text)
        assert normalize_stem(stem) == stem


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("`tick`", "'tick'"),
        ("A\tB\n\nC", "a b c"),
        ("\t", ""),
        ("MiXeD", "mixed"),
        (f"Stra\u00dfe {E}", f"strasse {E}"),
        (f"`tick` {E}", f"'tick' {E}"),
        (f"X\u00a0 Y {E}", f"x y {E}"),
    ],
)
def test_normalize_stem_paths(text: str, key: str) -> None:
    assert normalize_stem(text) == key


@pytest.mark.parametrize(
    ("text", "fixed"),
    [
        ("plain ascii", "plain ascii"),
        (f"caf{E}", f"caf{E}"),  # a lead-byte letter, but no mojibake: ftfy leaves it
        ("\u00ff", "\u00ff"),  # above the lead bytes
        ("5\u00e2\u20ac\u00b2", "5\u2032"),
        ("\u00c3\u00a9t\u00c3\u00a9", "\u00e9t\u00e9"),  # C3: a lead byte
    ],
)
def test_repair_text(text: str, fixed: str) -> None:
    assert repair_text(text) == fixed
    assert was_repaired(text) is (fixed != text)


@pytest.mark.parametrize("text", [None, ""])
def test_nothing_was_repaired_in_no_text(text: str | None) -> None:
    assert was_repaired(text) is False

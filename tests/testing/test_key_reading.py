"""Key reading as the readers promise it (lineage/keys.py), checked with Hypothesis.

Numbers: a sign, a currency symbol before or after, thousands commas in groups of three,
a decimal point, an exponent, a fraction of integers, a trailing ``%`` or ``.``, spaces
around the parts; anything else is not a number (None), never an exception. Two number
keys are equal within the tolerance. Set keys are equal whatever their order.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from croissant_lineage.lineage.keys import equal_numbers, parse_number, read_keys
from croissant_lineage.linking.keys_inherited import free_key_inherited
from croissant_lineage.testing.problems import number_text

_SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_CURRENCIES = "$€£¥₹"


def _text(v: Any) -> str | None:
    return None if v is None else str(v)


def _close(got: float | None, want: Fraction) -> bool:
    return got is not None and abs(Fraction(got) - want) <= abs(want) * Fraction(1, 10**12) + Fraction(1, 10**15)


def _grouped(n: int) -> str:
    return f"{n:,}"


@st.composite
def written_numbers(draw: st.DrawFn) -> tuple[str, Fraction]:
    """A number written in one of the promised forms, and its exact value."""
    whole = draw(st.integers(0, 10**9))
    decimals = draw(st.sampled_from(["", "0", "5", "25", "125", "000"]))
    value = Fraction(f"{whole}.{decimals}") if decimals else Fraction(whole)
    grouped = draw(st.booleans()) and whole >= 1000
    body = _grouped(whole) if grouped else str(whole)
    if decimals:
        body += "." + decimals
    elif draw(st.booleans()):
        body += "."  # "12." is 12
    exponent = draw(st.none() | st.integers(-3, 3)) if not grouped else None
    if exponent is not None:
        body = body.rstrip(".") + draw(st.sampled_from(["e", "E"])) + draw(st.sampled_from(["", "+"] if exponent >= 0 else [""])) + str(exponent)
        value *= Fraction(10) ** exponent
    if draw(st.booleans()):
        body += draw(st.sampled_from(["%", " %"]))  # "50%" is 50
    space = draw(st.sampled_from(["", " "]))
    currency = draw(st.sampled_from(["", *_CURRENCIES]))
    before = draw(st.booleans())
    if currency:
        body = f"{currency}{space}{body}" if before else f"{body}{space}{currency}"
    sign = draw(st.sampled_from(["", "-", "+", "\u2212"]))
    if sign:
        body = f"{sign}{draw(st.sampled_from(['', ' ']))}{body}"
        value = -value if sign in ("-", "\u2212") else value
    pad = draw(st.sampled_from(["", " ", "  "]))
    return f"{pad}{body}{pad}", value


@_SETTINGS
@given(written_numbers())
@example(("1,000", Fraction(1000)))
@example(("$18", Fraction(18)))
@example(("18.0", Fraction(18)))
@example(("1e3", Fraction(1000)))
@example(("-2.5", Fraction(-5, 2)))
@example(("50%", Fraction(50)))
@example(("$-18", Fraction(-18)))
@example(("12.", Fraction(12)))
def test_numbers_in_every_promised_form(case: tuple[str, Fraction]) -> None:
    text, value = case
    assert _close(parse_number(text), value), text


@_SETTINGS
@given(st.integers(-10**6, 10**6), st.integers(1, 10**6), st.sampled_from(["/", " / ", "/ "]), st.sampled_from(["", " "]))
@example(3, 4, "/", "")
@example(-3, 4, "/", "")
def test_fractions_of_integers(num: int, den: int, slash: str, pad: str) -> None:
    text = f"{pad}{'-' if num < 0 else ''}{abs(num)}{slash}{den}{pad}"
    assert _close(parse_number(text), Fraction(num, den)), text


@pytest.mark.parametrize(
    "text",
    ["", " ", "$", "€", "-$", "$ ", "%", ".", "-", "abc", "1,00", "12,3456", "1 000", "1/0", "1/2/3",
     "inf", "-inf", "nan", "1e999", "3.5/2", "--5", "(5)", "five"],
)
def test_not_numbers_are_none(text: str) -> None:
    assert parse_number(text) is None


@_SETTINGS
@given(st.text(max_size=30))
def test_any_text_is_a_number_or_none(text: str) -> None:
    got = parse_number(text)
    assert got is None or (isinstance(got, float) and np.isfinite(got))


@_SETTINGS
@given(st.fractions(min_value=-10**6, max_value=10**6, max_denominator=50), st.integers(0, 9))
def test_the_generator_s_forms_read_as_their_value(value: Fraction, form: int) -> None:
    text = number_text(value, form)
    got = parse_number(text)
    assert got is not None, text
    assert equal_numbers(got, float(value), 1e-6), text


@_SETTINGS
@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(1e-6, 10, allow_nan=False),
    st.floats(-0.99, 0.99),
)
def test_equal_within_the_tolerance(a: float, tolerance: float, share: float) -> None:
    assert equal_numbers(a, a + share * tolerance, tolerance)
    apart = tolerance * 1.01 + 1e-8 * abs(a) + 1e-6
    assert not equal_numbers(a, a + apart, tolerance)
    assert not equal_numbers(a, a - apart, tolerance)


def _set_items(values: list[Any], separator: str | None) -> pa.Table:
    cols = read_keys("set", n=len(values), raw_keys=values, solutions=None, tests=None, pattern=None,
                     separator=separator, as_text=_text)
    return pa.table(cols)


_answer = st.text(alphabet="abcdefxyz0123456789 ", min_size=1, max_size=8).filter(lambda s: s.strip() != "")


def _inherited(*args: Any, **kwargs: Any) -> list[bool | None] | None:
    """``free_key_inherited`` as a list (it gives an Arrow array, or None)."""
    same = free_key_inherited(*args, **kwargs)
    return None if same is None else list(same.to_pylist())


@_SETTINGS
@given(st.lists(_answer, min_size=1, max_size=6, unique_by=lambda s: " ".join(s.split())), st.randoms(use_true_random=False))
def test_set_keys_ignore_order(answers: list[str], rnd: Any) -> None:
    shuffled = list(answers)
    rnd.shuffle(shuffled)
    as_list, as_text = _set_items([answers], None), _set_items(["|".join(shuffled)], "|")
    assert sorted(as_list.column("key_answers")[0].as_py()) == sorted(a.strip() for a in answers)
    assert sorted(as_text.column("key_answers")[0].as_py()) == sorted(a.strip() for a in answers)
    same = _inherited(as_text, as_list, np.array([0]), np.array([0]), tolerance=0.0, translated=False)
    assert same == [True]


def test_a_set_that_differs_is_not_inherited() -> None:
    child, parent = _set_items([["12", "twelve"]], None), _set_items(["twelve|13"], "|")
    assert _inherited(child, parent, np.array([0]), np.array([0]), tolerance=0.0, translated=False) == [False]


@_SETTINGS
@given(st.integers(-10**6, 10**6), st.integers(0, 4), st.integers(0, 4))
def test_number_keys_in_two_forms_are_inherited(value: int, form_a: int, form_b: int) -> None:
    def table(text: str) -> pa.Table:
        return pa.table(read_keys("number", n=1, raw_keys=[f"So it is.\n#### {text}"], solutions=None, tests=None,
                                  pattern=r"####\s*(.+)$", separator=None, as_text=_text))

    a, b = table(number_text(Fraction(value), form_a)), table(number_text(Fraction(value), form_b))
    assert _inherited(a, b, np.array([0]), np.array([0]), tolerance=1e-6, translated=False) == [True]
    c = table(number_text(Fraction(value + 1), form_b))
    assert _inherited(a, c, np.array([0]), np.array([0]), tolerance=1e-6, translated=True) == [False]

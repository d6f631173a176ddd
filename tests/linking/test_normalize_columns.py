"""The columnar normalisers equal the plain-Python reference.

:mod:`croissant_lineage.linking.normalize_columns` must give, row for row, what
:mod:`croissant_lineage.linking.normalize` gives one text at a time: on Hypothesis texts
drawn to hit the ASCII fast path, its boundaries (``\\x1c``-``\\x1f``, NEL, no-break
space, backticks, trailing dots) and the reference's rows (non-ASCII, digits and the
spreadsheet damage), on hand-picked boundary cases, and on every stem and option of the
MMLU family.
"""

from __future__ import annotations

from pathlib import Path
from unittest.mock import patch

import pyarrow as pa
import pytest
from ftfy.badness import BADNESS_RE, is_bad
from hypothesis import given
from hypothesis import strategies as st

from croissant_lineage.linking import normalize_columns
from croissant_lineage.linking.normalize import (
    _MOJIBAKE_LEAD,
    _TRANSLATE,
    normalize_option,
    normalize_option_cased,
    normalize_stem,
    repair_text,
)
from croissant_lineage.linking.normalize_columns import (
    normalize_option_columns,
    normalize_options_column,
    normalize_stems_column,
    repair_may_change,
)
from croissant_lineage.linking.regex_columns import search_column

#: Characters the rules treat specially (white space Python and RE2 disagree on, the
#: translated quotes and dashes, ligatures, Mac Roman's Õ, a mojibake lead byte, ß).
_SPECIAL = (
    " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u200b\u2028\u3000`'\".,:/$-"
    "\u2018\u2019\u201c\u201d\u2013\u2014\u2212\ufb01\u00d5\u00c3\u00a9\u00df\u0130K"
    # mojibake material (C1 controls, ftfy's "bad" signs, Â), case folding that leaves NFKC
    # (ǰ), combining marks, Kelvin and long s, digits that are not ASCII (Arabic-Indic, ²)
    "\x80\x93\u00c2\u00c0\u00a4\u00ac\u20ac\u01f0\u0301\u212a\u017f\u0663\u00b2"
)
_PIECES = st.sampled_from(
    [
        "1.0/2", "3/4.0", "1:04", "$1,000", "2-Jan", "12-mar", "Yes.", " . ", "â€™", "Ã©", "1,2", "10:45", "ﬁ",
        "1,0000", "2-Janx", "x1.05", "0.0", "1:0", "12-MAR", "123-Jan", "1 / 2", ".0", ",000", "3-", "-Dec",
    ]
)
_TEXT = st.lists(
    st.one_of(
        st.text(alphabet=st.sampled_from(_SPECIAL + "abcXYZ0123456789"), max_size=6),
        st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=6),
        st.text(max_size=4),
        _PIECES,
    ),
    max_size=5,
).map("".join)
_TEXTS = st.lists(st.one_of(st.none(), _TEXT), max_size=30)


def _stems(values: list[str | None]) -> list[str]:
    return normalize_stems_column(pa.array(values, pa.string())).to_pylist()


def _options(values: list[str | None]) -> tuple[list[str], list[str]]:
    cased, folded = normalize_option_columns(pa.array(values, pa.string()))
    return cased.to_pylist(), folded.to_pylist()


@given(_TEXTS)
def test_stems_column_is_the_reference(values: list[str | None]) -> None:
    assert _stems(values) == [normalize_stem(v) for v in values]


@given(_TEXTS)
def test_option_columns_are_the_reference(values: list[str | None]) -> None:
    cased, folded = _options(values)
    assert cased == [normalize_option_cased(v) for v in values]
    assert folded == [normalize_option(v) for v in values]


@given(st.lists(st.one_of(st.none(), st.lists(st.one_of(st.none(), _TEXT), max_size=5)), max_size=12), st.integers(0, 3))
def test_options_column_keeps_the_lists_shape(lists: list[list[str | None] | None], start: int) -> None:
    array = pa.array(lists, pa.list_(pa.string()))[start:]  # a slice: offsets not starting at 0
    cased, folded = normalize_options_column(array)
    expected = lists[start:]
    assert cased.to_pylist() == [None if o is None else [normalize_option_cased(x) for x in o] for o in expected]
    assert folded.to_pylist() == [None if o is None else [normalize_option(x) for x in o] for o in expected]


@pytest.mark.parametrize(
    "text",
    [
        None, "", " ", "\x1c", "a\x1cb", "a\x1d\x1e\x1fb ", " \t\n\x0b\x0cX\r",  # str.split() white space
        "a\x85b", "a\xa0b", "a\u200bb", "a\u2028b",  # non-ASCII white space: the reference's rows
        "ﬁne", "ﬀ", "Ⅻ", "ｆｕｌｌ", "Straße", "İstanbul",  # NFKC, ligatures, casefold != lower
        "the ÕcodeÕ", "Õ", "caf\u00c3\u00a9", "5â€²",  # Mac Roman, mojibake
        "1.0/2", "3/4.0", "1:04", "$1,000", "2-Jan", "12-Mar", "1,2", "10:45", "2-Jan-2020", "1.5/2",
        "Yes.", "Paris . ", ". .", "...", "`x`", "MiXeD Case",
        "1,0000", "x1.05", "1:0", "123-Jan", "2-Jan ", " 2-Jan.", "3.0.", "1.0 /2", "12:05:07", "7", "2.50",
        # the columnar non-ASCII path: a key that moves again (ftfy on the folded key), NFKC
        # after casefold, a removed zero-width space joining a combining mark, Unicode digits
        "\x80\u00c0", "\u01f0 x", "e\u200b\u0301", "Caf\u00e9 \u2019s 1.0/2", "\u0661\u0662-Jan", "\u0663.0/2",
        "\u00b2,000", "\u00e9 1,000.", "d\u00e9j\u00e0\u00a0\u00a0vu . ", "\u212a\u017f \u00e9", "caf\u00c3\u00a9 \u2013 5\u00e2\u20ac\u00b2",
    ],
)
def test_boundary_cases(text: str | None) -> None:
    assert _stems([text]) == [normalize_stem(text)]
    assert _options([text]) == ([normalize_option_cased(text)], [normalize_option(text)])


def test_ascii_separators_are_white_space() -> None:
    """RE2's ``\\s`` does not match ``\\x1c``-``\\x1f``; Python's ``str.split()`` does."""
    assert _stems(["a\x1cb\x1d c\x1e\x1fd"]) == ["a b c d"]


def test_chunked_and_non_string_input() -> None:
    chunked = pa.chunked_array([["A  b", None], ["ﬁ"]], pa.string())
    assert normalize_stems_column(chunked).to_pylist() == ["a b", "", "fi"]
    assert normalize_stems_column(pa.chunked_array([], pa.string())).to_pylist() == []
    assert normalize_stems_column(pa.array(["X"], pa.large_string())).to_pylist() == ["x"]


@given(_TEXTS)
def test_repair_may_change_covers_every_repair(values: list[str | None]) -> None:
    """Where the mask is false the reference's repair is the identity; the mask is exactly
    "a lead byte read as Latin-1, and ftfy's heuristic finds mojibake"."""
    mask = repair_may_change(pa.array(values, pa.string())).to_pylist()
    for text, may in zip(values, mask, strict=True):
        assert may == (text is not None and _MOJIBAKE_LEAD.search(text) is not None and is_bad(text))
        if not may:
            assert text is None or repair_text(text) == text


@given(_TEXTS)
def test_repair_may_change_is_the_same_by_re2_and_by_python(values: list[str | None]) -> None:
    """ftfy's heuristic for few texts (Python's pattern) and for many (RE2's) agree."""
    column = pa.array(values, pa.string())
    with patch.object(normalize_columns, "PYTHON_BAD_ROWS", 0):
        by_re2 = repair_may_change(column).to_pylist()
    with patch.object(normalize_columns, "PYTHON_BAD_ROWS", 1 << 30):
        assert repair_may_change(column).to_pylist() == by_re2


@given(_TEXTS)
def test_without_re2_forms_every_non_ascii_row_is_the_reference(values: list[str | None]) -> None:
    """The fallback when ftfy's pattern has no RE2 form: the reference on every such row."""
    with patch.object(normalize_columns, "_rules", lambda: None):
        assert _stems(values) == [normalize_stem(v) for v in values]
        cased, folded = _options(values)
    assert cased == [normalize_option_cased(v) for v in values]
    assert folded == [normalize_option(v) for v in values]


@pytest.mark.realdata
@pytest.mark.slow  # ~40 s: every MMLU-family stem and option (the suite marks tests over 10 s slow)
def test_every_family_stem_and_option_is_the_reference(shared_data: Path) -> None:
    """Every stem and option of every MMLU-family dataset: columnar keys equal the reference's."""
    from croissant_lineage.family.spec import load_family
    from croissant_lineage.lineage.items import load_items

    spec = load_family("mmlu")
    items = options = 0
    for ds in spec.datasets.values():
        if not ds.has_items:
            continue
        table = load_items(ds, data_dir=shared_data)
        stems = table.column("stem").to_pylist()
        flat = [o for opts in table.column("options").to_pylist() for o in opts or ()]
        for texts in (stems, flat):  # ftfy's heuristic as an RE2 kernel, and the mask built on it
            column = pa.array(texts, pa.string())
            assert search_column(column, BADNESS_RE).to_pylist() == [
                None if t is None else is_bad(t) for t in texts
            ], ds.name
            assert repair_may_change(column).to_pylist() == [
                t is not None and _MOJIBAKE_LEAD.search(t) is not None and is_bad(t) for t in texts
            ], ds.name
        assert normalize_stems_column(table.column("stem")).to_pylist() == [normalize_stem(s) for s in stems], ds.name
        opts = table.column("options").to_pylist()
        cased, folded = normalize_options_column(table.column("options"))
        assert cased.to_pylist() == [None if o is None else [normalize_option_cased(x) for x in o] for o in opts], ds.name
        assert folded.to_pylist() == [None if o is None else [normalize_option(x) for x in o] for o in opts], ds.name
        items += table.num_rows
        options += sum(len(o or ()) for o in opts)
    assert items > 90_000 and options > 350_000


def test_case_folding_leaves_a_stem_key_settled() -> None:
    """What ``_stem_keys`` rests on to skip the settling loop's second step, over every code
    point a presented text can hold (none of the quote and dash table, no white space but
    ``" "``): ``c.casefold()`` holds no character of the table, is ``" "`` for ``" "`` and
    else non-empty without white space, and folds to itself; and folding a text folds it
    one code point at a time."""
    table = {chr(p) for p in _TRANSLATE}
    points = [chr(p) for p in range(0x110000) if not 0xD800 <= p <= 0xDFFF]
    assert "".join(points).casefold() == "".join(c.casefold() for c in points)
    held = [c for c in points if c not in table and (c == " " or not c.isspace())]
    folds = [c.casefold() for c in held]
    assert not table & set("".join(folds))
    assert all(f.casefold() == f for f in folds)
    assert " ".casefold() == " "
    assert all(f and not any(x.isspace() for x in f) for c, f in zip(held, folds, strict=True) if c != " ")
    # the test is not empty: the table's characters and other white space were left out
    assert len(points) - len(held) == len(table) + sum(c.isspace() for c in points if c not in table) - 1


@pytest.mark.parametrize("text", ["Café  au\u00a0lait", "ﬁne ‘quotes’", "Straße", "Ⅻ — ｆｕｌｌ", "d\u00e9j\u00e0 vu. "])
def test_plain_non_ascii_texts_settle_without_the_reference(text: str) -> None:
    """Non-ASCII texts without mojibake whose keys are in NFKC (stems) or give themselves
    back after one step (options) get their keys from the columns, not the reference."""
    expected = [normalize_stem(text), ""], ([normalize_option_cased(text)], [normalize_option(text)])
    refused = AssertionError("the reference was asked")
    with (
        patch.object(normalize_columns, "normalize_stem", side_effect=refused),
        patch.object(normalize_columns, "normalize_option", side_effect=refused),
        patch.object(normalize_columns, "normalize_option_cased", side_effect=refused),
    ):
        assert (_stems([text, None]), _options([text])) == expected


@given(_TEXTS, st.integers(1, 5))
def test_repair_may_change_read_in_pieces_is_the_same(values: list[str | None], rows: int) -> None:
    """A column read a few rows at a time, in chunks or not, gives the mask of the whole."""
    whole = repair_may_change(pa.array(values, pa.string())).to_pylist()
    chunked = pa.chunked_array([pa.array(values[:3], pa.string()), pa.array(values[3:], pa.string())])
    with patch.object(normalize_columns, "REPAIR_PIECE_ROWS", rows):
        assert repair_may_change(chunked).to_pylist() == whole
        assert repair_may_change(pa.array(values, pa.large_string())).to_pylist() == whole

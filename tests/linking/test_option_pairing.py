"""Option pairing (:mod:`croissant_lineage.linking.options`).

Each test builds options whose pairing one rule alone decides: the pass order, the
key-first pairing, the first free parent, best-pair-first fuzzy pairing and its ties,
the options rewritten in place, and the figures of the diff.
"""

from __future__ import annotations

import pytest
from rapidfuzz import fuzz

from croissant_lineage.linking.normalize import normalize_option, normalize_option_cased
from croissant_lineage.linking.options import (
    NA_STRINGS,
    Alignment,
    OptionDiff,
    OptionTexts,
    align_options,
    diff_options,
    diff_texts,
    positional_diff,
)

TEN = "abcdefghij"
AT_90 = "abcdefghix"  # ratio 90 with TEN: exactly the default threshold
AT_80 = "abcdefgxyj"  # ratio 80 with TEN


def _texts(options: list[str]) -> OptionTexts:
    return OptionTexts(options, [normalize_option_cased(o) for o in options], [normalize_option(o) for o in options])


def test_invented_options_score_as_constructed() -> None:
    assert fuzz.ratio(TEN, AT_90) == 90.0
    assert fuzz.ratio(TEN, AT_80) == 80.0


# -- OptionDiff / Alignment helpers -------------------------------------------------------------


def test_option_diff_paired_counts_the_named_passes() -> None:
    d = OptionDiff((0, 1, -1, 2), 3, 1, 0, 100.0, ("bytes", "cased", None, "fuzzy"))
    assert d.paired("bytes") == 1
    assert d.paired("bytes", "cased") == 2
    assert d.paired("bytes", "cased", "fuzzy") == 3
    assert d.paired("na") == 0


def test_alignment_paired_is_the_set_of_child_indices() -> None:
    a = Alignment((0, -1, 1), ("exact", None, "exact"))
    assert a.paired("exact") == {0, 2}
    assert a.paired("fuzzy") == set()


@pytest.mark.parametrize(
    ("option_map", "child_key", "parent_key", "inherited"),
    [
        ((1, 0, 2), 0, 1, True),  # the key moved with its text
        ((0, 1, 2), 0, 0, True),
        ((0, -1), 0, 1, False),  # the child's key copies parent option 0, the parent's key was 1
        ((2, 1, 0), 0, 0, False),  # copies another option; parent key survives elsewhere
        ((-1, 1), 0, 1, False),  # the key is a new option; the parent's key is a distractor now
        ((-1, 0), 0, 1, None),  # both key texts unpaired: edited in place
        ((0, 1), None, 0, None),
        ((0, 1), 0, None, None),
        ((0, 1), 2, 0, None),  # child key past the options
        ((0, 1), 1, 1, True),  # the last option is a valid key
        ((0, 1), -1, 1, None),
    ],
)
def test_key_inherited_by_the_option_map(option_map: tuple[int, ...], child_key: int | None, parent_key: int | None,
                       inherited: bool | None) -> None:
    d = OptionDiff(option_map, 0, 0, 0, 0.0)
    assert d.key_inherited(child_key, parent_key) is inherited


# -- diff_texts / diff_options ------------------------------------------------------------------


def test_identical_options_take_the_fast_path() -> None:
    d = diff_options(["a", "b", "c"], ["a", "b", "c"])
    assert d == OptionDiff((0, 1, 2), 3, 0, 0, 100.0, ("bytes", "bytes", "bytes"))


def test_each_pass_pairs_what_it_alone_decides() -> None:
    # bytes: "Bb" and "bb" are different options (genetics), each finds its own bytes
    d = diff_options(["bb", "Bb"], ["Bb", "bb"])
    assert d.option_map == (1, 0)
    assert d.paired_by == ("bytes", "bytes")
    # cased: white space differs, case kept
    d = diff_options(["A  b", "x"], ["x", "A b"])
    assert d.option_map == (1, 0)
    assert d.paired_by == ("cased", "bytes")
    # folded: only case differs
    d = diff_options(["BB", "x"], ["x", "bb"])
    assert d.paired_by == ("folded", "bytes")
    assert d.option_map == (1, 0)
    # a cased pair beats a folded one for the same parent option
    d = diff_options(["Bb", "bB"], ["bB ", "Bb "])
    assert d.option_map == (1, 0)
    assert d.paired_by == ("cased", "cased")


@pytest.mark.parametrize("parent_na", sorted(NA_STRINGS))
def test_every_na_string_pairs_with_a_pandas_nan(parent_na: str) -> None:
    d = diff_options(["nan", "Paris"], ["Paris", parent_na.upper()])
    assert d.option_map == (1, 0)
    assert d.paired_by[0] == ("folded" if parent_na == "nan" else "na")


@pytest.mark.parametrize("parent_na", ["None", "N/A", "null", "#N/A"])
def test_na_pairs_a_nan_or_empty_child(parent_na: str) -> None:
    d = diff_options(["nan", "Paris"], ["Paris", parent_na])
    assert (d.option_map, d.paired_by) == ((1, 0), ("na", "bytes"))
    d = diff_options(["", "Paris"], ["Paris", parent_na])
    assert (d.option_map, d.paired_by) == ((1, 0), ("na", "bytes"))


def test_na_is_one_way() -> None:
    # a child "none" is text, not pandas' NaN: it pairs with no "nan" parent
    d = diff_options(["none", "Paris"], ["Paris", "nan"])
    assert (d.option_map, d.paired_by) == ((-1, 0), (None, "bytes"))
    # nor is any other child text a missing value
    d = diff_options(["zero", "Paris"], ["Paris", "None"])
    assert d.option_map == (-1, 0)
    # and a parent option that is not an NA string does not pair with "nan"
    d = diff_options(["nan", "Paris"], ["Paris", "nil"])
    assert d.option_map == (-1, 0)


def test_first_free_parent_takes_a_repeated_text() -> None:
    d = diff_options(["x", "q"], ["x", "x", "q1"])
    assert d.option_map[0] == 0


def test_an_option_used_in_an_earlier_pass_is_not_free_later() -> None:
    # "x" pairs parent 0 as bytes; "X" must fold onto parent 1, not parent 0 again
    d = diff_options(["x", "X"], ["x", "x"])
    assert d.option_map == (0, 1)
    assert d.paired_by == ("bytes", "folded")


def test_key_options_pair_with_each_other_first() -> None:
    child, two = _texts(["x", "x"]), _texts(["x", "x", "y"])
    assert diff_texts(child, two).option_map == (0, 1)
    assert diff_texts(child, two, keys=(1, 0)).option_map == (1, 0)
    assert diff_texts(child, two, keys=(0, 1)).option_map == (1, 0)
    assert diff_texts(_texts(["x", "z"]), two, keys=(0, 1)).option_map == (1, -1)
    # the child's key (index 1) takes the only parent "x"; the other child "x" is added
    assert diff_texts(_texts(["x", "x"]), _texts(["x", "y"]), keys=(1, 0)).option_map == (-1, 0)


def test_key_pairing_needs_equal_texts_and_valid_indices() -> None:
    child, parent = _texts(["x", "y"]), _texts(["y", "x"])
    assert diff_texts(child, parent, keys=(0, 0)).option_map == (1, 0)  # "x" is not "y"
    for keys in [(2, 1), (0, 2), (-1, 1), (None, 1), (0, None)]:
        assert diff_texts(child, parent, keys=keys).option_map == (1, 0)


def test_key_pairing_does_not_repair_a_key_already_paired() -> None:
    # the child key pairs parent 0 as bytes; the folded pass must not move it to parent 1
    d = diff_texts(_texts(["x"]), _texts(["x", "X"]), keys=(0, 1))
    assert d.option_map == (0,)
    assert d.paired_by == ("bytes",)


def test_key_pairing_skips_a_used_parent_key() -> None:
    # parent key 0 is taken as bytes by child 1; in the folded pass child 0 ("X") must not take it
    d = diff_texts(_texts(["X", "x"]), _texts(["x"]), keys=(0, 0))
    assert d.option_map == (-1, 0)


def test_figures_of_a_diff() -> None:
    d = diff_options(["a", "b", "new"], ["a", "b", "gone", "lost"])
    assert (d.copied, d.added, d.dropped, d.score) == (2, 1, 2, 50.0)
    d = diff_options(["a", "zz"], ["a", "b", "c"])
    assert (d.copied, d.added, d.dropped, d.score) == (1, 1, 2, 33.33)
    d = diff_options(["a"], [])
    assert d == OptionDiff((-1,), 0, 1, 0, 100.0, (None,))
    d = diff_options([], ["a"])
    assert d == OptionDiff((), 0, 0, 1, 0.0, ())


def test_default_fuzzy_threshold_is_90_inclusive() -> None:
    d = diff_options(["q", TEN], [AT_90, "q"])
    assert (d.option_map, d.paired_by) == ((1, 0), ("bytes", "fuzzy"))
    d = diff_options(["q", TEN], [AT_80, "q"])
    assert (d.option_map, d.paired_by) == ((1, -1), ("bytes", None))
    assert diff_options(["q", TEN], [AT_80, "q"], fuzzy_threshold=80).option_map == (1, 0)


def test_fuzzy_compares_folded_forms() -> None:
    d = diff_options(["q", "ABCDEFGHIJ"], [AT_90.upper() + " ", "q"])
    assert d.option_map == (1, 0)


def test_fuzzy_pairs_the_best_pair_first() -> None:
    # the strongest pair (child 1, parent 1) is taken first, whatever the list order
    child = ["abcdefghiz", "abcdefghix"]
    parent = ["abcdefghiy", AT_90 + "k"]
    scores = {(i, j): fuzz.ratio(c, p) for i, c in enumerate(child) for j, p in enumerate(parent)}
    assert scores[(1, 1)] > max(scores[(0, 0)], scores[(1, 0)], scores[(0, 1)])
    d = diff_options(child, parent, fuzzy_threshold=85)
    assert d.option_map == (0, 1)
    assert d.paired_by == ("fuzzy", "fuzzy")
    # best first: a strong pair beats a weaker one that comes first in the lists
    d = diff_options([TEN], [AT_80, AT_90], fuzzy_threshold=75)
    assert d.option_map == (1,)
    assert d.dropped == 1


def test_fuzzy_ties_go_to_the_lower_indices() -> None:
    # one child, two parents at the same score: the first parent
    d = diff_options([TEN], [AT_90, "abcdefghxj"])
    assert d.option_map == (0,)
    # two children, one parent at the same score: the first child
    d = diff_options([AT_90, "abcdefghxj"], [TEN])
    assert d.option_map == (0, -1)


def test_a_fuzzy_pair_is_not_undone_by_a_weaker_one() -> None:
    # child 0 pairs parent 0 (90); its weaker pair with parent 1 (80) must not move it
    d = diff_options([TEN], [AT_90, AT_80], fuzzy_threshold=75)
    assert d.option_map == (0,)
    assert (d.copied, d.dropped) == (1, 1)
    # and a parent option is used once: the second child does not take parent 0 too
    d = diff_options([TEN, TEN + "k"], [AT_90], fuzzy_threshold=75)
    assert d.option_map.count(0) == 1


# -- align_options (snapshot history) -----------------------------------------------------------


def test_align_passes_and_defaults() -> None:
    a = align_options(["a  b", TEN], [AT_90, "a b"])
    assert a.option_map == (-1, 0)  # no white-space pass unless asked; fuzzy at 90 by default
    assert a.paired_by == (None, "fuzzy")
    a = align_options(["a  b", TEN], [AT_90, "a b"], whitespace=True)
    assert a.option_map == (1, 0)
    assert a.paired("whitespace") == {0}
    assert align_options([TEN], [AT_80]).option_map == (-1,)
    assert align_options([TEN], [AT_80], fuzzy_threshold=80).option_map == (0,)


def test_align_whitespace_pass_needs_equal_words() -> None:
    a = align_options(["foo", "x"], ["bar", "x"], whitespace=True)
    assert a.option_map == (-1, 1)
    assert a.paired_by == (None, "exact")


def test_align_fuzzy_key() -> None:
    # the raw texts are far apart, their normalised keys equal-ish
    assert align_options(["ABCDEFGHIJ"], [AT_90]).option_map == (-1,)
    a = align_options(["ABCDEFGHIJ"], [AT_90], fuzzy_key=normalize_option)
    assert a.option_map == (0,)
    assert a.paired_by == ("fuzzy",)


def test_align_in_place() -> None:
    child, parent = ["zzz", "yyy", "www"], ["aaa", "bbb"]
    assert align_options(child, parent).option_map == (-1, -1, -1)
    a = align_options(child, parent, in_place=True)
    assert a.option_map == (0, 1, -1)  # no parent option at position 2
    assert a.paired("in_place") == {0, 1}
    # a parent option already used is not taken again in place
    a = align_options(["qqq", "aaa"], ["aaa", "bbb"], in_place=True)
    assert a.option_map == (-1, 0)
    assert a.paired_by == (None, "exact")


def test_align_first_free_and_exact_first() -> None:
    a = align_options(["x", "x"], ["x", "y", "x"])
    assert a.option_map == (0, 2)
    assert a.paired("exact") == {0, 1}


# -- positional_diff ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n_child", "n_parent", "option_map", "figures"),
    [
        (3, 3, (0, 1, 2), (3, 0, 0, 100.0)),
        (4, 3, (0, 1, 2, -1), (3, 1, 0, 100.0)),
        (2, 3, (0, 1), (2, 0, 1, 66.67)),
        (1, 0, (-1,), (0, 1, 0, 100.0)),
    ],
)
def test_positional_diff(n_child: int, n_parent: int, option_map: tuple[int, ...],
                         figures: tuple[int, int, int, float]) -> None:
    d = positional_diff([f"c{i}" for i in range(n_child)], [f"p{i}" for i in range(n_parent)])
    assert d.option_map == option_map
    assert (d.copied, d.added, d.dropped, d.score) == figures
    assert d.paired_by == ()


def test_align_an_empty_option_is_not_white_space_equal_to_text() -> None:
    a = align_options(["", "a"], ["XXXX", "a"], whitespace=True)
    assert a.option_map == (-1, 1)
    assert align_options(["a  b", ""], ["a b", ""], whitespace=True).paired_by == ("whitespace", "exact")


def test_align_whitespace_pass_collapses_the_parent_too() -> None:
    a = align_options(["a b", "x"], ["x", "a  b"], whitespace=True)
    assert a.option_map == (1, 0)
    assert a.paired_by == ("whitespace", "exact")


def test_diff_texts_default_fuzzy_threshold_is_90_inclusive() -> None:
    d = diff_texts(_texts(["q", TEN]), _texts([AT_90, "q"]))
    assert (d.option_map, d.paired_by) == ((1, 0), ("bytes", "fuzzy"))


def test_align_fuzzy_key_applies_to_the_parent_too() -> None:
    a = align_options(["abcdefghij"], ["ABCDEFGHIX"], fuzzy_key=normalize_option)
    assert a.option_map == (0,)
    assert align_options(["abcdefghij"], ["ABCDEFGHIX"]).option_map == (-1,)


def test_fuzzy_goes_on_past_a_pair_already_taken() -> None:
    # pairs best first: (c0,p0) 90, (c0,p1) 80 taken already, (c1,p0) 70 taken, (c1,p1) 60
    child, parent = [TEN, "abcde##hij"], [AT_90, AT_80]
    assert [fuzz.ratio(normalize_option(c), p) for c in child for p in parent] == [90.0, 80.0, 70.0, 60.0]
    d = diff_options(child, parent, fuzzy_threshold=60)
    assert d.option_map == (0, 1)
    assert d.paired_by == ("fuzzy", "fuzzy")
